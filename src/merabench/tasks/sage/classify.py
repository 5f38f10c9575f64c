"""Typing edits as SPELL, PUNCT, CASE and YO, as the reference SAGE scorer does.

One edit can yield several typed edits (`карова` -> `Корова`: CASE `Карова` + SPELL `корова`).
- Insertion or deletion: PUNCT if any token of the span is punctuation or whitespace, else
  SPELL; the correction is only the first corrected token (inserting `, и` is PUNCT `,`).
- One token to one token, both only ASCII punctuation and spaces: PUNCT.
- One word to one word, both all lower-case or both all upper-case, no lower-case `ё`: SPELL.
- Otherwise the character edit operations decide: a replacement involving a lower-case `ё` is
  YO, the same letter in another case CASE, another letter with a case flip CASE + SPELL, any
  other operation SPELL; each type's correction is the source token with only that type's
  operations applied. (The reference keeps one position shift across the types while applying
  them; so do we.)
- Many tokens: PUNCT if every character is ASCII punctuation or a space, else SPELL with the
  corrected tokens joined by spaces and `- ` / ` -` collapsed to `-`.
So `-`->`–`, `"`->`«` and `...`->`…` are SPELL, and a capital `Ё` change is SPELL, as in the
reference.
"""

from __future__ import annotations

from string import punctuation

from rapidfuzz.distance import Levenshtein

from merabench.tasks.sage.edit_types import CASE, PUNCT, SPELL, TYPES, YO
from merabench.tasks.sage.tokenize import Token, span_text

__all__ = ["CASE", "PUNCT", "SPELL", "TYPES", "YO", "classify"]
_PUNCT_OR_SPACE = frozenset(punctuation + " ")


def _only_punct(text: str) -> bool:
    return all(ch in _PUNCT_OR_SPACE for ch in text)


def _char_types(source: str, correction: str) -> list[tuple[str, int, int, str]]:
    typed: list[tuple[str, int, int, str]] = []
    for edit in Levenshtein.editops(source, correction):
        op, s, d = edit.tag, edit.src_pos, edit.dest_pos  # by name: unpacked, an Editop's items are int | str
        if op == "replace":
            a, b = source[s], correction[d]
            if "ё" in (a, b):
                typed.append((op, s, d, YO))
            elif a.lower() == b.lower():
                typed.append((op, s, d, CASE))
            else:
                if (a.islower() and b.isupper()) or (a.isupper() and b.islower()):
                    typed.append((op, s, d, CASE))
                typed.append((op, s, d, SPELL))
        else:
            typed.append((op, s, d, SPELL))
    return typed


def _apply_by_type(source: str, correction: str, typed: list[tuple[str, int, int, str]]) -> dict[str, str]:
    strings: dict[str, str] = {}
    shift = 0
    for op, s, d, kind in typed:
        current = strings.get(kind, source)
        if kind == CASE:
            char = source[s].upper() if correction[d].isupper() else source[s].lower()
        elif op == "delete":
            char = ""
        elif op == "insert":
            char = correction[d]
        elif source[s].isupper():
            char = correction[d].upper()
        else:
            char = correction[d].lower()
        if op == "replace":
            strings[kind] = current[:s + shift] + char + current[s + shift + 1:]
        elif op == "delete":
            strings[kind] = current[:s + shift] + current[s + shift + 1:]
            shift -= 1
        else:
            strings[kind] = current[:s + shift] + char + current[s + shift:]
            shift += 1
    return strings


def _one_to_one(o: Token, c: Token) -> dict[str, str]:
    source, correction = o.text, c.text
    if _only_punct(source) and _only_punct(correction):
        return {PUNCT: correction}
    if (((source.islower() and correction.islower()) or (source.isupper() and correction.isupper()))
            and "ё" not in source + correction):
        return {SPELL: correction}
    return _apply_by_type(source, correction, _char_types(source, correction))


def classify(o_toks: tuple[Token, ...], c_toks: tuple[Token, ...]) -> list[tuple[str, str]]:
    """[(type, corrected string)] for one edit."""
    if not o_toks or not c_toks:
        side = o_toks or c_toks
        kind = PUNCT if any(t.pos in ("PUNCT", "SPACE") for t in side) else SPELL
        return [(kind, c_toks[0].text if c_toks else "")]
    if len(o_toks) == len(c_toks) == 1:
        return list(_one_to_one(o_toks[0], c_toks[0]).items())
    if _only_punct(span_text(o_toks) + span_text(c_toks)):
        return [(PUNCT, span_text(c_toks))]
    joined = " ".join(t.text for t in c_toks).replace("- ", "-").replace(" -", "-")
    return [(SPELL, joined)]
