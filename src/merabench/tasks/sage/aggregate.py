"""SAGE task-level results: the macro means the leaderboard reports, and corpus-level counts.

Headline metrics are per-example F1s averaged over examples (as the public harness). As extras,
the TP/FP/FN counts per type summed over the corpus give micro precision, recall, F1 and F0.5
(F0.5, precision-weighted, is the usual figure in grammatical error correction). A type with no
edit anywhere (no TP, FP or FN) has no micro figures: they are left out, not given as a perfect 1.0
(a row's own F1 stays 1.0 when it has nothing to correct, as the reference scores it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from merabench.rows.row import Row
from merabench.tasks.aggregation import aggregate_metrics
from merabench.tasks.base import Aggregate, MetricSpec, SampleScore, Table
from merabench.tasks.sage.classify import TYPES
from merabench.tasks.sage.metrics import Counts


def aggregate(specs: Sequence[MetricSpec], rows: Sequence[Row], scores: Sequence[SampleScore | None]) -> Aggregate:
    base = aggregate_metrics(specs, rows, scores)
    totals = {t: Counts() for t in TYPES}
    empty = 0
    for score in scores:
        if score is None:
            continue
        if "note" in score.details:
            empty += 1
        for kind, (tp, fp, fn) in score.details.get("counts", {}).items():
            totals[kind].tp += tp
            totals[kind].fp += fp
            totals[kind].fn += fn
    micro: dict[str, Any] = {}
    metrics = dict(base.metrics)
    denominators = dict(base.denominators)
    for kind, c in totals.items():
        micro[kind] = {"tp": c.tp, "fp": c.fp, "fn": c.fn}
        if not c.tp + c.fp + c.fn:  # no edit of this type in any answer or reference: nothing to score, not 1.0
            micro[kind] |= dict.fromkeys(("precision", "recall", "f1", "f0.5"))
            continue
        p, r, f1 = c.prf()
        f05 = c.prf(beta=0.5)[2]
        micro[kind] |= {"precision": p, "recall": r, "f1": f1, "f0.5": f05}
        for suffix, value in (("micro_f1", f1), ("micro_f05", f05)):
            metrics[f"{kind.lower()}_{suffix}"] = value
            denominators[f"{kind.lower()}_{suffix}"] = c.tp + c.fp + c.fn
    notes: tuple[str, ...] = ()
    if empty:
        notes = (f"{empty} example(s) with an empty answer or reference score 0 (as the public harness)",)
    table = Table("corpus-level edits by type", ("tp", "fp", "fn", "precision", "recall", "f1", "f0.5"), micro)
    return Aggregate(metrics, denominators, {**base.breakdowns, "micro": table}, notes)
