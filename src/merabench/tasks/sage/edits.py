"""Source + corrected text -> typed edits: tokenise, align, merge, classify (the ERRANT pipeline)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from merabench.tasks.sage.align import align
from merabench.tasks.sage.classify import classify
from merabench.tasks.sage.merge import merge
from merabench.tasks.sage.tokenize import Token, span_text, tokenize


@dataclass(frozen=True, slots=True)
class Edit:
    """One typed edit: source tokens [start, end) become `correction` (ERRANT's M2 key)."""

    start: int
    end: int
    type: str
    correction: str

    @property
    def key(self) -> tuple[int, int, str, str]:
        return (self.start, self.end, self.type, self.correction)


def edits_between(source: tuple[Token, ...], target: tuple[Token, ...]) -> list[Edit]:
    found = []
    for o_start, o_end, c_start, c_end in merge(align(source, target), source, target):
        for kind, correction in classify(source[o_start:o_end], target[c_start:c_end]):
            found.append(Edit(o_start, o_end, kind, correction))
    return found


@lru_cache(maxsize=50_000)
def extract(source: str, target: str) -> tuple[Edit, ...]:
    """Edits from `source` to `target`, memoised: a good hypothesis often equals the reference."""
    if source == target:  # all matches: no edits (models often leave a text untouched)
        return ()
    return tuple(edits_between(tokenize(source), tokenize(target)))


def source_text(source: tuple[Token, ...], edit: Edit) -> str:
    return span_text(source[edit.start:edit.end])
