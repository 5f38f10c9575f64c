"""results.json's `settings` is one record (records.RunSettings): written by `to_json`, read back by
`from_json`, every key in the results schema, and a real run's and a real score's settings read
back to exactly what was written."""

from __future__ import annotations

import json
from dataclasses import fields
from importlib import resources
from pathlib import Path

import jsonschema
from helpers import run_cli, write_jsonl

from merabench.pipeline import RunConfig, evaluate
from merabench.records import CacheScope, RunSettings, ToolMode
from merabench.rows.row import read_bundled
from merabench.runner.budget import Limits
from merabench.runner.cache import CacheSettings

SCHEMA = json.loads(resources.files("merabench").joinpath("schemas/results.schema.json").read_text(encoding="utf-8"))


def test_the_schema_lists_every_key_of_the_record_in_its_order() -> None:
    listed = list(SCHEMA["$defs"]["settings"]["properties"])
    assert listed == [f.name for f in fields(RunSettings)]


def test_a_runs_settings_read_back_to_what_was_written(tmp_path: Path) -> None:
    out = tmp_path / "run"
    evaluate(RunConfig(model="random", tasks=("sage", "russianregions"), out=out, cache=CacheSettings(enabled=False), limit=4, repeats=2,
                       limits=Limits(deadline_s=600.0)))
    document = json.loads((out / "results.json").read_text(encoding="utf-8"))
    jsonschema.validate(document, SCHEMA)
    written = document["settings"]
    settings = RunSettings.from_json(written)
    assert settings.to_json() == written
    assert settings.tasks == ("sage", "russianregions") and settings.limit == 4 and settings.repeats == 2
    assert settings.tool_mode is ToolMode.TEXT and settings.cache_scope is CacheScope.ENDPOINT
    assert list(written) == [k for k in (f.name for f in fields(RunSettings)) if k in written]  # in field order
    assert "wordings" not in written and "batch" not in written and "stopped_by" not in written


def test_a_scores_settings_hold_only_what_a_score_has(tmp_path: Path) -> None:
    rows = read_bundled("russianregions")["test"][:3]
    answers = write_jsonl(tmp_path / "p.jsonl", [{"id": r.id, "output": r.outputs} for r in rows])
    done = run_cli("score", "russianregions", "--predictions", str(answers), "--out", str(tmp_path / "s"))
    assert done.returncode == 0, done.stderr
    written = json.loads((tmp_path / "s" / "results.json").read_text(encoding="utf-8"))["settings"]
    assert list(written) == ["tasks", "data", "split", "strip_think", "judge"]
    assert RunSettings.from_json(written).to_json() == written


def test_a_settings_object_of_the_wrong_shape_reads_as_the_defaults() -> None:
    odd = RunSettings.from_json({"tasks": "sage", "limit": True, "repeats": -2, "tool_mode": 3, "split": None,
                                 "cache_scope": "model", "data": ["bundled", 7], "judge": [], "concurrency": False})
    assert odd == RunSettings(data=("bundled", "7"), cache_scope=CacheScope.MODEL)
    assert RunSettings.from_json(None) == RunSettings.from_json([]) == RunSettings()
