"""Removal of reasoning blocks (`<think>...</think>`) before an answer is scored."""

from __future__ import annotations

import re

_BLOCK = re.compile(r"<think>.*?</think>", re.DOTALL)
_OPEN = "<think>"
_CLOSE = "</think>"


def strip_think(text: str) -> str:
    """Delete matched blocks, then an unmatched `<think>` with everything after it, then stray
    closing tags; strip the result. This is the normalisation scoring.md gives for GorillaHard,
    and what `run --strip-think` applies to every task (like lm-eval's think_end_token)."""
    text = _BLOCK.sub("", text)
    cut = text.find(_OPEN)
    if cut != -1:
        text = text[:cut]
    return text.replace(_CLOSE, "").strip()
