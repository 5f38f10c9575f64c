"""A set's own surface: each set says a question part (a request's action, a condition over a
list's hosts) in a few of its many natural wordings, drawn once per set, and its rows choose among
those. A model that reads Russian reads every wording alike; rules written from one set's wordings
meet, on another set, mostly wordings they never saw. The validator reads every wording of a pool,
so no check depends on the set's draw.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

SHARE = 1 / 3  # of a pool's wordings, the share one set uses
_SET = {"seed": 0}


def begin(seed: int) -> None:
    """The set being generated: its draws of every pool follow from `seed`."""
    _SET["seed"] = seed


def some(rng: random.Random, pool: Sequence[T], count: int) -> list[T]:
    """`count` members of `pool` drawn by `rng`, in the pool's order."""
    drawn = set(rng.sample(range(len(pool)), count))
    return [w for n, w in enumerate(pool) if n in drawn]


def share(pool: Sequence[T], key: str) -> list[T]:
    """The wordings of `pool` this set uses (at least two of a pool of four or more), in the
    pool's order; `key` names the pool, so that two pools draw apart."""
    count = max(min(2, len(pool)), math.ceil(len(pool) * SHARE))
    return some(random.Random(f"{_SET['seed']}:surface:{key}"), pool, count)


def choose(rng: random.Random, pool: Sequence[T], key: str) -> T:
    """A row's wording: one of those this set uses of `pool`."""
    return rng.choice(share(pool, key))
