"""The report's rows: each samples record joined with its data row (reference, attributes), as
compact JSON entries for the page's row table, worst first.

The page must stay small (a 10,000-row run well under 15 MB): the texts of the worst rows come
whole (up to FULL_CHARS a field), and once a task's share of TEXT_BUDGET is spent the rest come
as previews, each marked, with the samples file holding them whole."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO, overload

from merabench.errors import MerabenchError
from merabench.records import Draw, Status
from merabench.report.beside import exchange_text
from merabench.report.views import NO_ANSWER, NOT_ASKED_CLASS, REQUEST_FAILED, view_of
from merabench.rows.jsonio import loads
from merabench.rows.row import Row, rows_sha256
from merabench.runner.samples import draw_of, samples_path, trusted
from merabench.support.think import has_think
from merabench.tasks import TASKS

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


class Entries(Sequence[dict[str, Any]]):
    """A task's entries, each held as its compact UTF-8 JSON and read back when asked: a
    10,000-row run's entries are ~6 MB so, several times that as dicts of small strings."""

    def __init__(self) -> None:
        self._packed: list[bytes] = []

    def append(self, entry: dict[str, Any]) -> None:
        text = json.dumps(entry, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        self._packed.append(text.encode("utf-8", "surrogatepass"))  # a broken answer's lone surrogate kept

    def __len__(self) -> int:
        return len(self._packed)

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return [_unpack(b) for b in self._packed[index]]
        return _unpack(self._packed[index])


def _unpack(packed: bytes) -> dict[str, Any]:
    return json.loads(packed.decode("utf-8", "surrogatepass"))


@dataclass(frozen=True)
class TaskRows:
    task: str
    entries: Entries
    attributes: tuple[str, ...]
    score_metric: str | None
    metric_names: list[str]  # what each entry's "m" list holds, in order
    n_scored: int
    n_failed: int
    has_data: bool
    budget_note: str = ""
    failure_help: str = field(default="")
    failure_counts: Counter[str] = field(default_factory=Counter)  # rows per failure class
    error_reasons: Counter[str] = field(default_factory=Counter)   # failed requests per reason
    scoring: bool = False  # a `merabench score` folder: rows failed for want of an answer, no request was made


def _prompt(record: dict[str, Any]) -> str | None:
    messages = record.get("messages")
    if not isinstance(messages, list) or not messages:
        return None
    return "\n\n".join(f"[{m.get('role')}]\n{m.get('content')}" for m in messages if isinstance(m, dict))


def _number(value: Any) -> float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _state(record: dict[str, Any]) -> str:
    if record.get("status") == "ok":
        return "ok"
    return "unasked" if record.get("status") == Status.UNASKED else "error"


def _sort_key(state: str, score: Any, row_id: int) -> tuple:
    """Worst first: failed requests, then the lowest score, rows without a score, rows never asked."""
    score = score if isinstance(score, int | float) and state == "ok" else None
    return ({"error": 0, "ok": 1}.get(state, 2), score is None, score if score is not None else 0.0, row_id)


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


def _lines(fh: BinaryIO) -> Iterator[tuple[int, dict[str, Any]]]:
    """(offset, record) of every JSON object line with an integer id, as read_lines reads them
    (an unreadable line, a write cut short by a crash, is skipped)."""
    offset = 0
    for line in fh:
        at, offset = offset, offset + len(line)
        try:
            record = _parse(line)
        except json.JSONDecodeError:
            continue
        if record is not None:
            yield at, record


def _parse(line: bytes) -> Any:
    try:
        record = loads(line)  # the writer's lines are ASCII: no copy decoded first
    except UnicodeDecodeError:
        record = loads(line.decode("utf-8", "replace"))
    return trusted(record) if isinstance(record, dict) else None


def _record_at(fh: BinaryIO, offset: int) -> dict[str, Any]:
    fh.seek(offset)
    return _parse(fh.readline())


def collect_rows(run_dir: Any, task_name: str, rows: Sequence[Row] | None, *, strip_think: bool,
                 budget: int = TEXT_BUDGET // 3, scoring: bool = False,
                 beside: Mapping[int, dict[str, Any]] | None = None) -> TaskRows:
    """The task's entries, worst first. The samples file is read twice rather than held: once
    for where each id's last line is and how bad it is, then line by line in that order (the
    order the text budget is spent in), so one record at a time is in memory."""
    task = TASKS.get(task_name)
    view = view_of(task_name)
    by_id = {r.id: r for r in rows} if rows is not None else {}
    score_metric = next((m.name for m in task.metrics if m.headline), None) if task else None
    metric_names: list[str] = [m.name for m in task.metrics] if task else []
    path = samples_path(run_dir, task_name)
    entries, failure_counts, error_reasons = Entries(), Counter[str](), Counter[str]()
    spend = _Budget(budget)
    if not path.exists():
        return TaskRows(task_name, entries, view.attributes, score_metric, metric_names, 0, 0, rows is not None,
                        "", FAILURE_HELP.get(task_name, ""), scoring=scoring)
    with path.open("rb") as fh:
        # id -> draw -> (sort key, offset): the last line of an id in a draw is its answer there
        last: dict[int, dict[Draw, tuple[tuple, int]]] = {}
        for offset, record in _lines(fh):
            metrics = given if isinstance(given := record.get("metrics"), dict) else {}
            key = _sort_key(_state(record), metrics.get(score_metric), record["id"])
            last.setdefault(record["id"], {})[draw_of(record)] = (key, offset)
        order = sorted((draws[min(draws, key=_draw_order)][0], row_id) for row_id, draws in last.items())
        for _, row_id in order:
            draws = last.pop(row_id)
            first = draws[min(draws, key=_draw_order)]
            entry, failures = _entry(_record_at(fh, first[1]), by_id, task, view, score_metric, metric_names,
                                     strip_think, spend, NO_ANSWER if scoring else REQUEST_FAILED)
            if len(draws) > 1:  # a row asked in several draws (--repeats, --wordings all): each one beside it
                entry["dr"], entry["fl"] = _draws_of(fh, draws, score_metric)
            if beside is not None and entry["i"] in beside:  # the same row's text-mode answer (report/beside.py)
                entry["tv"] = dict(beside[entry["i"]], o=spend.text(beside[entry["i"]]["o"], FULL_CHARS)[0])
            failure_counts.update(failures)
            if entry["s"] == "error":
                error_reasons[str(entry["e"]).split(": ", 1)[0][:120]] += 1
            entries.append(entry)
    note = (f"{task_name}: {spend.shortened:,} row(s) carry shortened texts (the page's size limit); "
            f"{path.name} holds them whole." if spend.shortened else "")
    n_failed = sum(error_reasons.values())
    return TaskRows(task_name, entries, view.attributes, score_metric, metric_names, len(entries) - n_failed, n_failed,
                    rows is not None, note, FAILURE_HELP.get(task_name, ""), failure_counts, error_reasons, scoring)


def _draw_order(draw: Draw) -> tuple[int, int]:
    """Draws in order, a row's own wording (None) first: the row table shows the first."""
    return draw.repeat, -1 if draw.wording is None else draw.wording


def _draws_of(fh: BinaryIO, draws: Mapping[Draw, tuple[tuple, int]], score_metric: str | None
              ) -> tuple[list[list[Any]], bool]:
    """[repeat, wording, headline score, answer preview] of each draw of a row, in draw order, and
    whether its score is not the same in all of them (it flips)."""
    out = []
    for draw in sorted(draws, key=_draw_order):
        offset = draws[draw][1]
        record = _record_at(fh, offset)
        metrics = given if isinstance(given := record.get("metrics"), dict) else {}
        score = _number(metrics.get(score_metric)) if _state(record) == "ok" else None
        raw = record.get("output") if isinstance(record.get("output"), str) else record.get("error")
        text = raw if not isinstance(raw, str) or len(raw) <= PREVIEW_CHARS else raw[:PREVIEW_CHARS] + "…"
        out.append([draw.repeat, draw.wording, score, text])
    scores = {entry[2] for entry in out if entry[2] is not None}
    return out, len(scores) > 1


def _read(details_of: Callable[[], list[Any]]) -> list[Any]:
    """What a view reads from a line's details, or nothing when their inner shape is not what
    the scorer writes (a hand-edited or damaged line): the row shows without its verdicts."""
    try:
        return details_of()
    except (AttributeError, TypeError, ValueError, KeyError, IndexError):
        return []


def _entry(record: dict[str, Any], by_id: Mapping[int, Row], task: Any, view: Any, score_metric: str | None,
           metric_names: list[str], strip_think: bool, spend: _Budget,
           failed: str = REQUEST_FAILED) -> tuple[dict[str, Any], list[str]]:
    """One row's entry, its texts as the budget left lets the page carry them, and its failure classes."""
    row_id = record["id"]
    row = by_id.get(row_id)
    state = _state(record)
    metrics = given if isinstance(given := record.get("metrics"), dict) else {}
    score = metrics.get(score_metric) if state == "ok" else None
    raw = record.get("output") if isinstance(record.get("output"), str) else None
    failures = ([NOT_ASKED_CLASS if state == "unasked" else failed] if state != "ok" else
                _read(lambda: view.failures(record, row)) if score is not None and score < 1.0 else [])
    metric_names.extend(k for k, v in metrics.items() if k not in metric_names and isinstance(v, int | float))
    measured = [_number(metrics.get(name)) for name in metric_names]
    while measured and measured[-1] is None:  # metrics a row lacks at the end of the names: left off
        measured.pop()
    entry = {"i": row_id, "s": state, "v": score if isinstance(score, int | float) else None,
             "a": view.attrs(row), "k": bool(raw and has_think(raw)), "c": record.get("finish_reason") == "length",
             "f": failures, "m": measured, "e": record.get("error"),
             "d": [list(v) for v in _read(lambda: view.verdicts(record, row))] if state == "ok" else []}
    scored = view.scored_text(task, raw, strip_think) if task and raw is not None else None
    entry["o"], cut_o = spend.text(raw, FULL_CHARS)
    entry["r"], cut_r = spend.text(row.outputs if row is not None else None, FULL_CHARS)
    source, cut_src = spend.text(view.source(row), FULL_CHARS)
    if source is not None:  # SAGE's text to correct (other tasks: only in the prompt)
        entry["src"] = source
    entry["x"], cut_x = spend.text(scored if scored is not None and scored != raw else None, FULL_CHARS,
                                   preview=False)
    entry["p"], cut_p = spend.text(_prompt(record), PROMPT_CHARS, preview=False)
    if (conversation := exchange_text(record.get("tool_exchange"))) is not None:  # --tool-mode native
        entry["tc"] = spend.text(conversation, FULL_CHARS, preview=False)[0]
    if spend.left <= 0 and len(entry["d"]) > VERDICTS_PAST_BUDGET:
        extra = len(entry["d"]) - VERDICTS_PAST_BUDGET
        entry["d"] = entry["d"][:VERDICTS_PAST_BUDGET] + [[f"… {extra} more", None, "in the samples file"]]
    short = [k for k, cut in (("o", cut_o), ("r", cut_r), ("src", cut_src), ("x", cut_x), ("p", cut_p)) if cut]
    if short:
        entry["short"] = short
        spend.shortened += 1
    return entry, failures


def reload_rows(doc: Mapping[str, Any], names: Iterable[str] | None = None) -> dict[str, list[Row]]:
    """The evaluated rows of each task (or of those `names`), read again from the data the run
    recorded (for `merabench report DIR`), when they are still there and still the same (their
    hash matches); the hub is not asked (a rebuild works offline)."""
    from merabench.formats.results import task_settings
    from merabench.tasks.datasource import load_task_data, spec_for

    wanted = None if names is None else set(names)
    found = {}
    for name, result in (doc.get("tasks") or {}).items():
        if wanted is not None and name not in wanted:
            continue
        settings = task_settings(dict(doc), name)
        spec = spec_for(list(settings.data), name)
        if name not in TASKS or spec == "hub":
            continue
        try:
            rows = load_task_data(TASKS[name], spec, settings.split).rows
        except (MerabenchError, OSError, ValueError):
            continue
        rows = rows[:settings.limit] if settings.limit is not None else rows
        if rows_sha256(rows) == result.get("data_sha256"):
            found[name] = list(rows)
    return found

