"""How varied a generated set is, and whether a shortcut solves it.

Variety is measured on questions with their numbers, quoted names, paths, hosts and identifiers
normalised away (a "template"): how many templates, how much of the set the commonest one takes,
how many distinct (question, reference) pairs, how many tools are the answer somewhere and how
much of the call rows the commonest answer tool takes.

The shortcuts are answers a model could give without solving anything, scored by the real
scorer: always refusing; the catalog tool whose name and description share the most words with
the question, with arguments filled from the prompt by simple patterns; and the reference of the
most similar question in a set made with another seed, its paths replaced by this row's.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from merabench.rows import Row
from merabench.tasks.gorillahard.generator.model import reference_tools
from merabench.tasks.gorillahard.generator.validate import attached_files, parsed_catalog

_QUOTED = re.compile(r"«[^»]*»|\"[^\"]*\"|`[^`]*`")
_PATH = re.compile(r"(?:[\w.-]+/)+[\w.-]+|\b[\w-]+\.(?:csv|tsv|log|py|json|jsonl|yaml|yml|toml|ini|md|sql|xml|env|txt)\b")
_HOST = re.compile(r"\b[\w-]+(?:\.[\w-]+)+\b")
_IDENT = re.compile(r"\b(?:[A-Z]{2,}-\d+|[\w]+[-_][\w-]+|INV-\d+)\b")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_WORD = re.compile(r"[а-яёa-z]{3,}")


def template(question: str) -> str:
    text = _QUOTED.sub("«·»", question)
    text = _PATH.sub("<path>", text)
    text = _HOST.sub("<host>", text)
    text = _IDENT.sub("<id>", text)
    return _NUMBER.sub("#", text)


def _reference(row: Row) -> dict[str, Any]:
    return json.loads(row.outputs)


@dataclass(frozen=True)
class Variety:
    rows: int
    templates: int
    top_template_share: float
    top_template: str
    distinct_pairs: int
    answer_tools: int
    top_tool_share: float
    top_tool: str

    def lines(self) -> list[str]:
        return [f"{self.templates} question templates; the commonest on {self.top_template_share:.1%} of rows "
                f"({self.top_template!r})",
                f"{self.distinct_pairs} distinct (question, reference) pairs in {self.rows} rows",
                f"{self.answer_tools} tools are the answer somewhere; the commonest, {self.top_tool}, in "
                f"{self.top_tool_share:.1%} of call rows"]


def variety(rows: Sequence[Row]) -> Variety:
    templates = Counter(template(r.inputs["question"]) for r in rows)
    pairs = {(r.inputs["question"], r.outputs) for r in rows}
    calls = [reference_tools(_reference(r)) for r in rows]
    calls = [c for c in calls if c]
    tools = Counter(t for c in calls for t in dict.fromkeys(c))
    top_template, top_n = templates.most_common(1)[0] if templates else ("", 0)
    top_tool, tool_n = tools.most_common(1)[0] if tools else ("", 0)
    return Variety(len(rows), len(templates), top_n / max(1, len(rows)), top_template, len(pairs), len(tools),
                   tool_n / max(1, len(calls)), top_tool)


def pairs_shared(first: Sequence[Row], second: Sequence[Row]) -> float:
    """The share of the first set's (question, reference) pairs that the second set also has."""
    mine = {(r.inputs["question"], r.outputs) for r in first}
    theirs = {(r.inputs["question"], r.outputs) for r in second}
    return len(mine & theirs) / max(1, len(mine))


# --- shortcut answers -------------------------------------------------------------------------

def refusal(row: Row) -> str:
    return json.dumps({"abstain": True, "reason": "не могу выполнить"}, ensure_ascii=False)


def _stems(text: str) -> set[str]:
    return {w[:5] for w in _WORD.findall(text.lower())}


def _attached(row: Row) -> list[str]:
    return list(attached_files(row.inputs["context"]))


