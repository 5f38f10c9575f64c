"""Time to generate and validate a full default GorillaHard set (not a test; goal: under 5 s).

    python benchmarks/gorillahard_generate.py [SEED]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from merabench.tasks.gorillahard.generator.build import SetPlan, write_set
from merabench.tasks.gorillahard.generator.validate import validate


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
    print(f"seed {seed}: generated 1,169 + 35 rows ({size / 1e6:.1f} MB) in {generated - started:.2f} s, "
          f"validated in {validated - generated:.2f} s; total {validated - started:.2f} s (goal < 5 s)")
    print("all checks pass" if all(c.ok for c in checks) else
          "FAILED: " + ", ".join(c.name for c in checks if not c.ok))


if __name__ == "__main__":
    main()
