"""Messages a new user met in a trial, each with the input that produced it: they say what happened
in words (no doubled words, no Python reprs or class names), name what changed, and use scoring
terms for score folders. And inputs that were refused though they are plain: a UTF-8 BOM, a JSON
list of predictions."""

from __future__ import annotations

import asyncio
import json
import zipfile
from pathlib import Path

import pytest
from helpers import run_cli, sage_rows, write_jsonl

from merabench.errors import BackendError, ConfigError, DataError
from merabench.formats.predictions import load_predictions
from merabench.formats.submission import check_submission, write_submission
from merabench.models import BackendSettings, RequestPolicy
from merabench.models.base import Request
from merabench.models.openai_compat import OpenAICompatBackend, parse_reply
from merabench.pipeline import RunConfig, ScoreConfig, concurrency_notes, evaluate, score_predictions
from merabench.report.html import render
from merabench.rows.row import read_local
from merabench.runner.cache import CacheSettings
from merabench.runner.rundir import check_identity

BOM = b"\xef\xbb\xbf"


def test_a_raw_control_character_is_named_once_with_its_column(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_bytes(b'{"id": 0, "output": "a\tb"}\n')
    with pytest.raises(DataError) as info:
        load_predictions(path, "SAGE")
    message = str(info.value)
    assert "at at" not in message and "Invalid control character (a raw TAB or newline" in message
    assert "at column 23" in message


def test_a_body_that_is_not_json_is_shown_as_text() -> None:
    with pytest.raises(BackendError) as info:
        parse_reply(b"this is not json at all <html>", "http://127.0.0.1:1/v1/chat/completions")
    message = str(info.value)
    assert "b'" not in message and "(not JSON): 'this is not json at all <html>'" in message
    with pytest.raises(BackendError) as info:
        parse_reply(b"x" * 5000, "http://127.0.0.1:1/v1/chat/completions")
    assert "…' (5,000 bytes)" in str(info.value) and len(str(info.value)) < 400


def test_a_cut_off_body_is_said_in_words(make_server) -> None:
    server = make_server(plan=lambda n, body: "truncate")
    backend = OpenAICompatBackend("m", [server.url], max_retries=0, retry_base_delay_s=0.01)

    async def go():
        try:
            return await backend.generate(Request([{"role": "user", "content": "Превет"}]))
        finally:
            await backend.aclose()

    with pytest.raises(BackendError) as info:
        asyncio.run(go())
    message = str(info.value)
    assert "ClientPayloadError" not in message
    assert "was cut off: the connection closed before the whole body arrived" in message


def test_auto_concurrency_says_what_was_sent_and_nothing_when_nothing_was(tmp_path: Path, make_server) -> None:
    server = make_server()
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(5))
    config = dict(model="openai:m", endpoint=BackendSettings((server.url,), policy=RequestPolicy(concurrency="auto")),
                  tasks=("sage",), data=(str(data),), cache=CacheSettings(path=tmp_path / "cache.sqlite"))
    first = evaluate(RunConfig(out=tmp_path / "a", **config))
    note = next(n for n in first.notes if n.startswith("--concurrency auto:"))
    assert "was sent 5 request(s), at most 5 at once" in note and "32-32" not in note
    again = evaluate(RunConfig(out=tmp_path / "b", **config))  # every answer from the cache
    assert len(server.requests) == 5
    assert not any(n.startswith("--concurrency auto:") for n in again.notes)
    assert concurrency_notes({"u": {"mode": "auto", "min": 4, "max": 32, "final": 8, "sent": 90, "peak": 32}}) == [
        "--concurrency auto: u was sent 90 request(s), at most 32 at once; its limit moved between 4 and 32, "
        "8 at the end (results.json `concurrency` has the trace)"]


