"""Runs side by side, every metric in its own unit.

Two runs (`compare_runs`): per task and metric, the second run's aggregate minus the first's over
the units both share - rows for a mean, groups for an all-or-nothing group metric (dialogues for
GorillaHard's dialog_pass_rate), levers for balance_score, and corpus-level metrics recomputed over
the shared rows - with a paired bootstrap interval that resamples that unit (stats.py).

Rows are matched by content, not by id alone: a row is shared when every run's data hold the same
row (the hash of its canonical JSON) under its id, so runs of different data are compared only
over what they share, and the result says how many rows were left out. Several runs
(`leaderboard`): each run's headline metrics over the rows all runs share, with their 95 %
intervals, a rank, and whether each run differs significantly from the best one.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from merabench.errors import ConfigError, DataError
from merabench.formats.compare_breakdowns import breakdown_differences
from merabench.formats.compare_power import power, with_mde
from merabench.formats.results import RESULTS_FILE, load_results, task_settings
from merabench.models.base import sent_temperature
from merabench.records import BASE, Draw, RunSettings, ToolMode
from merabench.rows.row import Row, rows_sha256
from merabench.runner.samples import read_record_draws, samples_path
from merabench.scoring.repeated import group_verdicts, mean_figures, row_means
from merabench.scoring.stats import (
    interval,
    metric_interval,
    paired_balance_difference,
    paired_difference,
    resampled,
)
from merabench.tasks import TASKS
from merabench.tasks.aggregation import (
    aggregate_metric,
    geometric_mean,
    group_means,
    group_outcome,
    groups_of,
    values_of,
)
from merabench.tasks.base import Aggregation, MetricSpec, SampleScore, Task
from merabench.tasks.datasource import load_task_data, spec_for

#: GorillaHard's metrics of the text envelope's format, which a --tool-mode native run does not have
TEXT_ONLY = ("format_pass_rate", "constraint_pass_rate")
#: each run's scores by draw, for runs asked in several (None: one draw)
DrawPair = tuple[dict[Draw, list[SampleScore | None]] | None, dict[Draw, list[SampleScore | None]] | None]
# corpus-level figures are recomputed whole on each resample: 200 resamples, fewer past 1,000 rows
# (at least 50) so a big set stays within seconds; the count depends only on the rows, so reruns agree
CORPUS_RESAMPLES = 200
CORPUS_CELLS = 200_000


@dataclass(frozen=True)
class TaskRecords:
    """One task of one run: its rows (None when its data cannot be loaded again as they were) and
    a score per record (None where the row was not scored)."""

    source: str
    data_sha256: str | None
    rows: dict[int, Row] | None
    scores: dict[int, SampleScore | None]
    own: dict[str, Any] = field(default_factory=dict)       # the run's own figures of the task (results.json)
    tool_mode: ToolMode = ToolMode.TEXT                      # GorillaHard: how the model was asked
    settings: RunSettings = field(default_factory=RunSettings)  # the settings the task was run with
    scoring: dict[str, Any] = field(default_factory=dict)   # what the scores depend on besides the answers
    #: a run that asked rows in several draws (`--repeats`): each draw's scores; `scores` then holds
    #: each row's metrics averaged over its draws (a row is one unit however often it was asked)
    draws: dict[Draw, dict[int, SampleScore | None]] | None = None


@dataclass(frozen=True)
class Run:
    folder: Path
    model: str
    tasks: dict[str, TaskRecords]


@functools.cache
def _load(task_name: str, spec: str, split: str) -> tuple[Row, ...] | None:
    """A task's rows from a data spec, loaded once per process (runs of one set share them)."""
    try:
        return tuple(load_task_data(TASKS[task_name], spec, split).rows)
    except (ConfigError, DataError):
        return None


def _rows(task: Task, settings: RunSettings, recorded_sha: str | None) -> dict[int, Row] | None:
    """The run's rows loaded again from its data spec, if they are still what the run evaluated."""
    loaded = _load(task.name, spec_for(list(settings.data), task.name), settings.split)
    if loaded is None:
        return None
    rows = list(loaded)
    if settings.limit is not None:
        rows = rows[:settings.limit]
    if recorded_sha is not None and rows_sha256(rows) != recorded_sha:
        return None  # the file changed since the run: its rows are not the ones scored
    return {row.id: row for row in rows}


