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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from merabench.datasource import load_task_data, split_specs
from merabench.errors import ConfigError, DataError, reading
from merabench.results import RESULTS_FILE, task_settings
from merabench.rows import Row, rows_sha256
from merabench.samples import read_records, samples_path
from merabench.stats import interval, metric_interval, paired_balance_difference, paired_difference, resampled
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


def _rows(task: Task, settings: dict[str, Any], recorded_sha: str | None) -> dict[int, Row] | None:
    """The run's rows loaded again from its data spec, if they are still what the run evaluated."""
    default, per_task = split_specs(list(settings.get("data") or ["bundled"]))
    loaded = _load(task.name, per_task.get(task.name, default), settings.get("split") or "test")
    if loaded is None:
        return None
    rows = list(loaded)
    if isinstance(settings.get("limit"), int):
        rows = rows[:settings["limit"]]
    if recorded_sha is not None and rows_sha256(rows) != recorded_sha:
        return None  # the file changed since the run: its rows are not the ones scored
    return {row.id: row for row in rows}


def load_run(folder: Path) -> Run:
    path = folder / RESULTS_FILE
    if not path.exists():
        raise ConfigError(f"{folder}: not a run or score folder (no {RESULTS_FILE})")
    with reading(path):
        doc = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(doc, dict) or not isinstance(doc.get("tasks"), dict):
        raise DataError("has no tasks", file=str(path))
    tasks = {}
    for name, result in doc["tasks"].items():
        if name not in TASKS or not samples_path(folder, name).exists():
            continue
        records = read_records(samples_path(folder, name))
        scores = {i: SampleScore(r["metrics"], r.get("details") or {}) if r.get("metrics") else None
                  for i, r in records.items()}
        sha = result.get("data_sha256") if isinstance(result, dict) else None
        settings = task_settings(doc, name)  # a task kept from an earlier run in the folder: that run's
        tasks[name] = TaskRecords(str(result.get("source", "")), sha, _rows(TASKS[name], settings, sha), scores)
    return Run(folder, str(doc.get("model", "")), tasks)


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


def _aggregate(spec: MetricSpec, rows: Sequence[Row] | None, scores: Sequence[SampleScore | None]) -> float | None:
    if spec.aggregation is not Aggregation.MEAN and rows is None:
        return None
    return aggregate_metric(spec, rows or [], scores)[0]


def metric_difference(spec: MetricSpec, rows: Sequence[Row] | None, first: Sequence[SampleScore | None],
                      second: Sequence[SampleScore | None]) -> dict[str, Any] | None:
    """second - first for one per-row metric over the units both carry it in, with its interval."""
    a, b = values_of(spec.name, first), values_of(spec.name, second)
    if spec.aggregation is Aggregation.MEAN:
        keep = [k for k in range(len(a)) if a[k] is not None and b[k] is not None]
        pa, pb = [a[k] for k in keep], [b[k] for k in keep]
        result = paired_difference(pa, pb)  # type: ignore[arg-type]
        levels = (float(np.mean(pa)), float(np.mean(pb))) if keep else None
    elif rows is None:
        return None
    elif spec.aggregation is Aggregation.ALL_OR_NOTHING:
        oa = {k: group_outcome(m) for k, m in groups_of(spec, rows, a).items()}
        ob = {k: group_outcome(m) for k, m in groups_of(spec, rows, b).items()}
        keys = [k for k, v in oa.items() if v is not None and ob.get(k) is not None]
        pa, pb = [oa[k] for k in keys], [ob[k] for k in keys]
        result = paired_difference(pa, pb)  # type: ignore[arg-type]
        levels = (float(np.mean(pa)), float(np.mean(pb))) if keys else None
    else:
        ma, mb = group_means(groups_of(spec, rows, a)), group_means(groups_of(spec, rows, b))
        keys = [k for k in ma if k in mb]
        pa, pb = [ma[k] for k in keys], [mb[k] for k in keys]
        result = paired_balance_difference(pa, pb, spec.floor)
        levels = (geometric_mean(pa, spec.floor), geometric_mean(pb, spec.floor)) if keys else None
    if result is None or levels is None:
        return None
    return {**result, "unit": spec.unit_name, "first": levels[0], "second": levels[1]}


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
    a = [SampleScore({}, first[k].details) for k in keep]  # type: ignore[union-attr]
    b = [SampleScore({}, second[k].details) for k in keep]  # type: ignore[union-attr]

    def both(indices: Sequence[int]) -> tuple[dict[str, float], dict[str, float]]:
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
                     "unit": "rows (corpus)", "first": whole[0][name], "second": whole[1][name],
                     "second_better": None, "first_better": None}
    return out


