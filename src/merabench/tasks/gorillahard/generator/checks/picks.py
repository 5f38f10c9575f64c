"""Checks of the rows that pick one of two attached files: the question tells them apart by what they
hold, and the picks are spread over many criteria and clauses.
"""

from __future__ import annotations

import re
from collections import Counter

from merabench.rows.row import Row
from merabench.tasks.gorillahard.generator.checks.rows import (
    Check,
    attached_files,
    first_failures,
    reference_of,
    steps,
)
from merabench.tasks.gorillahard.generator.families import criteria


def check_told_apart(rows: list[Row]) -> Check:
    """With two files attached and a reference acting on one of them by path, the question says
    which by what it holds: the clause the row records is in the question. Where the row records
    the criterion it picks by, exactly one attached file fits it, re-read from the written files
    (the family's check then reads the reference's values off that one), and a path the
    reference acts on is that file."""
    vague = []
    for row in rows:
        files = attached_files(row.inputs["context"])
        if len(files) < 2:
            continue
        derivation = row.meta.get("derivation", {})
        question, which = row.inputs["question"], str(derivation.get("which", ""))
        pick = derivation.get("pick")
        chosen = criteria.chosen(question, pick, files) if isinstance(pick, dict) else None
        if isinstance(chosen, list):
            vague.append(f"row {row.id}: {'; '.join(chosen)}")
        for step in steps(reference_of(row)):
            path = step["args"].get("path")
            if isinstance(path, str) and path in files and not (which and which in question):
                vague.append(f"row {row.id}: {len(files)} files attached and the question does not say by what it "
                             f"holds that it means {path}")
            elif isinstance(path, str) and path in files and isinstance(chosen, str) and path != chosen:
                vague.append(f"row {row.id}: the question picks {chosen}, the reference acts on {path}")
    return Check("targets_told_apart", not vague,
                 first_failures(vague) or "every file acted on among two is told apart by what it holds")


# a tenth: the log criteria serve the most specs (a log is the kind most requests read), and on
# seed 131 one of them decides 9 % of the picks
PICK_GOALS = {"criteria": 30, "top_criterion_share": 0.10, "top_clause_share": 0.03}


def check_pick_criteria(rows: list[Row]) -> Check:
    """The rows that pick one of two files do it by many criteria (counts compared, thresholds,
    facts said in other words, facts missing, joins across the files), none of which, nor any one
    clause, decides more than a small share of them: a rule learnt from one set's clauses does not
    pick the file in another's."""
    picks = [p for r in rows if isinstance(p := r.meta.get("derivation", {}).get("pick"), dict)]
    if not picks:
        return Check("pick_criteria", True, "no row picks one of two files")
    by_criterion = Counter(str(p.get("criterion")) for p in picks)
    by_clause = Counter(re.sub(r"\d+", "N", str(p.get("clause"))) for p in picks)
    (top, top_n), (clause, clause_n) = by_criterion.most_common(1)[0], by_clause.most_common(1)[0]
    unknown = sorted(set(by_criterion) - set(criteria.BY_NAME))
    short = [message for ok, message in (
        (not unknown, f"unknown criteria {unknown}"),
        (len(by_criterion) >= PICK_GOALS["criteria"], f"{len(by_criterion)} criteria < {PICK_GOALS['criteria']}"),
        (top_n <= PICK_GOALS["top_criterion_share"] * len(picks), f"{top} decides {top_n} of {len(picks)} picks"),
        (clause_n <= max(2, PICK_GOALS["top_clause_share"] * len(picks)), f"«{clause}» in {clause_n} of {len(picks)}"),
    ) if not ok]
    detail = (f"{len(picks)} picks by {len(by_criterion)} criteria, {len(by_clause)} clauses; the commonest criterion "
              f"{top} on {top_n / len(picks):.1%}, the commonest clause on {clause_n / len(picks):.1%}")
    return Check("pick_criteria", not short, "; ".join(short) if short else detail)
