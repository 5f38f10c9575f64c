"""Are compare's intervals, standard errors and minimum detectable effects right? Checked against a
known truth by simulation (not a test: it prints figures).

    python benchmarks/calibration.py [--sims 500] [--rows 1000] [--seed 0]

Stochastic models answer each row right with a known chance, and merabench's own comparison code
(formats/compare.py `metric_difference`, with its paired bootstrap, and scoring/power.py) compares
two runs of them. Scenarios:

  fixed rows        the same rows in every simulation, a row's chance drawn once (Beta(2, 2)),
                    each run asked once
  sampled rows      new rows each simulation, asked 4 times each (--repeats 4), every asking a
                    fresh draw
  stable repeats    as sampled rows, but a model's answer to a row is the same in all 4 repeats
                    (a deterministic server): 4 repeats are worth one
  dialogues         rows in groups of 3 sharing a difficulty; the all-or-nothing group metric
                    (RussianRegions' group_exact_match, GorillaHard's dialog_pass_rate), asked twice

For each scenario, three figures and what they should be:
  - false alarms: a model compared with itself, the share of the comparisons whose 95 % interval
    excludes 0 (want 5 % +- 2);
  - power at the MDE: the second model better by the MDE the comparison printed (the median over
    the null simulations), the share detected (want 80 % +- 5);
  - SE ratio: the standard error the comparison reports, over the true one (the spread of the
    estimated difference over the simulations) (want 1 +- 0.10).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from merabench.formats.compare import metric_difference
from merabench.records import Draw
from merabench.rows.row import Row
from merabench.scoring.power import mde
from merabench.scoring.repeated import collapsed
from merabench.tasks.base import Aggregation, MetricSpec, SampleScore

ROW_METRIC = MetricSpec("pass", "a row answered right")
GROUP_METRIC = MetricSpec("pass", "every row of the group right", aggregation=Aggregation.ALL_OR_NOTHING,
                          group_of=lambda row: row.meta["group"])


@dataclass(frozen=True)
class Scenario:
    name: str
    spec: MetricSpec
    repeats: int
    chances: Callable[[np.random.Generator, int], np.ndarray]  # each row's chance of being right
    stable: bool = False  # a model answers a row the same way in every repeat
    group_size: int = 1


def beta_rows(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.beta(2, 2, size=n)


def grouped_rows(size: int) -> Callable[[np.random.Generator, int], np.ndarray]:
    def chances(rng: np.random.Generator, n: int) -> np.ndarray:
        groups = rng.beta(5, 2, size=(n + size - 1) // size)  # a group's rows share its difficulty
        return np.clip(np.repeat(groups, size)[:n] + rng.normal(0, 0.05, size=n), 0.01, 0.99)
    return chances


def answers(rng: np.random.Generator, chances: np.ndarray, repeats: int, stable: bool) -> np.ndarray:
    """(repeats, rows) verdicts, 0 or 1."""
    if stable:
        return np.repeat((rng.random(chances.size) < chances)[None, :], repeats, axis=0).astype(float)
    return (rng.random((repeats, chances.size)) < chances).astype(float)


def as_draws(verdicts: np.ndarray) -> dict[Draw, list[SampleScore | None]]:
    return {Draw(k): [SampleScore({"pass": float(v)}, {}) for v in row] for k, row in enumerate(verdicts)}


def compare_once(scenario: Scenario, rows: list[Row], chances: np.ndarray, effect: float,
                 rng: np.random.Generator) -> dict[str, float]:
    a = as_draws(answers(rng, chances, scenario.repeats, scenario.stable))
    b = as_draws(answers(rng, np.clip(chances + effect, 0, 1), scenario.repeats, scenario.stable))
    plain = scenario.repeats == 1
    result = metric_difference(scenario.spec, rows, collapsed([scenario.spec], a), collapsed([scenario.spec], b),
                               (None if plain else a, None if plain else b))
    assert result is not None
    return result


def true_metric(scenario: Scenario, chances: np.ndarray) -> float:
    """The metric's expected value for these chances: the mean chance of a row, or of a group
    (every row of it right)."""
    if scenario.group_size == 1:
        return float(chances.mean())
    whole = chances[: chances.size // scenario.group_size * scenario.group_size]
    return float(whole.reshape(-1, scenario.group_size).prod(axis=1).mean())


def shift_for(scenario: Scenario, target: float, chances: np.ndarray | None) -> float:
    """The shift of every row's chance that raises the metric's true value by `target` (a group's
    pass rate moves by more than its rows' chances do; a chance cannot pass 1), by bisection over
    the scenario's rows (fixed) or a large sample of them."""
    population = chances if chances is not None else scenario.chances(np.random.default_rng(99), 300_000)
    base = true_metric(scenario, population)
    low, high = 0.0, 1.0
    for _ in range(50):
        middle = (low + high) / 2
        if true_metric(scenario, np.clip(population + middle, 0, 1)) - base < target:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def simulate(scenario: Scenario, n: int, sims: int, seed: int, fixed: bool) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    rows = [Row("", {}, "", {"id": i, "group": i // scenario.group_size}) for i in range(n)]
    fixed_chances = scenario.chances(rng, n)

    def run(effect: float) -> list[dict[str, float]]:
        return [compare_once(scenario, rows, fixed_chances if fixed else scenario.chances(rng, n), effect, rng)
                for _ in range(sims)]

    null = run(0.0)
    alarms = statistics.fmean(r["low"] > 0 or r["high"] < 0 for r in null)
    printed = statistics.median(mde(r["se"]) for r in null)
    alternative = run(shift_for(scenario, printed, fixed_chances if fixed else None))
    detected = statistics.fmean(r["low"] > 0 for r in alternative)
    true_se = statistics.stdev(r["difference"] for r in null)
    reported = statistics.fmean(r["se"] for r in null)
    return {"alarms": alarms, "mde": printed, "detected": detected, "se_ratio": reported / true_se,
            "units": null[0]["n"]}


SCENARIOS = (
    (Scenario("fixed rows", ROW_METRIC, 1, beta_rows), True),
    (Scenario("sampled rows, 4 repeats", ROW_METRIC, 4, beta_rows), False),
    (Scenario("stable repeats, 4", ROW_METRIC, 4, beta_rows, stable=True), False),
    (Scenario("dialogues of 3, 2 repeats", GROUP_METRIC, 2, grouped_rows(3), group_size=3), False),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=500)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", help="run the scenarios whose name holds this text")
    args = parser.parse_args()
    print(f"{args.sims} comparisons per figure, {args.rows} rows; want: false alarms 5 % ± 2, detected at the "
          "MDE 80 % ± 5, SE ratio 1 ± 0.10")
    print(f"{'scenario':28} {'units':>6} {'false alarms':>13} {'MDE':>7} {'detected':>9} {'SE ratio':>9}  verdict")
    for n, (scenario, fixed) in enumerate(SCENARIOS):
        if args.only and args.only not in scenario.name:
            continue
        started = time.monotonic()
        f = simulate(scenario, args.rows, args.sims, args.seed + n, fixed)
        ok = abs(f["alarms"] - 0.05) <= 0.02 and abs(f["detected"] - 0.80) <= 0.05 and abs(f["se_ratio"] - 1) <= 0.10
        print(f"{scenario.name:28} {f['units']:>6} {f['alarms']:>12.1%} {f['mde']:>7.4f} {f['detected']:>8.1%} "
              f"{f['se_ratio']:>9.3f}  {'ok' if ok else 'OUT'} ({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