def _task_comparison(task: Task, shared: Shared, first: TaskRecords, second: TaskRecords) -> dict[str, Any]:
    a, b = _scores(first, shared.ids), _scores(second, shared.ids)
    metrics = {}
    for spec in task.metrics:
        if spec.derived:
            continue
        result = metric_difference(spec, shared.rows, a, b)
        if result:
            metrics[spec.name] = result
    if shared.rows is not None:
        metrics.update(corpus_differences(task, shared.rows, a, b))
    return metrics


def _pairs(runs: Sequence[Run]) -> tuple[dict[str, Shared], list[str]]:
    """The shared rows of every task all runs have, and a line per task about what was left out."""
    shared, lines = {}, []
    for task in TASKS.values():
        parts = [r.tasks.get(task.name) for r in runs]
        if any(p is None for p in parts):
            if any(p is not None for p in parts):
                lines.append(f"{task.name}: not in every run, left out")
            continue
        found = shared_rows(task.name, parts)  # type: ignore[arg-type]
        if found.note:
            lines.append(found.note)
        if not found.ids:
            lines.append(f"{task.name}: no row with the same content in every run ({found.left_out} left out)")
            continue
        if found.left_out:
            lines.append(f"{task.name}: compared over the {len(found.ids)} row(s) whose content is equal in every "
                         f"run; {found.left_out} row(s) left out (different data)")
        shared[task.name] = found
    if not shared:
        names = ", ".join(str(r.folder) for r in runs)
        raise ConfigError(f"{names} share no row with the same content in any task: nothing to compare")
    return shared, lines


def compare_runs(first: Path, second: Path) -> dict[str, Any]:
    """{"tasks": {task: {metric: difference}}, "notes": [...]} for the tasks both folders have."""
    runs = [load_run(first), load_run(second)]
    shared, lines = _pairs(runs)
    tasks = {name: _task_comparison(TASKS[name], s, runs[0].tasks[name], runs[1].tasks[name])
             for name, s in shared.items()}
    return {"first": str(first), "second": str(second), "tasks": tasks, "notes": lines}


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
        specs = [m for m in task.metrics if m.headline and (found.rows is not None or m.aggregation is Aggregation.MEAN)]
        entries: list[dict[str, Any]] = [{"folder": str(r.folder), "model": r.model,
                                          "data": _data_label(r.tasks[name]), "metrics": {}} for r in runs]
        for spec in specs:
            values = [_aggregate(spec, found.rows, s) for s in scores]
            if any(v is None for v in values):
                continue
            sign = 1 if spec.higher_is_better else -1
            best = max(range(len(runs)), key=lambda k: sign * values[k])  # type: ignore[operator]
            for k, entry in enumerate(entries):
                ci = metric_interval(spec, found.rows or [], scores[k])
                cell: dict[str, Any] = {"value": values[k], "ci95": [round(b, 6) for b in ci] if ci else None,
                                        "best": k == best}
                if k != best:
                    diff = metric_difference(spec, found.rows, scores[best], scores[k])
                    if diff:
                        cell["vs_best"] = {key: diff[key] for key in ("difference", "low", "high", "n", "unit")}
                        cell["vs_best"]["significant"] = diff["low"] > 0 or diff["high"] < 0
                entry["metrics"][spec.name] = cell
        ranked_by = next((s.name for s in specs if s.name in entries[0]["metrics"]), None)
        if ranked_by is not None:
            sign = 1 if task.spec(ranked_by).higher_is_better else -1  # type: ignore[union-attr]
            order = sorted(range(len(entries)), key=lambda k: -sign * entries[k]["metrics"][ranked_by]["value"])
            ranked = [entries[k]["metrics"][ranked_by]["value"] for k in order]
            for place, k in enumerate(order):
                entries[k]["rank"] = ranked.index(ranked[place]) + 1  # ties share a rank
            entries = [entries[k] for k in order]
        tasks[name] = {"ranked_by": ranked_by, "rows": len(found.ids), "runs": entries}
    return {"tasks": tasks, "notes": lines}


def _data_label(part: TaskRecords) -> str:
    return part.source + (f" · {part.data_sha256[:8]}" if part.data_sha256 else "")


def headline_first(task: str, metrics: dict[str, Any]) -> list[str]:
    headline = [m.name for m in TASKS[task].metrics if m.headline]
    return [m for m in headline if m in metrics] + [m for m in metrics if m not in headline]


def to_json(result: dict[str, Any]) -> str:
    return json.dumps(result, ensure_ascii=False, indent=1)
