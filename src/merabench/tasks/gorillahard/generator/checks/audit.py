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

import contextlib
import functools
import json
import multiprocessing
import re
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from merabench.rows.row import Row
from merabench.tasks.gorillahard.generator.checks.manifest import check_manifest, read_manifest
from merabench.tasks.gorillahard.generator.checks.rows import (
    attached_files,
    library_reference,
    parsed_catalog,
)
from merabench.tasks.gorillahard.generator.library.providers import canonical_text
from merabench.tasks.gorillahard.generator.model import reference_tools

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


_TEMPLATE_WORD = re.compile(r"[\w«»<>#·-]+")


def phrase_shares(questions: Sequence[str], words: int = 3) -> tuple[tuple[str, float], tuple[str, float]]:
    """The commonest opening and closing phrase (the first and the last `words` words of the
    questions' templates) and the share of questions each starts or ends."""
    tokens = [_TEMPLATE_WORD.findall(template(q).lower()) for q in questions]
    total = max(1, len(tokens))
    shares = []
    for cut in (lambda t: t[:words], lambda t: t[-words:]):
        phrase, n = Counter(" ".join(cut(t)) for t in tokens).most_common(1)[0] if tokens else ("", 0)
        shares.append((phrase, n / total))
    return shares[0], shares[1]


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


def _pair(row: Row) -> tuple[str, str]:
    """(question, reference) with the tools under the library's names: a tool served by another
    provider is the same problem, not a new one."""
    return row.inputs["question"], canonical_text(row.outputs)


def variety(rows: Sequence[Row]) -> Variety:
    templates = Counter(template(r.inputs["question"]) for r in rows)
    pairs = {_pair(r) for r in rows}
    calls = [reference_tools(library_reference(r)) for r in rows]
    calls = [c for c in calls if c]
    tools = Counter(t for c in calls for t in dict.fromkeys(c))
    top_template, top_n = templates.most_common(1)[0] if templates else ("", 0)
    top_tool, tool_n = tools.most_common(1)[0] if tools else ("", 0)
    return Variety(len(rows), len(templates), top_n / max(1, len(rows)), top_template, len(pairs), len(tools),
                   tool_n / max(1, len(calls)), top_tool)


def pairs_shared(first: Sequence[Row], second: Sequence[Row]) -> float:
    """The share of the first set's (question, reference) pairs that the second set also has."""
    mine = {_pair(r) for r in first}
    theirs = {_pair(r) for r in second}
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
    return dict(zip((r.id for r in rows), _nearest_answers(_asked(rows), other), strict=True))


def _asked(rows: Sequence[Row]) -> list[tuple[str, list[str]]]:
    return [(r.inputs["question"], _attached(r)) for r in rows]


def _nearest_answers(asked: Sequence[tuple[str, list[str]]], other: Sequence[Row]) -> list[str]:
    from rapidfuzz import fuzz, process

    questions = [r.inputs["question"] for r in other]
    answers = []
    for question, paths in asked:
        _, _, index = process.extractOne(question, questions, scorer=fuzz.ratio)
        match = other[index]
        answer = match.outputs
        for theirs, mine in zip(_attached(match), paths, strict=False):
            answer = answer.replace(theirs, mine)
        answers.append(answer)
    return answers


# a set audited twice compares with the same one; a process that checks sets of a few plans (the
# tests, a script auditing several sets) keeps each plan's: a card-size set is some 3 CPU s to make
@functools.lru_cache(maxsize=4)
def other_seed_rows(seed: int, rows: int, dialogues: int) -> tuple[Row, ...]:
    """The test rows of the set the same plan makes with the next seed, made in memory."""
    from merabench.tasks.gorillahard.generator.build.generate import SetPlan, generate

    test, _ = generate(SetPlan(seed=seed + 1, rows=rows, dialogues=dialogues))
    return tuple(Row(**row) for row in test)


def _plan_of(manifest: dict[str, Any]) -> tuple[int, int, int]:
    return int(manifest["seed"]), int(manifest.get("rows", 1169)), int(manifest.get("dialogues", 30))


def _answers_from_next_seed(asked: list[tuple[str, list[str]]], plan: tuple[int, int, int]) -> list[str]:
    return _nearest_answers(asked, other_seed_rows(*plan))


