"""results.json and the end-of-run summary table."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.table import Table

from merabench import __version__
from merabench.samples import write_atomic
from merabench.scoring import TaskResult
from merabench.tasks import get_task

RESULTS_FILE = "results.json"


def results_document(results: Sequence[TaskResult], *, model: str, wall_time_s: float | None,
                     settings: dict[str, Any] | None = None, notes: Sequence[str] = ()) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "merabench_version": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "model": model,
        "settings": settings or {},
        "wall_time_s": None if wall_time_s is None else round(wall_time_s, 3),
        "tasks": {r.task: r.to_json() for r in results},
    }
    if notes:
        doc["notes"] = list(notes)
    if len(results) == 1:  # a single task's metrics also at the top, as `score` users expect
        only = doc["tasks"][results[0].task]
        doc.update({k: only[k] for k in ("metrics", "denominators", "n")})
    return doc


def write_results(out_dir: Path, doc: dict[str, Any]) -> Path:
    path = out_dir / RESULTS_FILE
    write_atomic(path, json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
    return path


def summary_table(results: Sequence[TaskResult], wall_time_s: float | None) -> Table:
    title = "merabench results" + (f" — {wall_time_s:.1f} s" if wall_time_s is not None else "")
    table = Table(title=title, title_justify="left")
    for column in ("task", "rows", "errors", "metric", "value", "n", "tokens in/out"):
        table.add_column(column, justify="right" if column in ("rows", "errors", "value", "n") else "left",
                         no_wrap=column in ("task", "metric", "value"))
    for r in results:
        headline = [m.name for m in get_task(r.task).metrics if m.headline]
        metrics = r.aggregate.metrics if r.aggregate else {}
        shown = [m for m in headline if m in metrics] or list(metrics)[:3] or ["—"]
        tokens = f"{r.usage.prompt:,}/{r.usage.completion:,}"
        for i, name in enumerate(shown):
            value = metrics.get(name)
            denominator = r.aggregate.denominators.get(name, "") if r.aggregate else ""
            first = i == 0
            table.add_row(r.task if first else "", str(r.n_rows) if first else "",
                          (f"[red]{r.n_errors}[/red]" if r.n_errors else "0") if first else "",
                          name, "—" if value is None else f"{value:.4f}", str(denominator),
                          tokens if first else "")
    return table
