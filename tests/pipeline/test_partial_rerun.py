"""A run of some tasks into a folder that holds a run of others: the folder's earlier task results
stay, in results.json, the report, the lm-eval export, `compare` and the submission alike."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import jsonschema
from helpers import run_cli

import merabench


def results(folder: Path) -> dict:
    return json.loads((folder / "results.json").read_text(encoding="utf-8"))


def test_a_rerun_of_one_task_keeps_the_others_everywhere(tmp_path: Path) -> None:
    run, other = tmp_path / "run", tmp_path / "other"
    for folder in (run, other):
        assert run_cli("run", "--model", "copy", "--out", str(folder), "--no-progress").returncode == 0
    before = results(run)
    again = run_cli("run", "--model", "copy", "--tasks", "sage", "--strip-think", "--out", str(run), "--no-progress")
    assert again.returncode == 0, again.stderr
    after = results(run)
    assert list(after["tasks"]) == ["sage", "russianregions", "gorillahard"]
    for task in ("russianregions", "gorillahard"):
        assert after["tasks"][task] == before["tasks"][task]
        assert after["kept"][task]["created"] == before["created"]
        assert after["kept"][task]["settings"]["strip_think"] is False  # as that run scored it
    assert "sage" not in after["kept"] and after["settings"]["strip_think"] is True
    assert "metrics" not in after  # no single task's figures at the top of a three-task document
    assert any("kept from the earlier run" in n for n in after["notes"])
    schema_path = Path(merabench.__file__).parent / "schemas" / "results.schema.json"
    jsonschema.Draft202012Validator(json.loads(schema_path.read_text())).validate(after)

    page = (run / "report.html").read_text(encoding="utf-8")
    assert 'id="task-gorillahard"' in page and 'id="task-russianregions"' in page and "kept from the earlier run" in page

    exported = run_cli("export", "lmeval", str(run), "--out", str(tmp_path / "lm"))
    assert exported.returncode == 0, exported.stderr
    assert sorted(p.name.split("_")[1] for p in (tmp_path / "lm").glob("samples_*")) == [
        "gorillahard", "russianregions", "sage"]

    compared = run_cli("compare", str(other), str(run), "--json", str(tmp_path / "c.json"))
    assert compared.returncode == 0, compared.stderr
    assert set(json.loads((tmp_path / "c.json").read_text())["tasks"]) == {"sage", "russianregions", "gorillahard"}
    assert "not in every run" not in compared.stderr

    made = run_cli("submission", "--allow-unofficial", "--run", str(run), "--out", str(tmp_path / "s.zip"))
    assert made.returncode == 0 and "with every task" in made.stderr, made.stderr
    with zipfile.ZipFile(tmp_path / "s.zip") as zf:
        logs = zipfile.ZipFile(zf.open("logs_public.zip"))
        assert len([n for n in logs.namelist() if n.startswith("samples_")]) == 3


def test_a_samples_file_no_results_json_has_is_named_not_packaged(tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert run_cli("run", "--model", "copy", "--out", str(run), "--no-progress").returncode == 0
    doc = results(run)  # as an older merabench left a folder rerun with --tasks sage
    doc["tasks"] = {"sage": doc["tasks"]["sage"]}
    (run / "results.json").write_text(json.dumps(doc), encoding="utf-8")
    made = run_cli("submission", "--allow-unofficial", "--run", str(run), "--out", str(tmp_path / "s.zip"))
    assert made.returncode == 2
    assert "samples_russianregions.jsonl is in the folder but not in its results.json" in made.stderr
    again = run_cli("run", "--model", "copy", "--tasks", "sage", "--out", str(run), "--no-progress")
    assert again.returncode == 0
    assert any("samples_russianregions.jsonl, samples_gorillahard.jsonl: in this folder but in no results.json" in n
               for n in results(run)["notes"])
    assert run_cli("run", "--model", "copy", "--tasks", "russianregions,gorillahard", "--out", str(run),
                   "--no-progress").returncode == 0
    assert list(results(run)["tasks"]) == ["sage", "russianregions", "gorillahard"]
    assert run_cli("submission", "--allow-unofficial", "--run", str(run), "--out", str(tmp_path / "s.zip")).returncode == 0
