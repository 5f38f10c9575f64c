"""results.json and the end-of-run summary table."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from merabench import __version__
from merabench.errors import ConfigError, DataError, reading
from merabench.records import RunSettings, ToolMode
from merabench.rows.jsonio import loads
from merabench.runner.budget import Prices
from merabench.runner.samples import samples_path
from merabench.scoring.score import TaskResult, Usage
from merabench.support.files import write_atomic
from merabench.tasks import TASKS, get_task

if TYPE_CHECKING:
    from rich.table import Table

RESULTS_FILE = "results.json"
#: bumped when a field changes meaning or disappears (adding one does not); the JSON Schema in
#: merabench/schemas/results.schema.json describes this version
SCHEMA_VERSION = 1


def git_commit() -> str | None:
    """The commit of merabench's own checkout when it runs from one (an editable install), read
    from .git without running git."""
    root = Path(__file__).resolve().parents[3]
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
    if prices is not None:  # over every answer an endpoint was asked for (a cached one costs nothing)
        for r in results:
            doc["tasks"][r.task]["tokens"].update(task_cost(r.usage, prices))
        doc.update(total_cost(doc["tasks"].values()))
    if notes:
        doc["notes"] = list(notes)
    if len(results) == 1:  # a single task's metrics also at the top, as `score` users expect
        only = doc["tasks"][results[0].task]
        doc.update({k: only[k] for k in ("metrics", "denominators", "n")})
    return doc


def task_cost(usage: Usage, prices: Prices) -> dict[str, Any]:
    """A task's `cost` in results.json: null when some answer could not be priced at all (it is
    never 0 for answers it did not see); `cost_estimated` the part of it estimated from bytes, for
    answers whose token counts were missing or could not be right (models/usage.py)."""
    cost = usage.cost(prices)
    out: dict[str, Any] = {"cost": None if cost is None else round(cost, 6)}
    if usage.estimated:
        out["cost_estimated"] = round(usage.estimated_cost(prices), 6)
    return out


def total_cost(tasks: Iterable[Any]) -> dict[str, Any]:
    """The document's `cost` (and `cost_estimated`) over its tasks' (task_cost): null when a task's is."""
    tokens = [t.get("tokens") or {} for t in tasks if isinstance(t, dict)]
    costs = [c for t in tokens if (c := t.get("cost")) is not None]
    out: dict[str, Any] = {"cost": None if len(costs) < len(tokens) else round(sum(costs), 6)}
    estimated = [t["cost_estimated"] for t in tokens if isinstance(t.get("cost_estimated"), int | float)]
    if estimated:
        out["cost_estimated"] = round(sum(estimated), 6)
    return out


def cost_cell(usage: Usage, prices: Prices) -> str:
    """The summary table's cost: "—" when some answer could not be priced, "~" before one in part
    estimated from bytes."""
    cost = usage.cost(prices)
    if cost is None:
        return "—"
    return f"{'~' if usage.estimated else ''}{cost:.4f}"


#: results.json's record of the tasks kept from an earlier run in the folder: {task: {"created",
#: "settings", "wall_time_s"}}, the settings that task was run and scored with
KEPT = "kept"


def task_settings(doc: Mapping[str, Any], task: str) -> RunSettings:
    """The settings a task of results.json was run and scored with: the document's own, or, for a
    task kept from an earlier run in the folder, that run's."""
    kept = doc.get(KEPT)
    entry = kept.get(task) if isinstance(kept, dict) else None
    if isinstance(entry, dict) and isinstance(entry.get("settings"), dict):
        return RunSettings.from_json(entry["settings"])
    return RunSettings.from_json(doc.get("settings"))


