"""A task scored over every draw of its rows (`run --repeats K`, `--wordings all`), into one result.

Each draw is scored as a run of its own (the same scorer, judgements of its own answers), its
lines written into the one samples file, draw after draw. The task's figures then follow the
draws: each metric is the mean over the draws of its value in each (a group metric's verdicts
taken per draw), the intervals and standard errors resample rows, groups or levers with all of
their askings (scoring/repeated.py), and the result says how often a row's verdict changes
between repeats (`flip_rate`; GorillaHard adds `pass_at_k` and `pass_all_k`) and how the spread
of the headline metric splits between rows and within them. Breakdowns pool the askings.

A run of the base draw alone is scored exactly as before: nothing here touches it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from statistics import fmean
from typing import Any

from merabench.records import BASE, Answer, Draw, Judgement
from merabench.rows.row import Row
from merabench.runner.samples import SamplesFile
from merabench.scoring.repeated import (
    by_wording,
    clustered_figures,
    collapsed,
    flips,
    passes,
    rate_figures,
    repeat_cells,
    variance_split,
    wording_cells,
)
from merabench.scoring.score import TaskResult, Usage, score_task
from merabench.tasks.aggregation import aggregate_metrics
from merabench.tasks.base import Aggregate, SampleScore, Task

#: a task's answers by draw and row id
TaskAnswers = Mapping[Draw, Mapping[int, Answer]]


def score_draws(task: Task, rows: Sequence[Row], answers: TaskAnswers, draws: Sequence[Draw],
                judgements: Mapping[Draw, Mapping[int, Judgement]] | None = None, *, source: str, strip: bool,
                samples: Path | None = None, early: Mapping[int, tuple[str, SampleScore]] | None = None,
                data_sha256: str | None = None, rows_of: Callable[[Draw], Sequence[Row]] | None = None
                ) -> TaskResult:
    """The task's result over `draws`; with `samples`, the final samples file, every draw's lines.
    `rows_of(draw)`: the rows as that draw asked them (another wording; a row its question type
    has no such wording for left out), by default `rows` in every draw."""
    judgements = judgements or {}
    if tuple(draws) == (BASE,):
        return score_task(task, rows, answers.get(BASE, {}), judgements.get(BASE), source=source, strip=strip,
                          samples=samples, early=early, data_sha256=data_sha256)
    drawn_rows = {draw: rows_of(draw) if rows_of else rows for draw in draws}
    with SamplesFile(samples) as out:
        results = {draw: score_task(task, drawn_rows[draw], answers.get(draw, {}), judgements.get(draw),
                                    source=source, strip=strip, samples=out, early=early, data_sha256=data_sha256,
                                    draw=draw)
                   for draw in draws}
    every = [a for draw in draws for a in answers.get(draw, {}).values()]
    return combined(task, rows, results, Usage.of(every), drawn_rows)


def _aligned(rows: Sequence[Row], drawn: Sequence[Row], scores: Sequence[SampleScore | None]
             ) -> list[SampleScore | None]:
    """A draw's scores in the order of `rows` (None for a row the draw did not ask)."""
    by_id = {row.id: score for row, score in zip(drawn, scores, strict=True)}
    return [by_id.get(row.id) for row in rows]


def combined(task: Task, rows: Sequence[Row], results: Mapping[Draw, TaskResult], usage: Usage,
             drawn_rows: Mapping[Draw, Sequence[Row]]) -> TaskResult:
    """One result from the results of each draw (see the module's docstring)."""
    by_draw = {draw: _aligned(rows, drawn_rows[draw], result.row_scores) for draw, result in results.items()}
    scored = {draw: r for draw, r in results.items() if r.aggregate is not None}
    first = results.get(BASE) or next(iter(results.values()))
    aggregate = _aggregate(task, rows, by_draw, scored, drawn_rows) if scored else None
    ci95, se = clustered_figures(task.metrics, rows, by_draw) if scored else ({}, {})
    drawn: dict[str, Any] = {"repeats": len({d.repeat for d in results}), "draws": len(results), "rows": len(rows),
                             **({"wordings": len(wordings)} if (wordings := {d.wording for d in results} - {None})
                                else {}),
                             "askings": sum(r.n_rows for r in results.values()), "se": se,
                             "by_draw": _by_draw(results)}
    if aggregate is not None:
        aggregate, ci95, drawn = _stability(task, aggregate, ci95, drawn, by_draw)
    return dataclasses.replace(
        first, n_answered=sum(r.n_answered for r in results.values()),
        n_errors=sum(r.n_errors for r in results.values()), n_scored=sum(r.n_scored for r in results.values()),
        n_unasked=sum(r.n_unasked for r in results.values()), aggregate=aggregate, usage=usage, ci95=ci95,
        n_think=None if first.n_think is None else sum(r.n_think or 0 for r in results.values()),
        notes=(*first.notes, _draws_note(drawn)), row_scores=(), drawn=drawn)


