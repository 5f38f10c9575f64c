"""Hostile input IV, the submission ZIPs (issue 44; the cases of docs' hostile4.md by their ids).

`S` is `submission --run RUN --allow-unofficial --into h.zip --out s.zip`, RUN a finished
`--model reference` run of the three tasks and h.zip laid out as MERA's packer lays it out:
MultiQ.json, ruMMLU.json, an old SAGE.json, and logs_public.zip holding the samples and results
of a multiq run and of an old sage run. A refusal is one line, exit 2, with the inputs' bytes as
they were and nothing written beside them; the logs_public.zip inside h.zip gets every guard
h.zip gets, before a byte of s.zip is written."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import cli_command, refused_in_one_line, run_cli, snapshot
from zips import (
    MULTIQ_SAMPLES,
    STAMP,
    bomb_logs,
    encrypted_flag,
    harness_members,
    lm_eval_line,
    logs_members,
    submission_s,
    write_harness,
    zip_of,
)

from merabench.rows.row import read_bundled


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """The folder the command works in (the test's cache stays out of it)."""
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


# -- the harness's ZIP and its logs_public.zip: one line before anything is written ---------------

@dataclass
class Hostile:
    name: str
    members: Callable[[], list[tuple[str, bytes]]]   # the harness ZIP's entries
    says: str


HOSTILE = [
    Hostile("z07 a folder entry SAGE.json/", lambda: [*harness_members(), ("SAGE.json/", b"")],
            "SAGE.json/: a folder named as the file SAGE.json; no unzip can extract both"),
    Hostile("z07 a folder entry GorillaHard.json/, the name of a file merabench adds",
            lambda: [*harness_members(), ("GorillaHard.json/", b"")],
            "GorillaHard.json/: a folder named as the file GorillaHard.json merabench adds"),
    Hostile("z08 a folder entry logs_public.zip/", lambda: [*harness_members(), ("logs_public.zip/", b"")],
            "logs_public.zip/: a folder named as the file logs_public.zip"),
    Hostile("z11 an encrypted entry inside logs_public.zip", lambda: harness_members(
        encrypted_flag(zip_of(logs_members()), MULTIQ_SAMPLES)),
        f"!logs_public.zip: {MULTIQ_SAMPLES}: encrypted; MERA cannot read it without a password"),
    Hostile("z12 logs_public.zip names a samples file twice, with other contents", lambda: harness_members(
        zip_of([*logs_members(), (MULTIQ_SAMPLES, lm_eval_line(0, "другой ответ").encode())])),
        f"!logs_public.zip: {MULTIQ_SAMPLES}: in the ZIP 2 times; only one copy may be there"),
    Hostile("point 7: a harness samples line without doc.meta.id", lambda: harness_members(zip_of([
        (MULTIQ_SAMPLES, b'{"doc_id": 0, "doc": {"meta": {}}, "filtered_resps": ["x"]}\n'),
        *logs_members()[1:]])), f"!logs_public.zip!{MULTIQ_SAMPLES}: line 1 has no doc.meta.id; MERA's packer"),
    Hostile("point 7: a harness samples line without filtered_resps", lambda: harness_members(zip_of([
        (MULTIQ_SAMPLES, lm_eval_line(0, "a").encode() + b'{"doc": {"meta": {"id": 1}}, "resps": [["b"]]}\n'),
        *logs_members()[1:]])), f"!logs_public.zip!{MULTIQ_SAMPLES}: line 2 has no filtered_resps"),
]


@pytest.mark.parametrize("case", HOSTILE, ids=[c.name for c in HOSTILE])
def test_a_hostile_harness_zip_is_one_line_and_nothing_is_written(case: Hostile, reference_run: Path,
                                                                    work: Path) -> None:
    write_harness(work / "h.zip", case.members())
    before = snapshot(work)
    done = submission_s(reference_run, work / "h.zip", work / "s.zip")
    line = refused_in_one_line(done, case.says)
    assert "or filtered_resps" not in line  # what is missing is said exactly
    assert snapshot(work) == before, "no s.zip, no temporary file, the harness's bytes as they were"


def test_z10_a_bomb_in_logs_public_zip_is_refused_by_name_before_writing_in_bounded_memory(
        reference_run: Path, work: Path) -> None:
    write_harness(work / "h.zip", harness_members(bomb_logs(1 << 30)))  # 1 GiB inflated, ~1 MB packed
    before = snapshot(work)

    def at_most_1_5_gb() -> None:  # inflating the entry whole (1 GiB, then its copies) does not fit
        resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, 1536 << 20))

    done = subprocess.run(cli_command("submission", "--run", str(reference_run), "--allow-unofficial", "--into",
                                      str(work / "h.zip"), "--out", str(work / "s.zip")),
                          capture_output=True, text=True, timeout=120, preexec_fn=at_most_1_5_gb)
    refused_in_one_line(done, f"!logs_public.zip: samples_ruopenbookqa_{STAMP}.jsonl: inflates to more than 256 MiB")
    assert snapshot(work) == before