def _scoring(task: Task, result: dict[str, Any], settings: RunSettings) -> dict[str, Any]:
    """The settings a task's scores depend on besides the answers: --strip-think (for a task whose
    scoring keeps think blocks) and the judge (for a judged task)."""
    out: dict[str, Any] = {}
    think = result.get("think")
    if isinstance(think, dict) and "strip_think" in think:
        out["strip_think"] = bool(think["strip_think"])
    if task.uses_judge:
        judge = settings.judge
        out["judge"] = {k: judge.get(k) for k in sorted(judge) if k != "concurrency"} if judge is not None else None
    return out


def load_run(folder: Path) -> Run:
    path = folder / RESULTS_FILE
    if not path.exists():
        raise ConfigError(f"{folder}: not a run or score folder (no {RESULTS_FILE})")
    doc = load_results(folder)
    tasks = {}
    for name, result in doc["tasks"].items():
        if name not in TASKS or not samples_path(folder, name).exists():
            continue
        scores, draws = _recorded_scores(samples_path(folder, name))
        sha = result.get("data_sha256") if isinstance(result, dict) else None
        settings = task_settings(doc, name)  # a task kept from an earlier run in the folder: that run's
        tasks[name] = TaskRecords(str(result.get("source", "")), sha, _rows(TASKS[name], settings, sha), scores,
                                  own={"metrics": result.get("metrics") or {}, "n": result.get("n")},
                                  scoring=_scoring(TASKS[name], result, settings),
                                  tool_mode=ToolMode.NATIVE if result.get("tool_mode") == ToolMode.NATIVE
                                  else ToolMode.TEXT, settings=settings, draws=draws)
    return Run(folder, str(doc.get("model", "")), tasks)


def _recorded_scores(path: Path) -> tuple[dict[int, SampleScore | None],
                                          dict[Draw, dict[int, SampleScore | None]] | None]:
    """A samples file's scores by row id, and by draw when it holds several (each row's scores
    then averaged over its draws, the details of its base draw kept for corpus metrics)."""
    by_draw = {draw: {i: SampleScore(r["metrics"], r.get("details") or {}) if r.get("metrics") else None
                      for i, r in records.items()}
               for draw, records in read_record_draws(path).items()}
    if set(by_draw) <= {BASE}:
        return by_draw.get(BASE, {}), None
    ids = sorted(set().union(*by_draw.values()))
    names = sorted({name for draw in by_draw.values() for score in draw.values() if score for name in score.metrics})
    columns = {draw: [scores.get(i) for i in ids] for draw, scores in by_draw.items()}
    means = {name: row_means(name, columns) for name in names}
    base = by_draw.get(BASE, {})
    scores = {}
    for k, row_id in enumerate(ids):
        metrics = {name: v for name in names if (v := means[name][k]) is not None}
        kept = base.get(row_id)
        scores[row_id] = SampleScore(metrics, kept.details if kept else {}) if metrics else None
    return scores, by_draw


@dataclass(frozen=True)
class Shared:
    """The rows every run holds with the same content, in the first run's order."""

    ids: list[int]
    rows: list[Row] | None      # None: matched by the data hash, rows unavailable (no group metrics)
    left_out: int
    note: str | None = None


def shared_rows(task: str, parts: Sequence[TaskRecords]) -> Shared:
    every = set().union(*(p.scores for p in parts))
    common = set.intersection(*(set(p.scores) for p in parts))
    if all(p.rows is not None for p in parts):
        first = parts[0].rows or {}
        hashes = [{i: rows_sha256([r]) for i, r in (p.rows or {}).items() if i in common} for p in parts]
        ids = [i for i in first if i in common and all(h.get(i) == hashes[0][i] for h in hashes[1:])]
        return Shared(ids, [first[i] for i in ids], len(every) - len(ids))
    shas = {p.data_sha256 for p in parts}
    if len(shas) == 1 and None not in shas:
        ids = sorted(common)
        return Shared(ids, None, len(every) - len(ids), f"{task}: a run's data could not be loaded again; rows "
                      "paired by id (the data hashes are equal), group and corpus metrics left out")
    raise ConfigError(f"{task}: cannot tell which rows the runs share: a run's data cannot be loaded again as it "
                      "was and the runs' data hashes differ")


