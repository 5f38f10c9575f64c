"""Every process a served run starts is gone when it ends, however the server detaches (a double
fork into its own session, a launcher that forks and exits, a detached helper), on success, on
an error and on SIGTERM; a server gets no credential from the environment unless asked; the
replica count is bounded. Real processes, the project's fake engine."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from engines import alive, engine, engine_pids, gone
from helpers import cli_command, read_jsonl, run_cli, sage_rows, write_jsonl

KEY = "sk-served-secret-0042"


def detached(tmp_path: Path, how: int, *extra: str) -> str:
    return engine(tmp_path, "--detach", str(how), "--helper", f"{tmp_path}/helper-{{port}}", *extra)


def every_pid(tmp_path: Path) -> list[int]:
    # a helper's pid file may be caught between its creation and its write: not written yet
    helpers = [text for p in tmp_path.glob("helper-*") if (text := p.read_text().strip()).isdigit()]
    return engine_pids(tmp_path) + [int(text) for text in helpers]


def wait_for_pids(tmp_path: Path, count: int, within_s: float = 30.0) -> list[int]:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        pids = every_pid(tmp_path)
        if len(pids) >= count:
            return pids
        time.sleep(0.05)
    raise AssertionError(f"the engine wrote {every_pid(tmp_path)}")


@pytest.mark.parametrize("how", [1, 2])
def test_a_detaching_server_and_its_helper_are_gone_after_a_successful_run(tmp_path: Path, how: int) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(4))
    done = run_cli("run", "--model", "m", "--serve-cmd", detached(tmp_path, how), "--tasks", "sage",
                   "--data", str(data), "--out", str(tmp_path / "run"), "--no-progress", "--no-cache")
    assert done.returncode == 0, done.stdout + done.stderr
    assert all(s["status"] == "ok" for s in read_jsonl(tmp_path / "run" / "samples_sage.jsonl"))
    pids = every_pid(tmp_path)
    assert len(pids) == 2  # the serving process (in its own session) and the helper
    assert all(os.getsid(p) != os.getsid(0) for p in pids if alive(p))  # they did leave our session
    assert gone(pids, within_s=5)  # gone when merabench has exited, not some time later


def test_a_detached_server_is_gone_after_an_error(tmp_path: Path) -> None:
    done = run_cli("run", "--model", "m", "--serve-cmd", detached(tmp_path, 2, "--never-ready"),
                   "--serve-timeout", "8", "--tasks", "sage", "--out", str(tmp_path / "run"), "--no-progress")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "did not answer" in done.stderr
    pids = every_pid(tmp_path)
    assert len(pids) == 2 and gone(pids, within_s=5)


def test_a_detached_server_is_gone_after_sigterm(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(60))
    run = tmp_path / "run"
    process = subprocess.Popen(cli_command("run", "--model", "m", "--serve-cmd",
                                           detached(tmp_path, 2, "--latency", "0.3"), "--tasks", "sage",
                                           "--data", str(data), "--out", str(run), "--concurrency", "2",
                                           "--no-progress", "--no-cache"),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    samples = run / "samples_sage.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (samples.exists() and samples.read_text(encoding="utf-8").strip()):
        time.sleep(0.1)
    pids = wait_for_pids(tmp_path, 2)
    assert all(alive(p) for p in pids)
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=60)
    assert process.returncode == 130
    assert gone(pids, within_s=5)


def test_a_killed_merabench_takes_its_detached_server_along(tmp_path: Path) -> None:
    """Even SIGKILL, which merabench cannot catch: the supervisor learns of it from the kernel."""
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(60))
    process = subprocess.Popen(cli_command("run", "--model", "m", "--serve-cmd",
                                           detached(tmp_path, 2, "--latency", "0.3"), "--tasks", "sage",
                                           "--data", str(data), "--out", str(tmp_path / "run"), "--concurrency", "2",
                                           "--no-progress", "--no-cache"),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pids = wait_for_pids(tmp_path, 2)
    process.kill()
    process.wait(30)
    assert gone(pids, within_s=30)


def test_the_server_gets_no_key_unless_asked(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(2))
    env = {"OPENAI_API_KEY": KEY, "AWS_SECRET_ACCESS_KEY": "aws-secret-0042", "TOKENIZERS_PARALLELISM": "false",
           "MY_DB": "postgres://u:pa55word@db/x"}
    base = ["run", "--model", "m", "--tasks", "sage", "--data", str(data), "--no-progress", "--no-cache"]
    done = run_cli(*base, "--serve-cmd", engine(tmp_path, "--print-env"), "--out", str(tmp_path / "a"), env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    log = (tmp_path / "a" / "serve-0.log").read_text(encoding="utf-8")
    assert "TOKENIZERS_PARALLELISM=false" in log and "PATH=" in log  # what a server needs stays
    for name in ("OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "MY_DB"):
        assert f"{name}=" not in log
    assert KEY not in log and "pa55word" not in log

    # asked for: passed to the server, and still masked in the log merabench writes
    done = run_cli(*base, "--serve-cmd", engine(tmp_path, "--print-env"), "--serve-env", "OPENAI_API_KEY",
                   "--out", str(tmp_path / "b"), env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    log = (tmp_path / "b" / "serve-0.log").read_text(encoding="utf-8")
    assert "OPENAI_API_KEY=***" in log and KEY not in log

    done = run_cli(*base, "--serve-cmd", engine(tmp_path), "--serve-env", "NOT_SET_ANYWHERE",
                   "--out", str(tmp_path / "c"))
    assert done.returncode == 2 and "--serve-env NOT_SET_ANYWHERE: not set" in done.stderr


def test_counts_a_user_can_mistype_are_bounded(tmp_path: Path) -> None:
    cases = [
        (["run", "--model", "m", "--tasks", "sage", "--serve-cmd", "x {port}", "--serve-replicas", "100000",
          "--out", str(tmp_path / "o")], "--serve-replicas 100000: at most 64", {}),
        (["run", "--model", "m", "--tasks", "sage", "--serve-cmd", "x {port}", "--serve-replicas", "3",
          "--out", str(tmp_path / "o")], "only 2 GPU(s) present", {"CUDA_VISIBLE_DEVICES": "0,1"}),
        (["generate", "gorillahard", "--rows", "99999999999", "--out", str(tmp_path / "g")], "--rows", {}),
    ]
    for args, fragment, env in cases:
        started = time.monotonic()
        done = run_cli(*args, "--no-progress" if args[0] == "run" else "--seed=0", env=env)
        message = (done.stdout + done.stderr).strip()
        assert done.returncode == 2, (args, message)
        assert fragment in message and len(message.splitlines()) == 1, (args, message)
        assert time.monotonic() - started < 30
    assert not list(tmp_path.glob("o/serve-*.log")) and not (tmp_path / "g").exists()
