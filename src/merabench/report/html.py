"""report.html: what a run measured, and every row it measured, in one self-contained page.

Per task: the headline figures with their 95 % intervals and denominators, every metric with a
line on how it is computed, a chart of why rows lost points, and the breakdowns (tables with
one value or nothing but zeros folded away). Then one table of every row of every task,
filterable and sortable, worst first, each row opening to its prompt (when logged), the
reference beside the answer, the scored text and the verdict of each check or edit.

The rows travel as JSON inside the page and are drawn by a small script as they scroll into
view, so a 10,000-row run opens at once; nothing is fetched from anywhere. Everything from the
model or the data is escaped: in the HTML by html.escape, in the JSON by escaping every `<`,
`>` and `&`, so no answer can close the script element that holds it.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from merabench.formats.results import KEPT, load_results, task_settings
from merabench.records import RunSettings, ToolMode
from merabench.report.beside import text_answers
from merabench.report.rows import TaskRows, collect_rows, reload_rows
from merabench.report.views import HELP
from merabench.rows.row import Row
from merabench.runner.rundir import RUN_FILE
from merabench.support.files import write_atomic
from merabench.tasks import TASKS
from merabench.tasks.base import Aggregation, MetricSpec

#: a breakdown with more rows than this is folded (its summary line says its range)
FOLD_ROWS = 24

#: the plain figures tasks put beside their tables, and what they mean
FIGURES = {
    "wording_spread": "the best minus the worst sample_pass_rate over the instruction wordings, each over the rows "
                      "MERA gave it: it mixes the wording with which questions got it (run --wordings all asks every "
                      "row under every wording), and best minus worst grows with chance alone",
    "judge_errors": "rows the judge gave no score (left out of the judge metrics)",
    "judge_replies_without_number": "judge replies without a number (that reading scores 0, as the harness scores it)",
    "judge_failed_calls": "judge calls that failed after their retries",
}


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _fmt(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return _e("" if value is None else value)
    if isinstance(value, float):
        return "—" if math.isnan(value) else f"{value:.4f}"
    if isinstance(value, int):
        return f"{value:,}"
    return _e(value)


def _asset(name: str) -> str:
    return resources.files("merabench.report").joinpath(name).read_text(encoding="utf-8")


_SURROGATE = re.compile("[\ud800-\udfff]")


def script_json(value: Any) -> str:
    """JSON safe inside <script type="application/json">: no `<`, `>` or `&` survives literally,
    so `</script>` or `<!--` in an answer cannot end the element; U+2028/2029 escaped too."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    text = (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
    # a lone surrogate (a model's broken answer) cannot be written as UTF-8: keep it as an escape
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


# --- figures -------------------------------------------------------------------------------------

def _how(spec: MetricSpec | None, n: Any) -> str:
    """How a metric's number is made from the rows, in one line."""
    if spec is None:
        return ""
    count = f"{n:,}" if isinstance(n, int) else "the"
    if spec.derived:
        how = "counted over every edit of the corpus, not averaged per row"
    elif spec.aggregation is Aggregation.BALANCE:
        how = (f"geometric mean of the {count} groups' means, each floored at {spec.floor:g}: one weak group pulls "
               "it down more than an average would")
    elif spec.aggregation is Aggregation.ALL_OR_NOTHING:
        how = f"share of the {count} groups whose every row scored 1"
    else:
        how = f"mean over the {count} rows it applies to"
    return f"{spec.description}; {how}" + ("" if spec.higher_is_better else "; lower is better")


