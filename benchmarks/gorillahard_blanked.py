"""The blanked-contents audit of issue 46 on generated GorillaHard sets (not a test).

    python benchmarks/gorillahard_blanked.py [SEED ...]      (default: 0 1 2 3 4)

For each seed, the set is generated in a temporary folder and the red-team solver (benchmarks/
redteam/, recipes learnt from its dev seed 23: every seed here is held out) answers it shown each
attached file's path and none of its contents. Printed, from the real scorer: sample_pass_rate
over all rows, the rate on the file-bound rows (grounding, scan, approx; near_miss rows are not
among them) with the rows whose only argument is which of two files apart (chance a half), and
what `validate`'s file_needed check finds on the set. Then the per-family table over the seeds
(solved without the file / rows) and the values a family answers on every seed
(checks/constants.py). Issue 46's goal: at most 0.05 on the file-bound rows, no family solved in
full.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from redteam.blanked import Tally, audit, family_table, summary_line

from merabench.rows.row import Row, read_local
from merabench.tasks.gorillahard.generator.build.generate import SetPlan, write_set
from merabench.tasks.gorillahard.generator.checks.constants import RECURRING_SHARE, constants
from merabench.tasks.gorillahard.generator.checks.counterfactual import findings


def leak_line(test: list[Row], seed: int) -> str:
    found = findings(test, seed)
    leaks = Counter(f"{f.family} ({f.leak})" for f in found if f.leak)
    return (f"file_needed: {sum(leaks.values())} of {len(found)} file-bound rows leak: "
            + (", ".join(f"{name} {n}" for name, n in sorted(leaks.items())) or "none"))


def main() -> None:
    seeds = [int(s) for s in sys.argv[1:]] or [0, 1, 2, 3, 4]
    tallies: dict[int, Tally] = {}
    sets: dict[int, list[Row]] = {}
    started = time.perf_counter()
    for seed in seeds:
        with tempfile.TemporaryDirectory() as tmp:
            write_set(SetPlan(seed=seed), Path(tmp))
            splits = read_local(Path(tmp))
        test = splits["test"]
        solving = time.perf_counter()
        result = audit(test, splits.get("shots", []))
        print(f"seed {seed} (held out; solved and scored in {time.perf_counter() - solving:.1f} s)")
        print(f"   {summary_line(result)}")
        print(f"   {leak_line(test, seed)}")
        tallies[seed], sets[seed] = result.tally, test
    total = Tally()
    for tally in tallies.values():
        total.add(tally)
    print(f"seeds {', '.join(map(str, seeds))}: file-bound rows solved without the file "
          f"{total.file_bound()[0]} of {total.file_bound()[1]} ({total.file_bound()[0] / max(1, total.file_bound()[1]):.3f}); "
          f"two-file choices {total.choices()[0]} of {total.choices()[1]}")
    for line in family_table(tallies):
        print(f"   {line}")
    if len(sets) > 1:
        print(f"values a family answers on every seed, {RECURRING_SHARE:.0%} of its rows or more "
              "(half or more: a constant, a leak):")
        for constant in constants(sets, RECURRING_SHARE):
            print(f"   {constant.line()}")
    print(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
