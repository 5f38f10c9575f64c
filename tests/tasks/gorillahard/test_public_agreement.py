"""merabench's GorillaHard scorer against the public one, answer by answer (public_cases.json).

The table holds ~1,000 model-like answers (tools/gorillahard_answer_variants.py) over the bundled
rows and 41 hand-written ones, with the per-row values and per-label aggregates that the public
scorer (the commit named in the table) gives them, computed outside this repository. Every
per-row value, every metric's presence and every aggregate must be equal.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from merabench.rows.row import Row, read_bundled
from merabench.tasks import TASKS
from merabench.tasks.gorillahard.metrics import dialog_of, lever_of

TASK = TASKS["gorillahard"]
TABLE = json.loads((Path(__file__).parent / "public_cases.json").read_text(encoding="utf-8"))
ROWS = {r.id: r for r in read_bundled("gorillahard")["test"]}
GROUPED = {"balance_score": lever_of, "dialog_pass_rate": dialog_of}


def row_of(case: dict) -> Row:
    """A bundled row, or a hand-made one (some with odd metadata, e.g. n_turns 2.0, that loading
    would reject: the scorer must still agree on them)."""
    row = case["row"]
    if isinstance(row, int):
        return ROWS[row]
    return Row(row["instruction"], row["inputs"], row["outputs"], row["meta"])


def ours(row: Row, answer: str) -> dict:
    """Our per-row values in the public scorer's shape: grouped metrics as [group, value]."""
    metrics = TASK.score(row, TASK.scored_answer(answer, strip_think=True)).metrics
    return {name: [GROUPED[name](row), value] if name in GROUPED else value for name, value in metrics.items()}


def test_the_table_is_big_and_varied() -> None:
    assert TABLE["public_scorer"]["commit"]
    assert len(TABLE["cases"]) >= 300
    labels = {c["label"] for c in TABLE["cases"]}
    assert len(labels) >= 80
    kinds = {ROWS[c["row"]].meta["categories"]["answer_kind"] for c in TABLE["cases"] if isinstance(c["row"], int)}
    assert kinds == {"tool_call", "plan", "calls", "clarify", "abstain"}


def test_every_per_row_value_equals_the_public_scorer() -> None:
    mismatches = []
    for n, case in enumerate(TABLE["cases"]):
        got = ours(row_of(case), case["answer"])
        if got != case["expected"]:
            mismatches.append((n, case["label"], case["answer"][:80], case["expected"], got))
    assert not mismatches, f"{len(mismatches)} of {len(TABLE['cases'])} differ; first: {mismatches[:3]}"


def test_every_aggregate_equals_the_public_scorer() -> None:
    by_label: dict[str, list[tuple[Row, str]]] = defaultdict(list)
    for case in TABLE["cases"]:
        if isinstance(case["row"], int):
            by_label[case["label"]].append((ROWS[case["row"]], case["answer"]))
    assert set(TABLE["aggregates"]) <= set(by_label)
    for label, expected in TABLE["aggregates"].items():
        rows = [row for row, _ in by_label[label]]
        scores = [TASK.score(row, answer) for row, answer in by_label[label]]
        got = TASK.aggregate(rows, scores).metrics
        assert set(got) == set(expected), label
        for name, value in expected.items():
            assert got[name] == pytest.approx(value, abs=1e-12), (label, name)
