"""The smaller points of the first real run (issue 44): what the files and pages say must be what
happened. Nothing to score is n/a, not a perfect 1.0; the report shows a table once; --help's
default temperature is the one results.json records."""

from __future__ import annotations

import json
import re
from pathlib import Path

from helpers import run_cli


def results_of(out: Path) -> dict:
    return json.loads((out / "results.json").read_text(encoding="utf-8"))


def test_a_sage_edit_type_no_answer_or_reference_has_is_left_out_not_perfect(tmp_path: Path) -> None:
    """Three bundled rows whose only edits are commas: before, yo_micro_f1 (and spell, case) were
    1.0 with n = 0."""
    out = tmp_path / "out"
    done = run_cli("run", "--model", "reference", "--tasks", "sage", "--limit", "3", "--out", str(out), "--no-progress")
    assert done.returncode == 0, done.stderr
    task = results_of(out)["tasks"]["sage"]
    micro = task["breakdowns"]["micro"]["rows"]
    assert micro["YO"] == {"tp": 0, "fp": 0, "fn": 0, "precision": None, "recall": None, "f1": None, "f0.5": None}
    assert "yo_micro_f1" not in task["metrics"] and "yo_micro_f1" not in task["denominators"]
    assert task["metrics"]["punct_micro_f1"] == 1.0 and task["denominators"]["punct_micro_f1"] > 0
    assert task["metrics"]["errant_f1"] == 1.0  # a row's own F1 with nothing to correct stays 1.0 (the reference's)
    page = (out / "report.html").read_text(encoding="utf-8")
    yo_row = re.search(r"<tr><td>YO</td>(.*?)</tr>", page).group(1)
    assert yo_row.count(">n/a<") == 4 and "1.0000" not in yo_row


def test_the_gorillahard_report_shows_its_failure_reasons_once(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = run_cli("run", "--model", "random", "--tasks", "gorillahard", "--out", str(out), "--no-progress")
    assert done.returncode == 0, done.stderr
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.count("why rows lost points") == 1
    assert "<h3>most frequent failure reasons</h3>" not in page and "<b>most frequent failure reasons</b>" not in page
    assert "failure_reasons" in results_of(out)["tasks"]["gorillahard"]["breakdowns"]  # still there for readers


def test_help_and_results_agree_on_the_default_temperature(tmp_path: Path) -> None:
    helped = run_cli("run", "--help", env={"COLUMNS": "300"})
    assert "[default: 0: sent as 0 and so recorded in results.json" in " ".join(helped.stdout.split())
    out = tmp_path / "out"
    done = run_cli("run", "--model", "reference", "--tasks", "sage", "--limit", "2", "--out", str(out), "--no-progress")
    assert done.returncode == 0, done.stderr
    assert results_of(out)["settings"]["generation"]["temperature"] == 0.0
    assert json.loads((out / "run.json").read_text())["options"]["temperature"] is None  # the identity: as given