def _scores(part: TaskRecords, ids: Sequence[int]) -> list[SampleScore | None]:
    return [part.scores.get(i) for i in ids]


def _draw_scores(part: TaskRecords, ids: Sequence[int]) -> dict[Draw, list[SampleScore | None]] | None:
    """Each draw's scores of the shared rows, for a run asked in several draws (else None)."""
    if part.draws is None:
        return None
    return {draw: [scores.get(i) for i in ids] for draw, scores in part.draws.items()}


def group_units(spec: MetricSpec, rows: Sequence[Row], scores: Sequence[SampleScore | None],
                draws: dict[Draw, list[SampleScore | None]] | None = None) -> dict[Hashable, float]:
    """An all-or-nothing metric's decided groups and their verdicts: in a run of several draws, the
    verdict in each draw averaged (scoring/repeated.py), not the verdict of averaged rows."""
    if draws is not None:
        return group_verdicts(spec, rows, draws)
    outcomes = {k: group_outcome(m) for k, m in groups_of(spec, rows, values_of(spec.name, scores)).items()}
    return {k: v for k, v in outcomes.items() if v is not None}


def _aggregate(spec: MetricSpec, rows: Sequence[Row] | None, scores: Sequence[SampleScore | None],
               draws: dict[Draw, list[SampleScore | None]] | None = None) -> float | None:
    if spec.aggregation is not Aggregation.MEAN and rows is None:
        return None
    if spec.aggregation is Aggregation.ALL_OR_NOTHING and draws is not None:
        units = list(group_units(spec, rows or [], scores, draws).values())
        return sum(units) / len(units) if units else None
    return aggregate_metric(spec, rows or [], scores)[0]


def _interval_of(spec: MetricSpec, rows: Sequence[Row], scores: Sequence[SampleScore | None],
                 draws: dict[Draw, list[SampleScore | None]] | None) -> tuple[float, float] | None:
    """A run's 95 % interval of one metric over the shared rows (a group metric of a run of
    several draws over its groups' verdicts averaged over the draws)."""
    if spec.aggregation is Aggregation.ALL_OR_NOTHING and draws is not None:
        found = mean_figures(list(group_units(spec, rows, scores, draws).values()))
        return (found[0][0], found[0][1]) if found else None
    return metric_interval(spec, rows, scores)


def paired_units(spec: MetricSpec, rows: Sequence[Row] | None, first: Sequence[SampleScore | None],
                 second: Sequence[SampleScore | None], draws: DrawPair = (None, None)
                 ) -> tuple[list[float], list[float]] | None:
    """One per-row metric's values in the units both runs carry it in (rows for a mean, group
    outcomes or means for a group metric), paired; None for a group metric without the rows.
    A row asked in several draws is one unit, its value averaged over them."""
    a, b = values_of(spec.name, first), values_of(spec.name, second)
    if spec.aggregation is Aggregation.MEAN:
        pairs = [(x, y) for k in range(len(a)) if (x := a[k]) is not None and (y := b[k]) is not None]
        return [x for x, _ in pairs], [y for _, y in pairs]
    if rows is None:
        return None
    if spec.aggregation is Aggregation.ALL_OR_NOTHING:
        oa, ob = group_units(spec, rows, first, draws[0]), group_units(spec, rows, second, draws[1])
        keys = [k for k in oa if k in ob]
        return [oa[k] for k in keys], [ob[k] for k in keys]
    ma, mb = group_means(groups_of(spec, rows, a)), group_means(groups_of(spec, rows, b))
    keys = [k for k in ma if k in mb]
    return [ma[k] for k in keys], [mb[k] for k in keys]


def metric_difference(spec: MetricSpec, rows: Sequence[Row] | None, first: Sequence[SampleScore | None],
                      second: Sequence[SampleScore | None], draws: DrawPair = (None, None)) -> dict[str, Any] | None:
    """second - first for one per-row metric over the units both carry it in, with its interval
    and standard error (None with fewer than two such units, or for a group metric without the rows)."""
    paired = paired_units(spec, rows, first, second, draws)
    if paired is None or len(paired[0]) < 2:
        return None
    pa, pb = paired
    if spec.aggregation is Aggregation.BALANCE:
        result = paired_balance_difference(pa, pb, spec.floor)
        levels = (geometric_mean(pa, spec.floor), geometric_mean(pb, spec.floor))
    else:
        result = paired_difference(pa, pb)
        levels = (float(np.mean(pa)), float(np.mean(pb)))
    if result is None:
        return None
    return {**result, "unit": spec.unit_name, "first": levels[0], "second": levels[1]}


