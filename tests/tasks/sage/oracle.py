"""Plain, unoptimised versions of the SAGE stages, to check the scorer's fast ones against.

- oracle_align: ERRANT's alignment with the whole matrix, the transposition search walking the full
  diagonal, nothing cut or banded.
- oracle_merge: the reference's merge rules tried on every sub-span from the longest down, each
  check done on the spans' tokens directly (cubic in the length of a run of differences).
- spacy_tokens: spaCy's own tokenizer built as the reference builds it (spaCy is a test
  dependency only).
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import combinations
from string import punctuation

from rapidfuzz.distance import Indel

from merabench.tasks.sage.align import char_similarity
from merabench.tasks.sage.merge import group_operations
from merabench.tasks.sage.tokenize import Token

OPEN = {"ADJ", "ADV", "NOUN", "VERB"}


def substitution(o, c) -> float:
    if o.lower == c.lower:
        return 0.0
    lemma = 0.0 if o.lemma == c.lemma else 0.499
    pos = 0.0 if o.pos == c.pos else (0.25 if o.pos in OPEN and c.pos in OPEN else 0.5)
    return lemma + pos + (1 - Indel.normalized_similarity(o.text, c.text))


def oracle_align(orig, cor) -> list[tuple]:
    n, m = len(orig), len(cor)
    cost = [[0.0] * (m + 1) for _ in range(n + 1)]
    op = [["O"] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        cost[i][0], op[i][0] = cost[i - 1][0] + 1, "D"
    for j in range(1, m + 1):
        cost[0][j], op[0][j] = cost[0][j - 1] + 1, "I"
    for i in range(n):
        for j in range(m):
            if orig[i].text == cor[j].text:
                cost[i + 1][j + 1], op[i + 1][j + 1] = cost[i][j], "M"
                continue
            candidates = [float("inf"), cost[i][j] + substitution(orig[i], cor[j]), cost[i + 1][j] + 1, cost[i][j + 1] + 1]
            k = 1
            while i - k >= 0 and j - k >= 0 and cost[i - k + 1][j - k + 1] != cost[i - k][j - k]:
                if sorted(t.lower for t in orig[i - k:i + 1]) == sorted(t.lower for t in cor[j - k:j + 1]):
                    candidates[0] = cost[i - k][j - k] + k
                    break
                k += 1
            best = candidates.index(min(candidates))
            cost[i + 1][j + 1] = candidates[best]
            op[i + 1][j + 1] = (f"T{k + 1}", "S", "I", "D")[best]
    path, i, j = [], n, m
    while i + j:
        o = op[i][j]
        if o in ("M", "S"):
            path.append((o, i - 1, i, j - 1, j))
            i, j = i - 1, j - 1
        elif o == "D":
            path.append((o, i - 1, i, j, j))
            i -= 1
        elif o == "I":
            path.append((o, i, i, j - 1, j))
            j -= 1
        else:
            k = int(o[1:])
            path.append((o, i - k, i, j - k, j))
            i, j = i - k, j - k
    return path[::-1]


_TRIPLES = (["M", "D", "M"], ["M", "I", "M"], ["M", "S", "M"])
_APOSTROPHE_HYPHEN = re.compile("['-]")


def _whole(seq):
    return [("X", seq[0][1], seq[-1][2], seq[0][3], seq[-1][4])] if seq else []


def oracle_process(seq, orig, cor):
    """The reference's merge rules as it writes them: every sub-span from the longest down."""
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
            return oracle_process(before, orig, cor) + _whole(inside) + oracle_process(after, orig, cor)
        o = orig[seq[start][1]:seq[end][2]]
        c = cor[seq[start][3]:seq[end][4]]
        if window in _TRIPLES:
            if (o[start + 1].text == "-" or c[start + 1].text == "-") and len(o) != len(c):
                return oracle_process(before, orig, cor) + _whole(inside) + oracle_process(after, orig, cor)
            return seq[start + 1:end]
        if o and c and o[-1].lower == c[-1].lower:
            if (start == 0 and len(o) == 1 and c[0].text[0].isupper()) or (len(c) == 1 and o[0].text[0].isupper()):
                return _whole(inside) + oracle_process(after, orig, cor)
            if (len(o) > 1 and o[-2].text in punctuation) or (len(c) > 1 and c[-2].text in punctuation):
                return (oracle_process(seq[:end - 1], orig, cor) + _whole(seq[end - 1:end + 1])
                        + oracle_process(after, orig, cor))
        o_str = _APOSTROPHE_HYPHEN.sub("", "".join(t.lower for t in o))
        c_str = _APOSTROPHE_HYPHEN.sub("", "".join(t.lower for t in c))
        if o_str == c_str or o_str.replace(" ", "") == c_str.replace(" ", ""):
            return oracle_process(before, orig, cor) + _whole(inside) + oracle_process(after, orig, cor)
        if len(o) != len(c) and len({t.pos for t in o} | {t.pos for t in c}) == 1:
            return oracle_process(before, orig, cor) + _whole(inside) + oracle_process(after, orig, cor)
        if end - start < 2:
            if len(o) == len(c) == 2:
                return oracle_process(seq[:start + 1], orig, cor) + oracle_process(seq[start + 1:], orig, cor)
            if ((ops[start] == "S" and char_similarity(o[0].text, c[0].text) > 0.75)
                    or (ops[end] == "S" and char_similarity(o[-1].text, c[-1].text) > 0.75)):
                return oracle_process(seq[:start + 1], orig, cor) + oracle_process(seq[start + 1:], orig, cor)
    return seq


def oracle_merge(path, orig, cor) -> list[tuple[int, int, int, int]]:
    spans = []
    for kind, group in group_operations(path):
        if kind == "M":
            continue
        chosen = group if kind == "T" else oracle_process(group, orig, cor)
        spans.extend(op[1:] for op in chosen)
    return spans


@lru_cache(maxsize=1)
def _spacy_tokenizer():
    import spacy
    from spacy.tokenizer import Tokenizer
    from spacy.util import compile_infix_regex, compile_prefix_regex, compile_suffix_regex
    from spacy.vocab import Vocab

    defaults = spacy.blank("ru").Defaults
    return Tokenizer(
        Vocab(),
        prefix_search=compile_prefix_regex(list(defaults.prefixes) + [r'\\"']).search,
        suffix_search=compile_suffix_regex(list(defaults.suffixes) + [r"\\"]).search,
        infix_finditer=compile_infix_regex(list(defaults.infixes)[:-1] + [r"\]\("]).finditer,
        token_match=None,
        url_match=re.compile(r"^https?://").match,
    )


def spacy_tokens(text: str) -> tuple[Token, ...]:
    """The reference tokenizer itself: what merabench's `tokenize` must equal."""
    return tuple(Token(t.text, t.whitespace_, t.text.lower()) for t in _spacy_tokenizer()(text))
