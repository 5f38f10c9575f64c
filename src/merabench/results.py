"""results.json and the end-of-run summary table."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from merabench import __version__
from merabench.budget import Prices
from merabench.samples import write_atomic
from merabench.scoring import TaskResult
from merabench.tasks import get_task

if TYPE_CHECKING:
    from rich.table import Table

RESULTS_FILE = "results.json"
#: bumped when a field changes meaning or disappears (adding one does not); the JSON Schema in
#: merabench/schemas/results.schema.json describes this version
SCHEMA_VERSION = 1


def git_commit() -> str | None:
    """The commit of merabench's own checkout when it runs from one (an editable install), read
    from .git without running git."""
    root = Path(__file__).resolve().parents[2]
    head = root / ".git" / "HEAD"
    try:
        ref = head.read_text(encoding="ascii").strip()
        if not ref.startswith("ref: "):
            return ref or None
        name = ref[5:]
        loose = root / ".git" / name
        if loose.exists():
            return loose.read_text(encoding="ascii").strip() or None
        for line in (root / ".git" / "packed-refs").read_text(encoding="ascii").splitlines():
            if line.endswith(" " + name):
                return line.split(" ", 1)[0]
    except (OSError, UnicodeDecodeError):
        return None
    return None


def results_document(results: Sequence[TaskResult], *, model: str, wall_time_s: float | None,
                     settings: dict[str, Any] | None = None, notes: Sequence[str] = (),
                     prices: Prices | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "merabench_version": __version__,
        "merabench_commit": git_commit(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "model": model,
        "settings": settings or {},
        "wall_time_s": None if wall_time_s is None else round(wall_time_s, 3),
        "tasks": {r.task: r.to_json() for r in results},
    }
    if prices is not None:  # an estimate over every answer of the run, cached ones included
        for r in results:
            doc["tasks"][r.task]["tokens"]["cost"] = round(r.usage.cost(prices), 6)
        doc["cost"] = round(sum(t["tokens"]["cost"] for t in doc["tasks"].values()), 6)
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


def warm_up_summary() -> None:
    """Load what `summary_table` and its printing use (rich), ahead of the end of a run."""
    import rich.console  # noqa: F401
    import rich.table  # noqa: F401


def summary_table(results: Sequence[TaskResult], wall_time_s: float | None, prices: Prices | None = None) -> Table:
    from rich.table import Table

    title = "merabench results" + (f" — {wall_time_s:.1f} s" if wall_time_s is not None else "")
    table = Table(title=title, title_justify="left")
    columns = ("task", "rows", "errors", "metric", "value", "n", "tokens in/out") + (("cost",) if prices else ())
    for column in columns:
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
            cost = (f"{r.usage.cost(prices):.4f}",) if prices else ()
            table.add_row(r.task if first else "", str(r.n_rows) if first else "",
                          (f"[red]{r.n_errors}[/red]" if r.n_errors else "0") if first else "",
                          name, "—" if value is None else f"{value:.4f}", str(denominator),
                          tokens if first else "", *(cost if first else ("",) * len(cost)))
    return table
