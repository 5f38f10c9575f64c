"""Per row, a proof that a file-bound question needs its file (issue 46).

For every row of the grounding, scan and approx levers, the reference must depend on the
attached files' contents. Swapped for other files of the same kind and name (`swaps.py`) or
blanked, the row's family checker (the validator's own re-derivation, the one
`derived_quantities` runs) must stop accepting the reference: another value, another kind, or
nothing derivable. A row leaks when

- an argument is read off an attached file's name (`provenance.off_the_name`);
- every argument is stated in the question and no choice between two files is left: the file
  decides nothing in the answer;
- its reference survives the files blanked, or more than half of SWAPS swaps.

Rows whose only argument is which of two files are allowed (chance is a half) and counted, unless
the choice survives every one of at least MIN_DECIDED swaps that tell it: then the files' names
make it (a choice the contents make flips about half the time).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from merabench.rows.row import Row
from merabench.tasks.gorillahard.generator.checks import provenance
from merabench.tasks.gorillahard.generator.checks.rows import Check, first_failures, view_of
from merabench.tasks.gorillahard.generator.checks.swaps import SwapPool, swap_pool
from merabench.tasks.gorillahard.generator.families import FAMILIES, Family, View

SWAPS = 16         # swaps a row is tried with: a value that survives most of them is not the file's
                   # (a value a quarter of the kind's files hold does so in 1 row of 130, a third in 1 of 20)
CHOICE_SWAPS = 32  # a choice the contents make flips about half the time: more swaps to tell it apart
MIN_DECIDED = 10   # swaps that must tell the choice before "it never flips" is believed (chance 1 in 1024)

Leak = Literal["file_name", "in_question", "survives_blank", "survives_swaps"]

# what a family checker raises on a file not made for its row (a missing column, no FROM line, XML
# that does not parse): the reference is not derivable from it
_UNREADABLE = (ValueError, KeyError, IndexError, StopIteration, TypeError, AttributeError, ArithmeticError,
               SyntaxError)


@dataclass(frozen=True)
class Finding:
    """One file-bound row: whether it leaks, how, and how its reference fared under the swaps."""

    row_id: int
    family: str
    maker: str
    path_choice: bool
    leak: Leak | None
    detail: str
    survived: int   # swaps under which the family checker still accepts the reference
    swaps: int      # swaps looked at (for a choice of file: those in which the checker could tell which)

    def line(self) -> str:
        return f"row {self.row_id} ({self.family}): {self.detail}"


def _accepts(family: Family, view: View, files: dict[str, str], reference: dict[str, Any] | None = None) -> bool:
    try:
        return not family.check(replace(view, files=files, reference=view.reference if reference is None else reference))
    except _UNREADABLE:
        return False


def _swapped(view: View, pool: SwapPool, rng: random.Random, n: int) -> list[dict[str, str]]:
    """Up to n distinct versions of the row's files, each file in its place another of its kind,
    drawn evenly from every combination of the files' partners."""
    partners = [pool.partners(path, text) for path, text in view.files.items()]
    combinations = math.prod(len(p) for p in partners) if partners else 0
    swaps = []
    for index in rng.sample(range(combinations), min(n, combinations)):
        texts = []
        for options in reversed(partners):  # the index read as a number whose digits pick each file's partner
            index, pick = divmod(index, len(options))
            texts.append(options[pick])
        swaps.append(dict(zip(view.files, reversed(texts), strict=True)))
    return swaps


def _kept(family: Family, view: View, swaps: list[dict[str, str]]) -> tuple[int, int]:
    """Under how many swaps the reference survives, of how many looked at: all of them, or as
    many as it takes to know whether it survives more than half."""
    kept = lost = 0
    for files in swaps:
        if _accepts(family, view, files):
            kept += 1
        else:
            lost += 1
        if 2 * kept > len(swaps) or 2 * lost >= len(swaps):
            break
    return kept, kept + lost


def _flipped(reference: dict[str, Any], chosen: str, other: str) -> dict[str, Any]:
    """The reference with the other attached file where it names the chosen one."""
    text = json.dumps(reference, ensure_ascii=False)
    return json.loads(text.replace(json.dumps(chosen, ensure_ascii=False), json.dumps(other, ensure_ascii=False)))


