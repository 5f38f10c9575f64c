"""The kinds of pick criterion: more or less of something both files hold (`Compare`), a value
past a limit the question states (`Threshold`), a fact one file shows and the other does not
(`Holds`), a relation one way between the two (`Joined`). Each offers, for an ordered pair (the
file meant, the other), the clauses true of the first and false of the second (`options`), the
clauses a recorded criterion and its parameters may be said with (`wordings`), and the files of a
row the recorded clause fits (`fits`); the criteria themselves, by kind of file, are `criteria.py`'s.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

Params = dict[str, Any]


@dataclass(frozen=True)
class Compare:
    """The file with more (or less) of something both hold; `draw` gives the comparison's own
    parameters (a time of day) for a pair, or None when it has none that tell them apart."""

    name: str
    value: Callable[[str, Params], float | None]
    more: tuple[str, ...]
    fewer: tuple[str, ...]
    draw: Callable[[random.Random, str, str], Params | None] = lambda rng, a, b: {}
    shown: Callable[[Params], Params] = lambda params: params  # how parameters read in a clause
    # what a count is taken over (a log's records, the minutes it spans): "где реже отвечали с
    # задержкой" may be read as a count or as a frequency, so a pair is told apart this way only
    # where every frequency orders the two files as the count does
    per: Callable[[str, Params], tuple[float, ...]] | None = None
    # other readings of the same words ("модуль длиннее": its lines, its lines of code, its
    # characters): a pair is told apart only where every reading picks the same file
    also: tuple[Callable[[str, Params], float | None], ...] = ()

    def options(self, rng: random.Random, source: str, other: str) -> list[tuple[str, Params]]:
        params = self.draw(rng, source, other)
        if params is None:
            return []
        a, b = self.value(source, params), self.value(other, params)
        if a is None or b is None or a == b:
            return []
        params = {**params, "direction": "more" if a > b else "fewer"}
        if self._picked({"source": a, "other": b}, {"source": source, "other": other}, params) != "source":
            return []
        return [(rng.choice(self.wordings(params)), params)]

    def wordings(self, params: Params) -> tuple[str, ...]:
        shown = self.shown(params)
        return tuple(w.format(**shown) for w in (self.more if params.get("direction") == "more" else self.fewer))

    def fits(self, texts: Mapping[str, str], params: Params) -> list[str]:
        values = {path: self.value(text, params) for path, text in texts.items()}
        known = {p: v for p, v in values.items() if v is not None}
        if len(known) != len(values) or len(set(known.values())) != len(known):
            return []  # a file without the value, or a tie: the clause picks neither
        picked = self._picked(known, texts, params)
        return [] if picked is None else [picked]

    def _picked(self, values: Mapping[str, float], texts: Mapping[str, str], params: Params) -> str | None:
        """The file the comparison picks by its values, or None where a frequency (the value over
        what it is taken over) picks another one or ties."""
        pick = max if params.get("direction") == "more" else min
        chosen = pick(values, key=values.__getitem__)
        for reading in self.also:
            read = {path: found for path in values if (found := reading(texts[path], params)) is not None}
            if len(read) != len(values) or len(set(read.values())) != len(read) or pick(read, key=read.__getitem__) != chosen:
                return None
        if self.per is None:
            return chosen
        sizes = {path: self.per(texts[path], params) for path in values}
        for i in range(min(len(s) for s in sizes.values())):
            if any(s[i] <= 0 for s in sizes.values()):
                continue  # no frequency over nothing (a log of one stamp spans no minutes)
            rates = {path: values[path] / sizes[path][i] for path in values}
            if len(set(rates.values())) != len(rates) or pick(rates, key=rates.__getitem__) != chosen:
                return None
        return chosen


@dataclass(frozen=True)
class Threshold:
    """The file whose value lies past a limit the question states in its own units (seconds where
    the file has milliseconds), the other's on the near side of it: `steps` are the limits a
    question may state, `scale` turns one into the file's unit, `say` words it."""

    name: str
    value: Callable[[str], float | None]
    steps: tuple[int, ...]
    scale: float
    say: Callable[[int], str]
    over: tuple[str, ...]
    under: tuple[str, ...]

    def options(self, rng: random.Random, source: str, other: str) -> list[tuple[str, Params]]:
        a, b = self.value(source), self.value(other)
        if a is None or b is None:
            return []
        low, high = sorted((a, b))
        limits = [n for n in self.steps if low < n * self.scale < high]
        if not limits:
            return []
        params = {"n": rng.choice(limits), "direction": "over" if a > b else "under"}
        return [(rng.choice(self.wordings(params)), params)]

    def wordings(self, params: Params) -> tuple[str, ...]:
        said = self.say(int(params["n"]))
        return tuple(w.format(n=said) for w in (self.over if params.get("direction") == "over" else self.under))

    def fits(self, texts: Mapping[str, str], params: Params) -> list[str]:
        limit = float(params["n"]) * self.scale
        over = params.get("direction") == "over"
        out = []
        for path, text in texts.items():
            v = self.value(text)
            if v is not None and v != limit and (v > limit) == over:
                out.append(path)
        return out


@dataclass(frozen=True)
class Holds:
    """The file that shows a fact the other does not (`lacks`: the one that does not show a fact
    the other shows), said in other words than the file's: `says` maps each mark the reader
    finds to its wordings."""

    name: str
    marks: Callable[[str], frozenset[str]]
    says: Mapping[str, tuple[str, ...]]
    lacks: bool = False
    both: bool = False  # only between files that both have some mark (servers on maintenance or not)

    def options(self, rng: random.Random, source: str, other: str) -> list[tuple[str, Params]]:
        mine, theirs = self.marks(source), self.marks(other)
        if self.both and not (mine and theirs):
            return []
        telling = sorted((theirs - mine) if self.lacks else (mine - theirs))
        telling = [m for m in telling if m in self.says]
        if not telling:
            return []
        params = {"mark": rng.choice(telling)}
        return [(rng.choice(self.wordings(params)), params)]

    def wordings(self, params: Params) -> tuple[str, ...]:
        return self.says.get(str(params.get("mark")), ())

    def fits(self, texts: Mapping[str, str], params: Params) -> list[str]:
        mark = params.get("mark")
        if self.both and not all(self.marks(text) for text in texts.values()):
            return []  # "no server on maintenance" is true of a table that has no servers too
        return [path for path, text in texts.items() if (mark in self.marks(text)) != self.lacks]


@dataclass(frozen=True)
class Joined:
    """The file related to the other one by `related(mine, other)` (a ticket whose author wrote
    in the other ticket's thread), when the relation holds one way only."""

    name: str
    related: Callable[[str, str], bool]
    clauses: tuple[str, ...]

    def options(self, rng: random.Random, source: str, other: str) -> list[tuple[str, Params]]:
        if self.related(source, other) and not self.related(other, source):
            return [(rng.choice(self.clauses), {})]
        return []

    def wordings(self, params: Params) -> tuple[str, ...]:
        return self.clauses

    def fits(self, texts: Mapping[str, str], params: Params) -> list[str]:
        if len(texts) != 2:
            return []
        (a, ta), (b, tb) = texts.items()
        return [p for p, mine, theirs in ((a, ta, tb), (b, tb, ta)) if self.related(mine, theirs)]


Criterion = Compare | Threshold | Holds | Joined
