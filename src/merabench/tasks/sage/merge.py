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

The reference builds every sub-span of a run of differences and checks each on its tokens: cubic
in the run's length (a rewritten paragraph takes seconds, a looping answer never ends). We try
the same spans in the same order, but each check is O(1): operation counts and token ranges from
prefix sums, the joined lower-cased texts compared by prefix hashes (then for real), one part of
speech across a span from run lengths. The one departure: a run of more than MAX_RUN differing
operations (no real correction has one) is merged in consecutive windows of MAX_RUN, so that no
answer can make the work grow without bound; tests/tasks/sage/oracle.py keeps the reference's
own form to check this one against.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from string import punctuation

import numpy as np

from merabench.tasks.sage.align import Op, char_similarity
from merabench.tasks.sage.tokenize import Token

_TRIPLE = re.compile("M[DIS]M")
_APOSTROPHE_HYPHEN = re.compile("['-]")
MAX_RUN = 400
VECTOR_RUN = 16  # from this many ops, spans that cannot fire are sifted out with numpy first
_MOD = (1 << 61) - 1
_BASE = 1_000_003

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


def _triple(seq: list[Op], orig: tuple[Token, ...], cor: tuple[Token, ...]) -> list[Op]:
    """A match-edit-match triple: whole when its middle is a hyphen and the sides differ in length
    (the reference reads `o[1]`/`c[1]` of the triple's tokens), else just the edit."""
    o = orig[seq[0][1]:seq[2][2]]
    c = cor[seq[0][3]:seq[2][4]]
    if (o[1].text == "-" or c[1].text == "-") and len(o) != len(c):
        return _merged(seq)
    return seq[1:2]


class _Hashes:
    """Prefix hashes of the tokens' lower-cased texts without `'`, `-` and spaces."""

    def __init__(self, tokens: tuple[Token, ...], lo: int, hi: int) -> None:
        self.lo = lo
        self.texts: list[str] = []
        self.length = [0]
        self.hash = [0]
        for token in tokens[lo:hi]:
            text, h = _stripped(token.lower)
            self.texts.append(text)
            self.length.append(self.length[-1] + len(text))
            self.hash.append((self.hash[-1] * _power(len(text)) + h) % _MOD)

    def of(self, a: int, b: int) -> tuple[int, int]:
        """(length, hash) of tokens [a, b) joined."""
        a, b = a - self.lo, b - self.lo
        length = self.length[b] - self.length[a]
        return length, (self.hash[b] - self.hash[a] * _power(length)) % _MOD

    def text(self, a: int, b: int) -> str:
        return "".join(self.texts[a - self.lo:b - self.lo])


_STRIPPED: dict[str, tuple[str, int]] = {}  # a token's lower-cased text -> (stripped, its hash)
_POWERS = [1]


def _stripped(lower: str) -> tuple[str, int]:
    found = _STRIPPED.get(lower)
    if found is None:
        text = _APOSTROPHE_HYPHEN.sub("", lower).replace(" ", "")
        h = 0
        for ch in text:
            h = (h * _BASE + ord(ch)) % _MOD
        if len(_STRIPPED) > 200_000:
            _STRIPPED.clear()
        found = _STRIPPED[lower] = (text, h)
    return found


def _power(length: int) -> int:
    """_BASE ** length % _MOD, from a table kept between runs (`of` asks for every span pair)."""
    if length > 100_000:  # past any text worth a table
        return pow(_BASE, length, _MOD)
    while len(_POWERS) <= length:
        _POWERS.append(_POWERS[-1] * _BASE % _MOD)
    return _POWERS[length]


class _Parts:
    """Parts of speech of a token range, analysed when first needed, with run lengths."""

    def __init__(self, tokens: tuple[Token, ...], lo: int, hi: int) -> None:
        self.lo = lo
        self.pos = [t.pos for t in tokens[lo:hi]]
        self.run_end = [0] * len(self.pos)  # first index after i whose part of speech differs
        end = len(self.pos)
        for i in range(len(self.pos) - 1, -1, -1):
            if i + 1 < len(self.pos) and self.pos[i + 1] != self.pos[i]:
                end = i + 1
            self.run_end[i] = end + lo

    def uniform(self, a: int, b: int) -> str | None:
        """The one part of speech of tokens [a, b), or None if they have several."""
        return self.pos[a - self.lo] if self.run_end[a - self.lo] >= b else None


