"""MERA submission ZIPs: written from a run, checked, and read back by `score`."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from helpers import read_jsonl, run_cli, sage_rows, write_jsonl


def test_a_run_becomes_a_complete_submission_that_scores_the_same(tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert run_cli("run", "--model", "copy", "--out", str(run), "--no-progress").returncode == 0
    zip_path = tmp_path / "sub.zip"
    made = run_cli("submission", "--allow-unofficial", "--run", str(run), "--out", str(zip_path), "--data", "bundled")
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
    made = run_cli("submission", "--allow-unofficial", "--run", str(out), "--out", str(tmp_path / "s.zip"))
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
    partial = run_cli("submission", "--allow-unofficial", "--run", str(run), "--out", str(tmp_path / "a.zip"))
    assert partial.returncode == 2 and "RussianRegions: not in this run" in partial.stderr
    assert not (tmp_path / "a.zip").exists()
    lines = (run / "samples_sage.jsonl").read_text(encoding="utf-8").splitlines()
    (run / "samples_sage.jsonl").write_text("\n".join(lines[:20]) + "\n", encoding="utf-8")  # as if cut short
    (run / "results.json").unlink()
    unfinished = run_cli("submission", "--allow-unofficial", "--run", str(run), "--out", str(tmp_path / "b.zip"))
    assert unfinished.returncode == 2 and "has not finished" in unfinished.stderr
    allowed = run_cli("submission", "--allow-unofficial", "--run", str(run), "--out", str(tmp_path / "c.zip"), "--allow-incomplete")
    assert allowed.returncode == 0, allowed.stderr
    assert "incomplete (--allow-incomplete)" in allowed.stderr
    with zipfile.ZipFile(tmp_path / "c.zip") as zf:
        assert len(json.loads(zf.read("SAGE.json"))["data"]["test"]) == 20


def test_an_allowed_incomplete_submission_names_what_it_lacks(tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert run_cli("run", "--model", "reference", "--tasks", "sage,russianregions", "--out", str(run),
                   "--no-progress").returncode == 0
    zip_path = tmp_path / "sub.zip"
    allowed = run_cli("submission", "--allow-unofficial", "--run", str(run), "--out", str(zip_path), "--allow-incomplete")
    assert allowed.returncode == 0, allowed.stderr
    assert "with every task" not in allowed.stderr
    assert "incomplete: GorillaHard missing" in allowed.stderr
    checked = run_cli("submission", "--check", "--out", str(zip_path))
    assert checked.returncode == 1 and "GorillaHard.json: missing" in checked.stderr


# -- merabench's three tasks into the ZIP the official harness packed ----------------------------------

HARNESS_STAMP, OLD_SAGE_STAMP = "2026-11-30T10-00-00.000001", "2026-11-29T09-00-00.000001"


def _harness_zip(path: Path, *, with_old_sage: bool = True) -> dict[str, bytes]:
    """A ZIP as MERA's packer lays one out for another task (RWSD: its JSON, its log and results),
    with an older SAGE of the harness's own in it and in its logs; returns the entries' bytes."""
    logs = io.BytesIO()
    with zipfile.ZipFile(logs, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(f"samples_rwsd_{HARNESS_STAMP}.jsonl", json.dumps(
            {"doc_id": 0, "doc": {"meta": {"id": 0}}, "filtered_resps": ["Да"]}, ensure_ascii=False) + "\n")
        zf.writestr(f"results_{HARNESS_STAMP}.json", json.dumps({"results": {"rwsd": {"acc,none": 0.5}}}))
        if with_old_sage:
            zf.writestr(f"samples_sage_{OLD_SAGE_STAMP}.jsonl", json.dumps(
                {"doc_id": 0, "doc": {"meta": {"id": 0}}, "filtered_resps": ["старый ответ"]}, ensure_ascii=False))
            zf.writestr(f"results_{OLD_SAGE_STAMP}.json", json.dumps({"results": {"sage": {"errant_f1,none": 0.1}}}))
    entries = {"RWSD.json": json.dumps({"data": {"test": [{"outputs": "Да", "meta": {"id": 0}}]}},
                                       ensure_ascii=False, indent=4).encode(),
               "logs_public.zip": logs.getvalue()}
    if with_old_sage:
        entries["SAGE.json"] = json.dumps({"data": {"test": [{"outputs": "старый", "meta": {"id": 0}}]}}).encode()
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return entries



def test_a_run_merges_into_the_harness_zip_keeping_its_other_task_byte_for_byte(reference_run: Path,
                                                                                 tmp_path: Path) -> None:
    harness = tmp_path / "harness.zip"
    theirs = _harness_zip(harness)
    merged = tmp_path / "sub.zip"
    done = run_cli("submission", "--run", str(reference_run), "--into", str(harness), "--out", str(merged),
                   "--allow-unofficial")
    assert done.returncode == 0, done.stderr
    assert "replaced the harness's SAGE.json" in done.stderr
    assert f"samples_sage_{OLD_SAGE_STAMP}.jsonl" in done.stderr
    with zipfile.ZipFile(merged) as zf:
        assert zf.namelist() == ["RWSD.json", "logs_public.zip", "SAGE.json", "RussianRegions.json", "GorillaHard.json"]
        assert zf.read("RWSD.json") == theirs["RWSD.json"]
        sage = json.loads(zf.read("SAGE.json"))["data"]["test"]
        logs = zipfile.ZipFile(io.BytesIO(zf.read("logs_public.zip")))
    assert len(sage) == 65 and sage[0]["outputs"] != "старый"
    with zipfile.ZipFile(io.BytesIO(theirs["logs_public.zip"])) as old:
        for name in (f"samples_rwsd_{HARNESS_STAMP}.jsonl", f"results_{HARNESS_STAMP}.json"):
            assert logs.read(name) == old.read(name)  # the harness's logs of other tasks, as they were
    names = logs.namelist()
    assert not any(OLD_SAGE_STAMP in n for n in names)  # our task's old log and its results file, gone
    assert {n.split("_")[1] for n in names if n.startswith("samples_")} == {"rwsd", "sage", "russianregions",
                                                                            "gorillahard"}
    checked = run_cli("submission", "--check", str(merged), "--data", "bundled")
    assert "the format is right, and every test row is there" in checked.stderr, checked.stderr
    assert checked.returncode == 1 and "not for the leaderboard: run on the bundled sample rows" in checked.stderr


def test_a_harness_zip_without_our_tasks_gets_them_added(reference_run: Path, tmp_path: Path) -> None:
    harness = tmp_path / "harness.zip"
    _harness_zip(harness, with_old_sage=False)
    done = run_cli("submission", "--run", str(reference_run), "--into", str(harness), "--out",
                   str(tmp_path / "sub.zip"), "--allow-unofficial")
    assert done.returncode == 0, done.stderr
    assert "replaced" not in done.stderr
    checked = run_cli("submission", "--check", str(tmp_path / "sub.zip"))
    assert "problem" not in checked.stderr and "the format is right" in checked.stderr, checked.stderr
    assert checked.returncode == 1 and "not for the leaderboard" in checked.stderr  # --allow-unofficial's comment


def _not_a_zip(path: Path) -> None:
    path.write_text("это не архив", encoding="utf-8")


def _folder_zipped(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("submission_v2/RWSD.json", "{}")


def _no_tasks(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("README.txt", "notes")


def _broken_logs(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("RWSD.json", "{}")
        zf.writestr("logs_public.zip", b"PK\x03\x04 cut")


def _twice(path: Path) -> None:
    import warnings

    with warnings.catch_warnings(), zipfile.ZipFile(path, "w") as zf:
        warnings.simplefilter("ignore")  # zipfile warns, and writes the second copy all the same
        zf.writestr("RWSD.json", "{}")
        zf.writestr("RWSD.json", '{"data": {}}')


def _encrypted(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("RWSD.json", "{}")
    data = bytearray(path.read_bytes())  # the "encrypted" flag set in both headers, as a password tool does
    data[data.find(b"PK\x03\x04") + 6] |= 1
    data[data.find(b"PK\x01\x02") + 8] |= 1
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(("make", "said"), [
    pytest.param(_twice, "RWSD.json: in the ZIP 2 times", id="a name twice"),
    pytest.param(_encrypted, "RWSD.json: encrypted", id="an encrypted entry"),
    pytest.param(_not_a_zip, "is not a ZIP file", id="not a zip"),
    pytest.param(_folder_zipped, "inside a folder", id="the folder zipped"),
    pytest.param(_no_tasks, "not a ZIP the MERA harness packed", id="no task files"),
    pytest.param(_broken_logs, "not a readable ZIP file", id="logs_public.zip broken"),
    pytest.param(None, "no such file", id="missing"),
])
def test_a_harness_zip_that_is_not_one_is_one_line(reference_run: Path, tmp_path: Path, make, said: str) -> None:
    harness = tmp_path / "harness.zip"
    if make is not None:
        make(harness)
    done = run_cli("submission", "--run", str(reference_run), "--into", str(harness), "--out",
                   str(tmp_path / "sub.zip"), "--allow-unofficial")
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == (["harness.zip"] if make else [])


def test_a_five_row_run_of_bundled_data_is_refused_with_each_reason(tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert run_cli("run", "--model", "reference", "--limit", "5", "--out", str(run), "--no-progress").returncode == 0
    refused = run_cli("submission", "--run", str(run), "--out", str(tmp_path / "s.zip"))
    assert refused.returncode == 2 and not (tmp_path / "s.zip").exists()
    line = refused.stderr.strip()
    assert len(line.splitlines()) == 1
    for cause in ("the bundled sample rows", "--limit 5", "without --preset mera", "--allow-unofficial"):
        assert cause in line, cause
    allowed = run_cli("submission", "--run", str(run), "--out", str(tmp_path / "s.zip"), "--allow-unofficial")
    assert allowed.returncode == 0, allowed.stderr
    with zipfile.ZipFile(tmp_path / "s.zip") as zf:
        assert zf.comment.decode().startswith("merabench: not for the leaderboard (--allow-unofficial)")
        assert "--limit 5" in zf.comment.decode()


def test_check_takes_the_zip_as_its_argument_and_the_old_spelling_still_works(reference_run: Path,
                                                                              tmp_path: Path) -> None:
    made = run_cli("submission", "--allow-unofficial", "--run", str(reference_run), "--out", str(tmp_path / "s.zip"))
    assert made.returncode == 0, made.stderr
    for args in (["--check", str(tmp_path / "s.zip")], ["--check", "--out", str(tmp_path / "s.zip")]):
        checked = run_cli("submission", *args)
        assert "the format is right" in checked.stderr, checked.stderr
        assert checked.returncode == 1 and "not for the leaderboard" in checked.stderr  # --allow-unofficial's comment
