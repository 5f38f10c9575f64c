"""Time to generate and validate a full default GorillaHard set (not a test; goal: under 5 s).

    python benchmarks/gorillahard_generate.py [SEED]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from merabench.tasks.gorillahard.generator.build.generate import SetPlan, write_set
from merabench.tasks.gorillahard.generator.checks.validate import validate


def main() -> None:
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        write_set(SetPlan(seed=seed), folder)
        generated = time.perf_counter()
        checks = validate(folder)
        validated = time.perf_counter()
        size = sum(p.stat().st_size for p in folder.iterdir())
        rows = {split: sum(1 for _ in (folder / f"{split}.jsonl").open(encoding="utf-8")) for split in ("test", "shots")}
    print(f"seed {seed}: generated {rows['test']:,} + {rows['shots']} rows ({size / 1e6:.1f} MB) in "
          f"{generated - started:.2f} s, validated in {validated - generated:.2f} s; total {validated - started:.2f} s "
          "(goal < 5 s)")
    failed = [c.name for c in checks if not c.ok and c.enforced]
    warned = [c.name for c in checks if not c.ok and not c.enforced]  # reported by validate, exit 0
    print(("FAILED: " + ", ".join(failed)) if failed else "every enforced check passes"
          + (f" (warnings: {', '.join(warned)})" if warned else ""))


if __name__ == "__main__":
    main()
