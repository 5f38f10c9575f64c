"""The per-set surface: a set uses a third of each pool's wordings, the same ones for the same seed."""

from __future__ import annotations

import random

from merabench.tasks.gorillahard.generator import surface

POOL = tuple(f"wording {n}" for n in range(12))


def test_a_set_uses_a_third_of_a_pool_and_the_same_third_for_the_same_seed() -> None:
    surface.begin(23)
    first = surface.share(POOL, "pool")
    assert len(first) == 4 and set(first) <= set(POOL)
    assert surface.share(POOL, "pool") == first
    assert all(surface.choose(random.Random(n), POOL, "pool") in first for n in range(50))


def test_other_seeds_draw_other_wordings() -> None:
    drawn = set()
    for seed in (23, 91, 131, 211):
        surface.begin(seed)
        drawn.add(tuple(surface.share(POOL, "pool")))
    assert len(drawn) > 1


def test_a_small_pool_keeps_two_wordings() -> None:
    surface.begin(5)
    assert len(surface.share(("a", "b", "c"), "small")) == 2
    assert surface.share(("only",), "one") == ["only"]
