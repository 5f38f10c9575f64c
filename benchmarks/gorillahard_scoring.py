"""GorillaHard scoring speed (not a test): 1,169 rows, as many as the public set, with typical
answers (right, fenced, prose around, twin tool, refusal, thinking first), scored and aggregated.

    python benchmarks/gorillahard_scoring.py
"""

from __future__ import annotations

import dataclasses
import json
import time

from merabench.rows import read_bundled
from merabench.tasks import TASKS

N_ROWS = 1169


def typical_answers(reference: str) -> list[str]:
    obj = json.loads(reference)
    pretty = json.dumps(obj, ensure_ascii=False, indent=2)
    twin = dict(obj, tool=obj["tool"] + "_v2") if "tool" in obj else obj
    return [reference, f"```json\n{pretty}\n```", f"Вот ответ: {reference}", json.dumps(twin, ensure_ascii=False),
            '{"abstain": true, "reason": "не уверен"}',
            "<think>" + "Рассуждаю о каталоге. " * 200 + "</think>\n" + reference]


def main() -> None:
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
    print(f"scored and aggregated {N_ROWS} rows in {best * 1000:.0f} ms (best of 5): "
          f"{N_ROWS / best:,.0f} rows/s; prompts total {chars / 1e6:.1f} M characters")
    print(f"sample_pass_rate {sum(s.metrics['sample_pass_rate'] for s in scores) / N_ROWS:.3f} "
          "(right answers, and thinking before a right one, pass)")


if __name__ == "__main__":
    main()
