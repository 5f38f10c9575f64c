"""A run folder's lock with real processes: a live run holds it, and no dead run does, however it
ended (Ctrl-C, kill -9) and whatever it had forked (the scoring's workers)."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import cli_command, run_cli, sage_rows, write_jsonl

from merabench.runner.rundir import LOCK_FILE


def lock_is_free(folder: Path) -> bool:
    with (folder / LOCK_FILE).open("a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(handle, fcntl.LOCK_UN)
        return True


def wait_for(condition, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
        time.sleep(0.02)


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "kill-9"])
def test_a_live_run_blocks_a_second_and_a_stopped_one_leaves_no_lock(tmp_path: Path, make_server,
                                                                     stop: signal.Signals) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(40))
    server = make_server(latency_s=0.1)
    out = tmp_path / "run"
    args = ["run", "--model", "openai:fake", "--base-url", server.url, "--tasks", "sage", "--data", str(data),
            "--out", str(out), "--no-progress", "--concurrency", "1"]
    first = subprocess.Popen(cli_command(*args), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        samples = out / "samples_sage.jsonl"
        wait_for(lambda: samples.exists() and samples.read_bytes().count(b"\n") >= 2, "the first answers")
        blocked = run_cli(*args)
        assert blocked.returncode == 2, blocked.stderr
        assert f"being written by another merabench run (pid {first.pid})" in blocked.stderr
        first.send_signal(stop)
        first.wait(timeout=60)
    finally:
        first.kill()
    assert first.returncode == (130 if stop == signal.SIGINT else -signal.SIGKILL)
    if stop == signal.SIGKILL:  # no way to clean up: the file stays, its lock went with the process
        assert (out / LOCK_FILE).read_text() == f"pid {first.pid}"
        assert lock_is_free(out)
    else:  # unwound: the lock file went with the lock
        assert not (out / LOCK_FILE).exists()
    resumed = run_cli(*args[:-1], "8")
    assert resumed.returncode == 0, resumed.stderr
    assert samples.read_bytes().count(b"\n") >= 40


HOLDER = """
import multiprocessing, sys, time
from pathlib import Path
from merabench.runner.rundir import locked

def nap(ready):
    ready.set()  # the child runs: what happens at fork in a child has happened
    time.sleep(120)

with locked(Path(sys.argv[1])):
    fork = multiprocessing.get_context("fork")
    ready = fork.Event()
    child = fork.Process(target=nap, args=(ready,))
    child.start()  # as the scoring forks its workers while the run holds the folder
    ready.wait(60)  # on a loaded machine the child may not have run yet when start() returns
    print(child.pid, flush=True)
    time.sleep(120)
"""


def test_a_killed_runs_forked_workers_do_not_keep_its_lock(tmp_path: Path) -> None:
    """kill -9 while the scoring's forked workers work: they finished their chunk before noticing
    (a second or so with long SAGE texts), and meanwhile held the dead run's lock."""
    out = tmp_path / "run"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(out)], stdout=subprocess.PIPE, text=True)
    child = int(holder.stdout.readline())
    try:
        assert not lock_is_free(out)
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=60)
        os.kill(child, 0)  # the worker lives on
        assert lock_is_free(out), "a dead run's forked child still holds the folder's lock"
        resumed = run_cli("run", "--tasks", "sage", "--out", str(out), "--no-progress")
        assert resumed.returncode == 0, resumed.stderr
    finally:
        holder.kill()
        os.kill(child, signal.SIGKILL)


def test_a_finished_run_leaves_no_lock_file(tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = run_cli("run", "--model", "reference", "--tasks", "sage", "--limit", "3", "--out", str(out), "--no-progress")
    assert done.returncode == 0, done.stderr
    assert not (out / LOCK_FILE).exists()
    assert (out / "results.json").is_file()


def test_a_lock_file_removed_by_its_holder_between_open_and_lock_is_not_taken(tmp_path: Path, monkeypatch) -> None:
    """The race that removing the lock file opens: this process opened the file, its holder then
    finished and removed it, and a third process made a new one. Locking the removed file would
    let two runs write the folder; the lock is taken on the file at the path instead."""
    from merabench.runner import rundir

    lock_file = tmp_path / LOCK_FILE
    lock_file.write_text("pid 1")
    real_flock = fcntl.flock
    swapped: list[int] = []

    def flock_after_a_swap(handle, operation):
        if not swapped:  # the first attempt: the file this handle opened is replaced meanwhile
            lock_file.unlink()
            lock_file.write_text("pid 3")
            swapped.append(os.fstat(handle.fileno()).st_ino)
        return real_flock(handle, operation)

    monkeypatch.setattr(rundir.fcntl, "flock", flock_after_a_swap)
    with rundir.locked(tmp_path):
        assert swapped and os.stat(lock_file).st_ino != swapped[0]
        assert lock_file.read_text() == f"pid {os.getpid()}"
    assert not lock_file.exists()


@pytest.mark.parametrize("plant", ["symlink", "folder", "fifo"])
def test_a_lock_file_that_is_no_regular_file_is_refused_and_followed_nowhere(tmp_path: Path, plant: str) -> None:
    """The outside tester's x23: a .merabench.lock that was a symlink made the run write its pid
    over the file it points to (exit 0); a folder or a FIFO there was a traceback."""
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me")
    out = tmp_path / "out"
    out.mkdir()
    lock = out / LOCK_FILE
    {"symlink": lambda: lock.symlink_to(precious), "folder": lock.mkdir, "fifo": lambda: os.mkfifo(lock)}[plant]()
    done = run_cli("run", "--model", "reference", "--tasks", "sage", "--limit", "2", "--out", str(out),
                   "--no-progress", timeout=30)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert f"{lock} is" in done.stderr and "not the lock file a run keeps" in done.stderr
    assert precious.read_text() == "keep me" and not (out / "results.json").exists()