def read_results(out_dir: Path, *, strict: bool = False) -> dict[str, Any] | None:
    """The folder's results.json, or None when it has none that reads as one (a JSON object with
    "tasks"). `strict`: a results.json there that cannot be read or is not JSON is a DataError
    naming it (`export-requests --run` says so rather than export as if the run had none)."""
    path = out_dir / RESULTS_FILE
    if strict and path.exists():
        with reading(path):
            doc = loads(path.read_bytes())
    else:
        try:
            doc = loads(path.read_bytes())
        except (OSError, ValueError, RecursionError):  # a UnicodeDecodeError or JSONDecodeError is a ValueError
            return None
    return doc if isinstance(doc, dict) and isinstance(doc.get("tasks"), dict) else None


def load_results(folder: Path) -> dict[str, Any]:
    """The results.json of a run or score folder, for the tools that read one (report, compare,
    leaderboard): a DataError naming it when it cannot be read, is cut short or is no results
    document; a task whose entry is not an object is left out (the tools then say the task is
    missing), never read as one."""
    doc = read_results(folder, strict=True)
    if doc is None:
        raise DataError('is no results document (a JSON object with "tasks", as run and score write)',
                        file=str(folder / RESULTS_FILE))
    doc["tasks"] = {name: result for name, result in doc["tasks"].items() if isinstance(result, dict)}
    return doc


def keep_earlier_tasks(out_dir: Path, doc: dict[str, Any]) -> dict[str, Any]:
    """A run of some tasks into a folder that holds others (`--tasks sage` after a run of all
    three): the results of the tasks it did not run stay, as the folder's previous results.json
    had them (their samples files are still there, untouched), each with the settings it was run
    with under "kept"; nothing in the folder drops out of results.json, the report, the exports
    or `compare`. A task whose samples file is in the folder but in no results.json is named in a
    note (it is scored again by running it)."""
    previous = read_results(out_dir)
    ran = list(doc["tasks"])
    kept: dict[str, Any] = {}
    if previous is not None and previous.get("model") == doc.get("model"):
        earlier = given if isinstance(given := previous.get(KEPT), dict) else {}
        for name, result in previous["tasks"].items():
            if name in doc["tasks"] or name not in TASKS or not isinstance(result, dict) \
                    or not samples_path(out_dir, name).exists():
                continue
            doc["tasks"][name] = result
            kept[name] = earlier.get(name) or {"created": previous.get("created"),
                                               "settings": previous.get("settings") or {},
                                               "wall_time_s": previous.get("wall_time_s")}
    notes = list(doc.get("notes") or [])
    if kept:
        doc["tasks"] = {name: doc["tasks"][name] for name in TASKS if name in doc["tasks"]}
        doc[KEPT] = kept
        for key in ("metrics", "denominators", "n"):  # a single task's figures at the top: no longer one task
            doc.pop(key, None)
        if "cost" in doc:
            doc.update(total_cost(doc["tasks"].values()))
        when = sorted({str(k.get("created")) for k in kept.values()})
        notes.append(f"{', '.join(kept)}: kept from the earlier run in this folder ({', '.join(when)}), with the "
                     f"settings it was run with; this run redid {', '.join(ran)} (run a task again to redo it)")
    unscored = [name for name in TASKS if name not in doc["tasks"] and samples_path(out_dir, name).exists()]
    if unscored:
        notes.append(f"{', '.join(f'samples_{n}.jsonl' for n in unscored)}: in this folder but in no results.json; "
                     f"run --tasks {','.join(unscored)} into it to score them (only rows with no answer are asked)")
    if notes:
        doc["notes"] = notes
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
    """The terminal's table: per task its headline metrics. A task asked in several draws (`--repeats`,
    `--wordings all`) shows its rows as rows x draws, each value with the half-width of its 95 %
    interval over rows with all their askings, and its flip rate."""
    from rich.table import Table

    title = "merabench results" + (f" — {wall_time_s:.1f} s" if wall_time_s is not None else "")
    table = Table(title=title, title_justify="left")
    drawn = any(r.drawn for r in results)
    columns = ("task", "rows", "errors", "metric", "value", *(("± 95 %",) if drawn else ()), "n", "tokens in/out",
               *(("cost",) if prices else ()))
    for column in columns:
        table.add_column(column, justify="right" if column in ("rows", "errors", "value", "± 95 %", "n") else "left",
                         no_wrap=column in ("task", "metric", "value"))
    for r in results:
        for i, (name, value, cells) in enumerate(_summary_rows(r, drawn)):
            first = i == 0
            cost = (cost_cell(r.usage, prices),) if prices else ()
            label = r.task + (" (native tools)" if r.tool_mode != ToolMode.TEXT else "")  # not the leaderboard's protocol
            rows = f"{r.n_rows} × {r.drawn['draws']}" if r.drawn else str(r.n_rows)
            table.add_row(label if first else "", rows if first else "",
                          (f"[red]{r.n_errors}[/red]" if r.n_errors else "0") if first else "",
                          name, "—" if value is None else f"{value:.4f}", *cells,
                          f"{r.usage.prompt:,}/{r.usage.completion:,}" if first else "",
                          *(cost if first else ("",) * len(cost)))
    return table


