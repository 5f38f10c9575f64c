"""MERA submission ZIPs: written from a run, checked, and read back by `score`."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from helpers import read_jsonl, run_cli, sage_rows, write_jsonl


def test_a_run_becomes_a_complete_submission_that_scores_the_same(tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert run_cli("run", "--model", "copy", "--out", str(run), "--no-progress").returncode == 0
    zip_path = tmp_path / "sub.zip"
    made = run_cli("submission", "--run", str(run), "--out", str(zip_path), "--data", "bundled")
    assert made.returncode == 0, made.stderr
    assert "every test row is there" in made.stderr
    with zipfile.ZipFile(zip_path) as zf:
        assert sorted(zf.namelist()) == ["GorillaHard.json", "RussianRegions.json", "SAGE.json", "logs_public.zip"]
        sage = json.loads(zf.read("SAGE.json"))["data"]["test"]
    assert [e["meta"]["id"] for e in sage] == list(range(len(sage)))
    rescored = run_cli("score", "sage", "--predictions", str(zip_path), "--out", str(tmp_path / "s"))
    assert rescored.returncode == 0
    original = json.loads((run / "results.json").read_text())["tasks"]["sage"]["metrics"]
    assert json.loads((tmp_path / "s" / "results.json").read_text())["metrics"] == original


def test_a_run_with_failed_rows_is_not_packaged(tmp_path: Path, make_server) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(3))
    out = tmp_path / "run"
    server = make_server(plan=lambda n, body: "500")
    result = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage", "--data",
                     str(data), "--out", str(out), "--no-progress", "--max-retries", "0")
    assert result.returncode == 1 and "every request failed: sage: 3/3 rows failed" in result.stderr
    assert all(r["status"] == "error" for r in read_jsonl(out / "samples_sage.jsonl"))
    made = run_cli("submission", "--run", str(out), "--out", str(tmp_path / "s.zip"))
    assert made.returncode == 2 and "3 row(s) have no answer" in made.stderr


def test_check_names_every_problem(tmp_path: Path) -> None:
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(bad, "w") as zf:
        zf.writestr("SAGE.json", json.dumps({"data": {"test": [{"outputs": "a", "meta": {"id": 1}},
                                                             {"outputs": "b", "meta": {"id": 1}},
                                                             {"outputs": 3, "meta": {"id": 2}}]}}))
        zf.writestr("nested/GorillaHard.json", "{}")
    result = run_cli("submission", "--check", "--out", str(bad), "--data", "bundled")
    assert result.returncode == 1
    for fragment in ("duplicate ids [1]", "entry 2 has no string outputs", "nested/GorillaHard.json",
                     "test row(s) missing"):
        assert fragment in result.stderr, fragment


def test_an_interrupted_or_partial_run_is_refused_unless_allowed(tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert run_cli("run", "--model", "reference", "--tasks", "sage", "--out", str(run), "--no-progress").returncode == 0
    partial = run_cli("submission", "--run", str(run), "--out", str(tmp_path / "a.zip"))
    assert partial.returncode == 2 and "RussianRegions: not in this run" in partial.stderr
    assert not (tmp_path / "a.zip").exists()
    lines = (run / "samples_sage.jsonl").read_text(encoding="utf-8").splitlines()
    (run / "samples_sage.jsonl").write_text("\n".join(lines[:20]) + "\n", encoding="utf-8")  # as if cut short
    (run / "results.json").unlink()
    unfinished = run_cli("submission", "--run", str(run), "--out", str(tmp_path / "b.zip"))
    assert unfinished.returncode == 2 and "has not finished" in unfinished.stderr
    allowed = run_cli("submission", "--run", str(run), "--out", str(tmp_path / "c.zip"), "--allow-incomplete")
    assert allowed.returncode == 0, allowed.stderr
    assert "incomplete (--allow-incomplete)" in allowed.stderr
    with zipfile.ZipFile(tmp_path / "c.zip") as zf:
        assert len(json.loads(zf.read("SAGE.json"))["data"]["test"]) == 20


def test_an_allowed_incomplete_submission_names_what_it_lacks(tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert run_cli("run", "--model", "reference", "--tasks", "sage,russianregions", "--out", str(run),
                   "--no-progress").returncode == 0
    zip_path = tmp_path / "sub.zip"
    allowed = run_cli("submission", "--run", str(run), "--out", str(zip_path), "--allow-incomplete")
    assert allowed.returncode == 0, allowed.stderr
    assert "with every task" not in allowed.stderr
    assert "incomplete: GorillaHard missing" in allowed.stderr
    checked = run_cli("submission", "--check", "--out", str(zip_path))
    assert checked.returncode == 1 and "GorillaHard.json: missing" in checked.stderr