def _argument(kind: str, name: str, question: str, paths: list[str]) -> Any:
    if name == "path" and paths:
        return paths[0]
    if kind in ("integer", "number"):
        found = _NUMBER.search(question)
        return int(float(found.group().replace(",", "."))) if found else 1
    quoted = _QUOTED.search(question)
    if quoted:
        return quoted.group()[1:-1]
    ident = _IDENT.search(question) or _HOST.search(question)
    return ident.group() if ident else (paths[0] if paths else "")


def keyword_tool(row: Row) -> str:
    """The catalog tool sharing the most word stems with the question; required arguments from
    the prompt by simple patterns (the first attached path, the first number, the first quoted
    name or identifier)."""
    question = row.inputs["question"]
    words = _stems(question)
    catalog = parsed_catalog(row.inputs["tools"])
    best = max(catalog, key=lambda t: len(words & _stems(f"{t['name'].replace('.', ' ')} {t['description']}")))
    paths = _attached(row)
    args = {name: _argument(spec.get("type", "string"), name, question, paths)
            for name, spec in best["parameters"].items() if spec.get("required")}
    return json.dumps({"tool": best["name"], "args": args}, ensure_ascii=False)


def nearest_reference(rows: Sequence[Row], other: Sequence[Row]) -> dict[int, str]:
    """For each row, the reference of the most similar question (character n-grams) in `other`,
    with that row's attached paths replaced by this row's, in order."""
    from rapidfuzz import fuzz, process

    questions = [r.inputs["question"] for r in other]
    answers = {}
    for row in rows:
        _, _, index = process.extractOne(row.inputs["question"], questions, scorer=fuzz.ratio)
        match = other[index]
        answer = match.outputs
        for theirs, mine in zip(_attached(match), _attached(row), strict=False):
            answer = answer.replace(theirs, mine)
        answers[row.id] = answer
    return answers


def shortcut_scores(rows: Sequence[Row], other: Sequence[Row] | None = None) -> dict[str, float]:
    """sample_pass_rate of each shortcut on these rows (dialogue turns scored as single rows)."""
    from merabench.tasks.gorillahard.task import GorillaHardTask

    task = GorillaHardTask()

    def rate(answer_of: Any) -> float:
        passed = [task.score(r, answer_of(r)).metrics.get("sample_pass_rate", 0.0) for r in rows]
        return sum(passed) / max(1, len(passed))

    scores = {"always_refuse": rate(refusal), "keyword_tool": rate(keyword_tool)}
    if other is not None:
        nearest = nearest_reference(rows, other)
        scores["nearest_other_seed"] = rate(lambda r: nearest[r.id])
    scores["refusal_share"] = sum("abstain" in _reference(r) for r in rows) / max(1, len(rows))
    return scores


def audit_lines(folder: Any) -> list[str]:
    """The variety figures and the shortcut baselines of a written set, against a set of the next
    seed made in a scratch folder (for the nearest-question shortcut and the shared pairs)."""
    import tempfile
    from pathlib import Path

    from merabench.rows import read_local
    from merabench.tasks.gorillahard.generator.build import SetPlan, write_set

    rows = read_local(Path(folder))["test"]
    manifest = json.loads((Path(folder) / "manifest.json").read_text(encoding="utf-8"))
    lines = variety(rows).lines()
    with tempfile.TemporaryDirectory() as tmp:
        other_seed = int(manifest.get("seed", 0)) + 1
        write_set(SetPlan(seed=other_seed, rows=int(manifest.get("rows", 1169)),
                          dialogues=int(manifest.get("dialogues", 30))), Path(tmp))
        other = read_local(Path(tmp))["test"]
    lines.append(f"{pairs_shared(rows, other):.1%} of the (question, reference) pairs also in seed {other_seed}'s set")
    scores = shortcut_scores(rows, other)
    lines.append(f"shortcuts, sample_pass_rate: always refuse {scores['always_refuse']:.3f} (refusal rows "
                 f"{scores['refusal_share']:.3f}), keyword tool {scores['keyword_tool']:.3f}, nearest question of "
                 f"seed {other_seed} {scores['nearest_other_seed']:.3f}")
    return lines
