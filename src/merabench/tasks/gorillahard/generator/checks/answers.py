"""Checks of the reference answers: each recomputed by its family's own checker (a dialogue turn by
turn), and each passing the real scorer.
"""

from __future__ import annotations

from merabench.errors import DataError
from merabench.rows.prompts import HistoryIndex
from merabench.rows.row import Row
from merabench.tasks.gorillahard.generator.checks.dialogues import dialog_check
from merabench.tasks.gorillahard.generator.checks.rows import (
    Check,
    catalog_of,
    first_failures,
    view_of,
)
from merabench.tasks.gorillahard.generator.families import FAMILIES
from merabench.tasks.gorillahard.generator.library.providers import DOTTED_NAME, canonical
from merabench.tasks.gorillahard.task import GorillaHardTask


def _as_served(problem: str, row: Row) -> str:
    """A family's finding (written in the library's tool names) under the names the row's catalog
    serves the tools as, the names its reference and a model use."""
    served = {canonical(t["name"]): t["name"] for t in catalog_of(row)}
    return DOTTED_NAME.sub(lambda m: served.get(m.group(), m.group()), problem)


def check_derivations(test: list[Row], shots: list[Row]) -> Check:
    problems: list[str] = []
    history = HistoryIndex(shots)
    checked = 0
    for row, evaluated in [(r, True) for r in test] + [(r, False) for r in shots]:
        maker = row.meta.get("derivation", {}).get("maker")
        if maker is None:
            problems.append(f"row {row.id}: no recorded derivation")
            continue
        if maker.startswith("dialog:"):
            if evaluated:  # an opening turn is checked through its closing one
                try:
                    turns = history.earlier_turns(row)
                except DataError:
                    continue  # dialogue_history reports it
                problems += dialog_check([*turns, row])
                checked += 1
            continue
        family = FAMILIES.get(maker)
        if family is None:
            problems.append(f"row {row.id}: unknown family {maker!r}")
            continue
        try:
            found = family.check(view_of(row))
        except (ValueError, KeyError, IndexError, StopIteration, TypeError, AttributeError) as exc:  # not as made
            found = [f"could not be recomputed from the files ({type(exc).__name__}: {exc})"]
        problems += [f"row {row.id} ({maker}): {_as_served(p, row)}" for p in found]
        checked += 1
    return Check("derived_quantities", not problems, first_failures(problems) or f"{checked} rows recomputed")


def check_scorer(test: list[Row], shots: list[Row]) -> Check:
    task = GorillaHardTask()
    failing = []
    scores = []
    for row in test + shots:
        score = task.score(row, row.outputs)
        if score.metrics.get("sample_pass_rate") != 1.0:
            failing.append(f"row {row.id}: {score.details.get('reasons') or score.details.get('error')}")
        scores.append(score)
    scores = scores[:len(test)]  # the dialogue metric is over the evaluated rows
    aggregate = task.aggregate(test, scores)
    dialog = aggregate.metrics.get("dialog_pass_rate", 1.0)
    ok = not failing and dialog == 1.0
    return Check("references_pass_scorer", ok, first_failures(failing) or
                 f"{len(test) + len(shots)} references pass, dialog_pass_rate {dialog:.3f}")
