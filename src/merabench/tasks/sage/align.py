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
- Few edits: only the diagonals d = j - i that a path costing at most w + 2 can visit are filled
  (reaching d takes |d| insertions or deletions, leaving it |m - n - d| more). A cell whose banded
  cost c has c + |m - n - d| <= w + 2 then has its true cost, since any path through the unfilled
  diagonals costs more; so if the whole path costs at most w and no transposition search on it
  looked at a cell beyond that bound, every choice on the path is the reference's (a candidate
  that could beat the path is within the bound, hence exact). Otherwise w doubles. The
  transposition search stops once k exceeds the best other candidate's cost (a longer
  transposition costs at least k and could not win); substitution costs are cached per pair.
- Many edits (a token edit distance past twice the first band, or no band of BAND_CELLS cells
  holding the path) and more than PLAIN_CELLS cells: the whole matrix, vectorised with numpy
  along its anti-diagonals, all substitution costs at once, and the transposition search reduced
  to one comparison per cell (`_shortest_transpositions`). Same candidates, same float sums, same
  tie order: equal to the plain fill, which tests/tasks/sage/oracle.py keeps to check it against.
  (Past a few hundred cells it is faster than the pure-Python fill of a rewrite, whose every cell
  costs a substitution and a transposition search.)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from rapidfuzz.distance import Indel, LCSseq, Levenshtein
from rapidfuzz.process import cdist

from merabench.tasks.sage.tokenize import Token, analyze

OPEN_POS = frozenset({"ADJ", "ADV", "NOUN", "VERB"})
PREFIX_MARGIN = 3
FIRST_BAND = 6
BAND_CELLS = 20_000
PLAIN_CELLS = 400  # up to here the plain fill starts faster than the matrix
MANY_EDITS = 2.0  # a token edit distance past this many first bands goes straight to the matrix
MATRIX_CELLS = 1_500_000  # past this (a text far longer than any correction), the alignment is approximate
#: a token's characters compared by similarity: rapidfuzz holds about 64 bytes a character of the
#: longer text and takes time as the product of the lengths (a 15-million-letter token: 1 GB)
LONGEST_COMPARED = 10_000
_INF = float("inf")
_FAR = 1 << 30

# (op, o_start, o_end, c_start, c_end); op is "M", "S", "D", "I" or "T<k+1>"
Op = tuple[str, int, int, int, int]

_SUB_COSTS: dict[str, dict[str, float]] = {}  # orig text -> cor text -> cost
_SIMILARITY: dict[str, dict[str, float]] = {}  # orig text -> cor text -> char_similarity


def char_similarity(a: str, b: str) -> float:
    """Levenshtein.ratio: 1 - indel distance / total length. A token past LONGEST_COMPARED
    characters is no word (a pasted blob): the common letters of the two tokens' first
    LONGEST_COMPARED characters, over their whole lengths (a lower bound, in bounded memory)."""
    if len(a) <= LONGEST_COMPARED and len(b) <= LONGEST_COMPARED:
        return Indel.normalized_similarity(a, b)
    return 2 * LCSseq.similarity(a[:LONGEST_COMPARED], b[:LONGEST_COMPARED]) / (len(a) + len(b))


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


def _band(n: int, m: int, w: int | None, base: float) -> tuple[int, int, float]:
    """(lowest diagonal, highest diagonal, the cost up to which a cell's banded cost is exact)."""
    if w is None:
        return -n, m, _INF
    # the diagonals a path of cost <= w + 2 can use: it pays |d| to reach one, |shift - d| to leave
    shift = m - n
    spare = (w + 2 - abs(shift)) // 2
    return min(0, shift) - spare, max(0, shift) + spare, base + w + 2


