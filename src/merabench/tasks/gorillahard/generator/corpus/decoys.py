"""The kinds of decoy a file may carry, and how a file draws its own.

A decoy is a value a careless reader takes for the live one, where a reader who knows the format
does not: a commented-out or disabled value, a stale or example section (a `legacy:` block, an
`[example]` table, a changelog entry), a duplicated key or header (the format's semantics picks
the live one: the last key in INI and .env, a comment above the older assignment saying so, as
a strict parser refuses a key set twice; a repeated header row is no record), a unit or locale
trap (a decimal comma, seconds beside milliseconds), a value inside a string or a log message.
Each file draws its kinds from those its format has, so one seed's files never teach a rule that
decides another seed's.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

DISABLED, STALE, DUPLICATE, UNIT, IN_STRING = "disabled", "stale", "duplicate", "unit", "in_string"
KINDS = (DISABLED, STALE, DUPLICATE, UNIT, IN_STRING)


def layout(layouts: tuple[str, ...], index: int) -> str:
    """A file's layout by its place among its kind's files, turning a step each round (so that the
    files carrying a kind's other duty, a planted instruction every third .env, take every
    layout): every corpus holds each layout about as often, and a set drawn from it shows each."""
    return layouts[(index + index // len(layouts)) % len(layouts)]


def draw(rng: random.Random, available: tuple[str, ...], index: int, most: int = 3) -> tuple[str, ...]:
    """One to `most` of a format's decoy kinds, in the order of `available`; now and then none (a
    file with nothing to trip over is as real as one with three). The first files of a kind carry
    each kind once at least, so every corpus holds all of them."""
    forced = {available[index]} if index < len(available) else set()
    if not forced and rng.random() < 0.1:
        return ()
    chosen = forced | set(rng.sample(available, rng.randint(1, min(most, len(available)))))
    return tuple(kind for kind in available if kind in chosen)


def other(rng: random.Random, live: int, pool: Sequence[int]) -> int:
    """An old value: one of the pool that is not the live one."""
    return rng.choice([v for v in pool if v != live])
