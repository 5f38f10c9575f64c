"""--data specs: `TASK=SPEC` read by one parser for loading and for what results.json records."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from merabench.tasks import TASKS
from merabench.tasks.datasource import recorded_specs, spec_for, split_specs

CASES = [  # (specs, the spec for all tasks, {task: spec})
    ([], "bundled", {}),
    (["hub"], "hub", {}),
    (["hub", "bundled"], "bundled", {}),  # the last one for all tasks holds
    (["SAGE=a.jsonl"], "bundled", {"sage": "a.jsonl"}),  # a task's name in any case, spaces around it
    ([" russianregions =b.jsonl"], "bundled", {"russianregions": "b.jsonl"}),
    (["sage=a.jsonl", "sage=c.jsonl"], "bundled", {"sage": "c.jsonl"}),
    (["gorillahard=x=y.jsonl"], "bundled", {"gorillahard": "x=y.jsonl"}),  # the first '=' splits
    (["my=file.jsonl"], "my=file.jsonl", {}),  # no task's name before '=': a path
    (["=a.jsonl"], "=a.jsonl", {}),
    (["sage="], "bundled", {"sage": ""}),
]


@pytest.mark.parametrize(("specs", "default", "per_task"), CASES)
def test_split_specs(specs: list[str], default: str, per_task: dict[str, str]) -> None:
    assert split_specs(specs) == (default, per_task)


def test_recorded_specs_spell_each_one_and_keep_the_task(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    here = os.path.abspath(".")
    assert recorded_specs(["bundled", "hub", "-", "generated", "generated:7"]) == [
        "bundled", "hub", "-", "generated:0", "generated:7"]
    assert recorded_specs(["SAGE=a.jsonl", " gorillahard =generated", "russianregions=hub", "my=file.jsonl"]) == [
        f"sage={here}/a.jsonl", "gorillahard=generated:0", "russianregions=hub", f"{here}/my=file.jsonl"]
    for specs, _, per_task in CASES:  # what is recorded splits as what was given, in one spelling
        assert split_specs(recorded_specs(specs))[1].keys() == per_task.keys()


@pytest.mark.parametrize(("specs", "default", "per_task"), CASES)
def test_spec_for_gives_each_task_its_own_spec_or_the_one_for_all(specs: list[str], default: str,
                                                                  per_task: dict[str, str]) -> None:
    assert {name: spec_for(specs, name) for name in TASKS} == {name: per_task.get(name, default) for name in TASKS}


@pytest.mark.parametrize("revision", ["0f3c9a1", None])
def test_hub_rows_carry_the_commit_they_were_read_at_into_the_folders_identity(
        monkeypatch: pytest.MonkeyPatch, revision: str | None) -> None:
    """`--data hub`: TaskData.revision is the dataset's commit (None when it is not known,
    offline), the source names it after '@', and run.json's data identity records it; other data
    has none."""
    from merabench.rows.row import read_bundled
    from merabench.tasks import datasource
    from merabench.tasks.datasource import data_identity, load_task_data

    task = TASKS["sage"]
    monkeypatch.setattr(datasource, "hub_offline", lambda: True)
    monkeypatch.setattr(datasource, "hub_revision", lambda dataset_id: revision)
    monkeypatch.setattr(datasource, "read_hub", lambda dataset_id: read_bundled("sage"))
    data = load_task_data(task, "hub")
    assert data.revision == revision
    assert data.source == f"hub:{task.hub_id}" + (f"@{revision}" if revision else "")
    assert data_identity([task], ["hub"], {task.name: data.revision}) == {
        "sage": {"spec": "hub", **({"revision": revision} if revision else {})}}
    assert load_task_data(task, "bundled").revision is None
    assert data_identity([task], ["bundled"], {task.name: "0f3c9a1"}) == {"sage": {"spec": "bundled"}}