def _edge_matrices(n: int, m: int, d_lo: int, d_hi: int, base: float) -> tuple[list[list[str]], list[list[float]]]:
    """The operation and cost matrices, unfilled but for the origin and the edges inside the band."""
    cost = [[_INF] * (m + 1) for _ in range(n + 1)]
    ops = [["O"] * (m + 1) for _ in range(n + 1)]
    cost[0][0] = base
    for i in range(1, min(n, -d_lo) + 1):
        cost[i][0] = cost[i - 1][0] + 1
        ops[i][0] = "D"
    for j in range(1, min(m, d_hi) + 1):
        cost[0][j] = cost[0][j - 1] + 1
        ops[0][j] = "I"
    return ops, cost


def _similarity_row(o_txt: str) -> dict[str, float]:
    """The cached character similarities of one original token (the cache is bounded)."""
    row = _SIMILARITY.get(o_txt)
    if row is None:
        if len(_SIMILARITY) > 200_000:
            _SIMILARITY.clear()
        row = _SIMILARITY[o_txt] = {}
    return row


def _fill(orig: Sequence[Token], cor: Sequence[Token], w: int | None,
          base: float = 0.0) -> tuple[list[list[str]], list[list[float]], set]:
    """ERRANT's operation and cost matrices over the band for w (the whole matrix if w is None).

    Also returns the cells whose transposition search looked at a cost that may not be exact.
    `base` is the cost the path has when it enters the corner: the reference accumulates costs
    from the origin, and ties are decided on those float sums, so a segment starts from it too.
    """
    n, m = len(orig), len(cor)
    d_lo, d_hi, slack = _band(n, m, w, base)
    ops, cost = _edge_matrices(n, m, d_lo, d_hi, base)
    fill = _RowFill(orig, cor, cost, ops, slack)
    for i in range(n):
        fill.row(i, max(0, i + d_lo), min(m, i + 1 + d_hi))
    return ops, cost, fill.unsafe


class _RowFill:
    """The band's cells filled row by row, each as the reference fills it (see `row`)."""

    def __init__(self, orig: Sequence[Token], cor: Sequence[Token], cost: list[list[float]], ops: list[list[str]],
                 slack: float) -> None:
        self.orig, self.cor, self.cost, self.ops, self.slack = orig, cor, cost, ops, slack
        self.o_low = [t.lower for t in orig]
        self.c_low = [t.lower for t in cor]
        self.c_text = [t.text for t in cor]
        self.shift = len(cor) - len(orig)
        self.unsafe: set = set()
        self.positions: dict[str, list[int]] = {}  # where each lower-cased token occurs in cor
        for j, low in enumerate(self.c_low):
            self.positions.setdefault(low, []).append(j)
        self.last_in_orig: dict[str, int] = {}  # the latest row where each lower-cased token occurs in orig

    def row(self, i: int, j_first: int, j_stop: int) -> None:
        """Row i + 1 over the columns j_first + 1 .. j_stop: a match, else the cheapest of a
        substitution, an insertion, a deletion and a transposition (ties in that order reversed)."""
        c_text, c_low, cor, last_in_orig = self.c_text, self.c_low, self.cor, self.last_in_orig
        row_prev, row, op_row = self.cost[i], self.cost[i + 1], self.ops[i + 1]
        o_tok = self.orig[i]
        o_txt, o_lw = o_tok.text, self.o_low[i]
        last_in_orig[o_lw] = i
        known_row = _SUB_COSTS.get(o_txt) or {}
        sim_row = _similarity_row(o_txt)
        occurrences = self.positions.get(o_lw, ())
        n_occurrences = len(occurrences)
        left, diagonal = row[j_first], row_prev[j_first]
        nearest, pointer = -1, 0
        for j in range(j_first, j_stop):
            up = row_prev[j + 1]
            c_txt = c_text[j]
            if o_txt == c_txt:
                left = row[j + 1] = diagonal
                op_row[j + 1] = "M"
                diagonal = up
                continue
            ins_cost, del_cost = left + 1, up + 1
            one_sided = ins_cost if ins_cost < del_cost else del_cost
            if diagonal > one_sided:  # a substitution costs at least 0: it cannot win here
                substitution = _INF
            elif (known := known_row.get(c_txt)) is not None:
                substitution = diagonal + known
            elif o_lw != c_low[j] and diagonal + 1 - (
                    sim_row[c_txt] if c_txt in sim_row else sim_row.setdefault(c_txt, char_similarity(o_txt, c_txt))
            ) > one_sided:
                # even with equal lemmas and parts of speech it would lose: skip the morphology
                substitution = _INF
            else:
                substitution = diagonal + sub_cost(o_tok, cor[j])
            other = substitution if substitution <= one_sided else one_sided
            # a transposition ending here needs o_low[i] among c_low[j - k .. j] and c_low[j] among
            # o_low[i - k .. i], with k <= other
            while pointer < n_occurrences and occurrences[pointer] <= j:
                nearest = occurrences[pointer]
                pointer += 1
            if nearest < 0 or j - nearest > other or i - last_in_orig.get(c_low[j], -_FAR) > other:
                trans_cost, k = _INF, i + 1  # as the search would end, should no cost be finite
            else:
                trans_cost, k = self.transposition(i, j, other)
            if trans_cost <= other:
                left = trans_cost
                op_row[j + 1] = f"T{k + 1}"
            else:
                left = other
                op_row[j + 1] = "S" if substitution == other else ("I" if ins_cost == other else "D")
            row[j + 1] = left
            diagonal = up

    def transposition(self, i: int, j: int, other: float) -> tuple[float, int]:
        """The reference's search for a transposition ending at cell (i + 1, j + 1), with k up to
        `other`: (its cost, k), or (inf, k) if none. Marks the cell unsafe if it looked at a cost
        past what the band keeps exact on that diagonal."""
        cost, o_low, c_low = self.cost, self.o_low, self.c_low
        limit = self.slack - abs(self.shift - (j - i))  # costs up to this are exact on this diagonal
        k = 1
        while i - k >= 0 and j - k >= 0 and k <= other:
            here, before = cost[i - k + 1][j - k + 1], cost[i - k][j - k]
            if here > limit or before > limit:
                self.unsafe.add((i + 1, j + 1))
            if here == before:
                break
            if sorted(o_low[i - k:i + 1]) == sorted(c_low[j - k:j + 1]):
                return before + k, k
            k += 1
        return _INF, k


