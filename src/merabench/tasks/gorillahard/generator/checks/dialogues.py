"""Checks of the dialogues: every earlier turn in shots, each turn following from its question and
the turn before, and the evaluated turn needing the history.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from merabench.errors import DataError
from merabench.rows.prompts import HistoryIndex
from merabench.rows.row import Row
from merabench.tasks.gorillahard.generator.checks.rows import (
    Check,
    attached_files,
    first_failures,
    library_reference,
)


def check_dialogues(test: list[Row], shots: list[Row]) -> Check:
    history = HistoryIndex(shots)
    problems = []
    dialogues = [r for r in test if int(r.meta.get("n_turns", 1)) > 1]
    for row in dialogues:
        try:
            turns = history.earlier_turns(row)
        except DataError as exc:
            problems.append(str(exc))
            continue
        if len(turns) != row.meta["n_turns"] - 1 or row.meta["turn_id"] != row.meta["n_turns"] - 1:
            problems.append(f"row {row.id}: not the last turn of its dialogue")
        if not row.meta.get("needs_history"):
            problems.append(f"row {row.id}: a dialogue turn without needs_history")
    shot_pairs = {(r.inputs["question"], r.outputs) for r in shots}
    repeated = [r.id for r in test if (r.inputs["question"], r.outputs) in shot_pairs]
    if repeated:
        problems.append(f"test rows repeat a shots question and answer: {repeated[:5]}")
    return Check("dialogue_history", not problems,
                 first_failures(problems) or f"{len(dialogues)} dialogues, every earlier turn in shots")


# how a dialogue turn names a statistic or a cancelled operation (read from the question alone)
_STAT_WORDS = (("медиан", "table.median"), ("максимум", "table.max"), ("больш", "table.max"),
               ("минимум", "table.min"), ("наименьш", "table.min"), ("средн", "table.mean"))
_TRAP_WORDS = (("значения", "table.unique"), ("отсортируй", "table.sort"))
_LEVEL = re.compile(r"\b(ERROR|WARN|DEBUG|INFO)\b")
_QUOTED_COLUMN = re.compile(r"«([^»]+)»")


def _column_named(description: str) -> str | None:
    from merabench.tasks.gorillahard.generator.corpus import TABLE_SCHEMAS  # the columns' names in words

    return next((c.name for _, columns in TABLE_SCHEMAS.values() for c in columns if c.description == description),
                None)


_BACK = re.compile(r"с которого мы начали|из моего первого вопроса|о котором я спросил первым")


def next_turn(maker: str, question: str, state: dict[str, Any] | None, files: dict[str, str],
              opening: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The reference a dialogue turn asks for, read from its question and the state the turn
    before left (None for an opening; `opening`: the first turn's, for a turn that goes back to
    it), or None when the question and the states do not say it."""
    lowered = question.lower()
    back = _BACK.search(lowered) is not None
    if back and (state is None or opening is None):
        return None  # a turn going back to the first request needs it
    if maker == "dialog:grep_chain":
        level = _LEVEL.search(question)
        path = state["args"]["path"] if state else (next(iter(files)) if len(files) == 1 else None)
        tool = "logs.count" if "сколько" in lowered else "logs.grep"
        if level is None:  # the pattern of the turn before, or of the first
            earlier = opening if back else state  # an opening when going back (checked above)
            if not state or earlier is None or tool != "logs.count":
                return None
            return {"tool": tool, "args": dict(earlier["args"])}
        return {"tool": tool, "args": {"path": path, "pattern": level.group(1)}} if path else None
    trap = next((tool for word, tool in _TRAP_WORDS if word in lowered), None)
    quoted = _QUOTED_COLUMN.search(question)
    stat = next((tool for word, tool in _STAT_WORDS if word in lowered), None)
    if trap:
        if not state:
            return None
        column = opening["args"]["column"] if back and opening else state["args"]["column"]
        return {"tool": trap, "args": {**state["args"], "column": column}}
    if state is None:
        column = _column_named(quoted.group(1)) if quoted else None
        if not (stat and column and len(files) == 1):
            return None
        return {"tool": stat, "args": {"path": next(iter(files)), "column": column}}
    if quoted:
        column = _column_named(quoted.group(1))
        return {"tool": state["tool"], "args": {**state["args"], "column": column}} if column else None
    return {"tool": stat, "args": dict(state["args"])} if stat else None


def dialog_check(turns: list[Row]) -> list[str]:
    """Each turn of a dialogue follows from its question and the turn before (the references under
    the library's names); the evaluated turn is the last of `turns`."""
    maker = turns[-1].meta.get("derivation", {}).get("maker", "")
    if maker not in ("dialog:stat_chain", "dialog:grep_chain", "dialog:trap_switch"):
        return [f"row {turns[-1].id}: unknown dialogue maker {maker!r}"]
    state = opening = None
    for turn in turns:
        expected = next_turn(maker, turn.inputs["question"], state, attached_files(turn.inputs["context"]), opening)
        actual = library_reference(turn)
        if expected != actual:
            return [f"row {turns[-1].id}: turn {turn.meta.get('turn_id')} does not follow from the turns before it "
                    f"(expected {expected})"]
        state, opening = actual, opening or actual
    return []


MAX_DIALOG_TURNS = 5  # the card's history ceiling (num_fewshot) is 8 earlier turns


def check_history_needed(test: list[Row], shots: list[Row]) -> Check:
    """The card: in every evaluated dialogue turn the operation or an argument is named only in an
    earlier turn. The turn read alone (as if it opened the dialogue) must not give its reference,
    and the reference must hold a value the turn's question does not state; 2-5 turns."""
    history = HistoryIndex(shots)
    problems: list[str] = []
    turns_seen: Counter[int] = Counter()
    for row in (r for r in test if int(r.meta.get("n_turns", 1)) > 1):
        turns_seen[int(row.meta["n_turns"])] += 1
        if not 2 <= int(row.meta["n_turns"]) <= MAX_DIALOG_TURNS:
            problems.append(f"row {row.id}: {row.meta['n_turns']} turns, not 2-{MAX_DIALOG_TURNS}")
        reference, question = library_reference(row), row.inputs["question"]
        files = attached_files(row.inputs["context"])
        maker = row.meta.get("derivation", {}).get("maker", "")
        alone = next_turn(maker, question, None, files)
        try:
            previous = library_reference(history.earlier_turns(row)[-1])
        except (DataError, IndexError):
            continue  # dialogue_history reports it
        unstated = [name for name, value in reference.get("args", {}).items()
                    if (name != "path" or len(files) > 1) and str(value) not in question]
        carried_tool = reference.get("tool") == previous.get("tool")
        if alone == reference:
            problems.append(f"row {row.id}: the last turn alone gives its reference")
        elif not unstated and not carried_tool:
            problems.append(f"row {row.id}: the last turn states every value of its reference")
    detail = "turns per dialogue " + ", ".join(f"{n}: {c}" for n, c in sorted(turns_seen.items()))
    return Check("history_needed", not problems, first_failures(problems) or
                 f"every evaluated turn takes its operation or an argument from the history; {detail}")