# -- --into and --check given what is not a regular file ---------------------------------------------

def _fifo(work: Path) -> Path:
    os.mkfifo(work / "f.zip")
    return work / "f.zip"


def _zero_link(work: Path) -> Path:
    (work / "z.zip").symlink_to("/dev/zero")
    return work / "z.zip"


@pytest.mark.parametrize(("make", "command", "says"), [
    pytest.param(_fifo, "into", "is a named pipe (FIFO), not a regular file", id="z29 --into a FIFO"),
    pytest.param(lambda work: Path("/dev/zero"), "into", "is a device, not a regular file", id="z30 --into /dev/zero"),
    pytest.param(_zero_link, "into", "is a device, not a regular file", id="z30 --into a symlink to /dev/zero"),
    pytest.param(_fifo, "check", "is a named pipe (FIFO), not a regular file", id="z35 --check a FIFO"),
])
def test_z29_z30_z35_not_a_regular_file_is_said_so(make: Callable[[Path], Path], command: str, says: str,
                                                   reference_run: Path, work: Path) -> None:
    target = make(work)
    done = (submission_s(reference_run, target, work / "s.zip", timeout=30) if command == "into"
            else run_cli("submission", "--check", str(target), timeout=30))
    line = refused_in_one_line(done, f"{target}: {says}")
    assert "folder" not in line
    assert sorted(p.name for p in work.iterdir()) == sorted(p.name for p in [target] if p.parent == work)


# -- an output that is an input: refused for every command that writes ------------------------------

def test_z18_out_the_same_file_as_into_is_refused(reference_run: Path, work: Path) -> None:
    write_harness(work / "h.zip")
    (work / "link.zip").symlink_to("h.zip")
    before = snapshot(work)
    for into, out in (("h.zip", "h.zip"), ("./h.zip", "h.zip"), ("h.zip", "link.zip"), (str(work / "h.zip"), "h.zip")):
        done = submission_s(reference_run, into, out, cwd=work)
        said = f"--out {out}: the same file as --into {Path(into)}; writing it would replace an input"  # ./ dropped
        refused_in_one_line(done, said)
        assert snapshot(work) == before, (into, out)


def _copied_run(reference_run: Path, work: Path, name: str = "run") -> Path:
    shutil.copytree(reference_run, work / name)
    return work / name


def _rows_file(work: Path, name: str) -> Path:
    """The bundled SAGE rows saved as `work/rows/<name>`."""
    folder = work / "rows"
    folder.mkdir(exist_ok=True)
    rows = read_bundled("sage")["test"]
    (folder / name).write_text("".join(json.dumps(r.to_dict(), ensure_ascii=False) + "\n" for r in rows),
                               encoding="utf-8")
    return folder / name


def _batch_output(work: Path, path: Path) -> Path:
    """A batch output answering every bundled SAGE request of openai:m, saved at `path`."""
    requests = work / "requests-tmp.jsonl"
    done = run_cli("export-requests", "--model", "openai:m", "--tasks", "sage", "--out", str(requests))
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in requests.read_text(encoding="utf-8").splitlines()]
    requests.unlink()
    path.parent.mkdir(exist_ok=True)
    path.write_text("".join(json.dumps({"custom_id": r["custom_id"], "text": "Привет"}) + "\n" for r in lines),
                    encoding="utf-8")
    return path


