"""The red-team solver's scores on generated GorillaHard sets (not a test).

    python benchmarks/gorillahard_shortcut.py [SEED ...]        (default: 23 91 131 211)
    python benchmarks/gorillahard_shortcut.py --rebuild-bank     (re-learn the recipes from seed 23)

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

from merabench.rows import read_local
from merabench.tasks.gorillahard.generator import redteam
from merabench.tasks.gorillahard.generator.build import SetPlan, write_set


def rebuild_bank() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        write_set(SetPlan(seed=redteam.DEV_SEED), Path(tmp))
        splits = read_local(Path(tmp))
        bank = redteam.build_bank(splits["test"], splits.get("shots", []))
    redteam.BANK_PATH.write_text(json.dumps(bank, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    print(f"wrote {redteam.BANK_PATH} ({len(bank['recipes'])} recipes, {len(bank['columns'])} column phrases)")


def main() -> None:
    if "--rebuild-bank" in sys.argv[1:]:
        rebuild_bank()
        return
    from merabench.tasks.gorillahard.generator.redteam_score import report_lines

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