_WEIGHT_SEED = 20251201


def _ids(*sequences: Sequence[str]) -> list[np.ndarray]:
    """Each sequence as integer ids, equal strings getting equal ids across all of them."""
    table: dict[str, int] = {}
    return [np.fromiter((table.setdefault(x, len(table)) for x in seq), dtype=np.int64, count=len(seq))
            for seq in sequences]


# lemma cost + part-of-speech cost, summed first as the reference sums them, by code: 3 if the
# lemmas differ, plus 0 for the same part of speech, 1 for two open classes, 2 otherwise
_LEMMA_AND_POS = np.array([lemma + pos for lemma in (0.0, 0.499) for pos in (0.0, 0.25, 0.5)])


def _substitution_matrix(orig: Sequence[Token], cor: Sequence[Token], low_eq: np.ndarray) -> np.ndarray:
    """sub_cost for every pair at once, with the same float operations in the same order."""
    o_an = [analyze(t.text) for t in orig]
    c_an = [analyze(t.text) for t in cor]
    o_lemma, c_lemma = _ids([a[0] for a in o_an], [a[0] for a in c_an])
    parts: dict[str, int] = {}
    o_pos, c_pos = ([parts.setdefault(a[1], len(parts)) for a in an] for an in (o_an, c_an))
    is_open = np.array([part in OPEN_POS for part in parts], dtype=np.bool_)
    pos_code = np.where(is_open[:, None] & is_open[None, :], 1, 2).astype(np.int8)
    np.fill_diagonal(pos_code, 0)
    code = np.take(pos_code[o_pos], c_pos, axis=1)  # rows, then columns: faster than one 2-d gather
    code += 3 * (o_lemma[:, None] != c_lemma[None, :]).view(np.int8)
    cost = _LEMMA_AND_POS[code]
    similarity = _similarities([t.text for t in orig], [t.text for t in cor])
    cost += np.subtract(1.0, similarity, out=similarity)
    cost[low_eq] = 0.0
    return cost


