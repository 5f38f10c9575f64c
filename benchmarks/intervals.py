"""Bootstrap intervals speed (not a test): every declared metric of each task over 10,000 rows.

    python benchmarks/intervals.py [ROWS]

Rows are the bundled rows repeated, each copy its own groups and dialogues (every text meta field
gets the copy's number); per-row values are drawn with a fixed seed: in [0, 1] for SAGE's F1s,
0/1 elsewhere, a tenth missing (not applicable) for GorillaHard. Goal: under 0.2 s per task.
"""

from __future__ import annotations

import random
import sys
import time

from merabench.rows.row import Row, read_bundled
from merabench.scoring.stats import intervals
from merabench.tasks import TASKS
from merabench.tasks.base import SampleScore


def repeated(task: str, n: int) -> list[Row]:
    bundled = read_bundled(task)["test"]
    rows = []
    for i in range(n):
        row = bundled[i % len(bundled)]
        copy = i // len(bundled)
        meta = {k: (f"{v}-{copy}" if isinstance(v, str) else v) for k, v in row.meta.items()}
        rows.append(Row(row.instruction, row.inputs, row.outputs, {**meta, "id": i}))
    return rows


def drawn_scores(task: str, rows: list[Row], rng: random.Random) -> list[SampleScore]:
    names = [m.name for m in TASKS[task].metrics if not m.derived]
    scores = []
    for _ in rows:
        metrics = {}
        for name in names:
            if task == "gorillahard" and rng.random() < 0.1:
                continue
            metrics[name] = rng.random() if task == "sage" else float(rng.random() < 0.6)
        scores.append(SampleScore(metrics))
    return scores


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    rng = random.Random(0)
    intervals(TASKS["sage"].metrics, repeated("sage", 10), drawn_scores("sage", repeated("sage", 10), rng))  # warm
    for task in TASKS:
        rows = repeated(task, n)
        scores = drawn_scores(task, rows, rng)
        best, out = float("inf"), {}
        for _ in range(3):
            started = time.perf_counter()
            out = intervals(TASKS[task].metrics, rows, scores)
            best = min(best, time.perf_counter() - started)
        print(f"{task:<15} {n:,} rows, {len(out)} intervals ({', '.join(out)}): "
              f"{best * 1000:.0f} ms (best of 3; goal < 200 ms)")


if __name__ == "__main__":
    main()
