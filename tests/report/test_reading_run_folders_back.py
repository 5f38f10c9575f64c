"""Hostile cases of round III on reading a run folder back and on being stopped (h10, h11, m05,
m07, m08, m10, k03, k04, k06, k07, k11, k12, k14 of shared/cases/hostile3.md): a damaged
results.json is one line and the old page is kept; damaged samples lines cost their figures, never
a crash; output files are checked before the work; no temporary file outlives a later write; a
signal to a parallel scoring leaves no worker behind and no worker's traceback on the terminal."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import (
    cli_command,
    read_jsonl,
    run_cli,
    run_cli_process,
    sage_rows,
    said_after_start,
    write_jsonl,
)


@pytest.fixture(scope="module")
def a_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of the reference baseline on the bundled SAGE and RussianRegions rows."""
    folder = tmp_path_factory.mktemp("runs") / "A"
    done = run_cli("run", "--no-progress", "--tasks", "sage,russianregions", "--out", str(folder))
    assert done.returncode == 0, done.stderr
    return folder


def copy_of(run: Path, tmp: Path, name: str) -> Path:
    return Path(shutil.copytree(run, tmp / name))


def lines_of(result: subprocess.CompletedProcess) -> list[str]:
    return said_after_start(result.stderr)


# -- h10, h11, m05, m08: damaged folders read back -------------------------------------------------