def _similarities(o_texts: list[str], c_texts: list[str]) -> np.ndarray:
    """char_similarity of every pair, by rapidfuzz at once; the rows and columns of tokens past
    LONGEST_COMPARED (given to rapidfuzz empty) one by one, as char_similarity bounds them."""
    long_o = [i for i, text in enumerate(o_texts) if len(text) > LONGEST_COMPARED]
    long_c = [j for j, text in enumerate(c_texts) if len(text) > LONGEST_COMPARED]
    clipped = ([("" if len(text) > LONGEST_COMPARED else text) for text in texts] for texts in (o_texts, c_texts))
    similarity = cdist(*clipped, scorer=Indel.normalized_similarity, dtype=np.float64)
    for i in long_o:
        similarity[i, :] = [char_similarity(o_texts[i], text) for text in c_texts]
    for j in long_c:
        similarity[:, j] = [char_similarity(text, c_texts[j]) for text in o_texts]
    return similarity


_COLLISION = -1  # a cell whose shortest window the hashes leave open: searched plainly
_MIX = np.uint64(0x9E3779B97F4A7C15)  # odd: a product by it carries every bit into the high ones


def _random_weights(size: int, stream: int) -> np.ndarray:
    return np.random.default_rng([_WEIGHT_SEED, stream, size]).integers(1, 2**63, size=size, dtype=np.uint64)


def _prefix_sums(ids: np.ndarray, weights: np.ndarray) -> np.ndarray:
    return np.concatenate([np.zeros(1, np.uint64), np.cumsum(weights[ids], dtype=np.uint64)])


def _group_hashes(po: np.ndarray, pc: np.ndarray, diagonal_weight: np.ndarray) -> np.ndarray:
    """A 64-bit hash of (diagonal, difference of the prefix sums) for every cell."""
    with np.errstate(over="ignore"):
        hashed = po[:, None] - pc[None, :]
        hashed += diagonal_weight
        hashed *= _MIX
    return hashed


