"""Every source `--model` names is a row of models/sources.py: the help, the refusal of an unknown
one and the run itself come from that table, so a new baseline is one row there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import read_jsonl

from merabench.errors import ConfigError
from merabench.models import sources
from merabench.models.sources import SOURCES, ModelSource, model_help, source_of
from merabench.pipeline import RunConfig, evaluate
from merabench.runner.cache import CacheSettings


def test_the_help_and_the_refusal_name_every_source() -> None:
    assert model_help() == "openai:<model>, hf:<path>, or a baseline: reference, copy, random"
    with pytest.raises(ConfigError) as refused:
        source_of("vllm:qwen")
    assert str(refused.value) == f"unknown model 'vllm:qwen': use {model_help()}"
    assert [source_of(s).name for s in ("openai:gpt-4o", "hf:/models/x.gguf", "reference", "copy", "random")] == \
        ["openai", "hf", "reference", "copy", "random"]
    for bare in ("openai", "openai:", "hf:", "reference:x"):
        with pytest.raises(ConfigError):
            source_of(bare)


def test_a_baseline_added_as_one_row_runs_end_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = ModelSource("empty", "empty", "the empty answer", answer=lambda task, row, rng: "")
    monkeypatch.setattr(sources, "SOURCES", (*SOURCES, empty))
    assert model_help().endswith("or a baseline: reference, copy, random, empty")
    result = evaluate(RunConfig(model="empty", tasks=("sage", "russianregions"), limit=3, out=tmp_path / "run",
                                cache=CacheSettings(enabled=False)))
    lines = read_jsonl(tmp_path / "run" / "samples_sage.jsonl")
    assert [line["output"] for line in lines] == [""] * 3 and all(line["status"] == "ok" for line in lines)
    assert result.tasks["sage"].aggregate.metrics["errant_f1"] == 0.0
    assert json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))["model"] == "empty"