class _Run:
    """One run of adjacent deletions, insertions and substitutions, and the reference's rules
    over its sub-spans (see the module docstring).

    Every rule but one depends on the span alone, so each span is judged once, here; a call of
    `process` on ops[lo:hi] then takes the first span in the reference's order (longest first,
    then leftmost) that lies inside and fires. The one rule that also looks at the call (a
    one-token source side at the call's first op with a capitalised other side) is kept apart,
    by start, and tried for the call's own start.
    """

    JOIN, HEAD, TAIL, SPLIT = "join", "head", "tail", "split"

    def __init__(self, ops: list[Op], orig: tuple[Token, ...], cor: tuple[Token, ...]) -> None:
        self.ops, self.orig, self.cor = ops, orig, cor
        self.letters = [op[0] for op in ops]
        self.n_d, self.n_i = [0], [0]
        for letter in self.letters:
            self.n_d.append(self.n_d[-1] + (letter == "D"))
            self.n_i.append(self.n_i[-1] + (letter == "I"))
        o_lo, o_hi, c_lo, c_hi = ops[0][1], ops[-1][2], ops[0][3], ops[-1][4]
        self.o_hash, self.c_hash = _Hashes(orig, o_lo, o_hi), _Hashes(cor, c_lo, c_hi)
        self._ranges = (o_lo, o_hi, c_lo, c_hi)
        self._parts: tuple[_Parts, _Parts] | None = None
        self._table: tuple[list[tuple[int, int, str]], dict[int, list[int]]] | None = None

    def _spans(self) -> tuple[list[tuple[int, int, str]], dict[int, list[int]]]:
        """Every sub-span judged once: the firing ones in the reference's order, and, by start,
        the ends (longest first) of spans that fire only as a call's head."""
        if self._table is None:
            firing: list[tuple[int, int, str]] = []
            heads: dict[int, list[int]] = {}
            for start, end in self._candidate_spans():
                rule, head_only = self._judge(start, end)
                if rule is not None:
                    firing.append((start, end, rule))
                elif head_only:
                    heads.setdefault(start, []).append(end)
            self._table = (firing, heads)
        return self._table

    def _candidate_spans(self) -> Iterator[tuple[int, int]]:
        """Every sub-span of two ops or more, longest first, then leftmost; in a long run, only
        those where a rule can fire: a span passes `_judge` untouched unless it is all deletions
        or all insertions, ends in two tokens equal but for case, joins into texts of the same
        length, has one part of speech on each side, or is two ops long (checked all at once)."""
        size = len(self.ops)
        if size < VECTOR_RUN:
            return ((start, start + length - 1) for length in range(size, 1, -1)
                    for start in range(size - length + 1))
        may = self._may_fire()
        starts, ends = np.nonzero(np.triu(may, 1))
        order = np.lexsort((starts, starts - ends))  # longest (end - start) first, then leftmost
        return zip(starts[order].tolist(), ends[order].tolist(), strict=True)

    def _may_fire(self) -> np.ndarray:
        """[start, end]: whether a rule may fire on ops[start..end] (a superset, see above)."""
        ops = self.ops
        o_lo, o_hi, c_lo, c_hi = self._ranges
        a = np.array([op[1] for op in ops]) - o_lo  # token offsets in the run's own ranges
        b = np.array([op[2] for op in ops]) - o_lo
        x = np.array([op[3] for op in ops]) - c_lo
        y = np.array([op[4] for op in ops]) - c_lo
        n_o, n_c = b[None, :] - a[:, None], y[None, :] - x[:, None]
        n_d, n_i = np.array(self.n_d), np.array(self.n_i)
        count = np.arange(1, len(ops) + 1)[None, :] - np.arange(len(ops))[:, None]
        may = (n_d[None, 1:] - n_d[:-1, None] == count) | (n_i[None, 1:] - n_i[:-1, None] == count)
        may |= count == 2
        lower: dict[str, int] = {}
        o_low = np.array([lower.setdefault(t.lower, len(lower)) for t in self.orig[o_lo:o_hi]] + [-1])
        c_low = np.array([lower.setdefault(t.lower, len(lower)) for t in self.cor[c_lo:c_hi]] + [-2])
        may |= (n_o > 0) & (n_c > 0) & (o_low[b[None, :] - 1] == c_low[y[None, :] - 1])
        o_chars, c_chars = np.array(self.o_hash.length), np.array(self.c_hash.length)
        may |= o_chars[b[None, :]] - o_chars[a[:, None]] == c_chars[y[None, :]] - c_chars[x[:, None]]
        o_parts, c_parts = self._parts_of()
        o_run = np.array(o_parts.run_end + [o_hi]) - o_lo  # one part of speech from a to run_end
        c_run = np.array(c_parts.run_end + [c_hi]) - c_lo
        may |= (n_o != n_c) & ((n_o == 0) | (o_run[a[:, None]] >= b[None, :])) & (
            (n_c == 0) | (c_run[x[:, None]] >= y[None, :]))
        return may

    def _parts_of(self) -> tuple[_Parts, _Parts]:
        if self._parts is None:
            o_lo, o_hi, c_lo, c_hi = self._ranges
            self._parts = (_Parts(self.orig, o_lo, o_hi), _Parts(self.cor, c_lo, c_hi))
        return self._parts

    def _one_pos(self, a: int, b: int, x: int, y: int) -> bool:
        o_parts, c_parts = self._parts_of()
        o_pos = o_parts.uniform(a, b) if b > a else None
        c_pos = c_parts.uniform(x, y) if y > x else None
        if b > a and y > x:
            return o_pos is not None and o_pos == c_pos
        return (o_pos or c_pos) is not None

    def _judge(self, start: int, end: int) -> tuple[str | None, bool]:
        """(the rule that fires on the span wherever it stands, whether it fires as a head only
        when the span starts the call)."""
        ops, orig, cor, size = self.ops, self.orig, self.cor, end - start + 1
        if self.n_d[end + 1] - self.n_d[start] == size or self.n_i[end + 1] - self.n_i[start] == size:
            return self.JOIN, False
        a, b, x, y = ops[start][1], ops[end][2], ops[start][3], ops[end][4]
        n_o, n_c = b - a, y - x
        head_only = False
        if n_o and n_c and orig[b - 1].lower == cor[y - 1].lower:
            if n_c == 1 and orig[a].text[0].isupper():
                return self.HEAD, False
            head_only = n_o == 1 and cor[x].text[0].isupper()
            if (n_o > 1 and orig[b - 2].text in punctuation) or (n_c > 1 and cor[y - 2].text in punctuation):
                return self.TAIL, head_only
        if self.o_hash.of(a, b) == self.c_hash.of(x, y) and self.o_hash.text(a, b) == self.c_hash.text(x, y):
            return self.JOIN, head_only
        if n_o != n_c and self._one_pos(a, b, x, y):
            return self.JOIN, head_only
        if size == 2:
            if n_o == n_c == 2:
                return self.SPLIT, head_only
            if ((self.letters[start] == "S" and char_similarity(orig[a].text, cor[x].text) > 0.75)
                    or (self.letters[end] == "S" and char_similarity(orig[b - 1].text, cor[y - 1].text) > 0.75)):
                return self.SPLIT, head_only
        return None, head_only

    def process(self, lo: int, hi: int) -> list[Op]:
        """The reference's `process` on ops[lo:hi]."""
        ops = self.ops
        if hi - lo <= 1:
            return ops[lo:hi]
        if lo == 0 and hi == len(ops) and self._table is None:
            # the whole run is the first span tried: when it merges (a run of insertions, say),
            # nothing else is ever looked at
            rule, head_only = self._judge(0, hi - 1)
            if rule == self.JOIN or head_only or rule == self.HEAD:
                return _merged(ops)
            if rule is not None:
                return self._apply(lo, hi, (0, hi - 1, rule))
        firing, heads = self._spans()
        pick = next(((s, e, rule) for s, e, rule in firing if s >= lo and e < hi), None)
        head = next((e for e in heads.get(lo, ()) if e < hi), None)
        if pick is not None and pick[0] == lo and self._judge(lo, pick[1])[1]:
            # a span that starts the call and fires anyway: the head clause is tried before the
            # later rules (a span where the first rule fires is never a head)
            pick = (lo, pick[1], self.HEAD)
        if head is not None and (pick is None or head - lo > pick[1] - pick[0]
                                 or (head - lo == pick[1] - pick[0] and lo <= pick[0])):
            pick = (lo, head, self.HEAD)
        if pick is None:
            return ops[lo:hi]
        return self._apply(lo, hi, pick)

    def _apply(self, lo: int, hi: int, pick: tuple[int, int, str]) -> list[Op]:
        ops = self.ops
        start, end, rule = pick
        if rule == self.JOIN:
            return self.process(lo, start) + _merged(ops[start:end + 1]) + self.process(end + 1, hi)
        if rule == self.HEAD:
            return _merged(ops[start:end + 1]) + self.process(end + 1, hi)
        if rule == self.TAIL:
            return self.process(lo, end - 1) + _merged(ops[end - 1:end + 1]) + self.process(end + 1, hi)
        return self.process(lo, start + 1) + self.process(start + 1, hi)


