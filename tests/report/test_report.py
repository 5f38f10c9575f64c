"""report.html: every task's section, intervals in results.json, and answers escaped."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli, sage_rows, write_jsonl


def test_run_writes_a_report_with_every_task_and_escaped_answers(tmp_path: Path, make_server) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(3))
    server = make_server(reply=lambda body: '<script>alert("x")</script> & «ответ»')
    out = tmp_path / "run"
    result = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage", "--data", str(data),
                     "--out", str(out), "--no-progress")
    assert result.returncode == 0, result.stderr
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "<script>alert" not in page and "\\u003cscript\\u003ealert" in page and "\\u0026 «ответ»" in page
    assert "errant_f1" in page and "why rows lost points" in page and "corpus-level edits by type" in page
    doc = json.loads((out / "results.json").read_text())["tasks"]["sage"]
    low, high = doc["ci95"]["errant_f1"]
    assert low <= doc["metrics"]["errant_f1"] <= high


def test_report_command_rebuilds_the_page(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert run_cli("run", "--out", str(out), "--no-progress").returncode == 0
    (out / "report.html").unlink()
    assert run_cli("report", str(out)).returncode == 0
    page = (out / "report.html").read_text(encoding="utf-8")
    for section in ("SAGE", "RussianRegions", "GorillaHard", "sample_pass_rate by lever"):
        assert section in page
    assert run_cli("report", str(tmp_path)).returncode == 2


def test_report_command_names_the_page_it_wrote_as_it_is(tmp_path: Path) -> None:
    out = tmp_path / "[exp]" / "[/b]"  # brackets in a folder's name are text, not rich markup
    assert run_cli("run", "--out", str(out), "--no-progress", "--tasks", "sage").returncode == 0
    result = run_cli("report", str(out))
    assert result.returncode == 0, result.stderr
    assert f"wrote {out / 'report.html'}" in " ".join(result.stderr.split())