def left_out(task: Task, rows: Sequence[Row] | None, first: Sequence[SampleScore | None],
             second: Sequence[SampleScore | None], compared: dict[str, Any], draws: DrawPair = (None, None)
             ) -> list[str]:
    """A line per metric of the task that has no comparison, saying why."""
    lines, neither = [], []
    for spec in task.metrics:
        if spec.name in compared:
            continue
        if spec.derived:
            if rows is not None:
                lines.append(f"{task.name}: {spec.name} left out: fewer than 2 rows both runs scored")
            continue  # without the rows: shared_rows's note says group and corpus metrics are left out
        paired = paired_units(spec, rows, first, second, draws)
        if paired is None:
            continue
        if not any(v is not None for v in values_of(spec.name, first) + values_of(spec.name, second)):
            neither.append(spec.name)
            continue
        pa, pb = paired
        unit = spec.unit_name.rstrip("s") if len(pa) == 1 else spec.unit_name
        values = f" (first {pa[0]:.4f}, second {pb[0]:.4f})" if len(pa) == 1 else ""
        lines.append(f"{task.name}: {spec.name} left out: {len(pa)} {unit} both runs score{values}; a paired "
                     "interval needs at least 2")
    if neither:
        lines.append(f"{task.name}: {', '.join(neither)} left out: in neither run's scores (e.g. no judge, or no "
                     "row it applies to)")
    return lines


