"""What `--repeats 4` costs against one asking (not a test).

    python benchmarks/repeats_cost.py [--runs 3]

A generated GorillaHard set (1,169 rows, seed 0) against the zero-latency fake server in its own
process, `merabench run --no-cache` into a fresh folder, timed from process start to exit: with
--repeats 1 and with --repeats 4, alternating after one untimed run of each. Printed: each pair,
the medians, and K=4 over 4 x K=1 (the issue asks at most 1.10: the fixed costs of a run, start,
loading, writing the report, are paid once, so 4 repeats should cost less than 4 runs).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from measure import run_merabench
from runner_throughput import Server

from merabench.tasks.gorillahard.generator.build.generate import SetPlan, write_set


def one(url: str, data: Path, out: Path, repeats: int) -> float:
    measured = run_merabench(["run", "--model", "openai:m", "--base-url", url, "--tasks", "gorillahard", "--data",
                              f"gorillahard={data}", "--no-cache", "--no-progress", "--repeats", str(repeats),
                              "--out", str(out)])
    assert measured.exit_code == 0, measured.stderr[-2000:]
    return measured.seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    server = Server(0.0)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_set(SetPlan(seed=0), folder / "set")
        one(server.url, folder / "set", folder / "warm1", 1)
        one(server.url, folder / "set", folder / "warm4", 4)
        singles, fours = [], []
        for n in range(args.runs):
            singles.append(one(server.url, folder / "set", folder / f"k1-{n}", 1))
            fours.append(one(server.url, folder / "set", folder / f"k4-{n}", 4))
            print(f"pair {n + 1}: K=1 {singles[-1]:.2f} s, K=4 {fours[-1]:.2f} s, K=4 / (4 x K=1) "
                  f"{fours[-1] / (4 * singles[-1]):.3f}")
    k1, k4 = statistics.median(singles), statistics.median(fours)
    print(f"median: K=1 {k1:.2f} s, K=4 {k4:.2f} s; K=4 / (4 x K=1) = {k4 / (4 * k1):.3f} (want <= 1.10)")


if __name__ == "__main__":
    main()