def cut_results(folder: Path) -> None:
    text = (folder / "results.json").read_text(encoding="utf-8")
    (folder / "results.json").write_text(text[: len(text) // 2], encoding="utf-8")


def damage_samples(folder: Path) -> None:
    """Lines a hand or a bad tool made: metrics 'garbage', a list, a string value, NaN, 1e308; an
    id '3'; details a list; output an object; status a number."""
    path = folder / "samples_sage.jsonl"
    lines = read_jsonl(path)
    for line, change in zip(lines, [{"metrics": "garbage"}, {"metrics": [1, 2]}, {"metrics": {"SPELL_F1": "x"}},
                                    {"metrics": {"SPELL_F1": float("nan")}}, {"metrics": {"SPELL_F1": 1e308}},
                                    {"id": "3"}, {"details": [1]}, {"output": {"a": 1}}, {"status": 12},
                                    {"details": {"hypothesis_edits": [5, "x"]}}], strict=False):
        line.update(change)
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")


def tasks_not_objects(folder: Path) -> None:
    doc = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    doc["tasks"] = {"sage": "a string", "russianregions": [1, 2]}
    (folder / "results.json").write_text(json.dumps(doc), encoding="utf-8")


def test_h10_report_of_a_cut_results_json_is_one_line_and_keeps_the_page(a_run: Path, tmp_path: Path) -> None:
    folder = copy_of(a_run, tmp_path, "H")
    page = (folder / "report.html").read_bytes()
    cut_results(folder)
    result = run_cli("report", str(folder))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert len(lines_of(result)) == 1, result.stderr
    assert lines_of(result)[0].startswith(f"error: {folder}/results.json: not valid JSON ("), result.stderr
    assert (folder / "report.html").read_bytes() == page
    assert not list(folder.glob("*.tmp"))


def test_h11_report_of_damaged_samples_lines_shows_the_rest(a_run: Path, tmp_path: Path) -> None:
    folder = copy_of(a_run, tmp_path, "B")
    damage_samples(folder)
    result = run_cli("report", str(folder))
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert "SAGE" in (folder / "report.html").read_text(encoding="utf-8")


def test_m05_compare_with_damaged_samples_lines_leaves_them_out(a_run: Path, tmp_path: Path) -> None:
    folder = copy_of(a_run, tmp_path, "B")
    damage_samples(folder)
    result = run_cli("compare", str(a_run), str(folder))
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert "sage: compared over the" in result.stderr and "left out" in result.stderr
    assert "nan" not in result.stdout.lower() and "inf" not in result.stdout.lower()


def test_m08_compare_with_tasks_that_are_no_objects_names_them(a_run: Path, tmp_path: Path) -> None:
    folder = copy_of(a_run, tmp_path, "M")
    tasks_not_objects(folder)
    result = run_cli("compare", str(a_run), str(folder))
    assert result.returncode == 2 and len(lines_of(result)) == 1, result.stderr
    assert "nothing to compare (sage: not in every run, left out; russianregions: not in every run" in result.stderr


def test_m08_a_results_json_that_is_no_document_is_named(a_run: Path, tmp_path: Path) -> None:
    folder = copy_of(a_run, tmp_path, "M")
    (folder / "results.json").write_text('["tasks"]', encoding="utf-8")
    result = run_cli("compare", str(a_run), str(folder))
    assert result.returncode == 2 and len(lines_of(result)) == 1
    assert f"{folder}/results.json: is no results document" in result.stderr


# -- m07, m10: output files checked before the work ------------------------------------------------

@dataclass
class Target:
    name: str
    args: Callable[[Path, Path], list[str]]
    says: str


TARGETS = [
    Target("m10 --json an existing folder", lambda run, t: [str(run), str(run), "--json", str(t)],
           "--json {t}: cannot be written (it is a folder; a file is expected here)"),
    Target("m07 leaderboard --html in a folder no one may write", lambda run, t: [
        str(run), str(run), str(run), "--html", "/proc/1/board.html"], "--html /proc/1/board.html: cannot be written"),
    Target("--html in a missing folder", lambda run, t: [str(run), str(run), "--html", str(t / "no" / "b.html")],
           "(the folder {t}/no does not exist)"),
]


@pytest.mark.parametrize("case", TARGETS, ids=[c.name for c in TARGETS])
def test_an_output_that_cannot_be_written_is_refused_before_the_work(case: Target, a_run: Path,
                                                                     tmp_path: Path) -> None:
    result = run_cli("compare", *case.args(a_run, tmp_path))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert lines_of(result) == lines_of(result)[:1] and case.says.format(t=tmp_path) in result.stderr, result.stderr
    assert result.stdout == "", "no table before the refusal"


# -- k03, k04, k06: temporary files of a killed process --------------------------------------------

def a_dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_k04_k06_a_killed_writers_temporary_files_go_with_the_next_write(a_run: Path, tmp_path: Path) -> None:
    folder = copy_of(a_run, tmp_path, "K")
    dead = a_dead_pid()
    stale = [folder / f"report.html.{dead}.tmp", folder / f"results.json.{dead}.tmp"]
    alive = folder / f"report.html.{os.getpid()}.tmp"  # a live writer's file is not ours to remove
    for path in [*stale, alive]:
        path.write_text("<html>половина страницы", encoding="utf-8")
    # a process of its own: in this one, this process's temporary file would be the command's own
    result = run_cli_process("report", str(folder))
    assert result.returncode == 0, result.stderr
    assert not stale[0].exists(), "the report's write removed the file a killed report left"
    assert alive.exists()
    # a rerun of the run rewrites results.json and the report: nothing left of a killed run
    again = run_cli_process("run", "--no-progress", "--tasks", "sage,russianregions", "--out", str(folder))
    assert again.returncode == 0, again.stderr
    assert not stale[1].exists()


# -- k07: the disk fills while the scored samples are written --------------------------------------

FULL_AT_THE_END = '''
import errno, sys
from merabench.runner import samples
from merabench.cli.main import entry

def full(*args):
    raise OSError(errno.ENOSPC, "No space left on device")

class Full:
    """The final samples file on a full disk: writing, flushing and closing all fail."""
    def __init__(self, fh):
        self.fh = fh
    write = flush = full
    def fileno(self):
        return self.fh.fileno()
    def close(self):
        self.fh.close()
        full()

enter = samples.SamplesFile.__enter__
def full_enter(self):
    enter(self)
    if self._fh is not None:
        self._fh = Full(self._fh)
    return self

samples.SamplesFile.__enter__ = full_enter
sys.argv = ["merabench", *sys.argv[1:]]
entry()
'''


def test_k07_a_full_disk_at_the_end_leaves_no_temporary_file_and_the_rerun_asks_nothing(
        tmp_path: Path, make_server) -> None:
    server = make_server()
    out = tmp_path / "run"
    args = ["run", "--no-progress", "--model", "openai:m", "--base-url", server.url, "--tasks", "russianregions",
            "--out", str(out)]
    full = subprocess.run([sys.executable, "-c", FULL_AT_THE_END, *args], capture_output=True, text=True, timeout=120)
    assert full.returncode == 2 and len(lines_of(full)) == 1, full.stderr
    assert "no space left on the device" in full.stderr
    assert not list(out.glob("*.tmp")), "no temporary file outlives the failed write"
    asked = len(server.requests)
    again = run_cli(*args)
    assert again.returncode == 0, again.stderr
    assert len(server.requests) == asked, "the answers on disk were not asked again"
    assert not list(out.glob("*.tmp"))


# -- k03, k11, k12, k14: signals during a parallel SAGE scoring -----------------------------------

@pytest.fixture(scope="module")
def six_thousand(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("sage6000")
    rows = sage_rows(6000)
    data = write_jsonl(folder / "rows.jsonl", rows)
    preds = write_jsonl(folder / "preds.jsonl", [{"id": r["meta"]["id"], "output": r["outputs"].replace(",", "")}
                                                 for r in rows])
    return data, preds


def children_of(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as fh:
            return [int(p) for p in fh.read().split()]
    except OSError:
        return []


def stat_fields(pid: int) -> list[str]:
    """/proc/PID/stat after the command name, from the state on (proc(5)'s fields 3 on); [] once
    the process is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().split(") ", 1)[1].split()
    except (OSError, IndexError):
        return []


def cpu_ticks(pid: int) -> int:
    """User + system clock ticks a process has used so far (0 once it is gone)."""
    fields = stat_fields(pid)
    return int(fields[11]) + int(fields[12]) if fields else 0  # utime and stime, proc(5)'s fields 14 and 15


def alive(pid: int) -> bool:
    fields = stat_fields(pid)
    return bool(fields) and fields[0] != "Z"


@pytest.mark.skipif(sys.platform != "linux", reason="the scoring forks workers on Linux only")
@pytest.mark.parametrize(("sig", "group", "code", "says"), [
    (signal.SIGTERM, False, 143, "interrupted: everything answered so far is saved"),
    (signal.SIGKILL, False, -signal.SIGKILL, None),
    (signal.SIGINT, True, 130, "interrupted: everything answered so far is saved"),
    # the outside tester's x22: workers in merabench's group died mid-lock and the pool waited for ever
    (signal.SIGTERM, True, 143, "interrupted: everything answered so far is saved"),
], ids=["k03 k11 SIGTERM", "k12 SIGKILL", "k14 Ctrl-C to the process group", "x22 SIGTERM to the process group"])
def test_a_signal_during_parallel_scoring_leaves_no_worker_and_no_traceback(
        sig: int, group: bool, code: int, says: str | None, six_thousand: tuple[Path, Path], tmp_path: Path) -> None:
    data, preds = six_thousand
    out = tmp_path / "scored"
    env = dict(os.environ, MERABENCH_SCORING_WORKERS="2")
    scoring = subprocess.Popen(cli_command("score", "sage", "--predictions", str(preds), "--data", str(data),
                                           "--out", str(out)), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env, start_new_session=True)
    deadline = time.monotonic() + 60
    while len(workers := children_of(scoring.pid)) < 2 and scoring.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(workers) >= 2, "the scoring forked its workers"
    # at work on their chunks: signalled as soon as one has spent CPU on them (a fixed pause could
    # outlast the whole scoring on a quick machine, and the signal would find the run finished)
    while not any(cpu_ticks(w) >= 2 for w in workers) and scoring.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    if group:
        os.killpg(scoring.pid, sig)
    else:
        scoring.send_signal(sig)
    _, stderr = scoring.communicate(timeout=60)
    assert scoring.returncode == code, stderr
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert lines == ([] if says is None else [says + "; rerun the same command to resume"]), stderr
    end = time.monotonic() + 10
    while any(alive(w) for w in workers) and time.monotonic() < end:
        time.sleep(0.05)
    assert not any(alive(w) for w in workers), "a scoring worker outlived merabench"
    if sig != signal.SIGKILL:
        assert not list(out.glob("*.tmp")), "the temporary samples file went with the unwinding"
