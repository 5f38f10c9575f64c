"""Answers (+ judgements) -> scored rows and the task's result.

Rows whose request failed keep `status: "error"` and get no metrics: they are counted, never
scored as an empty answer. Sets without reference answers (the public test split) are left
unscored, and the result says so. Answers cut by the token limit (`finish_reason: length`) are
scored as they are, as the leaderboard scores them, and counted.
"""

from __future__ import annotations

import contextlib
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from merabench.models.usage import billable_tokens, priced
from merabench.records import BASE, Answer, Draw, Judgement, Scored, ToolMode
from merabench.rows.row import Row, compact_rows, rows_sha256
from merabench.runner.budget import Prices
from merabench.runner.samples import SamplesFile
from merabench.scoring.memory import release_freed_memory
from merabench.scoring.parallel import score_rows
from merabench.support.think import has_think
from merabench.tasks import get_task
from merabench.tasks.base import Aggregate, SampleScore, Table, Task


@dataclass(frozen=True)
class Usage:
    """Tokens (and their cost, when prices are known) over a task's answers. The cost counts the
    answers an endpoint was asked for (a cached answer costs nothing): by their token counts, or,
    when those are missing or cannot be right, by the estimate made from the bytes sent and
    received (models/usage.py); `unpriced` says how many had neither, and then there is no cost."""

    prompt: int = 0
    completion: int = 0
    reasoning: int = 0
    answered: int = 0           # answers whose tokens were counted
    with_reasoning: int = 0     # answers that reported reasoning tokens
    truncated: int = 0          # answers cut by the token limit
    # the tokens of the answers in the cost (counted, or estimated), each at the share of the prices
    # it was bought at (a batch's answers at its discount): what the cost multiplies by the prices
    priced_prompt: float = 0
    priced_completion: float = 0
    without_usage: int = 0      # answers asked of an endpoint without usable token counts
    estimated: int = 0          # of them, answers priced by the estimate
    estimated_prompt: float = 0   # and their tokens (at their share too)
    estimated_completion: float = 0
    unpriced: int = 0           # answers with neither counts nor an estimate (a baseline's, an old samples file's)
    implausible: int = 0        # answers whose reported counts could not be right (usage_note)

    @classmethod
    def of(cls, answers: Sequence[Answer]) -> Usage:
        ok = [a for a in answers if a.ok]
        reasoning = [a.reasoning_tokens for a in ok if a.reasoning_tokens is not None]
        fresh = [a for a in ok if not a.cached]
        # each answer's tokens at the share of the prices it was bought at (a batch's discount)
        bills = [(b, a.price_share or 1.0) for a in fresh
                 if (b := billable_tokens(a.prompt_tokens, a.completion_tokens, a.estimated_tokens))]
        estimates = [(a.estimated_tokens, a.price_share or 1.0) for a in fresh if a.estimated_tokens is not None]
        return cls(prompt=sum(a.prompt_tokens or 0 for a in ok), completion=sum(a.completion_tokens or 0 for a in ok),
                   reasoning=sum(reasoning), answered=len(ok), with_reasoning=len(reasoning),
                   truncated=sum(a.truncated for a in ok),
                   priced_prompt=sum(p * share for (p, _), share in bills),
                   priced_completion=sum(c * share for (_, c), share in bills),
                   without_usage=sum(not priced(a.prompt_tokens, a.completion_tokens) for a in fresh),
                   estimated=len(estimates), estimated_prompt=sum(e["prompt"] * share for e, share in estimates),
                   estimated_completion=sum(e["completion"] * share for e, share in estimates),
                   unpriced=len(fresh) - len(bills), implausible=sum(a.usage_note is not None for a in ok))

    def cost(self, prices: Prices) -> float | None:
        """What the answers cost, estimates included; None when some could not be priced at all."""
        return None if self.unpriced else prices.cost(self.priced_prompt, self.priced_completion)

    def estimated_cost(self, prices: Prices) -> float:
        """The part of `cost` estimated from bytes."""
        return prices.cost(self.estimated_prompt, self.estimated_completion)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"prompt": self.prompt, "completion": self.completion}
        if self.with_reasoning:
            out["reasoning"] = self.reasoning
            out["mean_reasoning"] = round(self.reasoning / self.with_reasoning, 1)
        out["truncated"] = self.truncated
        if self.without_usage:
            out["without_usage"] = self.without_usage
        if self.estimated:
            out["estimated"] = self.estimated
        return out


