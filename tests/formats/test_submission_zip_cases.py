"""An outside tester's submission cases (x01, x02, x03, x05, x07), on real inputs: RUN a finished
`--model reference` run of the three tasks, h.zip laid out as MERA's packer lays it out
(tests/zips.py's builders). `--into` refuses in one line, exit 2, before writing; `--check`
names a problem, exit 1."""

from __future__ import annotations

import io
import os
import resource
import shutil
import subprocess
import zipfile
from importlib import resources
from pathlib import Path

import pytest
from helpers import cli_command, refused_in_one_line, run_cli, snapshot
from zips import (
    LOGS,
    MULTIQ_SAMPLES,
    harness_members,
    lm_eval_line,
    logs_members,
    members_of,
    submission_s,
    task_json,
    with_garbage,
    write_harness,
    zip_bytes,
    zip_of,
)

from merabench.tasks import TASKS


@pytest.fixture(scope="module")
def submission(reference_run: Path, tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, bytes]]:
    """The entries of RUN merged into a plain harness ZIP (the comment --allow-unofficial wrote left out)."""
    work = tmp_path_factory.mktemp("sub")
    done = submission_s(reference_run, write_harness(work / "h.zip"), work / "s.zip")
    assert done.returncode == 0, done.stderr
    return members_of(work / "s.zip")


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


def check(path: Path, data: bytes) -> subprocess.CompletedProcess:
    path.write_bytes(data)
    return run_cli("submission", "--check", str(path))


def failed_check(done: subprocess.CompletedProcess, says: str) -> None:
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-3000:]
    problems = [line for line in done.stderr.splitlines() if line.startswith("problem: ")]
    assert any(says in line for line in problems), done.stderr[-3000:]
    assert "the format is right" not in done.stderr


def with_logs(members: list[tuple[str, bytes]], logs: bytes) -> bytes:
    """The submission's entries with another logs_public.zip."""
    return zip_of([(n, logs if n == LOGS else d) for n, d in members])


# -- x01: doc.meta.id true or 2.5 is no row id ------------------------------------------------------

def test_x01_a_harness_log_id_that_is_not_an_integer_is_refused(reference_run: Path, work: Path,
                                                               submission: list[tuple[str, bytes]]) -> None:
    theirs = [(n, d) for n, d in members_of(dict(submission)[LOGS]) if not n.startswith("samples_multiq")]
    for value in ("true", "2.5"):
        bad = (lm_eval_line(0, "Москва") + lm_eval_line(1, "1812").replace('"id": 1}', f'"id": {value}}}')).encode()
        write_harness(work / "h.zip", harness_members(zip_of([(MULTIQ_SAMPLES, bad), *logs_members()[1:]])))
        before = snapshot(work)
        says = f"!logs_public.zip!{MULTIQ_SAMPLES}: line 2 has doc.meta.id {value}, not an integer"
        refused_in_one_line(submission_s(reference_run, work / "h.zip", work / "s.zip"), says)
        assert snapshot(work) == before
        failed_check(check(work / "c.zip", with_logs(submission, zip_of([(MULTIQ_SAMPLES, bad), *theirs]))),
                     f"logs_public.zip!{MULTIQ_SAMPLES}: line 2 has doc.meta.id {value}, not an integer")
        (work / "c.zip").unlink()
    # what the packer reads as an id still is one: an integer as text or as a float
    good = lm_eval_line(0, "Москва").replace('"id": 0}', '"id": "0"}') + \
        lm_eval_line(1, "1812").replace('"id": 1}', '"id": 1.0}')
    write_harness(work / "h.zip", harness_members(zip_of([(MULTIQ_SAMPLES, good.encode()), *logs_members()[1:]])))
    done = submission_s(reference_run, work / "h.zip", work / "s.zip")
    assert done.returncode == 0, done.stderr


# -- x02: a harness's sage.json is its SAGE.json ------------------------------------------------------

def test_x02_our_task_file_in_another_case_is_replaced_and_two_spellings_fail(reference_run: Path, work: Path,
                                                                submission: list[tuple[str, bytes]]) -> None:
    members = [("sage.json" if n == "SAGE.json" else n, d) for n, d in harness_members()]
    write_harness(work / "h.zip", members)
    done = submission_s(reference_run, work / "h.zip", work / "s.zip")
    assert done.returncode == 0, done.stderr
    assert "replaced the harness's sage.json" in done.stderr, done.stderr
    with zipfile.ZipFile(work / "s.zip") as zf:
        names = zf.namelist()
    assert "sage.json" not in names and names.count("SAGE.json") == 1, names
    assert "the format is right" in done.stderr and "problem" not in done.stderr, done.stderr
    # --check: two entries whose names differ only in case
    failed_check(check(work / "c.zip", zip_of([*submission, ("sage.json", task_json(["старый"]))])),
                 "SAGE.json, sage.json: names that differ only in case")
    # another task's two spellings in the harness: a copy would keep both, so --into refuses
    write_harness(work / "h.zip", [*harness_members(), ("multiq.json", task_json(["Москва"]))])
    refused_in_one_line(submission_s(reference_run, work / "h.zip", work / "s2.zip"),
                        "MultiQ.json, multiq.json: names that differ only in case")
    assert not (work / "s2.zip").exists()


