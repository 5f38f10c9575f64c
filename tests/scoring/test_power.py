"""The minimum detectable effect and what a target would take (scoring/power.py), against the
normal-theory figures they stand for."""

from __future__ import annotations

import math

import pytest

from merabench.scoring.power import (
    MDE_FACTOR,
    RepeatSpread,
    detection_rate,
    mde,
    repeats_needed,
    rows_needed,
    sentence,
)


def test_the_mde_is_the_difference_found_80_percent_of_the_time() -> None:
    assert pytest.approx(1.959964 + 0.841621, abs=1e-5) == MDE_FACTOR
    assert detection_rate(mde(0.01), 0.01) == pytest.approx(0.80, abs=1e-3)
    assert detection_rate(0.0, 0.01) == pytest.approx(0.05, abs=1e-9)  # no difference: the test's 5 %
    assert detection_rate(1.96 * 0.01, 0.01) == pytest.approx(0.5, abs=1e-3)


def test_rows_needed_scale_as_the_square() -> None:
    assert rows_needed(1000, 0.01, mde(0.01) / 2) == 4000
    assert rows_needed(1000, 0.0, 0.01) == 1000  # no spread: nothing more is needed


def test_repeats_shrink_only_the_part_within_rows() -> None:
    n, target = 1000, 0.02
    allowed = n * (target / MDE_FACTOR) ** 2
    all_within = RepeatSpread(0.0, 0.25, 0.25, 1, 1)
    assert repeats_needed(n, all_within, target) == math.ceil(0.5 / allowed)
    too_much_between = RepeatSpread(allowed * 1.01, 0.25, 0.25, 4, 4)
    assert repeats_needed(n, too_much_between, target) is None
    assert repeats_needed(n, RepeatSpread(0.0, None, 0.25, 1, 4), target) is None


def test_the_sentence_says_what_a_person_can_act_on() -> None:
    text = sentence(0.012, -0.008, 0.031, 0.024 / MDE_FACTOR, 1169, "rows")
    assert text == ("B − A = +0.012 (-0.008 … +0.031); with these 1,169 rows the smallest difference this "
                    "comparison can detect is 0.024: a real difference of 0.012 would be missed 71% of the time")
    assert sentence(0.05, 0.02, 0.08, 0.01, 500, "rows").endswith("the difference is significant at 5 %")
    assert "missed half the time" in sentence(0.0196, -0.0004, 0.0396, 0.01, 500, "rows")


def test_no_spread_is_no_mde_rather_than_zero() -> None:
    """Two runs that both fail every row differ by 0 in every row: the standard error is 0 only
    because nothing varied, and 27 rows cannot see a difference of 0.01 (the outside reader's
    case): the MDE is not estimable, never 0.000."""
    text = sentence(0.0, 0.0, 0.0, 0.0, 27, "rows")
    assert "cannot be estimated" in text and "0.000:" not in text