@dataclass(frozen=True)
class TaskResult:
    task: str
    source: str
    n_rows: int
    n_answered: int
    n_errors: int
    n_scored: int
    aggregate: Aggregate | None
    usage: Usage = field(default_factory=Usage)
    notes: tuple[str, ...] = ()
    ci95: dict[str, list[float]] = field(default_factory=dict)
    data_sha256: str | None = None
    #: answers carrying think tags, for tasks whose scoring keeps them (None: the task removes them itself)
    n_think: int | None = None
    strip_think: bool = False
    n_unasked: int = 0          # of n_errors: rows never sent (the run stopped at --max-cost or --deadline)
    judge_failed: str | None = None  # why the judge gave no reply at all, or was given up (its metrics lack rows)
    #: the line that says so, "judge metrics missing: ..." or "judge metrics incomplete: ..." (not in results.json)
    judge_headline: str | None = None
    tool_mode: ToolMode = ToolMode.TEXT   # GorillaHard: NATIVE when asked through tool calls
    #: each row's score as the aggregation read it (None: not scored), for the figures over draws
    #: (scoring/draws.py); not written anywhere
    row_scores: tuple[SampleScore | None, ...] = field(default=(), repr=False, compare=False)
    #: a run that asked each row more than once (`--repeats`, `--wordings all`): what results.json
    #: says of its draws (scoring/draws.py); the counts above are then over askings, not rows
    drawn: Mapping[str, Any] | None = None

    @property
    def n_askings(self) -> int:
        """Rows times draws: what n_answered, n_errors and n_scored count."""
        return self.drawn["askings"] if self.drawn else self.n_rows

    @property
    def all_failed(self) -> bool:
        return self.n_rows > 0 and self.n_errors == self.n_askings

    def to_json(self) -> dict[str, Any]:
        agg = self.aggregate
        out: dict[str, Any] = {
            "source": self.source,
            "data_sha256": self.data_sha256,
            "n": self.n_rows, "n_answered": self.n_answered, "n_errors": self.n_errors, "n_scored": self.n_scored,
            **({"n_unasked": self.n_unasked} if self.n_unasked else {}),
            **({"judge_failed": self.judge_failed} if self.judge_failed else {}),
            **({"tool_mode": str(self.tool_mode)} if self.tool_mode != ToolMode.TEXT else {}),
            "metrics": dict(agg.metrics) if agg else {},
            "denominators": dict(agg.denominators) if agg else {},
            "tokens": self.usage.to_json(),
        }
        if self.ci95:
            out["ci95"] = self.ci95
        if self.drawn:
            out.update(self.drawn)
        if self.n_think is not None:
            out["think"] = {"answers_with_think": self.n_think, "strip_think": self.strip_think}
        # how to read each metric: which way is better, and over what unit it is aggregated
        out["metric_info"] = {m.name: {"higher_is_better": m.higher_is_better,
                                       "aggregation": "corpus" if m.derived else m.aggregation.value,
                                       "headline": m.headline}
                              for m in get_task(self.task).metrics if m.name in out["metrics"]}
        if agg and agg.breakdowns:
            out["breakdowns"] = {name: value.to_json() if isinstance(value, Table) else value
                                 for name, value in agg.breakdowns.items()}
        notes = list(self.notes) + (list(agg.notes) if agg else [])
        if notes:
            out["notes"] = notes
        return out