def _choice_by_names(family: Family, view: View, swaps: list[dict[str, str]]) -> tuple[int, int]:
    """For a row whose only argument is which of two files: in how many swaps the checker could
    tell which (the reference or the one naming the other file accepted), and in how many of
    those the choice stayed, up to the first swap that flips it. A choice the contents make flips
    about half the time; one the names make (sales_*.csv for "the file with revenue") never does."""
    chosen = next(a.value for a in provenance.arguments(view.reference) if a.names_a_file(view.files))
    other = next(path for path in view.files if path != chosen)
    decided = kept = 0
    for files in swaps:
        if _accepts(family, view, files):
            kept += 1
            decided += 1
        elif _accepts(family, view, files, _flipped(view.reference, chosen, other)):
            return kept, decided + 1  # flipped: the contents decide, no need to look further
    return kept, decided


def finding(row: Row, family: Family, pool: SwapPool) -> Finding:
    view = view_of(row)
    question, paths = view.question, list(view.files)
    args = [a for a in provenance.arguments(view.reference) if not a.names_a_file(view.files)]
    unstated = [a for a in args if not provenance.stated(a.value, question)]
    choice = provenance.path_choice(row)
    rng = random.Random(f"swap:{row.id}")
    swaps = _swapped(view, pool, rng, CHOICE_SWAPS if choice else SWAPS)
    survived, tried = _choice_by_names(family, view, swaps) if choice else _kept(family, view, swaps)
    surviving = ", ".join(a.shown() for a in unstated) or "which of the two files"
    leak: Leak | None = None
    detail = ""
    named = [(a, path) for a in unstated if (path := provenance.off_the_name(a.value, paths, question))]
    if named:
        leak = "file_name"
        detail = "; ".join(f"{a.shown()} is read off the attached file's name {path}" for a, path in named)
    elif not unstated and not choice:
        leak = "in_question"
        detail = (f"every argument is stated in the question ({', '.join(a.shown() for a in args) or 'none'}): "
                  "the file decides nothing in the answer")
    elif _accepts(family, view, dict.fromkeys(view.files, "")):
        leak = "survives_blank"
        detail = f"the reference survives the files blanked ({surviving})"
    elif choice and tried >= MIN_DECIDED and survived == tried:
        leak = "survives_swaps"
        detail = (f"the choice of file survives all {tried} swaps for files of the same names in which it could "
                  "be told: the names decide it")
    elif not choice and len(swaps) >= 2 and 2 * survived > len(swaps):
        leak = "survives_swaps"
        detail = (f"the reference survives {survived} of {tried} swaps for other files of the kind, more than half "
                  f"of {len(swaps)} ({surviving})")
    category: dict[str, Any] = row.meta.get("categories", {})
    return Finding(row.id, category.get("family", "?"), row.meta.get("derivation", {}).get("maker", "?"),
                   choice, leak, detail, survived, tried)


def findings(rows: Sequence[Row], seed: int | None) -> list[Finding]:
    """A finding per file-bound row whose family is known (an unknown one `derived_quantities`
    reports); the swaps come from the corpora of the seed and the next (no seed: none)."""
    pool = swap_pool(seed)  # a hand-made set's is empty: no swaps, judged by names, question and blanking
    out = []
    for row in rows:
        family = FAMILIES.get(row.meta.get("derivation", {}).get("maker", ""))
        if provenance.file_bound(row) and family is not None:
            out.append(finding(row, family, pool))
    return out


def check_file_needed(test: list[Row], manifest: dict[str, Any]) -> Check:
    """Every file-bound row needs its file (see the module's docstring): a leak fails the set."""
    seed = manifest.get("seed")
    found = findings(test, seed if isinstance(seed, int) and not isinstance(seed, bool) else None)
    failing = [f.line() for f in found if f.leak]
    choices = sum(f.path_choice for f in found if not f.leak)
    detail = (f"{len(found)} file-bound rows, {len(found) - len(failing)} need their file ({choices} of them only "
              "to say which of two files: chance a half)")
    return Check("file_needed", not failing, f"{first_failures(failing)} ({detail})" if failing else detail)
