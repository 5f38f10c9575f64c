"""Edit-level scores of one SAGE example, as the public harness computes them (scoring.md).

Hypothesis edits equal to reference edits (same span, type and correction) are true positives
of their type (counted with the reference's multiplicity, as ERRANT does); the other hypothesis
edits are false positives and unmatched reference edits false negatives. Per type:
P = TP/(TP+FP), or 1 without hypothesis edits of the type; R = TP/(TP+FN), or 1 without reference
edits of the type; F1 = 2PR/(P+R), or 0 when P+R = 0. SPELL and PUNCT F1 are then rounded as the
reference reports them (percent to two decimals, over 100) and errant_f1 is their mean; CASE and YO
F1 stay exact. The hypothesis is left-stripped first; an empty hypothesis or reference scores 0.

Bounded work: an answer longer than twice the longer of source and reference plus 1,000
characters (a model looping until its token limit) is scored on its first part, and the rest
counts as one inserted edit, a false positive, as the reference makes of a repeated tail. The row's
details say so; the few other bounds (alignment size, merge windows) are noted the same way.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from merabench.tasks.sage.classify import CASE, PUNCT, SPELL, TYPES, YO, classify
from merabench.tasks.sage.edits import Edit, extract, extraction, source_text
from merabench.tasks.sage.tokenize import span_text, tokenize

METRIC_OF_TYPE = {SPELL: "spell_f1", PUNCT: "punct_f1", CASE: "case_f1", YO: "yo_f1"}
HEADLINE = ("spell_f1", "punct_f1")  # rounded as the reference reports them; CASE and YO stay exact


def as_reported(f1: float) -> float:
    """An example's F1 as the harness receives it: the reference scorer returns it in percent
    rounded to two decimals, the harness divides by 100 (2/3 -> 0.6667)."""
    return round(f1 * 100, 2) / 100


@dataclass
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def prf(self, beta: float = 1.0) -> tuple[float, float, float]:
        p = self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0
        r = self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0
        b2 = beta * beta
        f = (1 + b2) * p * r / (b2 * p + r) if (b2 * p + r) else 0.0
        return p, r, f


@dataclass
class ExampleScore:
    metrics: dict[str, float]
    counts: dict[str, Counts] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)


def compare(hypothesis: Sequence[Edit], reference: Sequence[Edit]) -> tuple[dict[str, Counts], dict[tuple, str]]:
    """Counts per type, and each edit key's verdict (TP, FP or FN)."""
    hyp, ref = Counter(e.key for e in hypothesis), Counter(e.key for e in reference)
    counts = {t: Counts() for t in TYPES}
    verdicts: dict[tuple, str] = {}
    for key, n in hyp.items():
        if key in ref:
            counts[key[2]].tp += ref[key]
            verdicts[key] = "TP"
        else:
            counts[key[2]].fp += n
            verdicts[key] = "FP"
    for key, n in ref.items():
        if key not in hyp:
            counts[key[2]].fn += n
            verdicts[key] = "FN"
    return counts, verdicts


def _edit_view(edit: Edit, source_tokens: tuple, verdict: str) -> dict[str, Any]:
    return {"span": [edit.start, edit.end], "type": edit.type, "original": source_text(source_tokens, edit),
            "correction": edit.correction, "target": edit.target, "verdict": verdict}


def score_example(source: str, reference: str, hypothesis: str) -> ExampleScore:
    hypothesis = hypothesis.lstrip()
    src = tokenize(source)
    if not hypothesis.strip() or not reference.strip():
        why = "empty hypothesis" if not hypothesis.strip() else "empty reference"
        zero = {name: 0.0 for name in ("spell_f1", "punct_f1", "errant_f1", "case_f1", "yo_f1")}
        # for the corpus-level counts, every reference edit of an empty answer is missed
        ref_edits = extract(source, reference) if reference.strip() else ()
        counts, verdicts = compare((), ref_edits)
        return ExampleScore(zero, counts, {
            "note": f"{why}: scores 0",
            "reference_edits": [_edit_view(e, src, verdicts[e.key]) for e in ref_edits],
            "counts": {t: [c.tp, c.fp, c.fn] for t, c in counts.items() if c.tp or c.fp or c.fn}})
    hypothesis, tail, notes = _bounded(source, reference, hypothesis)
    found = extraction(source, hypothesis)
    hyp_edits = found.edits + _tail_edit(src, tail)
    notes += list(found.notes)
    ref_edits = extract(source, reference)
    counts, verdicts = compare(hyp_edits, ref_edits)
    metrics = {METRIC_OF_TYPE[t]: counts[t].prf()[2] for t in TYPES}
    for name in HEADLINE:
        metrics[name] = as_reported(metrics[name])
    metrics["errant_f1"] = (metrics["spell_f1"] + metrics["punct_f1"]) / 2
    details: dict[str, Any] = {
        "hypothesis_edits": [_edit_view(e, src, verdicts[e.key]) for e in hyp_edits],
        "reference_edits": [_edit_view(e, src, verdicts[e.key]) for e in ref_edits],
        "counts": {t: [c.tp, c.fp, c.fn] for t, c in counts.items() if c.tp or c.fp or c.fn},
    }
    if notes:
        details["bounded"] = notes
    return ExampleScore(metrics, counts, details)


def answer_limit(source: str, reference: str) -> int:
    """The longest answer scored in full: twice the longer text, plus 1,000 characters."""
    return 2 * max(len(source), len(reference)) + 1000


def _bounded(source: str, reference: str, hypothesis: str) -> tuple[str, str, list[str]]:
    """(the part of the answer that is aligned, the tail that is not, a note when there is one)."""
    limit = answer_limit(source, reference)
    if len(hypothesis) <= limit:
        return hypothesis, "", []
    space = hypothesis.rfind(" ", limit - 200, limit)  # cut between words where one is near
    cut = space if space > 0 else limit
    note = (f"the answer has {len(hypothesis):,} characters, more than {limit:,} (twice the longer text plus "
            f"1,000): its first {cut:,} are scored, the rest counts as one inserted edit (a false positive)")
    return hypothesis[:cut], hypothesis[cut:], [note]


def _tail_edit(source_tokens: tuple, tail: str) -> tuple[Edit, ...]:
    """The unscored tail as one insertion at the end of the source, typed as the reference types
    an insertion (from the tail's first tokens: its first 2,000 characters)."""
    if not tail.strip():
        return ()
    inserted = tokenize(tail[:2000].lstrip())
    end = len(source_tokens)
    return tuple(Edit(end, end, kind, correction, span_text(inserted))
                 for kind, correction in classify((), inserted))
