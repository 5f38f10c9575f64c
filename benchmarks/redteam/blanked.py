"""The blanked-contents audit of issue 46: the red-team solver shown every attached file's path but
none of its contents, scored by the real scorer. What it still passes on the file-bound levers
(grounding, scan, approx) is answered without the file: from the question, the file's name or a
value the family always has.

Told that the files are hidden (not empty), the solver does not refuse over what they do not
show: where its rules find nothing to read, it answers by its nearest dev recipe with each value
guessed as an outsider would, from the question, from a token of an attached path shaped like the
dev value, or as the dev value itself (the recipes are seed 23's rows: a value that recurs across
seeds is won that way).
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from merabench.rows.row import Row
from merabench.tasks.gorillahard.generator.checks.provenance import file_bound, path_choice
from redteam import rules
from redteam import solver as redteam
from redteam.catalog import tool_for
from redteam.derive import Ask, Refuse
from redteam.dev_bank import bank
from redteam.questions import token_shape

_HEADER = re.compile(r"^\[файл: .+\]$", re.MULTILINE)


def blanked(row: Row) -> Row:
    """The row with each attached file's header kept and its contents gone."""
    context = row.inputs.get("context", "")
    headers = _HEADER.findall(context)
    if not headers:
        return row
    return replace(row, inputs={**row.inputs, "context": "\n\n".join(f"{h}\n" for h in headers)})


@functools.lru_cache(maxsize=1)
def dev_answers() -> tuple[dict[str, Any], ...]:
    """The dev seed's reference answers, one per bank recipe (the bank's recipes are its test rows,
    in order): where a recipe's value came from a file, the value itself."""
    from merabench.tasks.gorillahard.generator.build.generate import SetPlan, generate

    test, _ = generate(SetPlan(seed=redteam.DEV_SEED))
    answers = tuple(json.loads(r["outputs"]) for r in test)
    recipes = redteam.index().recipes
    if len(answers) != len(recipes) or any(rules.kind_of(a) != r["kind"] for a, r in zip(answers, recipes, strict=True)):
        raise RuntimeError("the bank no longer matches the dev seed's set: rebuild it "
                           "(python benchmarks/gorillahard_redteam.py --rebuild-bank)")
    return answers


def _dev_value(recipe_index: int, step: int, name: str) -> Any:
    steps = rules.steps_of(dev_answers()[recipe_index])
    return steps[step].get("args", {}).get(name) if step < len(steps) else None


def _path_token(prompt: redteam.Prompt, like: Any) -> str | None:
    """A part of an attached path shaped like the dev value, for a value with a number in it (a
    ticket key off tickets/BILL-4481.md; a bare word like `python` is no file's name)."""
    if not isinstance(like, str) or not re.search(r"\d", like):
        return None
    shape = re.compile(token_shape(like))
    return next((part for path in prompt.files for part in re.split(r"/|\.(?=[a-z]+$)", path)
                 if shape.fullmatch(part)), None)


def _guess(spec: Mapping[str, Any], name: str, prompt: redteam.Prompt, path: str | None, dev: Any,
           choice: Mapping[str, Mapping[str, int]] | None) -> Any:
    """One value without the files: off a path, by the rules where they need no contents, else the
    dev value."""
    if spec["t"] in ("fkey", "const"):
        found = _path_token(prompt, dev if spec["t"] == "fkey" else spec.get("v"))
        if found or spec["t"] == "fkey":
            return found or dev
    if spec["t"] == "colname":
        return spec["v"]
    try:
        value = rules.value_of(spec, name, prompt, path, bank()["columns"], choice)
    except (Refuse, Ask):
        value = None
    if value is None and spec["t"] == "path":
        value = path or next(iter(prompt.files), None)
    if value is None and spec["t"] == "colq":
        quoted = re.findall(r"«([^»]*)»", prompt.question)
        value = bank()["columns"].get(quoted[0].lower(), quoted[0]) if quoted else None
    return value if value is not None else dev


def guessed(prompt: redteam.Prompt) -> dict[str, Any] | None:
    """The nearest dev call recipe whose operations the catalog offers, its values guessed."""
    idx = redteam.index()
    for _, i in idx.ranked(redteam.asked_words(prompt))[:8]:
        recipe = idx.recipes[i]
        if recipe["kind"] in ("abstain", "clarify") or recipe.get("foreach"):
            continue
        path = next((rules.value_of(s, n, prompt, None, {}) for st in recipe["steps"] for n, s in st["args"].items()
                     if s["t"] == "path"), None)
        steps = []
        for n, step in enumerate(recipe["steps"]):
            tool = tool_for(prompt, step["op"], step.get("desc", ""))
            args = {name: _guess(spec, name, prompt, path, _dev_value(i, n, name),
                                 bank().get("choices", {}).get(f"{step['op']}/{name}"))
                    for name, spec in step["args"].items()}
            if tool is None or any(v is None for v in args.values()):
                break
            steps.append({"tool": tool.name, "args": args})
        else:
            return steps[0] if recipe["kind"] == "call" else {recipe["kind"]: steps}
    return None