@dataclass
class Overwrite:
    name: str
    make: Callable[[Path, Path], tuple[list[str], Path]]   # (reference run, work) -> (arguments, the input)
    says: str


OVERWRITES = [
    Overwrite("submission --out a file of --run", lambda ref, w: (
        ["submission", "--allow-unofficial", "--run", str(_copied_run(ref, w)), "--out", str(w / "run" / "results.json")],
        w / "run" / "results.json"), "(its results.json)"),
    Overwrite("score --out where --predictions is its samples file", lambda ref, w: (
        ["score", "sage", "--predictions", str(_samples_in(ref, w / "answers")), "--out", str(w / "answers")],
        w / "answers" / "samples_sage.jsonl"), "--out {w}/answers (its samples_sage.jsonl): the same file as --predictions"),
    Overwrite("run --out where --data is its samples file", lambda ref, w: (
        ["run", "--model", "reference", "--tasks", "sage", "--no-progress", "--data",
         str(_rows_file(w, "samples_sage.jsonl")), "--out", str(w / "rows")], w / "rows" / "samples_sage.jsonl"),
        "--out {w}/rows (its samples_sage.jsonl): the same file as --data"),
    Overwrite("run --export-requests the --data file", lambda ref, w: (
        ["run", "--model", "openai:m", "--tasks", "sage", "--data", str(_rows_file(w, "rows.jsonl")),
         "--export-requests", str(w / "rows" / "rows.jsonl")], w / "rows" / "rows.jsonl"),
        "--export-requests {w}/rows/rows.jsonl: the same file as --data"),
    Overwrite("export-requests --out the --data file", lambda ref, w: (
        ["export-requests", "--model", "openai:m", "--tasks", "sage", "--data", str(_rows_file(w, "rows.jsonl")),
         "--out", str(w / "rows" / "rows.jsonl")], w / "rows" / "rows.jsonl"),
        "--out {w}/rows/rows.jsonl: the same file as --data"),
    Overwrite("import-responses FILE --out a folder where FILE is its samples file", lambda ref, w: (
        ["import-responses", str(_batch_output(w, w / "batch" / "samples_sage.jsonl")), "--model", "openai:m",
         "--tasks", "sage", "--no-progress", "--out", str(w / "batch")], w / "batch" / "samples_sage.jsonl"),
        "(its samples_sage.jsonl): the same file as the batch output"),
    Overwrite("compare --json a compared run's results.json", lambda ref, w: (
        ["compare", str(_copied_run(ref, w, "a")), str(_copied_run(ref, w, "b")), "--json", str(w / "a" / "results.json")],
        w / "a" / "results.json"), "--json {w}/a/results.json: the same file as {w}/a (its results.json)"),
    Overwrite("compare --html and --json one file", lambda ref, w: (
        ["compare", str(_copied_run(ref, w, "a")), str(_copied_run(ref, w, "b")), "--json", str(w / "c.json"),
         "--html", str(w / "c.json")], w / "a" / "results.json"),
        "--html {w}/c.json: the same file as --json {w}/c.json; writing it would replace the other output"),
]


def _samples_in(reference_run: Path, folder: Path) -> Path:
    """The reference's SAGE answers saved as `folder/samples_sage.jsonl` (a run's samples file)."""
    folder.mkdir()
    shutil.copy(reference_run / "samples_sage.jsonl", folder / "samples_sage.jsonl")
    return folder / "samples_sage.jsonl"


@pytest.mark.parametrize("case", OVERWRITES, ids=[c.name for c in OVERWRITES])
def test_point2_an_output_that_is_an_input_is_refused_by_every_command(case: Overwrite, reference_run: Path,
                                                                       work: Path) -> None:
    args, source = case.make(reference_run, work)
    before = snapshot(work)
    done = run_cli(*args)
    refused_in_one_line(done, case.says.format(w=work))
    assert snapshot(work) == before, "the input's bytes as they were, nothing written"
    assert source.exists()


