"""Merging alignment operations into edits: the reference SAGE scorer's own rules (not ERRANT's).

Grouping: every match-edit-match triple (`M[DIS]M`, found left to right without overlap) is a
group of its own, so that a hyphen/space variant of one word can be seen whole; the remaining
operations group into runs of matches, runs of transpositions and runs of adjacent
deletions/insertions/substitutions; groups are ordered by where they start in the source.

Per group (matches are skipped, transpositions always stay split), the reference's rules, tried
on sub-spans from the longest down:
- a triple merges whole when its middle token (`o[1]` or `c[1]`) is `-` and the sides differ in
  token count; otherwise only its middle operation is an edit;
- all deletions, or all insertions, merge;
- case-only end: merges whole if it is a one-token side against a capitalised other side (only at
  the group start for the first form — the reference's operator precedence, whose second form also
  drops the operations before the span), or merges with a punctuation token just before it
  (`, ведь` -> `. Ведь`);
- spans equal once `'`, `-` (and spaces) are removed merge;
- spans of unequal length whose tokens all share one part of speech merge;
- in the smallest spans: two-to-two substitutions split, and a substitution at a span boundary
  with character similarity > 0.75 splits off.
Two rules of the reference never fire and are left out: its AUX/PART/VERB and final-determiner
rules compare spaCy's integer POS ids with strings. Its English possessive rule cannot fire either.
"""

from __future__ import annotations

import re
from itertools import combinations
from string import punctuation

from merabench.tasks.sage.align import Op, char_similarity
from merabench.tasks.sage.tokenize import Token

_TRIPLE = re.compile("M[DIS]M")
_TRIPLES = (["M", "D", "M"], ["M", "I", "M"], ["M", "S", "M"])
_APOSTROPHE_HYPHEN = re.compile("['-]")

Span = tuple[int, int, int, int]  # o_start, o_end, c_start, c_end


def group_operations(path: list[Op]) -> list[tuple[str, list[Op]]]:
    letters = "".join(op[0][0] for op in path)
    groups: list[tuple[str, list[Op]]] = []
    grouped: set[int] = set()
    for match in _TRIPLE.finditer(letters):
        groups.append(("MSM", path[match.start():match.end()]))
        grouped.update(range(match.start(), match.end()))
    rest = [i for i in range(len(path)) if i not in grouped]
    if rest:
        def kind(i: int) -> str:
            letter = path[i][0][0]
            return letter if letter in ("M", "T") else "DIS"

        current, current_kind = [path[rest[0]]], kind(rest[0])
        for previous, i in zip(rest, rest[1:], strict=False):
            this_kind = kind(i)
            if this_kind == current_kind and (i - previous == 1 or this_kind in ("M", "T")):
                current.append(path[i])
            else:
                groups.append((current_kind, current))
                current, current_kind = [path[i]], this_kind
        groups.append((current_kind, current))
    return sorted(groups, key=lambda g: g[1][0][1])  # stable: ties keep the order above


def _merged(seq: list[Op]) -> list[Op]:
    return [("X", seq[0][1], seq[-1][2], seq[0][3], seq[-1][4])] if seq else []


def _is_punct(token: Token) -> bool:
    return token.text in punctuation  # a substring test, as the reference does


def process(seq: list[Op], orig: tuple[Token, ...], cor: tuple[Token, ...]) -> list[Op]:
    if len(seq) <= 1:
        return seq
    ops = [op[0] for op in seq]
    spans = sorted(combinations(range(len(seq)), 2), key=lambda s: s[1] - s[0], reverse=True)
    for start, end in spans:
        window = ops[start:end + 1]
        if not any(t in window for t in ("D", "I", "S")):
            continue
        before, inside, after = seq[:start], seq[start:end + 1], seq[end + 1:]
        if set(window) in ({"D"}, {"I"}):
            return process(before, orig, cor) + _merged(inside) + process(after, orig, cor)
        o = orig[seq[start][1]:seq[end][2]]
        c = cor[seq[start][3]:seq[end][4]]
        if window in _TRIPLES:
            if (o[start + 1].text == "-" or c[start + 1].text == "-") and len(o) != len(c):
                return process(before, orig, cor) + _merged(inside) + process(after, orig, cor)
            return seq[start + 1:end]
        if o and c and o[-1].lower == c[-1].lower:
            if (start == 0 and len(o) == 1 and c[0].text[0].isupper()) or (len(c) == 1 and o[0].text[0].isupper()):
                return _merged(inside) + process(after, orig, cor)
            if (len(o) > 1 and _is_punct(o[-2])) or (len(c) > 1 and _is_punct(c[-2])):
                return process(seq[:end - 1], orig, cor) + _merged(seq[end - 1:end + 1]) + process(after, orig, cor)
        o_str = _APOSTROPHE_HYPHEN.sub("", "".join(t.lower for t in o))
        c_str = _APOSTROPHE_HYPHEN.sub("", "".join(t.lower for t in c))
        if o_str == c_str or o_str.replace(" ", "") == c_str.replace(" ", ""):
            return process(before, orig, cor) + _merged(inside) + process(after, orig, cor)
        if len(o) != len(c) and len({t.pos for t in o} | {t.pos for t in c}) == 1:
            return process(before, orig, cor) + _merged(inside) + process(after, orig, cor)
        if end - start < 2:
            if len(o) == len(c) == 2:
                return process(seq[:start + 1], orig, cor) + process(seq[start + 1:], orig, cor)
            if ((ops[start] == "S" and char_similarity(o[0].text, c[0].text) > 0.75)
                    or (ops[end] == "S" and char_similarity(o[-1].text, c[-1].text) > 0.75)):
                return process(seq[:start + 1], orig, cor) + process(seq[start + 1:], orig, cor)
    return seq


def merge(path: list[Op], orig: tuple[Token, ...], cor: tuple[Token, ...]) -> list[Span]:
    """Edits as token spans (o_start, o_end, c_start, c_end), in the reference's order."""
    spans: list[Span] = []
    for kind, group in group_operations(path):
        if kind == "M":
            continue
        chosen = group if kind == "T" else process(group, orig, cor)
        spans.extend(op[1:] for op in chosen)
    return spans