def summary_lines(results: Sequence[TaskResult], wall_time_s: float | None, prices: Prices | None = None) -> list[str]:
    """The summary as lines of text, a task then its metrics, for a terminal too narrow for the
    table (rich would squeeze its columns until no score can be read)."""
    lines = ["merabench results" + (f" — {wall_time_s:.1f} s" if wall_time_s is not None else "")]
    drawn = any(r.drawn for r in results)
    for r in results:
        rows = f"{r.n_rows} × {r.drawn['draws']}" if r.drawn else str(r.n_rows)
        cost = f", cost {cost_cell(r.usage, prices)}" if prices else ""
        lines.append(f"{r.task}: {rows} rows, {r.n_errors} errors, tokens {r.usage.prompt:,}/{r.usage.completion:,}{cost}")
        for name, value, cells in _summary_rows(r, drawn):
            spread = f" ± {cells[0]}" if drawn and cells[0] else ""
            lines.append(f"  {name} {'—' if value is None else f'{value:.4f}'}{spread} (n {cells[-1]})")
    return lines


def _summary_rows(r: TaskResult, drawn: bool) -> list[tuple[str, float | None, tuple[str, ...]]]:
    """(metric, value, the cells after the value) of each line a task gets in the summary."""
    headline = [m.name for m in get_task(r.task).metrics if m.headline]
    metrics = r.aggregate.metrics if r.aggregate else {}
    shown = [m for m in headline if m in metrics] or list(metrics)[:3] or ["—"]
    if r.drawn:
        shown += [name for name in ("flip_rate", "wording_flip_rate") if name in metrics]
    out = []
    for name in shown:
        denominator = r.aggregate.denominators.get(name, "") if r.aggregate else ""
        bounds = r.ci95.get(name)
        half = f"{(bounds[1] - bounds[0]) / 2:.4f}" if r.drawn and bounds else ""
        out.append((name, metrics.get(name), ((half,) if drawn else ()) + (str(denominator),)))
    return out


def check_text_protocol(document: Any, folder: Path, what: str) -> None:
    """`what` (a submission, an lm-eval export) takes only the leaderboard's protocol: a run asked
    with --tool-mode native, or every row under every wording, is refused in one line (a run with
    --repeats gives its first repeat, the leaderboard's request)."""
    tasks = document.get("tasks") if isinstance(document, dict) else None
    native = sorted(name for name, result in (tasks or {}).items()
                    if isinstance(result, dict) and result.get("tool_mode") == ToolMode.NATIVE)
    if native:
        raise ConfigError(f"{folder}: {', '.join(native)} was asked with --tool-mode native, which the leaderboard "
                          f"does not take: {what} needs a run in the text protocol (--tool-mode text, the default)")
    if RunSettings.from_json(document.get("settings") if isinstance(document, dict) else None).wordings == "all":
        raise ConfigError(f"{folder}: every row was asked under every wording (--wordings all); the leaderboard "
                          f"takes one answer per row under its own wording: {what} needs a run with --wordings "
                          "assigned (the default)")