def test_another_tasks_file_is_named_without_a_possessive(tmp_path: Path) -> None:
    path = tmp_path / "RussianRegions.json"
    path.write_text(json.dumps({"data": {"test": [{"outputs": "А", "meta": {"id": 0}}]}}), encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_predictions(path, "SAGE")
    assert "'s" not in str(info.value) and "is a submission file of RussianRegions, not of SAGE" in str(info.value)


def test_a_missing_zip_is_missing_not_malformed(tmp_path: Path) -> None:
    with pytest.raises(DataError) as info:
        check_submission(tmp_path / "nonexist.zip")
    assert "no such file" in str(info.value) and "not a ZIP" not in str(info.value)


def test_validate_of_another_task_says_what_validate_does(tmp_path: Path) -> None:
    result = run_cli("validate", "sage", str(tmp_path / "gh0"))
    assert result.returncode == 2
    assert "validate checks a GorillaHard set made by `merabench generate`" in result.stderr
    assert "other tasks' data is checked as it is read" in result.stderr


def test_a_changed_option_is_named_by_its_flag(tmp_path: Path) -> None:
    identity = {"model": "openai:m", "options": {"max_tokens": 256, "temperature": 0.0}, "system_prompt": None}
    check_identity(tmp_path, identity)
    with pytest.raises(ConfigError) as info:
        check_identity(tmp_path, {**identity, "options": {"max_tokens": 512, "temperature": 0.0}})
    assert "(--max-tokens 256 in the folder, 512 now)" in str(info.value)
    assert "changed: options" not in str(info.value)


def _scored(tmp_path: Path, answers: dict[int, str | None], n: int = 3) -> Path:
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(n))
    out = tmp_path / "scored"
    score_predictions(ScoreConfig(task="sage", predictions=answers, predictions_source="predictions:p.jsonl",
                                  data=str(data), out=out, cache=CacheSettings(enabled=False)))
    return out


def test_a_score_folder_speaks_of_answers_not_requests(tmp_path: Path) -> None:
    rows = sage_rows(3)
    out = _scored(tmp_path, {0: rows[0]["outputs"]})
    page = render(out)
    assert "request(s) failed" not in page and "request failed" not in page
    assert "2 row(s) had no answer to score" in page and "no answer to score" in page
    with pytest.raises(DataError) as info:
        write_submission(out, tmp_path / "s.zip", allow_unofficial=True)
    message = str(info.value)
    assert "rerun the same command" not in message and "run it with --tasks" not in message
    assert "the predictions scored into this folder had none for them" in message
    assert "RussianRegions: not in this score folder" in message


def test_a_report_with_no_scored_row_says_why_instead_of_an_empty_table(tmp_path: Path) -> None:
    page = render(_scored(tmp_path, {0: None, 1: None, 2: None}))
    assert "No metric: none of its 3 row(s) had an answer to score" in page
    assert '<table class="metrics">' not in page.split('id="rows"')[0]


def test_a_bom_is_accepted_in_predictions_and_data(tmp_path: Path) -> None:
    rows = sage_rows(2)
    data = tmp_path / "rows.jsonl"
    data.write_bytes(BOM + "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode())
    assert [r.id for r in read_local(data)["test"]] == [0, 1]
    as_json = tmp_path / "rows.json"
    as_json.write_bytes(BOM + json.dumps(rows, ensure_ascii=False).encode())
    assert len(read_local(as_json)["test"]) == 2
    preds = tmp_path / "p.jsonl"
    preds.write_bytes(BOM + b'{"id": 0, "output": "a"}\n{"id": 1, "output": "b"}\n')
    assert load_predictions(preds, "SAGE") == {0: "a", 1: "b"}


def test_a_json_list_of_predictions_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text(json.dumps([{"id": 0, "output": "Привет"}, {"id": 1, "output": "Пока"}], ensure_ascii=False),
                    encoding="utf-8")
    assert load_predictions(path, "SAGE") == {0: "Привет", 1: "Пока"}
    path.write_text(json.dumps([{"id": 0, "output": "a"}, {"id": 0, "output": "b"}]), encoding="utf-8")
    with pytest.raises(DataError, match="the same id is answered twice"):
        load_predictions(path, "SAGE")


def test_a_zip_read_without_a_task_asks_for_the_task(tmp_path: Path) -> None:
    path = tmp_path / "s.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("SAGE.json", json.dumps({"data": {"test": []}}))
    with pytest.raises(DataError, match="name the task to read") as info:
        load_predictions(path)
    assert "None" not in str(info.value) and "SAGE.json" in str(info.value)
