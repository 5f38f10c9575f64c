"""The GorillaHard generator and its validator."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
from helpers import read_jsonl, run_cli, write_jsonl

from merabench.rows import Row
from merabench.tasks import TASKS
from merabench.tasks.gorillahard.generator.build import SetPlan, _row, write_set
from merabench.tasks.gorillahard.generator.corpus import build_corpus
from merabench.tasks.gorillahard.generator.families import FAMILIES, View
from merabench.tasks.gorillahard.generator.model import FORMATS
from merabench.tasks.gorillahard.generator.validate import attached_files, validate

TASK = TASKS["gorillahard"]


@pytest.fixture(scope="module")
def default_set(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("set")
    write_set(SetPlan(seed=3), folder)
    return folder


def failed(folder: Path) -> dict[str, str]:
    return {c.name: c.detail for c in validate(folder) if not c.ok}


def test_a_full_default_set_validates(default_set: Path) -> None:
    assert failed(default_set) == {}
    test = read_jsonl(default_set / "test.jsonl")
    shots = read_jsonl(default_set / "shots.jsonl")
    assert len(test) == 1169 and len(shots) == 35
    assert sum(r["meta"]["n_turns"] > 1 for r in test) == 30
    kinds = Counter(r["meta"]["categories"]["answer_kind"] for r in test)
    assert kinds == {"tool_call": 782, "plan": 51, "calls": 199, "clarify": 10, "abstain": 127}
    tiers = Counter(r["meta"]["categories"]["difficulty"] for r in test)
    assert tiers == {"T1_medium": 16, "T2_hard": 56, "T3_expert": 329, "T4_wild": 768}
    formats = {f for r in test for f in r["meta"]["categories"]["corpus_format"].split(",")}
    assert formats == set(FORMATS) and len(formats) == 15


def test_the_same_seed_gives_the_same_bytes_and_another_seed_another_set(tmp_path: Path, default_set: Path) -> None:
    write_set(SetPlan(seed=3), tmp_path / "again")
    write_set(SetPlan(seed=4), tmp_path / "other")
    for name in ("test.jsonl", "shots.jsonl", "manifest.json"):
        assert (tmp_path / "again" / name).read_bytes() == (default_set / name).read_bytes()
    assert (tmp_path / "other" / "test.jsonl").read_bytes() != (default_set / "test.jsonl").read_bytes()


CORPUS = build_corpus(5)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_each_family_agrees_with_its_files_and_the_scorer(name: str) -> None:
    family = FAMILIES[name]
    for n in range(25):
        rng = random.Random(f"family-test:{name}:{n}")
        question = family.make(rng, CORPUS)
        row = Row(**_row(question, family, row_id=0, base_id="b", dialog_id="b", turn=0, n_turns=1,
                         needs_history="", wording=0, rng=rng))
        view = View(row.inputs["question"], attached_files(row.inputs["context"]), json.loads(row.outputs),
                    row.meta["derivation"])
        assert family.check(view) == [], (name, n)
        assert {f.path: f.text for f in question.files} == view.files
        assert TASK.score(row, row.outputs).metrics["sample_pass_rate"] == 1.0


def copy_set(source: Path, target: Path, edit) -> Path:
    target.mkdir()
    test = read_jsonl(source / "test.jsonl")
    shots = read_jsonl(source / "shots.jsonl")
    edit(test, shots)
    write_jsonl(target / "test.jsonl", test)
    write_jsonl(target / "shots.jsonl", shots)
    (target / "manifest.json").write_text((source / "manifest.json").read_text())
    return target


def test_a_wrong_reference_is_caught(tmp_path: Path, default_set: Path) -> None:
    def shift_window(test, shots):
        row = next(r for r in test if r["meta"]["derivation"]["maker"] == "log_window")
        reference = json.loads(row["outputs"])
        reference["args"]["line"] += 1
        row["outputs"] = json.dumps(reference, ensure_ascii=False)

    assert "derived_quantities" in failed(copy_set(default_set, tmp_path / "s", shift_window))


def test_a_missing_twin_is_caught(tmp_path: Path, default_set: Path) -> None:
    def drop_relatives(test, shots):
        row = next(r for r in test if r["meta"]["derivation"]["maker"] == "table_stat")
        tool = json.loads(row["outputs"])["tool"]
        catalog = [t for t in json.loads(row["inputs"]["tools"]) if t["family"] != "tables" or t["name"] == tool]
        row["inputs"]["tools"] = json.dumps(catalog, ensure_ascii=False)
        row["meta"]["categories"]["n_tools"] = len(catalog)

    problems = failed(copy_set(default_set, tmp_path / "s", drop_relatives))
    assert "twin_present" in problems


def test_a_broken_history_is_caught(tmp_path: Path, default_set: Path) -> None:
    def drop_first_turn(test, shots):
        victim = next(i for i, r in enumerate(shots) if r["meta"]["n_turns"] > 1)
        del shots[victim]
        for i, r in enumerate(shots):
            r["meta"]["id"] = i

    problems = failed(copy_set(default_set, tmp_path / "s", drop_first_turn))
    assert "dialogue_history" in problems


def test_a_shot_giving_an_answer_away_is_caught(tmp_path: Path, default_set: Path) -> None:
    def leak(test, shots):
        shots[0]["inputs"]["question"] = test[5]["inputs"]["question"]
        shots[0]["outputs"] = test[5]["outputs"]

    assert "dialogue_history" in failed(copy_set(default_set, tmp_path / "s", leak))


def test_generate_validate_and_run_from_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "g"
    made = run_cli("generate", "gorillahard", "--seed", "11", "--rows", "300", "--dialogues", "6", "--out", str(out))
    assert made.returncode == 0, made.stderr
    checked = run_cli("validate", "gorillahard", str(out))
    assert checked.returncode == 0, checked.stdout
    assert checked.stdout.count("ok ") == 12
    (out / "shots.jsonl").write_text("")
    assert run_cli("validate", "gorillahard", str(out)).returncode == 1
    assert run_cli("generate", "sage", "--out", str(tmp_path / "x")).returncode == 2


def test_run_on_a_generated_set(tmp_path: Path) -> None:
    result = run_cli("run", "--tasks", "gorillahard", "--data", "generated:2", "--limit", "60", "--out",
                     str(tmp_path / "r"), "--no-progress", env={"MERABENCH_CACHE": str(tmp_path / "c" / "r.sqlite")})
    assert result.returncode == 0, result.stderr
    doc = json.loads((tmp_path / "r" / "results.json").read_text())
    assert doc["tasks"]["gorillahard"]["metrics"]["sample_pass_rate"] == 1.0
    assert (tmp_path / "c" / "generated").is_dir()
