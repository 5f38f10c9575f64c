"""GorillaHard scoring speed (not a test), with typical answers (right, fenced, prose around,
twin tool, refusal, thinking first).

    python benchmarks/gorillahard_scoring.py [--runs 5]

1. In process: 1,169 bundled rows (as many as the public set) scored and aggregated.
2. Whole process: `merabench score gorillahard` on a generated default set (seed 0) and the same
   answers, from process start to exit (intervals, results.json, samples, report.html included):
   best and median wall time of --runs, and the peak RSS (goal: under 0.5 s).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import tempfile
import time
from pathlib import Path

from measure import run_merabench

from merabench.rows.row import read_bundled
from merabench.tasks import TASKS

N_ROWS = 1169


def typical_answers(reference: str) -> list[str]:
    obj = json.loads(reference)
    pretty = json.dumps(obj, ensure_ascii=False, indent=2)
    twin = dict(obj, tool=obj["tool"] + "_v2") if "tool" in obj else obj
    return [reference, f"```json\n{pretty}\n```", f"Вот ответ: {reference}", json.dumps(twin, ensure_ascii=False),
            '{"abstain": true, "reason": "не уверен"}',
            "<think>" + "Рассуждаю о каталоге. " * 200 + "</think>\n" + reference]


def whole_process(runs: int) -> None:
    from merabench.tasks.gorillahard.generator.build.generate import SetPlan, write_set

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_set(SetPlan(seed=0), folder / "set")
        with (folder / "answers.jsonl").open("w", encoding="utf-8") as out:
            for n, line in enumerate((folder / "set" / "test.jsonl").read_text(encoding="utf-8").splitlines()):
                row = json.loads(line)
                variants = typical_answers(row["outputs"])
                out.write(json.dumps({"id": row["meta"]["id"], "output": variants[n % len(variants)]},
                                     ensure_ascii=False) + "\n")
        walls, peaks = [], []
        for n in range(runs):
            measured = run_merabench(["score", "gorillahard", "--data", str(folder / "set"), "--predictions",
                                      str(folder / "answers.jsonl"), "--out", str(folder / f"scored{n}")])
            if measured.exit_code not in (0, 1):
                raise SystemExit(f"merabench score failed: {measured.stderr[-500:]}")
            walls.append(measured.seconds)
            peaks.append(measured.peak_mb)
        walls.sort()
        print(f"2. merabench score gorillahard, a generated set of 1,169 rows, process start to exit: best "
              f"{walls[0]:.2f} s, median {walls[len(walls) // 2]:.2f} s of {runs}; peak {max(peaks):.0f} MB "
              "(goal < 0.5 s)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    in_process()
    whole_process(args.runs)


def in_process() -> None:
    task = TASKS["gorillahard"]
    bundled = read_bundled("gorillahard")["test"]
    rows, answers = [], []
    for i in range(N_ROWS):
        source = bundled[i % len(bundled)]
        rows.append(dataclasses.replace(source, meta=dict(source.meta, id=i)))
        variants = typical_answers(source.outputs)
        answers.append(variants[i % len(variants)])
    chars = sum(len(r.instruction) + sum(len(v) for v in r.inputs.values()) for r in rows)
    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        scores = [task.score(r, a) for r, a in zip(rows, answers, strict=True)]
        task.aggregate(rows, scores)
        best = min(best, time.perf_counter() - started)
    print(f"1. scored and aggregated {N_ROWS} rows in process in {best * 1000:.0f} ms (best of 5): "
          f"{N_ROWS / best:,.0f} rows/s; prompts total {chars / 1e6:.1f} M characters")
    print(f"   sample_pass_rate {sum(s.metrics['sample_pass_rate'] for s in scores) / N_ROWS:.3f} "
          "(right answers, and thinking before a right one, pass)")


if __name__ == "__main__":
    main()
