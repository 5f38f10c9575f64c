"""`merabench run` and `merabench score` on the same answers give the same per-row metrics.

A local server answers every bundled row of the three tasks with its reference, dressed the way
reasoning and chatty models dress it: think blocks (any case, unclosed), leading spaces, trailing
newlines. The run scores them; `score` rescores the run's samples file; every row must agree. The
text the SAGE/RussianRegions scorer saw is the harness's (left-stripped, think blocks kept), and
with --strip-think every byte but the think blocks and the leading whitespace.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import read_jsonl, run_cli

from merabench.rows.prompts import render_row
from merabench.rows.row import read_bundled
from merabench.tasks import TASKS

# (how the model dresses the reference, what the SAGE/RussianRegions scorer must see with --strip-think)
DRESSINGS = [
    (lambda ref: ref, lambda ref: ref),
    (lambda ref: ref + "\n", lambda ref: ref + "\n"),
    (lambda ref: "  " + ref, lambda ref: ref),
    (lambda ref: "<think>Проверю текст {построчно}.</think>\n\n" + ref, lambda ref: ref),
    (lambda ref: "<THINK>рассуждение</THINK>" + ref + "\n", lambda ref: ref + "\n"),
    (lambda ref: "\n" + ref + "  \n\n", lambda ref: ref + "  \n\n"),
    (lambda ref: ref + "<think>а вдруг иначе", lambda ref: ref),
    (lambda ref: "<think>a</think> <think>b</think>" + ref, lambda ref: ref),
]


def dressing(n: int):
    return DRESSINGS[n % len(DRESSINGS)]


def references() -> dict[str, str]:
    """The rendered prompt of every bundled row -> its reference dressed one of the ways above."""
    replies = {}
    for task in TASKS.values():
        for n, row in enumerate(read_bundled(task.name)["test"]):
            replies[render_row(row)] = dressing(n)[0](row.outputs)
    return replies


def test_run_and_score_agree_on_every_row(make_server, tmp_path: Path) -> None:
    replies = references()
    server = make_server(reply=lambda body: replies[body["messages"][-1]["content"]])
    run_dir = tmp_path / "run"
    result = run_cli("run", "--model", "openai:dressed", "--base-url", server.url, "--out", str(run_dir),
                     "--no-progress", "--no-cache")
    assert result.returncode == 0, result.stderr
    for task in TASKS.values():
        run_records = {r["id"]: r for r in read_jsonl(run_dir / f"samples_{task.name}.jsonl")}
        scored = tmp_path / f"score_{task.name}"
        result = run_cli("score", task.name, "--predictions", str(run_dir / f"samples_{task.name}.jsonl"),
                         "--out", str(scored))
        assert result.returncode == 0, result.stderr
        score_records = {r["id"]: r for r in read_jsonl(scored / f"samples_{task.name}.jsonl")}
        assert run_records.keys() == score_records.keys()
        for row_id, record in run_records.items():
            assert record["metrics"] == score_records[row_id]["metrics"], (task.name, row_id, record["output"])
        run_doc = json.loads((run_dir / "results.json").read_text())["tasks"][task.name]
        score_doc = json.loads((scored / "results.json").read_text())["tasks"][task.name]
        assert run_doc["metrics"] == score_doc["metrics"], task.name


@pytest.mark.parametrize("strip", [False, True])
def test_scored_text_is_the_harness_filter_and_strip_think_removes_only_the_blocks(
        make_server, tmp_path: Path, strip: bool) -> None:
    replies = references()
    server = make_server(reply=lambda body: replies[body["messages"][-1]["content"]])
    result = run_cli("run", "--model", "openai:dressed", "--base-url", server.url, "--tasks", "sage,russianregions",
                     "--out", str(tmp_path), "--no-progress", "--no-cache", *(["--strip-think"] if strip else []))
    assert result.returncode == 0, result.stderr
    for task in ("sage", "russianregions"):
        rows = read_bundled(task)["test"]
        records = {r["id"]: r for r in read_jsonl(tmp_path / f"samples_{task}.jsonl")}
        for n, row in enumerate(rows):
            record = records[row.id]
            dress, stripped = dressing(n)
            expected = stripped(row.outputs) if strip else dress(row.outputs).lstrip()
            assert record.get("answer", record["output"]) == expected, (task, row.id)
        doc = json.loads((tmp_path / "results.json").read_text())
        think = doc["tasks"][task]["think"]
        assert think == {"answers_with_think": sum("think" in dressing(n)[0]("").lower() for n in range(len(rows))),
                         "strip_think": strip}
        assert any("carry <think> blocks" in note for note in doc["tasks"][task]["notes"])
        assert doc["settings"]["strip_think"] is strip
    sage = {r["id"]: r for r in read_jsonl(tmp_path / "samples_sage.jsonl")}
    ids = [r.id for r in read_bundled("sage")["test"]]
    trailing_newline = sage[ids[1]]  # dressed as reference + "\n": a PUNCT false positive, as the leaderboard
    assert trailing_newline["metrics"]["punct_f1"] < 1.0 and trailing_newline["metrics"]["spell_f1"] == 1.0
    assert sage[ids[0]]["metrics"]["errant_f1"] == 1.0
    # a think block before the text: scored as text by default (as the harness does), removed with the flag
    assert (sage[ids[3]]["metrics"]["errant_f1"] == 1.0) is strip