class EarlyScores:
    """Scores of a run's answers taken as they arrive, in the time the run waits for the endpoint,
    so that little is left to score when the last answer is in.

    Only for tasks whose scoring is cheap (costly ones score at the end on every core) and that
    need no judge; `score_task` takes a kept score only for the same text with no judgement, so a
    kept score is always the one it would compute."""

    def __init__(self, runs: Sequence[tuple[Task, Sequence[Row]]], *, strip: bool, judged: Sequence[str] = ()):
        self._strip = strip
        self._rows: dict[str, tuple[Task, dict[int, Row]]] = {
            task.name: (task, {row.id: row for row in rows}) for task, rows in runs
            if not task.costly_scoring and task.name not in judged and any(r.outputs.strip() for r in rows)}
        self.scores: dict[str, dict[int, tuple[str, SampleScore]]] = {name: {} for name in self._rows}
        self._runs = [(task, rows) for task, rows in runs]
        self._hashes: dict[str, str] = {}
        self._warming: threading.Thread | None = None

    def add(self, task_name: str, answer: Answer) -> None:
        known = self._rows.get(task_name)
        row = known[1].get(answer.id) if known else None
        if known is None or row is None or not answer.ok:
            return
        text = known[0].scored_answer(answer.output or "", strip_think=self._strip)
        try:
            self.scores[task_name][answer.id] = (text, known[0].score(row, text, None))
        except Exception:  # noqa: BLE001 - scored again at the end, where a failure is reported
            self.scores[task_name].pop(answer.id, None)

    def warm_up(self, also: Callable[[], None] = lambda: None) -> None:
        """Start preparing what the end of the run needs (the intervals' numpy, the tasks' scorers,
        the data hashes, and `also`) in a background thread: it runs while the loop waits for the
        endpoint. It first compacts the rows' long inputs (merabench.rows.inputs), which the first
        request must not wait for."""
        if self._warming is None:
            self._warming = threading.Thread(target=self._prepare_end, args=(also,), name="merabench-warm-up",
                                             daemon=True)
            self._warming.start()

    def _prepare_end(self, also: Callable[[], None]) -> None:
        from merabench.scoring.stats import warm_up

        for _, rows in self._runs:  # first, freeing most of a GorillaHard set's text, given back at once
            compact_rows(rows)
        release_freed_memory()
        also()
        warm_up()
        for task, rows in self._runs:
            task.warm_up()
            self._hashes[task.name] = rows_sha256(rows)

    def settle(self) -> None:
        """Wait for the warm-up (a second or so) before the process ends early, on Ctrl-C say: a
        daemon thread cut off at exit inside native code (the dictionaries' C++ loader) aborts the
        interpreter instead of letting it exit with its own code."""
        if self._warming is not None:
            self._warming.join()

    def data_sha256(self, task_name: str) -> str | None:
        """The task's data hash, once the warm-up is over (it is joined here: nothing forks while
        it may hold an import lock); None when no warm-up ran."""
        self.settle()
        return self._hashes.get(task_name)


def think_note(count: int, strip: bool) -> str:
    if strip:
        return (f"{count} answer(s) carry <think> blocks, removed by --strip-think before scoring (an extra: "
                "the leaderboard's harness scores them as text)")
    return (f"{count} answer(s) carry <think> blocks, scored as text as the leaderboard's harness does; "
            "--strip-think would remove them first (closed blocks, an unclosed <think> with all after it, "
            "stray tags), an extra that is not leaderboard-compatible")


def score_task(task: Task, rows: Sequence[Row], answers: Mapping[int, Answer],
               judgements: Mapping[int, Judgement] | None = None, *, source: str, strip: bool,
               samples: Path | SamplesFile | None = None, early: Mapping[int, tuple[str, SampleScore]] | None = None,
               data_sha256: str | None = None, draw: Draw | None = None) -> TaskResult:
    """Score every answered row and return the task result; with `samples`, write there the
    final samples file (a line per row, in the data's order). `early` holds scores already
    taken during the run (EarlyScores), used where the text is the same and no judge is involved;
    `data_sha256` is the rows' hash when it is already known.

    A row's line is written as soon as it is scored, and of its details only what the task's
    aggregation reads is kept: a big run never holds every row's edits in memory."""
    scorable = any(r.outputs.strip() for r in rows) or task.scores_without_reference
    judgements = judgements or {}
    early = early or {}
    # in a run of several draws (`draw` given) a row missing from one is labelled with it, as every line
    row_answers = [answers.get(row.id) or Answer.failed(row.id, "no answer").of_draw(draw or BASE, draw is not None)
                   for row in rows]
    texts = [task.scored_answer(a.output or "", strip_think=strip) if a.ok else None for a in row_answers]
    jobs = [(row, text, judgements.get(row.id)) for row, text in zip(rows, texts, strict=True)
            if text is not None and scorable and _early_score(early, judgements, row, text) is None]
    done = score_rows(task, jobs)

    def full_score(row: Row, text: str | None) -> SampleScore:
        found = _early_score(early, judgements, row, text)
        return found if found is not None else next(done)

    scores, reasons = _write_samples(task, rows, row_answers, texts, judgements, full_score if scorable else None,
                                     samples)
    n_errors = sum(not a.ok for a in row_answers)
    usage = Usage.of(row_answers)
    n_think = None if task.removes_think else sum(a.ok and has_think(a.output or "") for a in row_answers)
    n_scored = sum(s is not None for s in scores)
    aggregate = task.aggregate(rows, scores) if n_scored else None
    from merabench.scoring.stats import (
        intervals,  # numpy: loaded when the first result is scored, not before the run
    )

    ci95 = intervals(task.metrics, rows, scores) if aggregate else {}
    return TaskResult(task=task.name, source=source, n_rows=len(rows), n_answered=len(rows) - n_errors,
                      n_errors=n_errors, n_scored=n_scored, aggregate=aggregate, usage=usage,
                      notes=(*_result_notes(reasons, scorable, n_think, strip, usage), *task.answer_notes(row_answers)),
                      ci95=ci95,
                      data_sha256=data_sha256 or rows_sha256(rows), n_think=n_think, strip_think=strip,
                      n_unasked=sum(a.unasked for a in row_answers), tool_mode=task.tool_mode,
                      row_scores=tuple(scores))


