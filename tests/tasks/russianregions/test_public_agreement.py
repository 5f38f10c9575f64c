"""merabench's RussianRegions exact_match and group_exact_match against the public harness.

public_cases.json holds ~1,300 model-like answers (tools/russianregions_answer_variants.py) over the
bundled rows, think blocks among them (closed, unclosed, upper case, the answer inside the block),
with the values the public harness's code (named in the table) gives them, computed outside this
repository. The scorer sees the answer as the harness's filter leaves it, as merabench's default
does: left-stripped, think blocks kept (--strip-think is an extra, not the leaderboard's).
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from merabench.rows.row import read_bundled
from merabench.tasks import TASKS

TASK = TASKS["russianregions"]
TABLE = json.loads((Path(__file__).parent / "public_cases.json").read_text(encoding="utf-8"))
ROWS = {r.id: r for r in read_bundled("russianregions")["test"]}


def score(row_id: int, answer: str):
    return TASK.score(ROWS[row_id], TASK.scored_answer(answer, strip_think=False))


def test_the_table_is_big_and_varied() -> None:
    assert len(TABLE["cases"]) >= 1000 and len({c["label"] for c in TABLE["cases"]}) >= 35
    assert sum("think" in c["label"] for c in TABLE["cases"]) >= 300
    assert {c["expected"]["exact_match"] for c in TABLE["cases"]} == {0, 1}


def test_every_exact_match_equals_the_public_harness() -> None:
    differ = [(c["row"], c["answer"], c["expected"]["exact_match"]) for c in TABLE["cases"]
              if score(c["row"], c["answer"]).metrics["exact_match"] != c["expected"]["exact_match"]]
    assert not differ, f"{len(differ)} differ, first: {differ[:5]}"


def test_every_aggregate_equals_the_public_harness() -> None:
    by_label = defaultdict(list)
    for c in TABLE["cases"]:
        by_label[c["label"]].append(c)
    for label, expected in TABLE["aggregates"].items():
        rows = [ROWS[c["row"]] for c in by_label[label]]
        got = TASK.aggregate(rows, [score(c["row"], c["answer"]) for c in by_label[label]]).metrics
        assert got["exact_match"] == pytest.approx(expected["exact_match"], abs=1e-12), label
        assert got["group_exact_match"] == pytest.approx(expected["group_exact_match"], abs=1e-12), label
