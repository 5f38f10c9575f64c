"""A plain, unoptimised ERRANT alignment, written apart from the scorer's, to check it against:
the whole matrix, the transposition search walking the full diagonal, nothing cut or banded."""

from __future__ import annotations

from rapidfuzz.distance import Indel

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
