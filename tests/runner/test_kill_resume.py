"""kill -9 at 20 random moments of one run, resumed each time: no row lost, none answered twice,
and at most the requests in flight at a kill asked again."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

from helpers import cli_command, correction_of, read_jsonl, run_cli, sage_rows, write_jsonl

from merabench.records import Answer
from merabench.runner.samples import read_answers

ROWS = 2400
CONCURRENCY = 4
KILLS = 20


def row_of(body: dict) -> int:
    return int(body["messages"][-1]["content"].rsplit("(", 1)[1].rstrip(")"))


def lines_in(path: Path) -> int:
    """Lines the run has written so far (appended and flushed as answers arrive)."""
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_kill_at_random_moments_and_resume(tmp_path: Path, make_server) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(ROWS))
    server = make_server(latency_s=0.025,  # the kills' targets add up to fewer rows than there are
                         reply=lambda body: correction_of(body["messages"][-1]["content"]))
    out = tmp_path / "run"
    samples = out / "samples_sage.jsonl"
    args = cli_command("run", "--model", "openai:fake", "--base-url", server.url, "--tasks", "sage", "--data",
                       str(data), "--out", str(out), "--no-progress", "--concurrency", str(CONCURRENCY),
                       "--cache-path", str(tmp_path / "cache.sqlite"))
    rng = random.Random(2026)
    done: dict[int, Answer] = {}
    targets = []
    for _ in range(KILLS):
        asked_before = len(server.requests)
        lines_before = lines_in(samples)
        # the moment of each kill is counted in answers the run has written (a random number of
        # them), not in seconds: on a loaded machine the same seconds hold far fewer answers
        target = rng.randint(20, 90)
        targets.append(target)
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started = time.monotonic()
        while lines_in(samples) < lines_before + target and proc.poll() is None:
            assert time.monotonic() - started < 600, "the run wrote no answers for ten minutes"
            time.sleep(0.005)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        now = {i: a for i, a in read_answers(samples).items() if a.ok}
        lost = set(done) - set(now)
        assert not lost, f"rows lost after a kill: {sorted(lost)[:5]}"
        assert all(now[i].output == done[i].output for i in done), "an answer on disk changed"
        asked_again = {row_of(b) for b in server.requests[asked_before:]} & set(done)
        assert not asked_again, f"rows already on disk were asked again: {sorted(asked_again)[:5]}"
        ok_lines = Counter(line["id"] for line in read_jsonl(samples) if line.get("status") == "ok") if samples.exists() else {}
        assert all(n == 1 for n in ok_lines.values()), "a row answered twice in the samples file"
        assert len(done) + target <= len(now) < ROWS, "each kill lands mid-run, after its answers were written"
        done = now
    asked = Counter(row_of(b) for b in server.requests)
    repeated = sum(n - 1 for n in asked.values())
    assert repeated <= CONCURRENCY * KILLS, f"{repeated} repeated requests for {KILLS} kills"
    print(f"{KILLS} kills mid-run, {len(done)} of {ROWS} rows on disk before the last resume, "
          f"{repeated} request(s) asked again (at most {CONCURRENCY} in flight per kill)")

    finished = run_cli(*args[3:])
    assert finished.returncode == 0, finished.stderr
    final = read_jsonl(samples)
    assert [r["id"] for r in final] == list(range(ROWS)) and all(r["status"] == "ok" for r in final)
    assert all(r["metrics"]["errant_f1"] == 1.0 for r in final)
