"""Checks of a set's structure: rows the checks can read at all, continuous ids, prompts assembled
as SAP, no prompt or row twice.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from merabench.errors import DataError
from merabench.rows.prompts import render_row
from merabench.rows.row import Row
from merabench.tasks.gorillahard.generator.checks.rows import (
    Check,
    first_failures,
)
from merabench.tasks.gorillahard.generator.library.providers import canonical_text
from merabench.tasks.gorillahard.parse import reference_problem

LABELS = ("Контекст:", "Инструменты:", "Формат ответа:", "Вопрос:")
PLACEHOLDERS = ("{context}", "{tools}", "{format}", "{question}")


def check_well_formed(rows: list[Row], folder: Path) -> None:
    """Rows the checks can read at all: a catalog that is a JSON list of objects and a reference
    that is a JSON object. Anything else is a malformed set, not a failed check."""
    for row in rows:
        try:
            catalog, reference = json.loads(row.inputs.get("tools", "")), json.loads(row.outputs)
        except (ValueError, RecursionError):
            field = "inputs.tools" if not _parses(row.inputs.get("tools", "")) else "outputs"
            raise DataError("is not JSON", file=str(folder), row_id=row.id, field=field) from None
        if not isinstance(catalog, list) or not all(isinstance(t, dict) for t in catalog):
            raise DataError("must be a JSON list of tool objects", file=str(folder), row_id=row.id, field="inputs.tools")
        if not isinstance(reference, dict):
            raise DataError("must be a JSON object (an answer envelope)", file=str(folder), row_id=row.id,
                            field="outputs")
        problem = reference_problem(reference)
        if problem:
            raise DataError(problem, file=str(folder), row_id=row.id, field="outputs")


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def check_ids(test: list[Row], shots: list[Row]) -> Check:
    wrong = [problem for name, rows in (("test", test), ("shots", shots)) for problem in _id_gaps(name, rows)]
    return Check("continuous_ids", not wrong,
                 "; ".join(wrong) or f"test 0..{len(test) - 1}, shots 0..{len(shots) - 1}")


def _id_gaps(name: str, rows: list[Row]) -> list[str]:
    """What keeps a file's ids from running 0..n-1 in order: ids missing, repeated, or out of order."""
    ids = [r.id for r in rows]
    expected = list(range(len(ids)))
    if ids == expected:
        return []
    missing = sorted(set(expected) - set(ids))
    repeated = sorted(i for i, n in Counter(ids).items() if n > 1)
    extra = sorted(set(ids) - set(expected), key=str)
    out = [f"{name}: ids missing {first_few(missing)}"] if missing else []
    out += [f"{name}: ids repeated {first_few(repeated)}"] if repeated else []
    out += [f"{name}: ids outside 0..{len(ids) - 1} {first_few(extra)}"] if extra else []
    return out or [f"{name}: ids 0..{len(ids) - 1} out of order"]


def first_few(ids: list, limit: int = 10) -> str:
    return ", ".join(map(str, ids[:limit])) + (f" (+{len(ids) - limit} more)" if len(ids) > limit else "")


def check_prompts(test: list[Row], shots: list[Row]) -> tuple[Check, list[str], list[str]]:
    """The SAP structure of every instruction, and the rendered prompts of test and of shots (for
    the uniqueness and length checks)."""
    problems: list[str] = []
    test_prompts, shot_prompts = _rendered(test, problems), _rendered(shots, problems)
    check = Check("prompt_assembly", not problems, first_failures(problems) or "instruction, labels, question last")
    return check, test_prompts, shot_prompts


def _rendered(rows: list[Row], problems: list[str]) -> list[str]:
    """The prompts of the rows assembled as SAP; what is not goes to `problems`."""
    prompts = []
    for row in rows:
        positions = [row.instruction.find(label) for label in LABELS]
        if -1 in positions or positions != sorted(positions) or any(p not in row.instruction for p in PLACEHOLDERS):
            problems.append(f"row {row.id}: labels or placeholders out of the SAP order")
        elif set(row.inputs) != {"question", "context", "tools", "format"}:
            problems.append(f"row {row.id}: inputs are {sorted(row.inputs)}")
        else:
            try:
                prompts.append(render_row(row))
            except DataError as exc:
                problems.append(str(exc))
    return prompts


def check_unique_prompts(prompts: list[str]) -> Check:
    counts = Counter(prompts)
    duplicates = sum(n - 1 for n in counts.values() if n > 1)
    return Check("unique_prompts", duplicates == 0, f"{duplicates} repeated prompt(s)")


def item_keys(maker: str, context: str, outputs: str, question: str) -> list[tuple[str, ...]]:
    """What a row asks, whatever its catalog, instruction wording or provider: its question, files
    and reference under the library's tool names; and, but for refusals, its maker, files and
    reference: two rows of one maker over the same files with the same answer ask the same thing,
    an aside or a synonym apart. A refusal's reason can be the same words for different requests
    ("no tool for this"), so there only the question tells two apart; so it does for a row that
    names no maker (a set this generator did not make)."""
    reference = canonical_text(outputs)
    keys: list[tuple[str, ...]] = [("asked", question, context, reference)]
    try:
        parsed = json.loads(reference)
    except ValueError:  # the answer checks say what is wrong with it
        parsed = None
    # a row without a maker (a set not made here) is told apart by its question alone
    if maker and not (isinstance(parsed, dict) and "abstain" in parsed):
        keys.append(("made", maker, context, reference))
    return keys


def check_duplicate_rows(rows: list[Row]) -> Check:
    """No two evaluated rows ask the same thing (`item_keys`): an item counted twice."""
    first: dict[tuple[str, ...], int] = {}
    repeated = []
    for row in rows:
        maker = str((row.meta.get("derivation") or {}).get("maker", ""))
        for key in item_keys(maker, row.inputs["context"], row.outputs, row.inputs["question"]):
            if key in first:
                what = "question" if key[0] == "asked" else "maker"
                repeated.append(f"rows {first[key]} and {row.id}: the same {what}, files and reference")
            first.setdefault(key, row.id)
    return Check("no_duplicate_rows", not repeated, first_failures(repeated) or
                 f"{len(rows)} rows, each asking its own thing of its files")
