"""The SAGE scorer against the reference scorer on answers with markup, and on F1s that round.

markup_cases.json holds 926 answers over the agreement rows (tools/sage_markup_variants.py): think
blocks closed, unclosed, upper and mixed case, HTML-like tags, `<br>` for spaces, preambles, code
fences and combinations, and answers whose SPELL or PUNCT F1 is 2/3, 1/3 or 1/7. Their expected
figures come from the public reference scorer, run outside this repository (the table names how).
The scorer sees the answer as the harness's filter leaves it: markup and think blocks kept.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from merabench.tasks.sage.metrics import score_example

HERE = Path(__file__).parent
TABLE = json.loads((HERE / "markup_cases.json").read_text(encoding="utf-8"))
ROWS = {r["meta"]["id"]: r for r in map(json.loads, (HERE.parents[1] / "data" / "sage-agreement" / "rows.jsonl")
                                        .read_text(encoding="utf-8").splitlines())}
NAMES = ("spell_f1", "punct_f1", "errant_f1")


def test_the_table_is_big_and_covers_every_kind_of_markup() -> None:
    kinds = Counter(c["kind"] for c in TABLE["cases"])
    assert len(TABLE["cases"]) >= 500
    for kind in ("think_closed", "think_upper", "think_mixed_case", "think_unclosed_lead", "think_unclosed_tail",
                 "bold_tag_preamble", "br_for_space", "preamble_answer", "preamble_corrected", "code_fence",
                 "combo_all"):
        assert kinds[kind] >= 30, kind
    values = {c["expected"][name] for c in TABLE["cases"] for name in ("spell_f1", "punct_f1")}
    assert {0.6667, 0.3333, 0.1429} <= {round(v, 6) for v in values}  # values the reference rounds


@pytest.mark.parametrize("kind", sorted({c["kind"] for c in TABLE["cases"]}))
def test_every_answer_scores_as_the_reference_scorer(kind: str) -> None:
    differ = []
    for case in TABLE["cases"]:
        if case["kind"] != kind:
            continue
        row = ROWS[case["row"]]
        got = score_example(row["inputs"]["source"], row["outputs"], case["answer"]).metrics
        if any(abs(got[name] - case["expected"][name]) > 1e-9 for name in NAMES):
            differ.append((case["row"], case["answer"], {n: got[n] for n in NAMES}, case["expected"]))
    assert not differ, f"{len(differ)} differ, first: {differ[:3]}"


def test_a_two_thirds_f1_is_reported_as_the_reference_rounds_it() -> None:
    """The needed comma deletion made, one spurious PUNCT edit more: 1 TP + 1 FP, F1 2/3, which
    the reference reports as 66.67 % (0.6667); errant_f1 is the mean of the rounded values."""
    source, reference = "Привет, мир и все люди тут", "Привет мир и все люди тут"
    for answer in ("Привет мир и все, люди тут", "<think>x</think> Привет мир и все люди тут"):
        result = score_example(source, reference, answer)
        assert result.counts["PUNCT"].tp == 1 and result.counts["PUNCT"].fp == 1, answer  # the block is PUNCT
        assert result.metrics["punct_f1"] == 66.67 / 100 and result.metrics["errant_f1"] == 0.83335, answer
        assert result.metrics["spell_f1"] == 1.0
