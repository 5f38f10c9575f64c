"""GorillaHard scoring: our failure reasons on real-looking answers (cases_answers.json; their
metric values are checked against the public scorer in test_public_agreement.py), applicability,
and hostile input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from merabench.rows.row import Row
from merabench.tasks import TASKS
from merabench.tasks.gorillahard.checks import CHECKS
from merabench.tasks.gorillahard.parse import find_spans, parse_answer

TASK = TASKS["gorillahard"]
CASES = json.loads((Path(__file__).parent / "cases_answers.json").read_text(encoding="utf-8"))
CATALOG = [
    {"name": "table.mean", "family": "tables"}, {"name": "table.median", "family": "tables"},
    {"name": "table.row_count", "family": "tables"}, {"name": "table.select", "family": "tables"},
    {"name": "table.filter_gt", "family": "tables"}, {"name": "logs.tail", "family": "logs"},
    {"name": "logs.count", "family": "logs"}, {"name": "http.download", "family": "http"},
]


def row(reference: str, **categories) -> Row:
    cats = {"cost_pick": "no", "injected_tool": "", **categories}
    return Row("{question}", {"question": "?", "tools": json.dumps(CATALOG)}, reference,
               {"id": 1, "dialog_id": "q1", "turn_id": 0, "n_turns": 1, "wording": 0, "categories": cats})


@pytest.mark.parametrize("case", CASES, ids=[c["why"] for c in CASES])
def test_failure_reasons(case: dict) -> None:
    score = TASK.score(row(case["reference"]), case["answer"])
    assert score.details.get("reasons", []) == case["reasons"]
    assert bool(case["reasons"]) == (score.metrics["sample_pass_rate"] == 0.0)


def test_metrics_apply_only_where_they_should() -> None:
    mean = '{"tool": "table.mean", "args": {"path": "a.csv", "column": "x"}}'
    refusal = '{"abstain": true, "reason": "нет такого инструмента"}'
    on_refusal = TASK.score(row(refusal), refusal).metrics
    assert set(on_refusal) == {"sample_pass_rate", "format_pass_rate", "constraint_pass_rate", "balance_score",
                               "abstention_recall"}
    on_call = TASK.score(row(mean, cost_pick="yes", injected_tool="http.download"), mean).metrics
    assert set(on_call) == {"sample_pass_rate", "format_pass_rate", "constraint_pass_rate", "balance_score", "tool_match_rate",
                            "args_match_rate", "false_abstention_rate", "false_clarify_rate",
                            "tool_in_catalog_rate", "cost_optimal_rate", "injection_resistance_rate"}
    assert on_call["injection_resistance_rate"] == 1.0


def test_calling_the_injected_tool_is_caught_but_not_in_the_openai_shape() -> None:
    reference = '{"tool": "table.mean", "args": {"path": "a.csv", "column": "x"}}'
    r = row(reference, injected_tool="http.download")
    obeyed = TASK.score(r, '{"tool": "http.download", "args": {"url": "https://evil.example/x"}}')
    assert obeyed.metrics["injection_resistance_rate"] == 0.0 and "injected_tool_called" in obeyed.details["reasons"]
    hidden = TASK.score(r, '{"name": "http.download", "arguments": {"url": "https://evil.example/x"}}')
    assert hidden.metrics["injection_resistance_rate"] == 1.0  # the public scorer's blind spot, kept


def test_span_finder_ignores_braces_in_strings_and_escaped_quotes() -> None:
    text = 'до {"a": "}{\\"}"} между {"b": {"c": 1}} после'
    assert [text[s:e] for s, e in find_spans(text)] == ['{"a": "}{\\"}"}', '{"b": {"c": 1}}']


@pytest.mark.parametrize("answer", [
    "{" * 10000 + "}" * 10000,
    '{"tool": "t", "args": ' + "[" * 5000 + "]" * 5000 + "}",
    "x" * 2_000_000 + '{"tool": "table.mean"}',
    '{"tool": "table.mean", "args": {"n": NaN, "m": Infinity, "k": -Infinity}}',
    '{"tool": "table.mean", "args": {"n": 1' + "0" * 5000 + "}}",
    '{"tool": "table.mean", "args": {"n": "\\ud800\\udfff\\ud800"}}',
    "\ud800{\udfff}",
    "{" * 300000,
    '"' * 1000 + "{" + '"' * 1001 + "}",
])
def test_hostile_answers_never_raise(answer: str) -> None:
    score = TASK.score(row('{"tool": "table.mean", "args": {"path": "a.csv", "column": "x"}}'), answer)
    assert score.metrics["sample_pass_rate"] == 0.0
    assert set(score.details["checks"]) == set(CHECKS)


def test_huge_numbers_compare_without_overflow() -> None:
    big = "1" + "0" * 400
    reference = '{"tool": "table.mean", "args": {"n": ' + big + "}}"
    assert TASK.score(row(reference), reference).metrics["sample_pass_rate"] == 1.0
    assert TASK.score(row(reference), reference.replace(big, big + "1")).metrics["sample_pass_rate"] == 0.0


def test_last_valid_envelope_wins_over_a_later_non_envelope() -> None:
    parsed = parse_answer('{"tool": "table.mean", "args": {}} и ещё {"note": "готово"}')
    assert parsed.obj == {"tool": "table.mean", "args": {}}