def _shortest_transpositions(o_low: np.ndarray, c_low: np.ndarray) -> np.ndarray | None:
    """k for every cell (a, b), flat at a * (m + 1) + b: the least k >= 1 for which orig[a-1-k .. a-1]
    and cor[b-1-k .. b-1] hold the same lower-cased tokens in any order; 0 if none, _COLLISION if
    the hashes leave it open; None when no cell has one.

    Two windows ending on one diagonal hold the same tokens exactly when the difference of the
    prefix multisets repeats, which two sums of random 64-bit weights per token tell. All cells
    are sorted once, each as one 64-bit number: a hash of (diagonal, difference) in the high bits,
    the cell's flat index in the low ones. A group's cells then come out in row order, and the
    cell before a cell is its nearest earlier cell with the same hash. The hash is cut to the high
    bits, so a group can mix in cells of another diagonal or difference (about one pair in ten
    1,000 x 1,000 matrices): a cell whose neighbours are not truly its own is searched plainly.
    `_transpose` checks every window token by token before taking it; the one case left to chance
    is a true window passed over because a shorter false one with the same two sums did not win
    (about 2^-128 per pair)."""
    n, m = len(o_low), len(c_low)
    width = m + 1
    index_bits = ((n + 1) * width - 1).bit_length()
    vocabulary = int(max(o_low.max(initial=-1), c_low.max(initial=-1))) + 1
    sums = [(_prefix_sums(o_low, weights), _prefix_sums(c_low, weights))
            for weights in (_random_weights(vocabulary, 0), _random_weights(vocabulary, 1))]
    # row a of this view is a weight of the diagonal b - a, for b = 0..m
    diagonal_weight = np.lib.stride_tricks.sliding_window_view(_random_weights(n + m + 1, 2), width)[::-1]
    packed = _group_hashes(*sums[0], diagonal_weight)
    packed >>= np.uint64(index_bits)
    packed <<= np.uint64(index_bits)
    packed |= np.arange(packed.size, dtype=np.uint64).reshape(packed.shape)
    ordered = np.sort(packed, axis=None)
    del packed
    group = ordered >> np.uint64(index_bits)
    same = group[1:] == group[:-1]
    del group
    at = np.flatnonzero(same) + 1  # sorted positions with an earlier cell of the same group
    if not at.size:
        return None
    low_mask = np.uint64((1 << index_bits) - 1)

    def cells(positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.divmod((ordered[positions] & low_mask).astype(np.int64), width)

    def truly_same(rows: np.ndarray, cols: np.ndarray) -> np.ndarray:  # same diagonal, same sums
        out = cols - rows == col - row
        for po, pc in sums:
            out &= po[rows] - pc[cols] == po[row] - pc[col]
        return out

    row, col = cells(at)
    row1, col1 = cells(at - 1)  # the nearest earlier cell of the group
    has2 = (at >= 2) & same[np.maximum(at - 2, 0)]
    row2, col2 = cells(np.maximum(at - 2, 0))  # and the one before it
    with np.errstate(over="ignore"):
        open1, open2 = ~truly_same(row1, col1), has2 & ~truly_same(row2, col2)
    k = np.where(row - row1 >= 2, row - row1 - 1, np.where(has2, row - row2 - 1, 0))  # a window of >= 2
    k[open1 | ((row - row1 < 2) & open2)] = _COLLISION
    out = np.zeros((n + 1) * width, dtype=np.int32)
    out[row * width + col] = k
    return out if k.any() else None


def _plain_transposition(orig: Sequence[Token], cor: Sequence[Token], cost: np.ndarray, row: int, col: int) -> int:
    """The reference's own search at one cell (after a hash collision): k, or 0."""
    k = 1
    while row - 1 - k >= 0 and col - 1 - k >= 0 and cost[row - k, col - k] != cost[row - 1 - k, col - 1 - k]:
        if sorted(t.lower for t in orig[row - 1 - k:row]) == sorted(t.lower for t in cor[col - 1 - k:col]):
            return k
        k += 1
    return 0


def _same_multisets(o_low: np.ndarray, c_low: np.ndarray, o_start: np.ndarray, c_start: np.ndarray,
                    size: np.ndarray) -> np.ndarray:
    """For each window pair, whether o_low[o_start : o_start + size] and c_low[c_start : ...] hold
    the same ids in any order: both sides' windows sorted at once (each id offset by its window)."""
    window = np.repeat(np.arange(size.size), size)
    offset = np.arange(window.size) - np.repeat(np.cumsum(size) - size, size)
    span = int(max(o_low.max(initial=0), c_low.max(initial=0))) + 1
    sides = [np.sort(window * span + ids[np.repeat(starts, size) + offset])
             for ids, starts in ((o_low, o_start), (c_low, c_start))]
    return np.logical_and.reduceat(sides[0] == sides[1], np.cumsum(size) - size)


def _transpose(orig: Sequence[Token], cor: Sequence[Token], ids: tuple[np.ndarray, np.ndarray], cost: np.ndarray,
               steady: np.ndarray, rows: np.ndarray, ks: np.ndarray, total: int, at: np.ndarray, other: np.ndarray,
               won: dict[tuple[int, int], int]) -> None:
    """Where a transposition wins at the cells (rows, total - rows) of an anti-diagonal (ties go to
    it), put its cost in `other` (at their positions `at`) and its size in `won`.

    The reference walks back along the cell's diagonal and stops at the first step that kept the
    cost; so the shortest window `ks` counts only if none of the steps it spans kept the cost:
    `steady` counts those steps down each diagonal (flat, like `cost`). A window that would win is
    checked for real (the same lower-cased tokens, `ids`) before it is taken."""
    cols = total - rows
    flat = cost.ravel()
    width = cost.shape[1]
    fits = (ks > 0) & (rows - 1 - ks >= 0) & (cols - 1 - ks >= 0)
    start = np.where(fits, (rows - 1 - ks) * width + cols - 1 - ks, 0)  # the cell before the window
    trans = np.where(fits, flat[start] + ks, _INF)
    wins = np.flatnonzero((trans <= other[at]) & (steady[(rows - 1) * width + cols - 1] == steady[start]))
    unsure = wins
    if wins.size:
        k_wins = ks[wins]
        real = _same_multisets(*ids, rows[wins] - 1 - k_wins, cols[wins] - 1 - k_wins, k_wins + 1)
        taken = wins[real]
        other[at[taken]] = trans[taken]
        won.update(zip(zip(rows[taken].tolist(), cols[taken].tolist(), strict=True), (ks[taken] + 1).tolist(),
                       strict=True))
        unsure = wins[~real]  # two different windows with equal sums under both weightings
    for pos in np.concatenate([np.flatnonzero(ks == _COLLISION), unsure]).tolist():
        row, col = int(rows[pos]), int(cols[pos])
        k = _plain_transposition(orig, cor, cost, row, col)  # the hashes could not tell: the reference's search
        value = cost[row - 1 - k, col - 1 - k] + k
        if k and value <= other[at[pos]]:
            other[at[pos]] = value
            won[row, col] = k + 1


def _transposition_candidates(shortest: np.ndarray | None, match: np.ndarray
                              ) -> tuple[list[int], np.ndarray, np.ndarray]:
    """The cells where a transposition may win, by anti-diagonal: (bounds, rows, ks), the cells
    (row, total - row) of anti-diagonal `total` at [bounds[total]:bounds[total + 1]], in row order.

    Left out: the edges, exact matches (a match takes the cell whatever else is cheaper) and cells
    whose step in from (a-1, b-1) is an exact match (it kept the cost, so the reference's search
    stops before any window)."""
    n, width = match.shape[0] - 1, match.shape[1]
    if shortest is None:
        return [0] * (n + width + 1), np.zeros(0, np.int64), np.zeros(0, np.int64)
    flat = np.flatnonzero(shortest)
    rows, cols = np.divmod(flat, width)
    inside = (rows >= 1) & (cols >= 1)
    flat, rows, cols = flat[inside], rows[inside], cols[inside]
    matches = match.ravel()
    keep = ~matches[flat] & ~matches[flat - width - 1]
    flat, rows, totals = flat[keep], rows[keep], rows[keep] + cols[keep]
    order = np.argsort(totals, kind="stable")  # flat order is row order within an anti-diagonal
    bounds = np.searchsorted(totals[order], np.arange(n + width + 1)).tolist()
    return bounds, rows[order], shortest[flat[order]]


def _fill_matrix(orig: Sequence[Token], cor: Sequence[Token], base: float = 0.0
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[tuple[int, int], int]]:
    """The whole ERRANT cost matrix, vectorised along anti-diagonals: (costs, substitution costs,
    exact matches, the cells a transposition won with its size), all indexed by cell (a, b).

    Equal to the plain cell-by-cell fill: the same candidates and the same float sums; only the
    cost is kept here, and the read-back decides each cell's operation on the path by the same
    tie order (transposition, substitution, insertion, deletion) from the same sums. An
    anti-diagonal's cells, and each one's three neighbours, are strided views of the flat matrix.
    """
    n, m = len(orig), len(cor)
    width = m + 1
    o_txt, c_txt = _ids([t.text for t in orig], [t.text for t in cor])
    o_low, c_low = _ids([t.lower for t in orig], [t.lower for t in cor])
    cost = np.empty((n + 1, width))
    substitution = np.zeros((n + 1, width))
    match = np.zeros((n + 1, width), dtype=np.bool_)
    cost[:, 0] = np.add.accumulate(np.concatenate([[base], np.ones(n)]))  # one addition at a time,
    cost[0, :] = np.add.accumulate(np.concatenate([[base], np.ones(m)]))  # as the plain fill sums
    won: dict[tuple[int, int], int] = {}
    if not n or not m:
        return cost, substitution, match, won
    substitution[1:, 1:] = _substitution_matrix(orig, cor, o_low[:, None] == c_low[None, :])
    match[1:, 1:] = o_txt[:, None] == c_txt[None, :]
    bounds, rows, ks = _transposition_candidates(_shortest_transpositions(o_low, c_low), match)
    c, s, same = cost.ravel(), substitution.ravel(), match.ravel()
    # steps that kept the cost, counted down each diagonal: only needed where a window may be
    steady = np.zeros(c.size, dtype=np.int32) if rows.size else None
    up, diagonal = width, width + 1  # flat offsets of a cell's neighbours (left is 1)
    for total in range(2, n + m + 1):
        lo, hi = max(1, total - m), min(n, total - 1)
        first, stop = lo * width + total - lo, hi * width + total - hi + 1  # cells (a, total - a), step m
        diag = c[first - diagonal:stop - diagonal:m]
        other = np.minimum(c[first - 1:stop - 1:m], c[first - up:stop - up:m])
        other += 1
        np.minimum(other, diag + s[first:stop:m], out=other)
        if steady is not None and bounds[total] < bounds[total + 1]:  # no candidates, no steady
            here = rows[bounds[total]:bounds[total + 1]]
            _transpose(orig, cor, (o_low, c_low), cost, steady, here, ks[bounds[total]:bounds[total + 1]], total,
                       here - lo, other, won)
        value = np.where(same[first:stop:m], diag, other)
        c[first:stop:m] = value
        if steady is not None:
            np.add(steady[first - diagonal:stop - diagonal:m], value == diag, out=steady[first:stop:m])
    return cost, substitution, match, won


def _read_back_matrix(cost: np.ndarray, substitution: np.ndarray, match: np.ndarray,
                      won: dict[tuple[int, int], int]) -> list[Op]:
    """The path from the corner, each cell's operation decided as the plain fill decides it: an
    exact match, else a transposition that won, else substitution <= min(insertion, deletion),
    else insertion if it is that minimum, else deletion (the same float sums)."""
    i, j = cost.shape[0] - 1, cost.shape[1] - 1
    path: list[Op] = []
    while i + j != 0:
        if i and j and match[i, j]:
            op = "M"
        elif i and j and (i, j) in won:
            k = won[i, j]
            path.append((f"T{k}", i - k, i, j - k, j))
            i, j = i - k, j - k
            continue
        elif not i:
            op = "I"
        elif not j:
            op = "D"
        else:
            sub = float(cost[i - 1, j - 1]) + float(substitution[i, j])
            ins, dele = float(cost[i, j - 1]) + 1, float(cost[i - 1, j]) + 1
            one_sided = ins if ins < dele else dele
            op = "S" if sub <= one_sided else ("I" if ins == one_sided else "D")
        if op in ("M", "S"):
            path.append((op, i - 1, i, j - 1, j))
            i, j = i - 1, j - 1
        elif op == "D":
            path.append(("D", i - 1, i, j, j))
            i -= 1
        else:
            path.append(("I", i, i, j - 1, j))
            j -= 1
    path.reverse()
    return path


def align_matrix(orig: Sequence[Token], cor: Sequence[Token], base: float = 0.0) -> tuple[list[Op], float]:
    """The reference's alignment by the vectorised whole-matrix fill, and its cost."""
    cost, substitution, match, won = _fill_matrix(orig, cor, base)
    return _read_back_matrix(cost, substitution, match, won), float(cost[-1, -1])


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


def _band_cells(n: int, m: int, w: int) -> int:
    return n * min(m + 1, w + 3 + abs(m - n))


def _align_window(orig: Sequence[Token], cor: Sequence[Token], base: float) -> tuple[list[Op], bool, float]:
    """The exact path for a window (as if it were the whole problem), whether it touched an edge,
    and the cost at its end."""
    n, m = len(orig), len(cor)
    w = max(FIRST_BAND, abs(n - m))
    matrix_fits = PLAIN_CELLS < n * m <= MATRIX_CELLS
    if not (matrix_fits and _many_edits(orig, cor, w)):
        while _band_cells(n, m, w) <= BAND_CELLS and w < max(n, m):
            ops, cost, unsafe = _fill(orig, cor, w, base)
            path, touched_edge = _read_back(ops, n, m)
            if cost[n][m] - base <= w and not any((op[2], op[4]) in unsafe for op in path):
                return path, touched_edge, cost[n][m]
            w *= 2
        if n * m <= PLAIN_CELLS:
            ops, cost, _ = _fill(orig, cor, None, base)
            path, touched_edge = _read_back(ops, n, m)
            return path, touched_edge, cost[n][m]
    if n * m > MATRIX_CELLS:
        raise _TooLarge(n, m)
    path, total = align_matrix(orig, cor, base)
    return path, _touches_edge(path, n, m), total


def _many_edits(orig: Sequence[Token], cor: Sequence[Token], first_band: int) -> bool:
    """Whether the token edit distance (case aside) is past MANY_EDITS times the first band: then
    the banded attempts would most likely be thrown away. A guess that only picks the route, never
    the path: every route gives the reference's alignment."""
    limit = int(MANY_EDITS * first_band)
    o_low, c_low = _ids([t.lower for t in orig], [t.lower for t in cor])
    return Levenshtein.distance(o_low.tolist(), c_low.tolist(), score_cutoff=limit + 1) > limit


class _TooLarge(Exception):
    def __init__(self, n: int, m: int) -> None:
        self.cells = n * m


def approximate(orig: Sequence[Token], cor: Sequence[Token]) -> list[Op]:
    """A uniform-cost Levenshtein alignment of the tokens (rapidfuzz, in C): no lemmas, parts of
    speech or transpositions. Only for problems past MATRIX_CELLS."""
    o_ids, c_ids = _ids([t.text for t in orig], [t.text for t in cor])
    path: list[Op] = []
    for code in Levenshtein.opcodes(o_ids.tolist(), c_ids.tolist()):
        # by name: unpacked, an Opcode's items are int | str
        tag, a0, a1, b0, b1 = code.tag, code.src_start, code.src_end, code.dest_start, code.dest_end
        pairs = min(a1 - a0, b1 - b0) if tag == "replace" else 0
        if tag == "equal":
            path += [("M", a0 + t, a0 + t + 1, b0 + t, b0 + t + 1) for t in range(a1 - a0)]
            continue
        path += [("S", a0 + t, a0 + t + 1, b0 + t, b0 + t + 1) for t in range(pairs)]
        path += [("D", a, a + 1, b0 + pairs, b0 + pairs) for a in range(a0 + pairs, a1)]
        path += [("I", a1, a1, b, b + 1) for b in range(b0 + pairs, b1)]
    return path


def align_bounded(orig: Sequence[Token], cor: Sequence[Token]) -> tuple[list[Op], str | None]:
    """The reference's alignment, or past MATRIX_CELLS an approximate one and a note saying so."""
    try:
        return align(orig, cor), None
    except _TooLarge as big:
        note = (f"too long to align exactly ({big.cells:,} cells past the {MATRIX_CELLS:,} bound): aligned "
                "by a plain token Levenshtein instead, so the edits may differ from the reference's")
        return approximate(orig, cor), note


def _touches_edge(path: list[Op], n: int, m: int) -> bool:
    """What `_read_back` reports: whether the path, read back from the corner, stands on the top
    or left edge anywhere but at the origin."""
    points = [(n, m)] + [(op[1], op[3]) for op in path[1:]]
    return any((i == 0 or j == 0) and i + j != 0 for i, j in points)


def align(orig: Sequence[Token], cor: Sequence[Token]) -> list[Op]:
    """The reference's alignment of two token sequences, as (op, o_start, o_end, c_start, c_end)."""
    return align_exact(orig, cor)[0]


def align_exact(orig: Sequence[Token], cor: Sequence[Token], base: float = 0.0) -> tuple[list[Op], float]:
    """The reference's alignment and its total cost (starting from `base`, the cost already paid
    before these tokens)."""
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
