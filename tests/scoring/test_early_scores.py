"""Scores taken while a run waits (EarlyScores) are the ones `score_task` would compute, and the
background warm-up gives the same data hash as hashing the rows at the end."""

from __future__ import annotations

from pathlib import Path

from merabench.records import Answer, Status
from merabench.rows.row import read_bundled, rows_sha256
from merabench.runner.cache import CacheSettings
from merabench.scoring.score import EarlyScores, score_task
from merabench.tasks import TASKS


def test_early_scores_and_the_warmed_up_hash_equal_what_the_end_of_the_run_computes(tmp_path: Path) -> None:
    task = TASKS["gorillahard"]
    rows = read_bundled("gorillahard")["test"][:40]
    loaded_hash = rows_sha256(rows)
    early = EarlyScores([(task, rows)], strip=True)
    assert early.data_sha256("gorillahard") is None  # no warm-up yet: the end hashes the rows itself
    answers = {}
    for n, row in enumerate(rows):  # right answers, a fenced one, prose, a refusal
        text = [row.outputs, f"```json\n{row.outputs}\n```", f"Ответ: {row.outputs}", '{"abstain": true}'][n % 4]
        answers[row.id] = Answer(row.id, Status.OK, text)
        early.add("gorillahard", answers[row.id])
    early.warm_up()
    assert early.data_sha256("gorillahard") == rows_sha256(rows) == loaded_hash
    assert all(len(row.inputs.parts("tools")) > 1 for row in rows)  # the warm-up compacted the catalogs
    with_early = score_task(task, rows, answers, source="x", strip=True, early=early.scores["gorillahard"],
                            data_sha256=early.data_sha256("gorillahard"))
    without = score_task(task, rows, answers, source="x", strip=True)
    assert with_early.aggregate.metrics == without.aggregate.metrics
    assert with_early.data_sha256 == without.data_sha256
    assert len(early.scores["gorillahard"]) == len(rows)


def test_an_interrupted_run_waits_for_the_warm_up_before_it_exits(tmp_path: Path, monkeypatch) -> None:
    """Ctrl-C while the warm-up thread is busy (loading the dictionaries, in native code): the
    KeyboardInterrupt leaves the pipeline only once the warm-up is done, so the interpreter never
    exits with a daemon thread cut off inside C++ (which aborts it instead of exiting with 130)."""
    import threading
    import time

    import pytest

    import merabench.pipeline as pipeline
    from merabench.runner.loop import Runner

    finished = threading.Event()

    def slow_warm_up() -> None:
        time.sleep(0.3)
        finished.set()

    async def interrupted(self, runs):
        self.on_idle()  # the warm-up starts once the workers are busy
        raise KeyboardInterrupt

    monkeypatch.setattr(pipeline, "warm_up_summary", slow_warm_up)
    monkeypatch.setattr(Runner, "run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        pipeline.evaluate(pipeline.RunConfig(model="reference", tasks=("sage",), out=tmp_path / "run", cache=CacheSettings(enabled=False)))
    assert finished.is_set()
