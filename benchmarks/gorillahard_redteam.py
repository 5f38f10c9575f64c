"""The red-team solver's scores on generated GorillaHard sets (not a test).

    python benchmarks/gorillahard_redteam.py [SEED ...]        (default: 23 91 131 211)
    python benchmarks/gorillahard_redteam.py --set FOLDER      (a written set, e.g. one `generate` made)
    python benchmarks/gorillahard_redteam.py --rebuild-bank     (re-learn the recipes from seed 23)

The solver lives in benchmarks/redteam/: a measuring instrument for the team, not part of the
package. Each set ends with the card's gate line (at most 0.25 of the rows passed by a solver
without a model), which issue 23 found out of reach; `merabench validate` does not run it.

Seed 23 is the solver's dev seed: its score there is leave-one-out (each row's own recipe left
out) and still optimistic, and leave-one-maker-out (every recipe of the row's family left out:
how the solver does on a family it never saw); every other seed is held out (57 was read while the solver was written,
so it is not held out any more). Prints sample_pass_rate, balance_score
and dialog_pass_rate from the real scorer, per lever, and the solving time.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from redteam import solver as redteam
from redteam.dev_bank import BANK_PATH

from merabench.rows.row import read_local
from merabench.tasks.gorillahard.generator.build.generate import SetPlan, write_set


def rebuild_bank() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        write_set(SetPlan(seed=redteam.DEV_SEED), Path(tmp))
        splits = read_local(Path(tmp))
        bank = redteam.build_bank(splits["test"], splits.get("shots", []))
    BANK_PATH.write_text(json.dumps(bank, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    print(f"wrote {BANK_PATH} ({len(bank['recipes'])} recipes, {len(bank['columns'])} column phrases)")


def report_set(folder: Path) -> None:
    from redteam.score import gate_line, report_lines

    splits = read_local(folder)
    manifest = folder / "manifest.json"
    seed = json.loads(manifest.read_text(encoding="utf-8")).get("seed") if manifest.exists() else None
    print(f"set {folder} (seed {seed})")
    for line in report_lines(splits["test"], splits.get("shots", []), leave_out="row" if seed == redteam.DEV_SEED else ""):
        print(f"   {line}")
    print(f"   {gate_line(splits['test'], splits.get('shots', []), seed)[1]}")


def main() -> None:
    if "--rebuild-bank" in sys.argv[1:]:
        rebuild_bank()
        return
    if sys.argv[1:2] == ["--set"]:
        report_set(Path(sys.argv[2]))
        return
    from redteam.score import report_lines

    seeds = [int(s) for s in sys.argv[1:]] or [redteam.DEV_SEED, 91, 131, 211]
    for seed in seeds:
        with tempfile.TemporaryDirectory() as tmp:
            write_set(SetPlan(seed=seed), Path(tmp))
            splits = read_local(Path(tmp))
            modes = ["row", "maker"] if seed == redteam.DEV_SEED else [""]
            for mode in modes:
                started = time.perf_counter()
                lines = report_lines(splits["test"], splits.get("shots", []), leave_out=mode)
                label = {"row": "dev, leave-one-out", "maker": "dev, leave-one-maker-out"}.get(mode, "held out")
                print(f"seed {seed} ({label}; {time.perf_counter() - started:.1f} s)")
                for line in lines:
                    print(f"   {line}")


if __name__ == "__main__":
    main()