def _early_score(early: Mapping[int, tuple[str, SampleScore]], judgements: Mapping[int, Judgement], row: Row,
                 text: str | None) -> SampleScore | None:
    """The score taken during the run, if it scored this very text and no judge is involved."""
    found = early.get(row.id)
    return found[1] if found and found[0] == text and row.id not in judgements else None


def _write_samples(task: Task, rows: Sequence[Row], row_answers: Sequence[Answer], texts: Sequence[str | None],
                   judgements: Mapping[int, Judgement], full_score: Callable[[Row, str | None], SampleScore] | None,
                   samples: Path | SamplesFile | None) -> tuple[list[SampleScore | None], Counter[str]]:
    """Write each row's final samples line, in the data's order; return each row's score as the
    aggregation reads it (None for a row not scored) and the failures counted by reason.
    `full_score` is None for a set without references: its answers are kept, not scored."""
    scores: list[SampleScore | None] = []
    reasons: Counter[str] = Counter()
    # a SamplesFile already open is one that other draws of the run write into too (scoring/draws.py)
    with contextlib.nullcontext(samples) if isinstance(samples, SamplesFile) else SamplesFile(samples) as out:
        for row, answer, text in zip(rows, row_answers, texts, strict=True):
            score = None
            if not answer.ok:
                if not answer.unasked:  # a row never sent did not fail
                    reasons[str(answer.error or "unknown")[:160]] += 1
                record = Scored(answer)
            elif full_score is not None:
                full = full_score(row, text)
                record = Scored(answer, full.metrics, full.details, None if text == answer.output else text,
                                judgements.get(row.id))
                score = SampleScore(full.metrics, {k: full.details[k] for k in task.aggregated_details
                                                   if k in full.details})
            else:
                record = Scored(answer)
            out.write(record.to_json())
            scores.append(score)
    return scores, reasons


def _result_notes(reasons: Counter[str], scorable: bool, n_think: int | None, strip: bool,
                  usage: Usage) -> tuple[str, ...]:
    """What the task result says beside its scores: the commonest failures, a set without
    references, <think> blocks in the answers, and token counts that are wrong or hit the limit."""
    notes = [f"{count} row(s) failed: {reason}" for reason, count in reasons.most_common(3)]
    if not scorable:  # a task that scores what it can without references says so itself
        notes.append("the set has no reference answers (public test split): predictions only, no scores")
    if n_think:
        notes.append(think_note(n_think, strip))
    if usage.implausible:
        notes.append(f"{usage.implausible} answer(s) reported token counts that cannot be right (negative, not "
                     "integers, more than the context holds, or fewer than the text's bytes can be): recorded as "
                     "missing (usage_note); a cost prices them by an estimate from the bytes sent and received")
    if usage.truncated:
        notes.append(f"{usage.truncated} answer(s) were cut by the token limit (finish_reason: length); "
                     "scored as they are, as the leaderboard scores them")
    return tuple(notes)