def nearest_in_next_seed(rows: Sequence[Row], manifest: dict[str, Any],
                         made_here: bool = False) -> Callable[[], dict[int, str]]:
    """The nearest-question answers against the next seed's set (the manifest's plan), worked out
    in a forked process while the caller goes on (making that set and matching the questions take
    a few seconds); call the result to wait for {row id: answer}. `made_here`: the caller needs
    that set too (the audit), so it is made in this process first and the fork inherits it,
    instead of each making it (a plan that cannot be made fails in the fork, as ever)."""
    asked, plan, ids = _asked(rows), _plan_of(manifest), [r.id for r in rows]
    if made_here:
        with contextlib.suppress(ValueError, RuntimeError, OSError):
            other_seed_rows(*plan)
    if sys.platform != "linux":  # fork is the safe default only there
        return lambda: dict(zip(ids, _answers_from_next_seed(asked, plan), strict=True))
    executor = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
    future = executor.submit(_answers_from_next_seed, asked, plan)
    executor.shutdown(wait=False)  # the worker ends with its one job
    return lambda: dict(zip(ids, future.result(), strict=True))


def shortcut_scores(rows: Sequence[Row], nearest: Callable[[], Mapping[int, str] | None] | None = None
                    ) -> dict[str, float]:
    """sample_pass_rate of each shortcut on these rows (dialogue turns scored as single rows);
    `nearest` gives the nearest-question answers, or None when there are none: it is called last,
    so answers worked out elsewhere meanwhile are waited for as late as possible."""
    from merabench.tasks.gorillahard.task import GorillaHardTask

    task = GorillaHardTask()

    def rate(answer_of: Any) -> float:
        passed = [task.score(r, answer_of(r)).metrics.get("sample_pass_rate", 0.0) for r in rows]
        return sum(passed) / max(1, len(passed))

    scores = {"always_refuse": rate(refusal), "keyword_tool": rate(keyword_tool)}
    answers = nearest() if nearest is not None else None
    if answers is not None:
        scores["nearest_other_seed"] = rate(lambda r: answers[r.id])
    scores["refusal_share"] = sum("abstain" in _reference(r) for r in rows) / max(1, len(rows))
    return scores


def file_layout_lines(rows: Sequence[Row], manifest: dict[str, Any]) -> list[str]:
    """Per kind of attached file, how many files, layouts and decoy kinds the set shows."""
    from merabench.tasks.gorillahard.generator.checks import file_layouts

    try:
        seed = int(manifest["seed"])
    except (KeyError, TypeError, ValueError):
        return ["file layouts: no seed in the manifest"]
    paths = {p for r in rows for p in attached_files(r.inputs.get("context", ""))}
    found, _ = file_layouts.figures(paths, seed)
    return ["file layouts and decoys per kind of attached file:"] + [f"  {f.line(kind)}" for kind, f in found.items()]


def audit_lines(folder: Any) -> list[str]:
    """The variety figures and the shortcut baselines of a written set, against the set of the next
    seed (for the nearest-question shortcut and the shared pairs)."""
    from pathlib import Path

    from merabench.rows.row import read_local

    rows = read_local(Path(folder))["test"]
    present, manifest = read_manifest(Path(folder))
    if not check_manifest(manifest, present).ok:  # as the validation reads it: a hand-made set (its check says why)
        manifest = {}
    lines = variety(rows).lines()
    try:
        seed, *_ = plan = _plan_of({"seed": 0, **manifest})
        other = other_seed_rows(*plan)
    except (TypeError, ValueError, RuntimeError, OSError) as exc:  # a hand-edited manifest: the rest is measured
        lines.append(f"the next seed's set could not be made ({exc}): no shared pairs, no nearest question")
        scores, nearest = shortcut_scores(rows), ""
    else:
        lines.append(f"{pairs_shared(rows, other):.1%} of the (question, reference) pairs also in seed {seed + 1}'s set")
        scores = shortcut_scores(rows, lambda: nearest_reference(rows, other))
        nearest = f", nearest question of seed {seed + 1} {scores['nearest_other_seed']:.3f}"
    lines.append(f"shortcuts, sample_pass_rate: always refuse {scores['always_refuse']:.3f} (refusal rows "
                 f"{scores['refusal_share']:.3f}), keyword tool {scores['keyword_tool']:.3f}{nearest}")
    return lines + file_layout_lines(rows, manifest)