def _aggregate(task: Task, rows: Sequence[Row], by_draw: Mapping[Draw, Sequence[SampleScore | None]],
               scored: Mapping[Draw, TaskResult], drawn_rows: Mapping[Draw, Sequence[Row]]) -> Aggregate:
    """Metrics: the mean over the draws of each draw's value. Denominators: the units (a row, a
    group) that count, once each. Breakdowns and the task's notes: over every asking, pooled."""
    each = [r.aggregate.metrics for r in scored.values() if r.aggregate is not None]  # `scored`: all have one
    names = {name for draw_metrics in each for name in draw_metrics}
    metrics = {name: fmean(draw_metrics[name] for draw_metrics in each if name in draw_metrics)
               for name in sorted(names)}
    order = [m.name for m in task.metrics]
    metrics = dict(sorted(metrics.items(), key=lambda item: order.index(item[0]) if item[0] in order else len(order)))
    pooled_rows = [row for draw in scored for row in drawn_rows[draw]]  # each draw's rows as it asked them
    pooled = task.aggregate(pooled_rows, [s for draw in scored for s in scored[draw].row_scores])
    units = aggregate_metrics(task.metrics, rows, collapsed(task.metrics, by_draw)).denominators
    denominators = {name: units.get(name, pooled.denominators.get(name, 0)) for name in metrics}
    return Aggregate(metrics, denominators, pooled.breakdowns, pooled.notes)


def headline_of(task: Task) -> str | None:
    """The first headline metric with a per-row value (the one flips and the variance follow)."""
    return next((m.name for m in task.metrics if m.headline and not m.derived), None)


def _stability(task: Task, aggregate: Aggregate, ci95: dict[str, list[float]], drawn: dict[str, Any],
               by_draw: Mapping[Draw, Sequence[SampleScore | None]]
               ) -> tuple[Aggregate, dict[str, list[float]], dict[str, Any]]:
    """flip_rate (and pass_at_k, pass_all_k where the task has a pass) and the variance split, when
    rows were repeated."""
    headline = headline_of(task)
    if headline is None:
        return aggregate, ci95, drawn
    figures: dict[str, list[float]] = {}
    if drawn["repeats"] > 1:
        figures["flip_rate"] = flips(repeat_cells(headline, by_draw))
        if task.passes_by is not None:
            cells = repeat_cells(task.passes_by, by_draw)
            figures |= {"pass_at_k": passes(cells, every=False), "pass_all_k": passes(cells, every=True)}
    wordings = by_wording(headline, by_draw)
    if wordings is not None:
        figures["wording_flip_rate"] = flips(wording_cells(headline, by_draw))
        drawn = {**drawn, "by_wording": wordings}
    metrics, denominators = dict(aggregate.metrics), dict(aggregate.denominators)
    ci95, se = dict(ci95), dict(drawn["se"])
    for name, units in figures.items():
        if not units:
            continue
        metrics[name], bounds, error = rate_figures(units)
        denominators[name] = len(units)
        if bounds is not None:
            ci95[name], se[name] = bounds, error
    split = variance_split(repeat_cells(headline, by_draw)) if drawn["repeats"] > 1 else None
    drawn = {**drawn, "se": se, **({"variance": {"metric": headline, **split}} if split else {})}
    return dataclasses.replace(aggregate, metrics=metrics, denominators=denominators), ci95, drawn


def _by_draw(results: Mapping[Draw, TaskResult]) -> list[dict[str, Any]]:
    """Each draw's own figures, for a reader who wants to see them vary."""
    return [{"repeat": draw.repeat, **({"wording": draw.wording} if draw.wording is not None else {}),
             "n_scored": r.n_scored, "metrics": dict(r.aggregate.metrics) if r.aggregate else {}}
            for draw, r in sorted(results.items())]


def _draws_note(drawn: Mapping[str, Any]) -> str:
    wordings = drawn["draws"] // drawn["repeats"]
    how = f"{drawn['repeats']} repeat(s)" + (f" x {wordings} wordings" if wordings > 1 else "")
    return (f"each of the {drawn['rows']:,} rows asked up to {drawn['draws']} times ({how}): metrics are means over "
            "the draws, intervals resample rows with all their askings; breakdowns and their n pool every asking")