def blind_answer(prompt: redteam.Prompt) -> str:
    """With files attached, the guess by the nearest recipe (the rules would refuse or ask back over
    files they cannot read); without, or with no recipe near, the solver's own answer."""
    guess = guessed(prompt) if prompt.files else None
    return json.dumps(guess, ensure_ascii=False) if guess else redteam.solve(prompt)


@dataclass
class Tally:
    """Rows solved without the file, of rows, per family: all file-bound rows and, apart, those
    whose only argument is which of two files."""

    solved: Counter[str] = field(default_factory=Counter)
    rows: Counter[str] = field(default_factory=Counter)
    choice_solved: Counter[str] = field(default_factory=Counter)
    choice_rows: Counter[str] = field(default_factory=Counter)

    def add(self, other: Tally) -> None:
        for mine, theirs in ((self.solved, other.solved), (self.rows, other.rows),
                             (self.choice_solved, other.choice_solved), (self.choice_rows, other.choice_rows)):
            mine.update(theirs)

    def file_bound(self) -> tuple[int, int]:
        """(solved, rows) over the file-bound rows, the two-file choices aside."""
        return (sum(self.solved.values()) - sum(self.choice_solved.values()),
                sum(self.rows.values()) - sum(self.choice_rows.values()))

    def choices(self) -> tuple[int, int]:
        return sum(self.choice_solved.values()), sum(self.choice_rows.values())


@dataclass(frozen=True)
class Audit:
    overall: float   # sample_pass_rate over every test row, contents blanked
    tally: Tally


def audit(test: Sequence[Row], shots: Sequence[Row] = ()) -> Audit:
    """The solver's answers to the blanked rows (its history turns blanked too), scored against
    the rows as they are."""
    from merabench.tasks.gorillahard.task import GorillaHardTask

    history = [blanked(r) for r in shots]
    answers = {r.id: blind_answer(redteam.prompt_of(blanked(r), history)) for r in test}
    task = GorillaHardTask()
    passed = {r.id: task.score(r, answers[r.id]).metrics.get("sample_pass_rate", 0.0) == 1.0 for r in test}
    tally = Tally()
    for row in test:
        if not file_bound(row):
            continue
        family = row.meta["categories"]["family"]
        tally.rows[family] += 1
        tally.solved[family] += passed[row.id]
        if path_choice(row):
            tally.choice_rows[family] += 1
            tally.choice_solved[family] += passed[row.id]
    return Audit(sum(passed.values()) / max(1, len(test)), tally)


def _share(solved: int, rows: int) -> str:
    return f"{solved / rows:.3f} ({solved} of {rows})" if rows else "no rows"


def summary_line(result: Audit) -> str:
    return (f"blanked contents: sample_pass_rate {result.overall:.3f} over all rows; file-bound rows "
            f"(grounding, scan, approx; two-file choices aside) {_share(*result.tally.file_bound())}; "
            f"two-file choices (chance 0.5) {_share(*result.tally.choices())}")


def family_table(tallies: dict[int, Tally]) -> list[str]:
    """A line per family with file-bound rows: solved without the file / rows on each seed, over
    all of them, and the two-file choices among them; the most solved families first."""
    total = Tally()
    for tally in tallies.values():
        total.add(tally)
    seeds = sorted(tallies)
    width = max((len(f) for f in total.rows), default=6)
    head = f"{'family':<{width}}  " + "  ".join(f"{'seed ' + str(s):>7}" for s in seeds) + "      all  two-file choices"
    lines = [head]
    order = sorted(total.rows, key=lambda f: (-total.solved[f] / total.rows[f], f))
    for family in order:
        cells = "  ".join(f"{f'{tallies[s].solved[family]}/{tallies[s].rows[family]}':>7}" for s in seeds)
        choice = (f"{total.choice_solved[family]}/{total.choice_rows[family]}" if total.choice_rows[family] else "")
        lines.append(f"{family:<{width}}  {cells}  {f'{total.solved[family]}/{total.rows[family]}':>7}  {choice}")
    return lines
