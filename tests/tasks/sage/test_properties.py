"""Properties of the SAGE score (hypothesis) and a regression fixture over 2,000 real pairs."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from merabench.rows.row import read_bundled
from merabench.tasks.sage.edits import extract
from merabench.tasks.sage.metrics import score_example

ROWS = read_bundled("sage")["test"]
RUSPELLRU = Path(__file__).resolve().parents[2] / "data" / "ruspellru"
FIXTURE = Path(__file__).parent / "ruspellru_edit_counts.json"


@pytest.mark.parametrize("row", ROWS, ids=[f"row{r.id}" for r in ROWS])
def test_the_reference_scores_one_on_every_type_and_the_source_misses_every_edit(row) -> None:
    source = row.inputs["source"]
    perfect = score_example(source, row.outputs, row.outputs).metrics
    assert perfect == {"spell_f1": 1.0, "punct_f1": 1.0, "case_f1": 1.0, "yo_f1": 1.0, "errant_f1": 1.0}
    unchanged = score_example(source, row.outputs, source)
    for kind, (tp, fp, fn) in unchanged.details["counts"].items():
        assert tp == 0 and fp == 0 and fn > 0, kind  # recall 0 wherever the reference edits
        assert unchanged.metrics[f"{kind.lower()}_f1"] == 0.0


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=120), other=st.text(max_size=120))
def test_arbitrary_unicode_never_raises(text: str, other: str) -> None:
    result = score_example(text, other, text + other)
    assert all(0.0 <= v <= 1.0 for v in result.metrics.values())


@settings(max_examples=60, deadline=None)
@given(row=st.sampled_from(ROWS), cut=st.integers(0, 50), junk=st.sampled_from([",", " ", "ё", "-", "\n", "А"]))
def test_edited_answers_stay_in_range_and_the_reference_still_wins(row, cut: int, junk: str) -> None:
    answer = row.outputs[:cut] + junk + row.outputs[cut:]
    worse = score_example(row.inputs["source"], row.outputs, answer).metrics["errant_f1"]
    assert 0.0 <= worse <= 1.0


def edit_counts() -> dict[str, dict[str, int]]:
    sources = (RUSPELLRU / "sources.txt").read_text(encoding="utf-8").splitlines()
    corrections = (RUSPELLRU / "corrections.txt").read_text(encoding="utf-8").splitlines()
    forward, backward = Counter(), Counter()
    for s, c in zip(sources, corrections, strict=True):
        forward.update(e.type for e in extract(s, c))
        backward.update(e.type for e in extract(c, s))
    return {"source_to_correction": dict(sorted(forward.items())),
            "correction_to_source": dict(sorted(backward.items()))}


def test_ruspellru_edit_counts_are_unchanged() -> None:
    """A regression fixture: edit counts by type over the 2,000 RUSpellRU pairs, both directions,
    written once the scorer matched the reference on the agreement set."""
    assert edit_counts() == json.loads(FIXTURE.read_text(encoding="utf-8"))


if __name__ == "__main__":  # regenerate the fixture: python tests/tasks/sage/test_properties.py
    FIXTURE.write_text(json.dumps(edit_counts(), indent=1) + "\n", encoding="utf-8")
