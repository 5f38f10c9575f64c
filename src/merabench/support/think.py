"""Removal of reasoning blocks (`<think>...</think>`) from an answer.

Tags match in any case (`<THINK>` too). Matched blocks go (shortest match, across lines), then an
unmatched `<think>` with everything after it (a trace cut off by the token limit), then stray
tags. Nothing else changes: whitespace is each task's business (GorillaHard strips the result).
SAGE and RussianRegions keep think blocks by default, as the public harness does (its filter only
turns None into "" and left-strips); `--strip-think` removes them there as an extra.
"""

from __future__ import annotations

import re

_BLOCK = re.compile(r"<think>.*?</think>", re.IGNORECASE | re.DOTALL)
_OPEN = re.compile(r"<think>", re.IGNORECASE)
_TAG = re.compile(r"</?think>", re.IGNORECASE)


def remove_think(text: str) -> str:
    if "<" not in text:  # every tag starts with it: most answers skip the three passes
        return text
    text = _BLOCK.sub("", text)
    unmatched = _OPEN.search(text)
    if unmatched:
        text = text[:unmatched.start()]
    return _TAG.sub("", text)


def has_think(text: str) -> bool:
    """Whether the answer carries a think tag (opening or closing, any case)."""
    return "<" in text and _TAG.search(text) is not None


def strip_think(text: str) -> str:
    """Think blocks removed and the result left-stripped: `--strip-think` for the text tasks
    (an extra: the public harness scores think blocks as text)."""
    return remove_think(text).lstrip()


def think_text(text: str) -> str | None:
    """The reasoning an answer carries in think blocks (matched ones, then an unmatched tail),
    joined; None when it has none."""
    if "<" not in text:
        return None
    parts = [m.group(0)[7:-8] for m in _BLOCK.finditer(text)]
    rest = _BLOCK.sub("", text)
    unmatched = _OPEN.search(rest)
    if unmatched:
        parts.append(rest[unmatched.end():])
    joined = "\n".join(p.strip() for p in parts if p.strip())
    return joined or None
