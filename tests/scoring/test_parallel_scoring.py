"""Scoring on several cores gives exactly the scores of one process, in order: the workers are
forked with the jobs in memory and sent only index ranges."""

from __future__ import annotations

import json

import pytest

from merabench.rows.row import read_bundled
from merabench.scoring.parallel import score_rows
from merabench.tasks import TASKS


def answers_of(task: str, n: int) -> list[tuple]:
    rows = read_bundled(task)["test"]
    jobs = []
    for i in range(n):
        row = rows[i % len(rows)]
        if task == "gorillahard":  # right, fenced, twin tool, prose, refusal
            ref = row.outputs
            twin = json.dumps({**json.loads(ref), "tool": "x.y"}) if '"tool"' in ref else ref
            text = [ref, f"```json\n{ref}\n```", twin, f"Ответ: {ref}", '{"abstain": true}'][i % 5]
        else:  # the source unchanged, the reference, the reference without its last word
            ref = row.outputs
            text = [row.inputs.get("source", ref), ref, ref.rsplit(" ", 1)[0]][i % 3]
        jobs.append((row, text, None))
    return jobs


@pytest.mark.parametrize("task_name", ["sage", "gorillahard"])
def test_several_workers_score_as_one_process(task_name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    task = TASKS[task_name]
    jobs = answers_of(task_name, task.parallel_from + 17)
    monkeypatch.setenv("MERABENCH_SCORING_WORKERS", "1")
    alone = list(score_rows(task, jobs))
    monkeypatch.setenv("MERABENCH_SCORING_WORKERS", "2")
    shared = list(score_rows(task, jobs))
    assert [s.metrics for s in shared] == [s.metrics for s in alone]
    assert [s.details for s in shared] == [s.details for s in alone]
    assert len({tuple(sorted(s.metrics.items())) for s in alone}) > 1  # not one score for everything
