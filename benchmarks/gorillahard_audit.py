"""Variety and shortcut baselines of generated GorillaHard sets (not a test).

    python benchmarks/gorillahard_audit.py [SEED ...]     (default: 0 11 12)

For each seed: the figures `merabench validate gorillahard SET --audit` prints (templates, the
commonest template's share, distinct (question, reference) pairs, answer tools, the commonest
tool's share of call rows, pairs shared with the next seed's set, and the shortcuts' scores).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from merabench.tasks.gorillahard.generator.build.generate import SetPlan, write_set
from merabench.tasks.gorillahard.generator.checks.audit import audit_lines


def main() -> None:
    seeds = [int(s) for s in sys.argv[1:]] or [0, 11, 12]
    for seed in seeds:
        with tempfile.TemporaryDirectory() as tmp:
            started = time.perf_counter()
            write_set(SetPlan(seed=seed), Path(tmp))
            lines = audit_lines(Path(tmp))
            print(f"seed {seed} ({time.perf_counter() - started:.1f} s)")
            for line in lines:
                print(f"   {line}")


if __name__ == "__main__":
    main()