def _cards(task: dict[str, Any], specs: Sequence[MetricSpec]) -> str:
    metrics, denominators, ci = task.get("metrics", {}), task.get("denominators", {}), task.get("ci95", {})
    cards = []
    for spec in specs:
        if spec.headline and spec.name in metrics:
            interval = f"95 % CI {ci[spec.name][0]:.3f}–{ci[spec.name][1]:.3f} · " if spec.name in ci else ""
            cards.append(f'<div class="card"><div class="n">{_e(spec.name)}</div>'
                         f'<div class="v">{_fmt(metrics[spec.name])}</div>'
                         f'<div class="n">{interval}n = {_fmt(denominators.get(spec.name, "—"))}</div></div>')
    return f'<div class="cards">{"".join(cards)}</div>' if cards else ""


def _no_metrics(task: dict[str, Any], scoring: bool) -> str:
    """Why a task has no metric at all, in place of an empty table."""
    n, scored, unasked = task.get("n", 0), task.get("n_scored", 0), task.get("n_unasked", 0)
    if scored:
        why = f"the {scored:,} scored row(s) carry none (rows without a reference answer have no score)"
    elif n and unasked == n:
        why = "the run stopped before any row was asked"
    elif scoring:
        why = f"none of its {n:,} row(s) had an answer to score (the reasons are below)"
    else:
        why = f"every one of its {n:,} request(s) failed, so no row was scored (the reasons are below)"
    return f'<div class="note">No metric: {_e(why)}.</div>'


def _metric_table(task: dict[str, Any], specs: Sequence[MetricSpec], scoring: bool = False) -> str:
    metrics, denominators, ci = task.get("metrics", {}), task.get("denominators", {}), task.get("ci95", {})
    if not metrics:
        return _no_metrics(task, scoring)
    by_name = {s.name: s for s in specs}
    rows = []
    for name in [s.name for s in specs if s.name in metrics] + [m for m in metrics if m not in by_name]:
        low, high = ci.get(name, (None, None))
        interval = f"{low:.4f} – {high:.4f}" if low is not None else ""
        rows.append(f'<tr><td>{_e(name)}{" ★" if name in by_name and by_name[name].headline else ""}</td>'
                    f'<td class="num">{_fmt(metrics[name])}</td><td class="num">{interval}</td>'
                    f'<td class="num">{_fmt(denominators.get(name, ""))}</td>'
                    f'<td class="how">{_e(_how(by_name.get(name), denominators.get(name)))}</td></tr>')
    return ('<table class="metrics"><thead><tr><th>metric</th><th class="num">value</th><th class="num">95 % CI</th>'
            f'<th class="num">n</th><th>how it is computed</th></tr></thead><tbody>{"".join(rows)}</tbody></table>'
            '<div class="muted">★ headline figure · n: the rows (or groups) the metric averages over</div>')


def _bar(value: float, label: str) -> str:
    width = max(0.0, min(1.0, value)) * 100
    return f'<div class="bar" title="{_e(label)}"><div style="width:{width:.1f}%"></div><span>{_e(label)}</span></div>'