# -- x03: --check reads every entry ------------------------------------------------------------------

def test_x03_check_names_another_tasks_corrupt_entry(work: Path, submission: list[tuple[str, bytes]]) -> None:
    sound = zip_of([*submission, ("RWSD.json", task_json(["A", "B"]))])
    done = check(work / "c.zip", sound)
    assert done.returncode == 0 and "the format is right" in done.stderr, done.stderr
    # stored, not deflated: a flipped byte then reaches the CRC-32 rather than failing to inflate
    raw = zip_bytes([*submission, ("RWSD.json", task_json(["A", "B", "C"] * 50))], zipfile.ZIP_STORED)
    failed_check(check(work / "c.zip", with_garbage(raw, "RWSD.json", flip_one=True)),
                 "c.zip!RWSD.json: cannot be read: its bytes are corrupt (their CRC-32 differs")
    # an entry of logs_public.zip that is neither samples nor results is read too
    logs = zip_bytes([*members_of(dict(submission)[LOGS]), ("README.txt", b"notes " * 500)], zipfile.ZIP_STORED)
    failed_check(check(work / "c.zip", with_logs(submission, with_garbage(logs, "README.txt", flip_one=True))),
                 "logs_public.zip!README.txt: cannot be read: its bytes are corrupt (their CRC-32 differs")
    # read a megabyte at a time: an entry of 250 MiB is read through in 400 MiB of address space
    (work / "c.zip").write_bytes(zip_of(submission))
    with zipfile.ZipFile(work / "c.zip", "a", compression=zipfile.ZIP_DEFLATED) as zf, \
            zf.open("RWSD.json", "w", force_zip64=True) as fh:
        for _ in range(250):
            fh.write(b" " * (1 << 20))

    def at_most_400_mb() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (400 << 20, 400 << 20))

    done = subprocess.run(cli_command("submission", "--check", str(work / "c.zip")), capture_output=True, text=True,
                          timeout=120, preexec_fn=at_most_400_mb, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    assert done.returncode == 0 and "the format is right" in done.stderr, done.stderr[-3000:]


# -- x05: entry names that unzip outside the folder ---------------------------------------------------

UNSAFE = [("../../../tmp/x", "../../../tmp/x: a .. in its name"),
          ("/etc/cron.d/x", "/etc/cron.d/x: an absolute name"),
          ("C:/x.json", "C:/x.json: names a drive"),
          ("logs\\GorillaHard.json", "logs\\GorillaHard.json: a backslash in its name")]


@pytest.mark.parametrize(("name", "says"), UNSAFE, ids=[n for n, _ in UNSAFE])
def test_x05_unsafe_entry_names_are_refused_and_fail_the_check(name: str, says: str, reference_run: Path, work: Path,
                                                               submission: list[tuple[str, bytes]]) -> None:
    write_harness(work / "h.zip", [*harness_members(), (name, b"pwn")])
    before = snapshot(work)
    refused_in_one_line(submission_s(reference_run, work / "h.zip", work / "s.zip"), f"h.zip: {says}")
    assert snapshot(work) == before
    write_harness(work / "h.zip", harness_members(zip_of([*logs_members(), (name, b"pwn")])))
    refused_in_one_line(submission_s(reference_run, work / "h.zip", work / "s.zip"), f"h.zip!logs_public.zip: {says}")
    failed_check(check(work / "c.zip", zip_of([*submission, (name, b"pwn")])), says)


# -- x07: the bundled rows under another name -----------------------------------------------------------

def _bundled_copies(folder: Path) -> list[str]:
    """--data TASK=FOLDER for each task, FOLDER a copy of merabench's bundled rows."""
    specs = []
    for task in TASKS:
        with resources.as_file(resources.files("merabench") / "data" / task) as bundled:
            shutil.copytree(bundled, folder / task)
        specs += ["--data", f"{task}={folder / task}"]
    return specs


def test_x07_a_local_copy_of_the_bundled_rows_is_not_for_the_leaderboard(work: Path) -> None:
    copied = work / "copied"
    done = run_cli("run", "--model", "reference", "--preset", "mera", *_bundled_copies(work / "data"),
                   "--out", str(copied), "--no-progress")
    assert done.returncode == 0, done.stderr
    write_harness(work / "h.zip")
    done = run_cli("submission", "--run", str(copied), "--into", str(work / "h.zip"), "--out", str(work / "s.zip"))
    refused_in_one_line(done, "not for the leaderboard: run on the bundled sample rows (a local copy of them), not "
                              "MERA's test set (--data hub) (--allow-unofficial packages it anyway")
    assert not (work / "s.zip").exists()
    done = submission_s(copied, work / "h.zip", work / "s.zip")
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(io.BytesIO((work / "s.zip").read_bytes())) as zf:
        assert "a local copy of them" in zf.comment.decode()