# -- two writers of one --out, the leaderboard's comment, the hub offline ----------------------------

def test_z37_two_submissions_to_one_out_at_once_both_succeed(reference_run: Path, work: Path) -> None:
    members = harness_members()
    members.insert(2, ("ruMMLU_big.json", os.urandom(48 << 20)))  # long enough a write for the two to overlap
    write_harness(work / "h.zip", members)
    command = cli_command("submission", "--run", str(reference_run), "--allow-unofficial", "--into",
                          str(work / "h.zip"), "--out", str(work / "s.zip"))
    both = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for process in both:
        _, stderr = process.communicate(timeout=180)
        assert process.returncode == 0, stderr[-2000:]
    assert sorted(p.name for p in work.iterdir()) == ["h.zip", "s.zip"], "no temporary file left"
    checked = run_cli("submission", "--check", str(work / "s.zip"))
    assert "the format is right" in checked.stderr and "problem" not in checked.stderr, checked.stderr


def test_point5_check_says_a_zip_packaged_with_allow_unofficial_is_not_for_the_leaderboard(
        reference_run: Path, work: Path) -> None:
    write_harness(work / "h.zip")
    assert submission_s(reference_run, work / "h.zip", work / "s.zip").returncode == 0
    done = run_cli("submission", "--check", str(work / "s.zip"))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines[0].endswith("s.zip: the format is right, with every task; rows were not checked against a test split "
                             "(--data hub|PATH does that)"), lines
    assert lines[1] == ("not for the leaderboard: run on the bundled sample rows, not MERA's test set (--data hub); "
                        "run without --preset mera, the leaderboard's request parameters (its comment says it was "
                        "packaged with --allow-unofficial)"), lines
    assert len(lines) == 2


def _official_looking(reference_run: Path, work: Path) -> Path:
    """s.zip merged from the harness, its comment (--allow-unofficial's) dropped."""
    write_harness(work / "h.zip")
    assert submission_s(reference_run, work / "h.zip", work / "made.zip").returncode == 0
    with zipfile.ZipFile(work / "made.zip") as zf:
        members = [(info.filename, zf.read(info)) for info in zf.infolist()]
    (work / "made.zip").unlink()
    (work / "s.zip").write_bytes(zip_of(members))
    return work / "s.zip"


@pytest.mark.parametrize("env", [
    pytest.param({"HF_HUB_OFFLINE": "1"}, id="offline"),
    pytest.param({"HF_HUB_OFFLINE": "0", "HF_ENDPOINT": "http://127.0.0.1:9"}, id="the hub unreachable"),
])
def test_point6_check_against_the_hub_offline_says_what_was_and_was_not_checked(
        env: dict[str, str], reference_run: Path, work: Path, tmp_path: Path) -> None:
    target = _official_looking(reference_run, work)
    before = snapshot(work)
    env = {**env, "HF_HOME": str(tmp_path / "hf"), "HF_DATASETS_OFFLINE": env["HF_HUB_OFFLINE"]}
    done = run_cli("submission", "--check", str(target), "--data", "hub", env=env, timeout=60)
    line = refused_in_one_line(done, f"{target}: the format is right, with every task; not checked: its row ids "
                                     "against MERA's test set (")
    assert "offline mode is on" in line if env["HF_HUB_OFFLINE"] == "1" else "unreachable" in line
    assert snapshot(work) == before


def test_point6_writing_with_the_hub_offline_is_refused_before_anything_is_written(reference_run: Path, work: Path,
                                                                                   tmp_path: Path) -> None:
    write_harness(work / "h.zip")
    before = snapshot(work)
    done = submission_s(reference_run, work / "h.zip", work / "s.zip", "--data", "hub",
                        env={"HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")})
    refused_in_one_line(done, "nothing was written (leave out --data to write the ZIP without checking its row ids")
    assert snapshot(work) == before
