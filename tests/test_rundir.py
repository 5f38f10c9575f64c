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
    assert (out / LOCK_FILE).read_text() == f"pid {first.pid}"  # the file stays; its lock went with the process
    assert lock_is_free(out)
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
