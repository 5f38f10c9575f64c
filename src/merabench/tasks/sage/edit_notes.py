"""How one scored SAGE edit reads to a person (`score --explain`, the report): where it is, the
whole source and corrected spans, the type the scorer gave it and, where the reference's rules
make that surprising, why. Works on the edit views the scorer writes into a row's details (plain
dicts), so the report can show them without loading the scorer."""

from __future__ import annotations

from typing import Any

from merabench.tasks.sage.edit_types import PUNCT, SPELL


def where(edit: dict[str, Any]) -> str:
    """The edit's place in the source's tokens (the span is [start, end), ERRANT's)."""
    start, end = (list(edit.get("span") or [0, 0]) + [0, 0])[:2]
    if start == end:
        return f"insert before source token {start}"
    return f"source token {start}" if end - start == 1 else f"source tokens {start}-{end - 1}"


def target_of(edit: dict[str, Any]) -> str:
    """The whole corrected span (details written before it was recorded hold only the key's correction)."""
    target = edit.get("target")
    return target if isinstance(target, str) else str(edit.get("correction", ""))


def why(edit: dict[str, Any]) -> list[str]:
    """Why the edit has its type and key, when the reference's rules make them surprising."""
    kind, original, target = edit.get("type"), str(edit.get("original", "")), target_of(edit)
    correction = str(edit.get("correction", ""))
    notes = []
    if not original or not target:
        change = "an insertion" if not original else "a deletion"
        if kind == PUNCT and any(ch.isalnum() for ch in original + target):
            notes.append(f"PUNCT: the reference types {change} as PUNCT when any of its tokens is punctuation "
                         "or whitespace, words and all")
        if not original and correction != target:
            notes.append(f"matched by its first token only: {correction!r}")
    elif correction != target:
        notes.append(f"matched as its {kind} part: {correction!r}")
    if (kind == SPELL and original and target and not any(ch.isalnum() for ch in original + target)):
        notes.append("SPELL: the reference types a change of non-ASCII punctuation (– « …) as SPELL")
    return notes


def describe(edit: dict[str, Any], limit: int | None = None) -> str:
    """`TYPE where: 'source' -> 'target'`, each text cut at `limit` characters when given."""
    def shown(text: str) -> str:
        return repr(text) if limit is None or len(text) <= limit else repr(text[:limit]) + f"… ({len(text):,} chars)"

    return f"{edit.get('type')} {where(edit)}: {shown(str(edit.get('original', '')))} -> {shown(target_of(edit))}"