def process_run(ops: list[Op], orig: tuple[Token, ...], cor: tuple[Token, ...]) -> list[Op]:
    """A run of differences as the reference merges it, in windows of at most MAX_RUN ops."""
    out: list[Op] = []
    for lo in range(0, len(ops), MAX_RUN):
        window = ops[lo:lo + MAX_RUN]
        out += _Run(window, orig, cor).process(0, len(window))
    return out


def merge(path: list[Op], orig: tuple[Token, ...], cor: tuple[Token, ...]) -> list[Span]:
    """Edits as token spans (o_start, o_end, c_start, c_end), in the reference's order."""
    return merge_with_notes(path, orig, cor)[0]


def merge_with_notes(path: list[Op], orig: tuple[Token, ...], cor: tuple[Token, ...]) -> tuple[list[Span], list[str]]:
    """`merge`, and a note for every run merged in windows rather than whole."""
    spans: list[Span] = []
    notes: list[str] = []
    for kind, group in group_operations(path):
        if kind == "M":
            continue
        if kind == "T":
            chosen = group
        elif kind == "MSM":
            chosen = _triple(group, orig, cor)
        else:
            chosen = process_run(group, orig, cor)
            if len(group) > MAX_RUN:
                notes.append(f"a run of {len(group)} differing tokens was merged in windows of {MAX_RUN} "
                             "(the reference merges a run whole, which takes it hours at this length)")
        spans.extend(op[1:] for op in chosen)
    return spans, notes
