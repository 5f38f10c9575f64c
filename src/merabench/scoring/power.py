"""What a paired comparison could have seen: the minimum detectable effect and what it would take.

A comparison of B with A over n paired units (rows, groups, levers) estimates the difference with
a standard error `se`. At the usual 5 % two-sided test, a true difference `delta` is detected with
power Phi(|delta| / se - z_0.975) (plus the far tail, negligible); the minimum detectable effect
(MDE) at 80 % power is (z_0.975 + z_0.80) * se = 2.80 * se (Miller, "Adding Error Bars to Evals",
2024, takes the same route). An interval that crosses zero then says one of two things: no
difference, or too few rows to tell one of the MDE's size from none.

More rows shrink se as 1/sqrt(n). More repeats shrink only the part of a row's variance that a
rerun changes: var(d_row) = between + within_A / K_A + within_B / K_B, with within_X the mean
variance of a row's value over run X's repeats; the part between rows stays whatever K is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import TypeGuard

ALPHA = 0.05
POWER = 0.80
_Z = NormalDist()
Z_ALPHA = _Z.inv_cdf(1 - ALPHA / 2)
Z_POWER = _Z.inv_cdf(POWER)
MDE_FACTOR = Z_ALPHA + Z_POWER  # 2.8016
NO_SPREAD = 1e-12  # a standard error below this is rounding of a zero spread (every unit the same difference)


def estimable(se: float | None) -> TypeGuard[float]:
    """Whether a standard error says anything: a spread of zero makes every MDE 'zero' falsely."""
    return isinstance(se, float) and se > NO_SPREAD


def mde(se: float) -> float:
    """The smallest true difference detected 80 % of the time at 5 % two-sided."""
    return MDE_FACTOR * se


def detection_rate(effect: float, se: float) -> float:
    """How often a true difference of `effect` would come out significant (two-sided 5 %)."""
    if se <= 0:
        return 1.0 if effect else ALPHA
    shift = abs(effect) / se
    return _Z.cdf(shift - Z_ALPHA) + _Z.cdf(-shift - Z_ALPHA)


def rows_needed(n: int, se: float, target: float) -> int:
    """Rows (units) for an MDE of `target` at the per-row variance this comparison showed."""
    if se <= 0:
        return n
    return max(2, math.ceil(n * (mde(se) / target) ** 2))


@dataclass(frozen=True)
class RepeatSpread:
    """The paired differences' variance split: between rows, and within rows per repeat of each run
    (None: a run asked each row once, so its within-row variance is unknown)."""

    between: float
    within_first: float | None
    within_second: float | None
    repeats_first: int
    repeats_second: int


def repeats_needed(n: int, spread: RepeatSpread, target: float) -> int | None:
    """Repeats in both runs for an MDE of `target` with these n rows; None when no number of repeats
    reaches it (the part between rows alone is too large) or the within-row variance is unknown."""
    if spread.within_first is None or spread.within_second is None:
        return None
    allowed = n * (target / MDE_FACTOR) ** 2  # the variance of one row's difference the target allows
    room = allowed - spread.between
    if room <= 0:
        return None
    within = spread.within_first + spread.within_second
    return max(1, math.ceil(within / room)) if within > 0 else 1


def sentence(difference: float, low: float, high: float, se: float, n: int, unit: str, digits: int = 3) -> str:
    """The comparison in words a person can act on."""
    if not estimable(se):  # every unit gave the same difference: no spread to tell a real difference from noise by
        return (f"B − A = {difference:+.{digits}f} in every one of the {n:,} {unit}: with no spread between them "
                "the smallest detectable difference cannot be estimated from these runs")
    smallest = mde(se)
    head = (f"B − A = {difference:+.{digits}f} ({low:+.{digits}f} … {high:+.{digits}f}); with these {n:,} {unit} "
            f"the smallest difference this comparison can detect is {smallest:.{digits}f}")
    if low > 0 or high < 0:
        return head + ": the difference is significant at 5 %"
    missed = 1 - detection_rate(difference, se)
    if abs(difference) < smallest:
        return head + f": a real difference of {abs(difference):.{digits}f} would be missed {_share(missed)}"
    return head + ": no difference of that size is likely"


def _share(value: float) -> str:
    if 0.45 <= value <= 0.55:
        return "half the time"
    return f"{value:.0%} of the time"
