"""Source + corrected text -> typed edits: tokenise, align, merge, classify (the ERRANT pipeline)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from merabench.tasks.sage.align import align_bounded
from merabench.tasks.sage.classify import classify
from merabench.tasks.sage.merge import merge_with_notes
from merabench.tasks.sage.tokenize import Token, span_text, tokenize


@dataclass(frozen=True, slots=True)
class Edit:
    """One typed edit: source tokens [start, end) become `correction` (ERRANT's M2 key).
    `target` is the whole corrected span the edit came from, for showing it: the key's
    correction can be less (an insertion is keyed by its first token, a CASE edit by the
    source with only its case changed)."""

    start: int
    end: int
    type: str
    correction: str
    target: str = field(default="", compare=False)

    @property
    def key(self) -> tuple[int, int, str, str]:
        return (self.start, self.end, self.type, self.correction)


@dataclass(frozen=True)
class Extraction:
    """The typed edits from one text to another, and notes on any bound that changed how."""

    edits: tuple[Edit, ...]
    notes: tuple[str, ...] = ()


def edits_between(source: tuple[Token, ...], target: tuple[Token, ...]) -> Extraction:
    path, note = align_bounded(source, target)
    spans, notes = merge_with_notes(path, source, target)
    found = []
    for o_start, o_end, c_start, c_end in spans:
        corrected = target[c_start:c_end]
        for kind, correction in classify(source[o_start:o_end], corrected):
            found.append(Edit(o_start, o_end, kind, correction, span_text(corrected)))
    return Extraction(tuple(found), tuple(([note] if note else []) + notes))


@lru_cache(maxsize=8192)  # the source is extracted twice in a row (reference, answer): a run needs little
def extraction(source: str, target: str) -> Extraction:
    """Edits from `source` to `target`, memoised: a good hypothesis often equals the reference."""
    if source == target:  # all matches: no edits (models often leave a text untouched)
        return Extraction(())
    return edits_between(tokenize(source), tokenize(target))


def extract(source: str, target: str) -> tuple[Edit, ...]:
    return extraction(source, target).edits


def source_text(source: tuple[Token, ...], edit: Edit) -> str:
    return span_text(source[edit.start:edit.end])
