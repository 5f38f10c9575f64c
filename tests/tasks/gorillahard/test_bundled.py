"""The bundled GorillaHard rows: their shape, and their references as answers (property tests)."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

from helpers import read_jsonl, run_cli, write_jsonl
from hypothesis import given, settings
from hypothesis import strategies as st

from merabench.rows.prompts import HistoryIndex
from merabench.rows.row import read_bundled
from merabench.tasks import TASKS
from merabench.tasks.gorillahard.aggregate import LEVERS
from merabench.tasks.gorillahard.metrics import catalog_of

TASK = TASKS["gorillahard"]
SPLITS = read_bundled("gorillahard")
ROWS, SHOTS = SPLITS["test"], SPLITS["shots"]


def reserialise(value, rng: random.Random) -> str:
    """The same JSON on one line with another key order and other spacing."""
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        sep = rng.choice([": ", ":", " : "])
        return "{" + rng.choice([", ", ",", " , "]).join(json.dumps(k, ensure_ascii=False) + sep + reserialise(v, rng)
                                                       for k, v in items) + "}"
    if isinstance(value, list):
        return "[" + rng.choice([", ", ","]).join(reserialise(v, rng) for v in value) + "]"
    return json.dumps(value, ensure_ascii=rng.random() < 0.5)


def test_shape_of_the_bundled_set() -> None:
    assert len(ROWS) >= 25
    kinds = Counter(r.meta["categories"]["answer_kind"] for r in ROWS)
    assert set(kinds) == {"tool_call", "plan", "calls", "clarify", "abstain"}
    assert {r.meta["categories"]["lever"] for r in ROWS} == set(LEVERS)
    assert any(r.meta["categories"]["cost_pick"] == "yes" for r in ROWS)
    assert any(r.meta["categories"]["injected_tool"] for r in ROWS)
    dialogue_turns = [r for r in ROWS if r.meta["n_turns"] > 1]
    assert dialogue_turns and all(r.meta["needs_history"] for r in dialogue_turns)
    history = HistoryIndex(SHOTS)
    for r in dialogue_turns:
        assert len(history.earlier_turns(r)) == r.meta["turn_id"]
    for r in ROWS:
        catalog = catalog_of(r)
        assert 14 <= len(catalog.families) == r.meta["categories"]["n_tools"]
        reference = json.loads(r.outputs)
        for step in [reference] if "tool" in reference else reference.get("plan", []) + reference.get("calls", []):
            assert step["tool"] in catalog, (r.id, step["tool"])
            family = catalog.families[step["tool"]]
            assert sum(f == family for f in catalog.families.values()) >= 2, "the reference is never alone in its family"
            for name, value in step["args"].items():
                if name == "path" and value != "$1":
                    assert f"[файл: {value}]" in r.inputs["context"], (r.id, value)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_every_reference_scores_one_on_all_its_metrics_in_any_serialisation(seed: int) -> None:
    rng = random.Random(seed)
    scores = []
    for r in ROWS:
        answer = reserialise(json.loads(r.outputs), rng)
        score = TASK.score(r, answer)
        assert all(value == 1.0 for name, value in score.metrics.items()
                   if not name.startswith("false_")), (r.id, answer, score)
        assert all(value == 0.0 for name, value in score.metrics.items() if name.startswith("false_"))
        scores.append(score)
    aggregate = TASK.aggregate(ROWS, scores)
    assert aggregate.metrics["balance_score"] == aggregate.metrics["dialog_pass_rate"] == 1.0


@settings(max_examples=300, deadline=None)
@given(answer=st.text(alphabet=st.characters(), max_size=300) | st.text(alphabet='{}[]":,\\ ntruefalse0123456789<>/thik', max_size=200))
def test_random_strings_never_raise(answer: str) -> None:
    score = TASK.score(ROWS[0], answer)
    assert 0.0 <= score.metrics["constraint_pass_rate"] <= 1.0


def test_a_dialogue_turn_without_its_history_is_an_error_not_a_single_turn(tmp_path: Path) -> None:
    turn = next(r for r in ROWS if r.meta["n_turns"] > 1)
    folder = tmp_path / "set"
    folder.mkdir()
    write_jsonl(folder / "test.jsonl", [turn.to_dict(), ROWS[0].to_dict()])
    result = run_cli("run", "--tasks", "gorillahard", "--data", str(folder), "--out", str(tmp_path / "r"),
                     "--no-progress")
    assert result.returncode == 0, result.stderr
    records = {r["id"]: r for r in read_jsonl(tmp_path / "r" / "samples_gorillahard.jsonl")}
    failed = records[turn.id]
    assert failed["status"] == "error" and "lacks earlier turn(s) [0] in the shots split" in failed["error"]
    assert records[ROWS[0].id]["status"] == "ok"
    assert "lacks earlier turn" in result.stderr  # the summary names the failure