def corpus_differences(task: Task, rows: Sequence[Row], first: Sequence[SampleScore | None],
                       second: Sequence[SampleScore | None]) -> dict[str, dict[str, Any]]:
    """The task's corpus-level metrics recomputed over the rows both scored, and an interval from
    resampling those rows (each resample aggregated whole)."""
    derived = [m.name for m in task.metrics if m.derived]
    keep = [k for k in range(len(rows)) if first[k] is not None and second[k] is not None]
    if not derived or len(keep) < 2:
        return {}
    kept_rows = [rows[k] for k in keep]
    # derived figures come from the details, not the per-row values: without those, each resample's
    # aggregation skips the per-row means it does not need
    a = [SampleScore({}, s.details) for k in keep if (s := first[k]) is not None]  # all of `keep`
    b = [SampleScore({}, s.details) for k in keep if (s := second[k]) is not None]

    def both(indices: Sequence[int] | np.ndarray) -> tuple[dict[str, float], dict[str, float]]:
        picked = [kept_rows[i] for i in indices]
        return (task.aggregate(picked, [a[i] for i in indices]).metrics,
                task.aggregate(picked, [b[i] for i in indices]).metrics)

    whole = both(range(len(keep)))
    draws = resampled(len(keep), both, max(50, min(CORPUS_RESAMPLES, CORPUS_CELLS // len(keep))))
    out = {}
    for name in derived:
        if name not in whole[0] or name not in whole[1]:
            continue
        deltas = np.asarray([d[1][name] - d[0][name] for d in draws if name in d[0] and name in d[1]])
        low, high = interval(deltas) if deltas.size else (float("nan"), float("nan"))
        out[name] = {"difference": whole[1][name] - whole[0][name], "low": low, "high": high, "n": len(keep),
                     "se": float(deltas.std(ddof=1)) if deltas.size > 1 else None, "unit": "rows (corpus)", "first": whole[0][name], "second": whole[1][name],
                     "second_better": None, "first_better": None}
    return out


def _task_comparison(task: Task, shared: Shared, first: TaskRecords, second: TaskRecords
                     ) -> tuple[dict[str, Any], list[str]]:
    """The task's metric differences, and a line per metric left out."""
    a, b = _scores(first, shared.ids), _scores(second, shared.ids)
    draws = (_draw_scores(first, shared.ids), _draw_scores(second, shared.ids))
    metrics = {}
    for spec in task.metrics:
        if spec.derived:
            continue
        result = metric_difference(spec, shared.rows, a, b, draws)
        if result:
            metrics[spec.name] = result
    if shared.rows is not None:
        metrics.update(corpus_differences(task, shared.rows, a, b))
    return metrics, left_out(task, shared.rows, a, b, metrics, draws)


def unscored_note(task: str, runs: Sequence[Run], ids: Sequence[int], *, board: bool = False) -> str | None:
    """Of the shared rows, those some run has no score for (its request failed, or the row was not
    scored): a paired difference is over the rest (and so, for two runs, are the values shown)."""
    missing = [sum(1 for i in ids if r.tasks[task].scores.get(i) is None) for r in runs]
    if not any(missing):
        return None
    both = sum(1 for i in ids if all(r.tasks[task].scores.get(i) is not None for r in runs))
    per_run = ", ".join(f"{n} in {r.folder}" for n, r in zip(missing, runs, strict=True) if n)
    if board:
        return (f"{task}: {len(ids) - both} of the {len(ids)} shared rows are unscored (failed or not asked) in a "
                f"run ({per_run}): each value is over the rows its run scored, each paired difference over the "
                f"{both} every run scored")
    return (f"{task}: compared over the {both} row(s) both runs scored; {len(ids) - both} left out, unscored "
            f"(failed or not asked) in a run: {per_run}")


def own_figures_note(task: str, runs: Sequence[Run], values: Sequence[dict[str, float]]) -> str | None:
    """Where a headline figure compared differs from the run's own (results.json), both, so that a
    value in the comparison is not taken for the run's score."""
    differ = []
    for run, shown in zip(runs, values, strict=True):
        own = run.tasks[task].own
        for name, value in shown.items():
            recorded = own.get("metrics", {}).get(name)
            if isinstance(recorded, int | float) and abs(recorded - value) > 5e-5:
                differ.append(f"{run.folder} {name} {value:.4f} here, {recorded:.4f} in its results.json "
                              f"(over its {own.get('n')} rows)")
    if not differ:
        return None
    drawn = any(run.tasks[task].draws is not None for run in runs)
    why = ("over the shared rows, each row's repeats averaged first (a group or balance metric of averaged "
           "rows is not the mean of each repeat's)" if drawn else "over the shared rows")
    return f"{task}: the figures are {why}, not each run's own: " + "; ".join(differ)


def scoring_notes(runs: Sequence[Run], tasks: Sequence[str]) -> tuple[list[str], dict[str, Any]]:
    """Tasks whose runs were scored with different settings (--strip-think, the judge): a note
    each, and {task: {setting: [value per run]}} for the JSON."""
    lines: list[str] = []
    found: dict[str, dict[str, list[Any]]] = {}
    for task in tasks:
        parts = [r.tasks[task].scoring for r in runs]
        for key in sorted(set().union(*parts)):
            values = [p.get(key) for p in parts]
            if any(v != values[0] for v in values[1:]):
                found.setdefault(task, {})[key] = values
                said = ", ".join(f"{_setting_text(key, v)} in {r.folder}" for v, r in zip(values, runs, strict=True))
                lines.append(f"{task}: scored differently ({said}): the difference is partly the scoring's, not "
                             "the answers' alone")
    return lines, found


def _setting_text(key: str, value: Any) -> str:
    if key == "strip_think":
        return "--strip-think " + ("on" if value else "off")
    if key == "judge":
        return f"judge {value.get('model')}" if isinstance(value, dict) else "no judge"
    return f"{key} {value}"


def _differing(runs: Sequence[Run], task: str, key: str) -> str | None:
    """`value in folder, ...` when the runs' recorded `key` of the task differs, else None."""
    values = [r.tasks[task].settings.to_json().get(key) for r in runs]
    if all(v == values[0] for v in values[1:]):
        return None
    return ", ".join(f"{'none' if v is None else v} in {r.folder}" for v, r in zip(values, runs, strict=True))


def why_left_out(runs: Sequence[Run], task: str) -> str:
    """Why rows of one run are not in another: a --limit, other data, or rows changed since."""
    reasons = [f"{word}: {said}" for key, word in (("limit", "--limit"), ("data", "other data"), ("split", "--split"))
               if (said := _differing(runs, task, key))]
    return "; ".join(reasons) or "the same data spec, but rows whose content changed between the runs"


def _as_sent(generation: dict[str, Any]) -> dict[str, Any]:
    """A run's generation settings with the temperature its requests carried: results.json of
    earlier versions recorded an unset temperature as null where 0 was sent."""
    if "temperature" not in generation:
        return generation
    return generation | {"temperature": sent_temperature(generation["temperature"], generation.get("api_profile"))}


def generation_notes(runs: Sequence[Run], tasks: Sequence[str]) -> list[str]:
    """A line per setting that shapes the answers and differs between the runs (the generation
    options, the system prompt, the preset), naming each run's value."""
    lines = []
    for task in tasks[:1]:  # run-wide settings: said once
        generation = [_as_sent(dict(r.tasks[task].settings.generation or {})) for r in runs]
        keys = sorted({k for g in generation for k in g if any(x.get(k) != g.get(k) for x in generation)})
        parts = [f"{k} " + ", ".join(f"{json.dumps(g.get(k), ensure_ascii=False)} in {r.folder}"
                                      for g, r in zip(generation, runs, strict=True)) for k in keys]
        parts += [f"--{key.replace('_', '-')} {said}" for key in ("system_prompt", "preset")
                  if (said := _differing(runs, task, key))]
        if parts:
            lines.append("the runs were made with different generation settings (" + "; ".join(parts) +
                         "): the differences are partly theirs")
    return lines


def _pairs(runs: Sequence[Run]) -> tuple[dict[str, Shared], list[str]]:
    """The shared rows of every task all runs have, and a line per task about what was left out."""
    shared, lines = {}, []
    for task in TASKS.values():
        parts = [part for r in runs if (part := r.tasks.get(task.name)) is not None]
        if len(parts) < len(runs):
            if parts:
                lines.append(f"{task.name}: not in every run, left out")
            continue
        found = shared_rows(task.name, parts)
        if found.note:
            lines.append(found.note)
        if not found.ids:
            lines.append(f"{task.name}: no row with the same content in every run ({found.left_out} left out)")
            continue
        if found.left_out:
            lines.append(f"{task.name}: compared over the {len(found.ids)} row(s) whose content is equal in every "
                         f"run; {found.left_out} row(s) left out ({why_left_out(runs, task.name)})")
        shared[task.name] = found
    if not shared:
        names = ", ".join(str(r.folder) for r in runs)
        why = f" ({'; '.join(lines)})" if lines else ""
        raise ConfigError(f"{names} share no row with the same content in any task: nothing to compare{why}")
    return shared, lines


def compare_runs(first: Path, second: Path, target: float | None = None) -> dict[str, Any]:
    """{"tasks": {task: {metric: difference}}, "power": {task: {headline metric: what the
    comparison could see}}, "notes": [...], "scored_differently": {task: {setting: [first,
    second]}}} for the tasks both folders have; every metric, row or task left out is named in the
    notes. `target`: the difference to be able to see (compare_power.py)."""
    runs = [load_run(first), load_run(second)]
    shared, lines = _pairs(runs)
    tasks: dict[str, Any] = {}
    breakdowns: dict[str, Any] = {}
    tool_modes: dict[str, list[str]] = {}
    powers: dict[str, Any] = {}
    for name, found in shared.items():
        unscored = unscored_note(name, runs, found.ids)
        lines += [unscored] if unscored else []
        tasks[name], omitted = _task_comparison(TASKS[name], found, runs[0].tasks[name], runs[1].tasks[name])
        with_mde(tasks[name])
        draws = (_draw_scores(runs[0].tasks[name], found.ids), _draw_scores(runs[1].tasks[name], found.ids))
        powers[name] = power(TASKS[name], tasks[name], draws, target)
        a, b = _scores(runs[0].tasks[name], found.ids), _scores(runs[1].tasks[name], found.ids)
        if within := breakdown_differences(name, found.rows, a, b):
            breakdowns[name] = within
        modes = [str(r.tasks[name].tool_mode) for r in runs]
        if modes[0] != modes[1]:
            tool_modes[name] = modes
            omitted = [line for line in omitted if not line.startswith(tuple(f"{name}: {m} " for m in TEXT_ONLY))]
            lines.append(f"{name}: asked in two protocols ({modes[0]} in {first}, {modes[1]} in {second}): the "
                         f"difference is the protocol's on the same rows; {', '.join(TEXT_ONLY)} apply to text "
                         "runs only")
        headline = [m.name for m in TASKS[name].metrics if m.headline and m.name in tasks[name]]
        figures = own_figures_note(name, runs, [{m: tasks[name][m][side] for m in headline}
                                                for side in ("first", "second")])
        lines += omitted + ([figures] if figures else [])
    differently, found_settings = scoring_notes(runs, list(shared))
    differently = generation_notes(runs, list(shared)) + differently
    return {"first": str(first), "second": str(second), "tasks": tasks, "power": powers, "breakdowns": breakdowns,
            "tool_modes": tool_modes, "notes": differently + lines, "scored_differently": found_settings}


def leaderboard(folders: Sequence[Path]) -> dict[str, Any]:
    """Every run's headline metrics over the rows all runs share, ranked per task by the first
    headline metric; each value with its 95 % interval and its paired difference from the best run
    of that metric."""
    runs = [load_run(f) for f in folders]
    shared, lines = _pairs(runs)
    tasks: dict[str, Any] = {}
    for name, found in shared.items():
        task = TASKS[name]
        scores = [_scores(r.tasks[name], found.ids) for r in runs]
        draws = [_draw_scores(r.tasks[name], found.ids) for r in runs]
        specs = [m for m in task.metrics if m.headline and (found.rows is not None or m.aggregation is Aggregation.MEAN)]
        entries: list[dict[str, Any]] = [{"folder": str(r.folder), "model": r.model,
                                          "data": _data_label(r.tasks[name]), "metrics": {}} for r in runs]
        unscored = unscored_note(name, runs, found.ids, board=True)
        lines += [unscored] if unscored else []
        left = [m.name for m in task.metrics if m.headline and m not in specs]
        if left:
            lines.append(f"{name}: {', '.join(left)} left out: a group metric needs the rows, which could not be "
                         "loaded again")
        for spec in specs:
            each = [_aggregate(spec, found.rows, s, d) for s, d in zip(scores, draws, strict=True)]
            values = [v for v in each if v is not None]
            if len(values) < len(each):
                lines.append(f"{name}: {spec.name} left out: not every run has a value for it over the shared rows")
                continue
            sign = 1 if spec.higher_is_better else -1
            best = max(range(len(runs)), key=lambda k: sign * values[k])
            for k, entry in enumerate(entries):
                ci = _interval_of(spec, found.rows or [], scores[k], draws[k])
                cell: dict[str, Any] = {"value": values[k], "ci95": [round(b, 6) for b in ci] if ci else None,
                                        "best": k == best}
                if k != best:
                    diff = metric_difference(spec, found.rows, scores[best], scores[k], (draws[best], draws[k]))
                    if diff:
                        cell["vs_best"] = {key: diff[key] for key in ("difference", "low", "high", "n", "unit")}
                        cell["vs_best"]["significant"] = diff["low"] > 0 or diff["high"] < 0
                entry["metrics"][spec.name] = cell
        figures = own_figures_note(name, runs, [{m: c["value"] for m, c in e["metrics"].items()} for e in entries])
        if figures:
            lines.append(figures)
        ranking = next((s for s in specs if s.name in entries[0]["metrics"]), None)  # one of the task's metrics
        ranked_by = ranking.name if ranking is not None else None
        if ranking is not None:
            sign = 1 if ranking.higher_is_better else -1
            order = sorted(range(len(entries)), key=lambda k: -sign * entries[k]["metrics"][ranked_by]["value"])
            ranked = [entries[k]["metrics"][ranked_by]["value"] for k in order]
            for place, k in enumerate(order):
                entries[k]["rank"] = ranked.index(ranked[place]) + 1  # ties share a rank
            entries = [entries[k] for k in order]
        tasks[name] = {"ranked_by": ranked_by, "rows": len(found.ids), "runs": entries}
    differently, found_settings = scoring_notes(runs, list(shared))
    differently = generation_notes(runs, list(shared)) + differently
    return {"tasks": tasks, "notes": differently + lines, "scored_differently": found_settings}


def _data_label(part: TaskRecords) -> str:
    return part.source + (f" · {part.data_sha256[:8]}" if part.data_sha256 else "")


def headline_first(task: str, metrics: dict[str, Any]) -> list[str]:
    headline = [m.name for m in TASKS[task].metrics if m.headline]
    return [m for m in headline if m in metrics] + [m for m in metrics if m not in headline]


def to_json(result: dict[str, Any]) -> str:
    return json.dumps(result, ensure_ascii=False, indent=1)
