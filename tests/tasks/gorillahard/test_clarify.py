"""Clarifications and their near misses: four kinds of ambiguity, mechanisms drawn per row, each
row proven from what it shows (the question, the files, the catalog)."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace

import pytest
from helpers import corpus_of

from merabench.rows.row import Row, read_local
from merabench.tasks import TASKS
from merabench.tasks.gorillahard.generator.build.generate import SetPlan, _row, write_set
from merabench.tasks.gorillahard.generator.checks.audit import template
from merabench.tasks.gorillahard.generator.checks.composition import check_clarify_kinds
from merabench.tasks.gorillahard.generator.checks.rows import view_of
from merabench.tasks.gorillahard.generator.families import FAMILIES
from merabench.tasks.gorillahard.generator.families.clarify import (
    FIGURES,
    KINDS,
    MECHANISMS,
    check_ambiguity,
)
from merabench.tasks.gorillahard.generator.library.providers import draw_served

TASK = TASKS["gorillahard"]


def written(mechanism: str, ambiguous: bool, n: int) -> Row:
    """A row of the mechanism as the generator writes it (catalog, provider and all)."""
    rng = random.Random(f"clarify-test:{mechanism}:{ambiguous}:{n}")
    question = MECHANISMS[mechanism].make(rng, corpus_of(9), ambiguous)
    family = FAMILIES[f"{'clarify' if ambiguous else 'near_miss'}_{MECHANISMS[mechanism].kind}"]
    return Row(**_row(question, family, row_id=0, base_id="b", dialog_id="b", turn=0, n_turns=1, needs_history="",
                      wording=0, rng=rng, served=draw_served(rng)))


@pytest.mark.parametrize("mechanism", sorted(MECHANISMS))
def test_a_clarification_has_two_readings_and_its_near_miss_one(mechanism: str) -> None:
    for n in range(12):
        ask, near = written(mechanism, True, n), written(mechanism, False, n)
        ask_view, near_view = view_of(ask), view_of(near)
        readings = MECHANISMS[mechanism].readings(ask_view)
        assert len({json.dumps(r, sort_keys=True) for r in readings}) >= 2, (ask.inputs["question"], readings)
        assert MECHANISMS[mechanism].readings(near_view) == [near_view.reference], near.inputs["question"]
        assert check_ambiguity(ask_view) == [] and check_ambiguity(near_view) == []
        for row in (ask, near):
            assert TASK.score(row, row.outputs).metrics["sample_pass_rate"] == 1.0


@pytest.mark.parametrize("mechanism", sorted(MECHANISMS))
def test_a_wrong_kind_of_answer_is_caught(mechanism: str) -> None:
    """A clarification answered by one of its readings, and a near miss answered by asking back,
    both fail their check."""
    ask, near = view_of(written(mechanism, True, 0)), view_of(written(mechanism, False, 0))
    one_reading = MECHANISMS[mechanism].readings(ask)[0]
    assert check_ambiguity(replace(ask, reference=one_reading))
    assert check_ambiguity(replace(near, reference={"clarify": "Что именно имеется в виду?"}))


def test_the_one_fact_decides_a_near_miss() -> None:
    """Take the deciding fact away and the near miss turns ambiguous: the qualifier a question says
    (the currency, the environment, when to reboot), or the catalog that lacks the other tool."""
    said = {"twin_columns": tuple(p for f in FIGURES.values() for phrasings, _ in f.said.values() for p in phrasings),
            "flag_envs": (" в staging", " в production"), "reboot_timing": ("прямо сейчас", "немедленно",
                                                                              "в ближайшее окно обслуживания",
                                                                              "в окно обслуживания")}
    seen = Counter()
    for mechanism, phrases in said.items():
        for n in range(30):
            view = view_of(written(mechanism, False, n))
            phrase = next((p for p in phrases if p in view.question), None)
            if phrase is None or len(view.files) != 1:
                continue
            if mechanism != "reboot_timing" or "server.reboot_scheduled" in view.tools:
                ambiguous = replace(view, question=view.question.replace(phrase, ""))
                try:
                    readings = MECHANISMS[mechanism].readings(ambiguous)
                except ValueError:  # without its environment the request would leave a flag as it is
                    continue
                if len(readings) >= 2:
                    seen[mechanism] += 1
                    assert check_ambiguity(ambiguous), (mechanism, view.question)
    reboot = next(v for v in (view_of(written("reboot_timing", False, n)) for n in range(40))
                  if "server.reboot_scheduled" not in v.tools)
    assert check_ambiguity(replace(reboot, tools=(*reboot.tools, "server.reboot_scheduled")))
    assert set(seen) == set(said), seen


# what only the question can fix: the date a month "before this one" counts from, how many more
# replicas or retries
DECIDED_BY_THE_QUESTION = {"relative_month", "scale_unstated"}


@pytest.mark.parametrize("mechanism", sorted(set(MECHANISMS) - DECIDED_BY_THE_QUESTION))
def test_wording_alone_does_not_tell_a_clarification_from_its_near_miss(mechanism: str) -> None:
    """Some near miss of each mechanism is worded (names and numbers aside) as one of its
    clarifications is: only the files or the catalog tell them apart."""
    def shapes(ambiguous: bool) -> set[str]:
        return {template(written(mechanism, ambiguous, n).inputs["question"]) for n in range(60)}

    assert shapes(True) & shapes(False), mechanism


@pytest.fixture(scope="module")
def default_rows(tmp_path_factory) -> list[Row]:
    folder = tmp_path_factory.mktemp("clarify-set")
    write_set(SetPlan(seed=41), folder)
    return read_local(folder)["test"]


def test_a_default_set_draws_every_kind_in_both_families_and_a_lopsided_one_is_caught(default_rows) -> None:
    manifest = {"rows": 1169, "dialogues": 30}
    check = check_clarify_kinds(default_rows, manifest)
    assert check.ok, check.detail
    kinds = Counter((r.meta["categories"]["family"], r.meta["derivation"]["kind"]) for r in default_rows
                    if r.meta["categories"]["family"] in ("clarify_file", "near_miss_clarify"))
    assert {kind for _, kind in kinds} == set(KINDS) and sum(kinds.values()) == 30
    mechanisms = {r.meta["derivation"]["mechanism"] for r in default_rows if "mechanism" in r.meta["derivation"]}
    assert len(mechanisms) >= 6  # several mechanisms per kind, drawn per row
    lopsided = [replace(r, meta={**r.meta, "derivation": {**r.meta["derivation"], "kind": "two_fit"}})
                if r.meta["categories"]["family"] == "near_miss_clarify" else r for r in default_rows]
    failed = check_clarify_kinds(lopsided, manifest)
    assert not failed.ok and "near_miss_clarify" in failed.detail
