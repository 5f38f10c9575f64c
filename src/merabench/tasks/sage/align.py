"""Token alignment: ERRANT's linguistically weighted Damerau-Levenshtein, exactly as the reference.

A match needs the exact token; a substitution costs 0 for a case-only difference, else 0.499 if
the lemmas differ + 0 / 0.25 / 0.5 for the parts of speech (same / both open-class / otherwise)
+ (1 - character similarity); insertions and deletions cost 1; a transposition of k+1 tokens
with the same lower-cased multiset costs k. Ties prefer transposition > substitution > insertion >
deletion, and the cheapest path is read back from the bottom-right corner.

The reference fills the whole matrix and, in every cell, may walk the whole diagonal looking for
a transposition: cubic in the worst case. We compute the same path with less work, each step
provably exact:
- A common suffix is cut off: equal tokens are always a match, so the path walks up the suffix
  diagonal and the cells before it do not depend on the cells after it.
- The matrix starts a few tokens before the end of the common prefix: along an identical prefix
  the true costs of the window's top and left edges are exactly the distance from the diagonal,
  which is what the window starts with. If the path read back inside the window runs along an
  edge instead of reaching its corner, the window grows back and the alignment is redone.
- Only the diagonals d = j - i that a path costing at most w + 2 can visit are filled (reaching d
  takes |d| insertions or deletions, leaving it |m - n - d| more). A cell whose banded cost c has
  c + |m - n - d| <= w + 2 then has its true cost, since any path through the unfilled diagonals
  costs more; so if the whole path costs at most w and no transposition search on it looked at a
  cell beyond that bound, every choice on the path is the reference's (a candidate that could
  beat the path is within the bound, hence exact). Otherwise w doubles, ending at worst in the
  full matrix.
- The transposition search stops once k exceeds the best other candidate's cost: a longer
  transposition costs at least k and could not win.
- Substitution costs are cached per pair of token texts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from difflib import SequenceMatcher

from rapidfuzz.distance import Indel

from merabench.tasks.sage.tokenize import Token, analyze

OPEN_POS = frozenset({"ADJ", "ADV", "NOUN", "VERB"})
PREFIX_MARGIN = 3
FIRST_BAND = 6
SEGMENT_OVER = 120
ANCHOR_RUN = 4
ANCHOR_GRAM = 3
_INF = float("inf")
_FAR = 1 << 30

# (op, o_start, o_end, c_start, c_end); op is "M", "S", "D", "I" or "T<k+1>"
Op = tuple[str, int, int, int, int]

_SUB_COSTS: dict[str, dict[str, float]] = {}  # orig text -> cor text -> cost


def char_similarity(a: str, b: str) -> float:
    """Levenshtein.ratio: 1 - indel distance / total length."""
    return Indel.normalized_similarity(a, b)


def sub_cost(o: Token, c: Token) -> float:
    row = _SUB_COSTS.get(o.text)
    if row is None:
        if len(_SUB_COSTS) > 200_000:
            _SUB_COSTS.clear()
        row = _SUB_COSTS[o.text] = {}
    cost = row.get(c.text)
    if cost is None:
        if o.lower == c.lower:
            cost = 0.0
        else:
            (o_lemma, o_pos), (c_lemma, c_pos) = analyze(o.text), analyze(c.text)
            lemma_cost = 0.0 if o_lemma == c_lemma else 0.499
            if o_pos == c_pos:
                pos_cost = 0.0
            elif o_pos in OPEN_POS and c_pos in OPEN_POS:
                pos_cost = 0.25
            else:
                pos_cost = 0.5
            cost = lemma_cost + pos_cost + (1 - char_similarity(o.text, c.text))
        row[c.text] = cost
    return cost


def _fill(orig: Sequence[Token], cor: Sequence[Token], w: int | None,
          base: float = 0.0) -> tuple[list[list[str]], list[list[float]], set]:
    """ERRANT's operation and cost matrices over the band for w (the whole matrix if w is None).

    Also returns the cells whose transposition search looked at a cost that may not be exact.
    `base` is the cost the path has when it enters the corner: the reference accumulates costs
    from the origin, and ties are decided on those float sums, so a segment starts from it too.
    """
    n, m = len(orig), len(cor)
    o_low = [t.lower for t in orig]
    c_low = [t.lower for t in cor]
    o_text = [t.text for t in orig]
    c_text = [t.text for t in cor]
    shift = m - n
    if w is None:
        d_lo, d_hi, slack = -n, m, _INF
    else:
        # the diagonals a path of cost <= w + 2 can use: it pays |d| to reach one, |shift - d| to leave
        slack = base + w + 2
        spare = (w + 2 - abs(shift)) // 2
        d_lo, d_hi = min(0, shift) - spare, max(0, shift) + spare
    cost = [[_INF] * (m + 1) for _ in range(n + 1)]
    ops = [["O"] * (m + 1) for _ in range(n + 1)]
    cost[0][0] = base
    for i in range(1, min(n, -d_lo) + 1):
        cost[i][0] = cost[i - 1][0] + 1
        ops[i][0] = "D"
    for j in range(1, min(m, d_hi) + 1):
        cost[0][j] = cost[0][j - 1] + 1
        ops[0][j] = "I"
    unsafe: set = set()
    positions: dict[str, list[int]] = {}  # where each lower-cased token occurs in cor
    for j, low in enumerate(c_low):
        positions.setdefault(low, []).append(j)
    last_in_orig: dict[str, int] = {}  # the latest row where each lower-cased token occurs in orig
    for i in range(n):
        row_prev, row, op_row = cost[i], cost[i + 1], ops[i + 1]
        o_tok, o_txt, o_lw = orig[i], o_text[i], o_low[i]
        last_in_orig[o_lw] = i
        known_row = _SUB_COSTS.get(o_txt) or {}
        occurrences = positions.get(o_lw, ())
        n_occurrences = len(occurrences)
        j_first, j_stop = max(0, i + d_lo), min(m, i + 1 + d_hi)
        left = row[j_first]
        diagonal = row_prev[j_first]
        nearest, pointer = -1, 0
        for j in range(j_first, j_stop):
            up = row_prev[j + 1]
            c_txt = c_text[j]
            if o_txt == c_txt:
                left = diagonal
                row[j + 1] = left
                op_row[j + 1] = "M"
                diagonal = up
                continue
            ins_cost = left + 1
            del_cost = up + 1
            one_sided = ins_cost if ins_cost < del_cost else del_cost
            if diagonal > one_sided:  # a substitution costs at least 0: it cannot win here
                substitution = _INF
            elif (known := known_row.get(c_txt)) is not None:
                substitution = diagonal + known
            elif o_lw != c_low[j] and diagonal + 1 - char_similarity(o_txt, c_txt) > one_sided:
                # even with equal lemmas and parts of speech it would lose: skip the morphology
                substitution = _INF
            else:
                substitution = diagonal + sub_cost(o_tok, cor[j])
            other = substitution if substitution <= one_sided else one_sided
            trans_cost = _INF
            k = 1
            # a transposition ending here needs o_low[i] among c_low[j - k .. j] and c_low[j] among
            # o_low[i - k .. i], with k <= other
            while pointer < n_occurrences and occurrences[pointer] <= j:
                nearest = occurrences[pointer]
                pointer += 1
            if nearest < 0 or j - nearest > other or i - last_in_orig.get(c_low[j], -_FAR) > other:
                k = i + 1
            else:
                limit = slack - abs(shift - (j - i))  # costs up to this are exact on this diagonal
            while i - k >= 0 and j - k >= 0 and k <= other:
                here, before = cost[i - k + 1][j - k + 1], cost[i - k][j - k]
                if here > limit or before > limit:
                    unsafe.add((i + 1, j + 1))
                if here == before:
                    break
                if sorted(o_low[i - k:i + 1]) == sorted(c_low[j - k:j + 1]):
                    trans_cost = before + k
                    break
                k += 1
            if trans_cost <= other:
                left = trans_cost
                op_row[j + 1] = f"T{k + 1}"
            else:
                left = other
                op_row[j + 1] = "S" if substitution == other else ("I" if ins_cost == other else "D")
            row[j + 1] = left
            diagonal = up
    return ops, cost, unsafe


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


def _align_window(orig: Sequence[Token], cor: Sequence[Token], base: float) -> tuple[list[Op], bool, float]:
    """The exact path for a window (as if it were the whole problem), whether it touched an edge,
    and the cost at its end."""
    n, m = len(orig), len(cor)
    w: int | None = max(FIRST_BAND, abs(n - m))
    while True:
        if w is not None and w >= max(n, m):
            w = None
        ops, cost, unsafe = _fill(orig, cor, w, base)
        path, touched_edge = _read_back(ops, n, m)
        if w is None:
            return path, touched_edge, cost[n][m]
        certain = cost[n][m] - base <= w and not any((op[2], op[4]) in unsafe for op in path)
        if certain:
            return path, touched_edge, cost[n][m]
        w *= 2


def anchors(orig: Sequence[Token], cor: Sequence[Token]) -> list[tuple[int, int]]:
    """Cut points for long texts: the middles of identical runs of ANCHOR_RUN+ tokens whose middle
    ANCHOR_GRAM tokens occur once in each text (so the path cannot pass them elsewhere cheaply)."""
    o_text = [t.text for t in orig]
    c_text = [t.text for t in cor]
    blocks = SequenceMatcher(None, o_text, c_text, autojunk=False).get_matching_blocks()
    o_grams = Counter(tuple(o_text[i:i + ANCHOR_GRAM]) for i in range(len(o_text) - ANCHOR_GRAM + 1))
    c_grams = Counter(tuple(c_text[j:j + ANCHOR_GRAM]) for j in range(len(c_text) - ANCHOR_GRAM + 1))
    cuts = []
    for a, b, size in blocks:
        if size < ANCHOR_RUN:
            continue
        middle = size // 2
        first = a + middle - ANCHOR_GRAM // 2
        gram = tuple(o_text[first:first + ANCHOR_GRAM])
        if o_grams[gram] == 1 and c_grams[gram] == 1:
            cuts.append((a + middle, b + middle))
    return cuts


def align(orig: Sequence[Token], cor: Sequence[Token]) -> list[Op]:
    """The reference's alignment of two token sequences, as (op, o_start, o_end, c_start, c_end).

    Texts of more than SEGMENT_OVER tokens are aligned in segments cut at `anchors`. That is the
    one step not proven exact: it assumes the reference's path runs through the middle of a long
    identical run whose middle occurs nowhere else, which the tests check on long real texts.
    """
    if max(len(orig), len(cor)) > SEGMENT_OVER:
        cuts = anchors(orig, cor)
        if cuts:
            path: list[Op] = []
            total = 0.0
            bounds = [(0, 0), *cuts, (len(orig), len(cor))]
            for (a0, b0), (a1, b1) in zip(bounds, bounds[1:], strict=False):
                segment, total = align_exact(orig[a0:a1], cor[b0:b1], total)
                path.extend((op, a + a0, b + a0, c + b0, d + b0) for op, a, b, c, d in segment)
            return path
    return align_exact(orig, cor)[0]


def align_exact(orig: Sequence[Token], cor: Sequence[Token], base: float = 0.0) -> tuple[list[Op], float]:
    """The reference's alignment with only the provably exact shortcuts, and its total cost
    (starting from `base`, the cost already paid before these tokens)."""
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
        middle, touched_edge, total = _align_window(orig[start:end_o], cor[start:end_c], base)
        if start == 0 or not touched_edge:
            break
        margin *= 4
    head = [("M", t, t + 1, t, t + 1) for t in range(start)]
    body = [(op, a + start, b + start, c + start, d + start) for op, a, b, c, d in middle]
    tail = [("M", end_o + t, end_o + t + 1, end_c + t, end_c + t + 1) for t in range(suffix)]
    return head + body + tail, total
