"""Token alignment: ERRANT's linguistically weighted Damerau-Levenshtein, exactly as the reference.

A match needs the exact token; a substitution costs 0 for a case-only difference, else 0.499 if
the lemmas differ + 0 / 0.25 / 0.5 for the parts of speech (same / both open-class / otherwise)
+ (1 - character similarity); insertions and deletions cost 1; a transposition of k+1 tokens
with the same lower-cased multiset costs k. Ties prefer transposition > substitution > insertion >
deletion, and the cheapest path is read back from the bottom-right corner.

Speed without changing the result:
- A common suffix is cut off: equal tokens are always a match, so the path walks up the suffix
  diagonal and the cells before it do not depend on the cells after it.
- The matrix starts a few tokens before the end of the common prefix, not at the origin: along
  the prefix the true costs of the window's top and left edges are exactly the distance from the
  diagonal, which is what the window starts with. If the path read back inside the window reaches
  an edge anywhere but the corner, the window grows backwards and the alignment is redone.
- Substitution costs are cached per pair of tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rapidfuzz.distance import Indel

from merabench.tasks.sage.tokenize import Token

OPEN_POS = frozenset({"ADJ", "ADV", "NOUN", "VERB"})
PREFIX_MARGIN = 3

# (op, o_start, o_end, c_start, c_end); op is "M", "S", "D", "I" or "T<k+1>"
Op = tuple[str, int, int, int, int]


def char_similarity(a: str, b: str) -> float:
    """Levenshtein.ratio: 1 - indel distance / total length."""
    return Indel.normalized_similarity(a, b)


@lru_cache(maxsize=500_000)
def sub_cost(o: Token, c: Token) -> float:
    if o.lower == c.lower:
        return 0.0
    lemma_cost = 0.0 if o.lemma == c.lemma else 0.499
    if o.pos == c.pos:
        pos_cost = 0.0
    elif o.pos in OPEN_POS and c.pos in OPEN_POS:
        pos_cost = 0.25
    else:
        pos_cost = 0.5
    return lemma_cost + pos_cost + (1 - char_similarity(o.text, c.text))


def _fill(orig: Sequence[Token], cor: Sequence[Token]) -> list[list[str]]:
    """The operation matrix of ERRANT's alignment (the cost matrix is only needed inside)."""
    n, m = len(orig), len(cor)
    o_low = [t.lower for t in orig]
    c_low = [t.lower for t in cor]
    o_text = [t.text for t in orig]
    c_text = [t.text for t in cor]
    cost = [[0.0] * (m + 1) for _ in range(n + 1)]
    ops = [["O"] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        cost[i][0] = cost[i - 1][0] + 1
        ops[i][0] = "D"
    for j in range(1, m + 1):
        cost[0][j] = cost[0][j - 1] + 1
        ops[0][j] = "I"
    inf = float("inf")
    for i in range(n):
        row_prev, row = cost[i], cost[i + 1]
        op_row = ops[i + 1]
        o_tok, o_txt = orig[i], o_text[i]
        for j in range(m):
            if o_txt == c_text[j]:
                row[j + 1] = row_prev[j]
                op_row[j + 1] = "M"
                continue
            del_cost = row_prev[j + 1] + 1
            ins_cost = row[j] + 1
            substitution = row_prev[j] + sub_cost(o_tok, cor[j])
            trans_cost = inf
            k = 1
            while i - k >= 0 and j - k >= 0 and cost[i - k + 1][j - k + 1] != cost[i - k][j - k]:
                if sorted(o_low[i - k:i + 1]) == sorted(c_low[j - k:j + 1]):
                    trans_cost = cost[i - k][j - k] + k
                    break
                k += 1
            best = min(trans_cost, substitution, ins_cost, del_cost)
            row[j + 1] = best
            if trans_cost == best:
                op_row[j + 1] = f"T{k + 1}"
            elif substitution == best:
                op_row[j + 1] = "S"
            elif ins_cost == best:
                op_row[j + 1] = "I"
            else:
                op_row[j + 1] = "D"
    return ops


def _read_back(ops: list[list[str]], i: int, j: int) -> tuple[list[Op], bool]:
    """The cheapest path from (i, j) to the origin, and whether it ran along an edge to get there."""
    path: list[Op] = []
    on_edge = False
    while i + j != 0:
        if (i == 0 or j == 0) and not on_edge:
            on_edge = True
        op = ops[i][j]
        if op in ("M", "S"):
            path.append((op, i - 1, i, j - 1, j))
            i, j = i - 1, j - 1
        elif op == "D":
            path.append((op, i - 1, i, j, j))
            i -= 1
        elif op == "I":
            path.append((op, i, i, j - 1, j))
            j -= 1
        else:
            k = int(op[1:])
            path.append((op, i - k, i, j - k, j))
            i, j = i - k, j - k
    path.reverse()
    return path, on_edge


def align(orig: Sequence[Token], cor: Sequence[Token]) -> list[Op]:
    """The reference's alignment of two token sequences, as (op, o_start, o_end, c_start, c_end)."""
    n, m = len(orig), len(cor)
    suffix = 0
    while suffix < min(n, m) and orig[n - 1 - suffix].text == cor[m - 1 - suffix].text:
        suffix += 1
    end_o, end_c = n - suffix, m - suffix
    prefix = 0
    while prefix < min(end_o, end_c) and orig[prefix].text == cor[prefix].text:
        prefix += 1
    margin = PREFIX_MARGIN
    while True:
        start = max(0, prefix - margin)
        ops = _fill(orig[start:end_o], cor[start:end_c])
        middle, touched_edge = _read_back(ops, end_o - start, end_c - start)
        if start == 0 or not touched_edge:
            break
        margin *= 4
    head = [("M", t, t + 1, t, t + 1) for t in range(start)]
    body = [(op, a + start, b + start, c + start, d + start) for op, a, b, c, d in middle]
    tail = [("M", end_o + t, end_o + t + 1, end_c + t, end_c + t + 1) for t in range(suffix)]
    return head + body + tail
