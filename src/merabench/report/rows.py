"""The report's rows: each samples record joined with its data row (reference, attributes), as
compact JSON entries for the page's row table, worst first.

The page must stay small (a 10,000-row run well under 15 MB): the texts of the worst rows come
whole (up to FULL_CHARS a field), and once a task's share of TEXT_BUDGET is spent the rest come
as previews, each marked, with the samples file holding them whole."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from merabench.errors import MerabenchError
from merabench.records import NOT_ASKED
from merabench.report.views import NOT_ASKED_CLASS, REQUEST_FAILED, view_of
from merabench.rows import Row, rows_sha256
from merabench.samples import read_lines, samples_path
from merabench.tasks import TASKS
from merabench.think import has_think

TEXT_BUDGET = 6_000_000   # bytes of text (answers, references, prompts) over all tasks of a page
FULL_CHARS = 20_000       # of one field while the budget lasts
PROMPT_CHARS = 40_000     # of a logged prompt while the budget lasts (a GorillaHard prompt: up to 34k)
PREVIEW_CHARS = 200       # of an answer or reference once it is spent (prompts are then left out)
VERDICTS_PAST_BUDGET = 12  # verdict lines a row keeps once it is spent

FAILURE_HELP = {
    "sage": "a row counts under FP TYPE when the model made an edit of that type the reference does not, under "
            "FN TYPE when it missed one",
    "russianregions": "rows with exact_match 0: no answer letter read at all (format), a letter other than the "
                      "reference's, or the right letter with the unit missing or wrong (types 2 and 3) or with "
                      "other text around it (type 1)",
    "gorillahard": "the scorer's reasons for each failing row: format:CHECK names the format check that failed, "
                   "wrong_kind:A_for_B an envelope of kind A where B was expected",
}


@dataclass(frozen=True)
class TaskRows:
    task: str
    entries: list[dict[str, Any]]
    attributes: tuple[str, ...]
    score_metric: str | None
    metric_names: list[str]  # what each entry's "m" list holds, in order
    n_scored: int
    n_failed: int
    has_data: bool
    budget_note: str = ""
    failure_help: str = field(default="")


def _prompt(record: dict[str, Any]) -> str | None:
    messages = record.get("messages")
    if not isinstance(messages, list) or not messages:
        return None
    return "\n\n".join(f"[{m.get('role')}]\n{m.get('content')}" for m in messages if isinstance(m, dict))


def _number(value: Any) -> float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _sort_key(entry: dict[str, Any]) -> tuple:
    """Worst first: failed requests, then the lowest score, rows without a score, rows never asked."""
    score = entry["v"]
    return ({"error": 0, "ok": 1}.get(entry["s"], 2), score is None, score if score is not None else 0.0, entry["i"])


class _Budget:
    def __init__(self, total: int) -> None:
        self.left = total
        self.shortened = 0

    def text(self, value: str | None, cap: int, *, preview: bool = True) -> tuple[str | None, bool]:
        """The text as the page carries it, and whether it was shortened (past the budget, a
        preview, or nothing for a field without one)."""
        if value is None:
            return None, False
        if self.left <= 0 and not preview:
            return None, True
        limit = cap if self.left > 0 else PREVIEW_CHARS
        kept = value if len(value) <= limit else value[:limit]
        self.left -= len(kept.encode("utf-8", "surrogatepass"))  # counted only: a broken answer still counts
        return kept, len(kept) < len(value)


def collect_rows(run_dir: Any, task_name: str, rows: Sequence[Row] | None, *, strip_think: bool,
                 budget: int = TEXT_BUDGET // 3) -> TaskRows:
    task = TASKS.get(task_name)
    view = view_of(task_name)
    by_id = {r.id: r for r in rows} if rows is not None else {}
    score_metric = next((m.name for m in task.metrics if m.headline), None) if task else None
    records: dict[int, dict[str, Any]] = {}
    for record in read_lines(samples_path(run_dir, task_name)):
        if isinstance(record.get("id"), int):
            records[record["id"]] = record  # the last line of an id is its answer
    metric_names: list[str] = [m.name for m in task.metrics] if task else []

    def names(metrics: dict[str, Any]) -> list[str]:
        metric_names.extend(k for k, v in metrics.items() if k not in metric_names and isinstance(v, int | float))
        return metric_names

    entries = []
    for row_id, record in records.items():
        row = by_id.get(row_id)
        ok = record.get("status") == "ok"
        unasked = not ok and str(record.get("error") or "").startswith(NOT_ASKED)
        metrics = record.get("metrics") or {}
        score = metrics.get(score_metric) if ok else None
        raw = record.get("output") if isinstance(record.get("output"), str) else None
        failures = ([NOT_ASKED_CLASS if unasked else REQUEST_FAILED] if not ok else
                    view.failures(record, row) if score is not None and score < 1.0 else [])
        entries.append({"i": row_id, "s": "ok" if ok else "unasked" if unasked else "error", "v": score if isinstance(score, int | float) else None,
                        "a": view.attrs(row), "k": bool(raw and has_think(raw)),
                        "c": record.get("finish_reason") == "length", "f": failures,
                        "m": [_number(metrics.get(name)) for name in names(metrics)],
                        "e": record.get("error"), "d": [list(v) for v in view.verdicts(record, row)] if ok else [],
                        "_raw": raw, "_row": row, "_record": record})
    entries.sort(key=_sort_key)
    spend = _Budget(budget)
    for entry in entries:
        raw, row, record = entry.pop("_raw"), entry.pop("_row"), entry.pop("_record")
        scored = view.scored_text(task, raw, strip_think) if task and raw is not None else None
        entry["o"], cut_o = spend.text(raw, FULL_CHARS)
        entry["r"], cut_r = spend.text(row.outputs if row is not None else None, FULL_CHARS)
        entry["x"], cut_x = spend.text(scored if scored is not None and scored != raw else None, FULL_CHARS,
                                       preview=False)
        entry["p"], cut_p = spend.text(_prompt(record), PROMPT_CHARS, preview=False)
        if spend.left <= 0 and len(entry["d"]) > VERDICTS_PAST_BUDGET:
            extra = len(entry["d"]) - VERDICTS_PAST_BUDGET
            entry["d"] = entry["d"][:VERDICTS_PAST_BUDGET] + [[f"… {extra} more", None, "in the samples file"]]
        short = [k for k, cut in (("o", cut_o), ("r", cut_r), ("x", cut_x), ("p", cut_p)) if cut]
        if short:
            entry["short"] = short
            spend.shortened += 1
    note = (f"{task_name}: {spend.shortened:,} row(s) carry shortened texts (the page's size limit); "
            f"{samples_path(run_dir, task_name).name} holds them whole." if spend.shortened else "")
    n_failed = sum(e["s"] == "error" for e in entries)
    for entry in entries:  # metrics a row lacks at the end of the names: left off
        while entry["m"] and entry["m"][-1] is None:
            entry["m"].pop()
    return TaskRows(task_name, entries, view.attributes, score_metric, metric_names, len(entries) - n_failed, n_failed,
                    rows is not None, note, FAILURE_HELP.get(task_name, ""))


def reload_rows(doc: Mapping[str, Any]) -> dict[str, list[Row]]:
    """The evaluated rows of each task, read again from the data the run recorded (for
    `merabench report DIR`), when they are still there and still the same (their hash matches);
    the hub is not asked (a rebuild works offline)."""
    from merabench.datasource import load_task_data, split_specs

    settings = doc.get("settings") or {}
    default, per_task = split_specs([str(s) for s in settings.get("data") or ["bundled"]])
    found = {}
    for name, result in (doc.get("tasks") or {}).items():
        spec = per_task.get(name, default)
        if name not in TASKS or spec == "hub":
            continue
        try:
            rows = load_task_data(TASKS[name], spec, str(settings.get("split") or "test")).rows
        except (MerabenchError, OSError, ValueError):
            continue
        limit = settings.get("limit")
        rows = rows[:limit] if isinstance(limit, int) else rows
        if rows_sha256(rows) == result.get("data_sha256"):
            found[name] = list(rows)
    return found