def _is_zero(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == 0


def _fold_summary(table: dict[str, Any]) -> str | None:
    """Why a breakdown is folded away (None: it is shown open)."""
    rows, columns = table.get("rows") or {}, [c for c in table.get("columns") or [] if c != "n"]
    if columns and all(_is_zero(v.get(c)) for v in rows.values() for c in columns):
        return f"{len(rows):,} rows, every {', '.join(columns)} is 0"
    first: dict[str, Any] = next(iter(rows.values()), {})
    if len(rows) > 1 and columns and all(v.get(c) == first.get(c) for v in rows.values() for c in columns):
        same = " and ".join(f"{c} {_fmt(first.get(c))}" for c in columns)
        return f"{len(rows):,} rows, the same {same} in every one"
    bar = table.get("bar")
    if len(rows) > FOLD_ROWS and bar:
        values = sorted(v.get(bar) for v in rows.values() if isinstance(v.get(bar), int | float))
        if values:
            return f"{len(rows):,} rows, {bar} from {values[0]:.4f} to {values[-1]:.4f}"
    if len(rows) > (FOLD_ROWS if bar else FOLD_ROWS // 3):  # a list without bars reads as a list: fold it sooner
        return f"{len(rows):,} rows"
    return None


def _cell(values: dict[str, Any], column: str) -> str:
    """A breakdown's cell: a figure the task gives as None has nothing to be computed from (n/a)."""
    if column in values and values[column] is None:
        return "n/a"
    return _fmt(values.get(column, ""))


def _table(table: dict[str, Any]) -> str:
    """A breakdown the task declared: a row per label, its numbers under right-aligned headings,
    its bar column drawn as a bar labelled with the value and n."""
    columns, bar, rows = table.get("columns") or [], table.get("bar"), table.get("rows") or {}
    title = table.get("title", "")
    if len(rows) == 1:  # one value: a line, not a table
        label, values = next(iter(rows.items()))
        figures = " · ".join(f"{_e(c)} {_fmt(values.get(c))}" for c in columns)
        return f'<div class="line"><b>{_e(title)}</b>: {_e(label)} — {figures}</div>'
    head = "".join(f'<th class="num">{_e(c)}</th>' for c in columns) + ("<th></th>" if bar else "")
    body = []
    for label, values in rows.items():
        cells = "".join(f'<td class="num">{_cell(values, c)}</td>' for c in columns)
        if bar:
            value = values.get(bar)
            n = values.get("n")
            text = f"{value:.4f}" + (f" · n {n:,}" if isinstance(n, int) else "") if isinstance(value, int | float) else ""
            cells += f'<td class="barcell">{_bar(value, text) if text else ""}</td>'
        body.append(f"<tr><td>{_e(label)}</td>{cells}</tr>")
    grid = f'<table class="breakdown"><thead><tr><th></th>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
    folded = _fold_summary(table)
    if folded:
        return f'<details class="fold"><summary><b>{_e(title)}</b> — {_e(folded)}</summary>{grid}</details>'
    return f"<h3>{_e(title)}</h3>{grid}"


def _breakdowns(breakdowns: Mapping[str, Any]) -> str:
    """Tables as tables; plain figures (counts, spreads) as a line each, with what they mean."""
    tables, facts = [], []
    for name, value in breakdowns.items():
        if isinstance(value, dict) and "columns" in value and "rows" in value:
            tables.append(_table(value))
        elif isinstance(value, dict):
            facts += [(str(k), v) for k, v in value.items()]
        else:
            facts.append((name, value))
    lines = "".join(f'<div class="line"><b>{_e(k.replace("_", " "))}</b>: {_fmt(v)}'
                    f'{" — " + _e(FIGURES[k]) if k in FIGURES else ""}</div>' for k, v in facts)
    return lines + "".join(tables)


def _failure_chart(rows: TaskRows, drawn: bool = False) -> str:
    """Why rows lost points: each failure class with the rows it holds, as labelled bars."""
    counts = rows.failure_counts
    if not counts:
        return ""
    scored = max(1, rows.n_scored + rows.n_failed)
    top = counts.most_common(20)
    body = "".join(f'<tr><td>{_e(label)}</td><td class="num">{n:,}</td><td class="barcell">'
                   f'{_bar(n / scored, f"{n:,} of {scored:,} rows ({n / scored:.1%})")}</td></tr>' for label, n in top)
    more = f'<div class="muted">and {len(counts) - len(top)} rarer class(es)</div>' if len(counts) > len(top) else ""
    which = " (each row's first asking; the task's notes count every asking)" if drawn else ""
    return (f'<h3>why rows lost points{which}</h3><div class="muted">{_e(rows.failure_help)}</div>'
            f'<table class="breakdown"><thead><tr><th>reason</th><th class="num">rows</th><th></th></tr></thead>'
            f'<tbody>{body}</tbody></table>{more}')


def _failed_requests(rows: TaskRows) -> str:
    errors = rows.error_reasons
    if not errors:
        return ""
    listed = " · ".join(f"{_e(reason)} ({n:,})" for reason, n in errors.most_common(5))
    what = "row(s) had no answer to score" if rows.scoring else "request(s) failed"
    return f'<div class="line err"><b>{sum(errors.values()):,} {what}</b>: {listed}</div>'


def _counts(task: dict[str, Any], scoring: bool = False) -> str:
    tokens = task.get("tokens", {})
    unasked = task.get("n_unasked", 0)  # never sent (the run stopped at a limit): not failures
    askings = f' × {task["draws"]} askings' if task.get("draws") else ""  # the counts after it are of askings
    counts = (f'{task.get("n", 0):,} rows{askings} · {task.get("n_scored", 0):,} scored · '
              f'{task.get("n_errors", 0) - unasked:,} {"without an answer" if scoring else "failed"} · '
              + (f'<span class="err">{unasked:,} not asked</span> · ' if unasked else "") +
              f'tokens {tokens.get("prompt", 0):,} in / {tokens.get("completion", 0):,} out')
    if tokens.get("reasoning"):
        counts += f' · reasoning {tokens["reasoning"]:,} (mean {tokens.get("mean_reasoning", 0):,} per answer)'
    if tokens.get("truncated"):
        counts += f' · <span class="err">{tokens["truncated"]:,} cut by the token limit</span>'
    if tokens.get("cost") is not None:
        counts += f' · cost {tokens["cost"]:.4f}'
    return counts


def _stability(task: dict[str, Any]) -> str:
    """A task asked in several draws (--repeats, --wordings all): how stable its rows were, how its
    spread splits, and each wording's figure on the same rows."""
    if not task.get("draws"):
        return ""
    metrics, ci, n = task.get("metrics", {}), task.get("ci95", {}), task.get("denominators", {})
    figures = [f"{_e(name)} {_fmt(metrics[name])}" + (f" ({ci[name][0]:.3f}–{ci[name][1]:.3f})" if name in ci else "")
               + f" over {_fmt(n.get(name, '—'))}" for name in DRAW_FIGURES if name in metrics]
    how = f'{task.get("repeats", 1)} repeat(s)' + (f' × {task["wordings"]} wordings' if task.get("wordings") else "")
    lines = [f'<div class="line"><b>asked {how}</b>: ' + " · ".join(figures) + "</div>"]
    split = task.get("variance")
    if split:
        lines.append(f'<div class="line"><b>{_e(split["metric"])}\'s spread</b>: {split["within_share"]:.1%} of it '
                     "within rows (what a rerun of the same question changes), the rest between rows</div>")
    wordings = task.get("by_wording")
    if wordings:
        body = "".join(f'<tr><td>{w["wording"]}</td><td class="num">{w["value"]:.4f}</td><td class="num">'
                       f'{w["vs_others"]["difference"]:+.4f}</td><td class="num">{w["vs_others"]["low"]:+.3f} … '
                       f'{w["vs_others"]["high"]:+.3f}</td></tr>' for w in wordings["wordings"])
        lines.append(f'<h3>{_e(wordings["metric"])} by wording, on the same {wordings["rows"]:,} rows</h3>'
                     '<table class="breakdown"><thead><tr><th>wording</th><th class="num">value</th>'
                     '<th class="num">− the other wordings</th><th class="num">95 % interval</th></tr></thead>'
                     f'<tbody>{body}</tbody></table>')
    return "".join(lines)


def _kept_note(doc: dict[str, Any], name: str) -> str:
    """For a task kept from an earlier run in the folder: when that run was, and its settings."""
    kept = (doc.get(KEPT) or {}).get(name)
    if not isinstance(kept, dict):
        return ""
    return (f"kept from the earlier run in this folder ({kept.get('created')}; "
            f"{_settings_text({'settings': kept.get('settings') or {}}) or 'its settings in results.json'}): "
            f"this run ({doc.get('created')}) did not redo it")


def _section(name: str, task: dict[str, Any], rows: TaskRows, kept: str = "") -> str:
    spec = TASKS.get(name)
    specs = spec.metrics if spec else ()
    notes = "".join(f'<div class="note">{_e(n)}</div>' for n in ([kept] if kept else []) + task.get("notes", []))
    missing = "" if rows.has_data else ('<div class="note">the data could not be read again: rows show no '
                                        'reference or attributes</div>')
    title = spec.mera_name if spec else name
    chart = _failure_chart(rows, bool(task.get("draws")))
    breakdowns = {k: v for k, v in task.get("breakdowns", {}).items()  # the chart counts the same reasons
                  if not (chart and k == "failure_reasons")}
    return (f'<section id="task-{_e(name)}"><h2>{_e(title)}</h2><div class="muted">{_e(task.get("source", ""))} · '
            f'{_counts(task, rows.scoring)} · <a href="#rows" data-task="{_e(name)}" class="rowlink">browse its rows'
            f'</a></div>{notes}{missing}{_cards(task, specs)}{_stability(task)}{_metric_table(task, specs, rows.scoring)}'
            f'{_failed_requests(rows)}'
            f'{chart}{_breakdowns(breakdowns)}</section>')


def _stopped(doc: dict[str, Any]) -> str:
    stopped = doc.get("stopped")
    if not stopped:
        return ""
    spent = f' (estimated {stopped["spent"]:.4f} spent)' if "spent" in stopped else ""
    return (f'<div class="note">The run stopped at {_e(stopped.get("by"))}{spent}: {_e(stopped.get("unasked", 0))} '
            f'row(s) were not asked (never sent, not failed). To continue: '
            f'<code>{_e(stopped.get("continue", ""))}</code></div>')


def _settings_text(doc: dict[str, Any]) -> str:
    settings = RunSettings.from_json(doc.get("settings"))
    generation = settings.generation or {}
    parts = [f"data {', '.join(settings.data)}" if settings.data else "",
             f"split {settings.split}",
             f"preset {settings.preset}" if settings.preset else "",
             f"max_tokens {generation['max_tokens']}" if generation.get("max_tokens") else "",
             f"limit {settings.limit}" if settings.limit else "",
             "strip_think" if settings.strip_think else "",
             "tool mode native (not leaderboard-comparable)" if settings.tool_mode == ToolMode.NATIVE else ""]
    return " · ".join(p for p in parts if p)


def _settings_line(doc: dict[str, Any]) -> str:
    return _e(_settings_text(doc))


#: what a row opens to: in a second JSON element after the code, so the table is drawn while
#: the browser still reads the long texts (read on the first row opened)
#: the figures over a row's draws (scoring/draws.py), shown by _stability
DRAW_FIGURES = ("flip_rate", "pass_at_k", "pass_all_k", "wording_flip_rate")
DETAIL = ("o", "r", "src", "x", "p", "d", "m", "e", "short", "tc", "tv", "dr")
PREVIEW = 160  # characters of the answer and reference in the table's cells
CHUNK = 1 << 16  # characters of the rows' JSON written at a time


def _light(entry: dict[str, Any]) -> dict[str, Any]:
    """A row as the table lists, filters and sorts it."""
    light = {k: v for k, v in entry.items() if k not in DETAIL}
    for key in ("o", "r", "e"):
        text = entry.get(key)
        light[key] = text[:PREVIEW] if isinstance(text, str) else text
    return light


def _json_list(items: Iterable[Any]) -> Iterator[str]:
    """A JSON list in pieces of about CHUNK characters (script_json's escaping, item by item)."""
    yield "["
    batch: list[str] = []
    size, first = 0, True
    for item in items:
        batch.append(script_json(item))
        size += len(batch[-1])
        if size >= CHUNK:
            yield ("" if first else ",") + ",".join(batch)
            batch, size, first = [], 0, False
    yield ("" if first or not batch else ",") + ",".join(batch) + "]"


def page(run_dir: Path, rows: Mapping[str, Sequence[Row]] | None = None, text_run: Path | None = None
         ) -> Iterator[str]:
    """The page of a run or score folder, in pieces; `rows` are the evaluated rows per task (read
    again from the recorded data when not given). The rows' JSON is made and written one row at a
    time: the whole page as one string (and its escaped copies) would cost several times its size."""
    doc = load_results(run_dir)  # read before the old page is touched: a damaged one is one line, the page kept
    tasks = doc["tasks"]
    data = dict(rows) if rows is not None else {}
    data.update(reload_rows(doc, [name for name in tasks if name not in data]))  # kept tasks of an earlier run
    scoring = not (run_dir / RUN_FILE).exists()  # `merabench score`'s folder: no request was made
    beside = {"gorillahard": text_answers(run_dir, text_run)} if text_run is not None else {}
    collected = {name: collect_rows(run_dir, name, data.get(name), scoring=scoring, beside=beside.get(name),
                                    strip_think=task_settings(doc, name).strip_think) for name in tasks}
    del data
    payload = [c for c in collected.values()]

    def entries() -> Iterator[dict[str, Any]]:
        return (dict(e, t=n) for n, c in enumerate(payload) for e in c.entries)

    explorer = {"tasks": [{"name": c.task, "title": TASKS[c.task].mera_name if c.task in TASKS else c.task,
                           "score": c.score_metric, "attrs": list(c.attributes), "metrics": c.metric_names}
                          for c in payload],
                "help": HELP, "note": " ".join(c.budget_note for c in payload if c.budget_note),
                "scoring": scoring}
    wall = doc.get("wall_time_s")
    meta = f'model {_e(doc.get("model"))} · {_e(doc.get("created"))}' + (f" · {wall:.1f} s" if wall else "")
    toc = " · ".join(f'<a href="#task-{_e(n)}">{_e(TASKS[n].mera_name if n in TASKS else n)}</a>' for n in tasks)
    sections = _stopped(doc) + "".join(_section(name, task, collected[name], _kept_note(doc, name))
                                       for name, task in tasks.items())
    yield (f'<!doctype html><html lang="ru"><head><meta charset="utf-8">'
           f'<meta name="viewport" content="width=device-width, initial-scale=1">'
           f'<title>merabench · {_e(doc.get("model"))}</title><style>{_asset("page.css")}</style></head><body>'
           f'<h1>merabench report</h1><div class="muted">{meta} · merabench {_e(doc.get("merabench_version"))}'
           f'</div><div class="muted">{_settings_line(doc)}</div><nav>{toc} · <a href="#rows">every row</a></nav>'
           f'{sections}<section id="rows"><h2>Every row</h2><div id="explorer">'
           f'<noscript>The row table needs JavaScript; every row is in the samples_&lt;task&gt;.jsonl files.</noscript>'
           f'</div></section><script type="application/json" id="report-data">')
    yield script_json(explorer)[:-1] + ',"rows":'  # the object left open for its rows
    yield from _json_list(_light(e) for e in entries())
    yield f'}}</script><script>{_asset("page.js")}</script><script type="application/json" id="report-details">'
    yield from _json_list({k: e[k] for k in DETAIL if k in e} for e in entries())
    yield "</script></body></html>\n"


def render(run_dir: Path, rows: Mapping[str, Sequence[Row]] | None = None, text_run: Path | None = None) -> str:
    """The whole page as one string (tests; write_report writes it in pieces)."""
    return "".join(page(run_dir, rows, text_run))


def write_report(run_dir: Path, rows: Mapping[str, Sequence[Row]] | None = None, text_run: Path | None = None) -> Path:
    """`text_run`: a text-protocol run of the same GorillaHard rows, shown beside a native run's."""
    path = run_dir / "report.html"
    write_atomic(path, page(run_dir, rows, text_run))
    return path
