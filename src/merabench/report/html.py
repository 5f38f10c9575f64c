"""report.html: what a run measured, readable at a glance and printable.

Per task: the headline metrics with their 95 % intervals and denominators, every breakdown as a
bar table, the most frequent failure reasons, failed requests, and the rows that scored worst
with what the model answered. Everything from the model is escaped: an answer is data.
"""

from __future__ import annotations

import heapq
import html
import json
from pathlib import Path
from typing import Any

from merabench.records import NOT_ASKED
from merabench.samples import read_lines, samples_path, write_atomic
from merabench.tasks import TASKS

CSS = """
body{font:15px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:72rem;color:#1d2430;padding:0 1rem}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{margin-top:2.4rem;border-bottom:2px solid #e3e7ee;padding-bottom:.3rem}
h3{font-size:1.05rem;margin:1.4rem 0 .4rem}.muted{color:#66707f}.cards{display:flex;flex-wrap:wrap;gap:.8rem}
.card{border:1px solid #e3e7ee;border-radius:.6rem;padding:.7rem 1rem;min-width:11rem}
.card .v{font-size:1.6rem;font-weight:600}.card .n{font-size:.8rem;color:#66707f}
table{border-collapse:collapse;width:100%;margin:.3rem 0 1rem}td,th{padding:.25rem .5rem;border-bottom:1px solid #eef1f5;text-align:left;vertical-align:top}
th{font-weight:600;color:#3c4656}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.bar{background:#e9eef6;border-radius:.3rem;height:.8rem;min-width:8rem}.bar>div{background:#3f6fd8;height:100%;border-radius:.3rem}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f8fb;border-radius:.4rem;padding:.5rem;margin:0;font-size:.85rem;max-height:14rem;overflow:auto}
.note{background:#fff7e0;border-left:4px solid #e8b100;padding:.4rem .7rem;margin:.4rem 0}.err{color:#b3261e}
"""
WORST = 8


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _fmt(value: Any) -> str:
    return f"{value:.4f}" if isinstance(value, float) else _e(value)


def _cards(task: dict[str, Any], headline: list[str]) -> str:
    metrics, denominators, ci = task.get("metrics", {}), task.get("denominators", {}), task.get("ci95", {})
    cards = []
    for name in headline + [m for m in metrics if m not in headline]:
        if name not in metrics or "_micro_" in name:  # corpus-level figures are in their own table
            continue
        interval = f"95 % CI {ci[name][0]:.3f}–{ci[name][1]:.3f} · " if name in ci else ""
        cards.append(f'<div class="card"><div class="n">{_e(name)}</div><div class="v">{metrics[name]:.4f}</div>'
                     f'<div class="n">{interval}n = {_e(denominators.get(name, "—"))}</div></div>')
    return f'<div class="cards">{"".join(cards)}</div>'


def _bar(value: float) -> str:
    width = max(0.0, min(1.0, value)) * 100
    return f'<div class="bar"><div style="width:{width:.1f}%"></div></div>'


def _table(table: dict[str, Any]) -> str:
    """A breakdown the task declared: its rows, its columns, and its bar column drawn as a bar."""
    columns, bar = table.get("columns") or [], table.get("bar")
    head = "".join(f"<th>{_e(c)}</th>" for c in columns) + ("<th></th>" if bar else "")
    body = []
    for label, values in (table.get("rows") or {}).items():
        cells = "".join(f'<td class="num">{_fmt(values.get(c, ""))}</td>' for c in columns)
        if bar:
            value = values.get(bar)
            cells += f"<td>{_bar(value) if isinstance(value, int | float) else ''}</td>"
        body.append(f"<tr><td>{_e(label)}</td>{cells}</tr>")
    return f"<h3>{_e(table.get('title', ''))}</h3><table><tr><th></th>{head}</tr>{''.join(body)}</table>"


def _breakdowns(breakdowns: dict[str, Any]) -> str:
    """Tables as tables; plain figures (counts, spreads) as one line each."""
    tables, facts = [], []
    for name, value in breakdowns.items():
        if isinstance(value, dict) and "columns" in value and "rows" in value:
            tables.append(_table(value))
        elif isinstance(value, dict):
            facts += [f"{_e(name)} · {_e(k)}: {_fmt(v)}" for k, v in value.items()]
        else:
            facts.append(f"{_e(name.replace('_', ' '))}: {_fmt(value)}")
    listed = f'<div class="muted">{" · ".join(facts)}</div>' if facts else ""
    return listed + "".join(tables)


def _lowest(task_name: str, run_dir: Path, headline: str | None) -> tuple[list[dict], list[dict], int]:
    """(the WORST scored rows, the first 20 failed ones, how many failed), reading the samples file
    line by line: the report never holds a whole run in memory."""
    worst: list[tuple[float, int, int, dict]] = []   # a max-heap by (-score, -id) of the WORST lowest
    failed: list[dict] = []
    n_failed = 0
    for n, record in enumerate(read_lines(samples_path(run_dir, task_name))):
        if not isinstance(record.get("id"), int):
            continue
        if record.get("status") != "ok":
            if str(record.get("error") or "").startswith(NOT_ASKED):
                continue  # never sent (the run stopped at a limit): not a failure
            n_failed += 1
            if len(failed) < 20:
                failed.append(record)
            continue
        value = (record.get("metrics") or {}).get(headline)
        if isinstance(value, int | float) and value < 1.0:
            item = (-value, -record["id"], n, record)
            if len(worst) < WORST:
                heapq.heappush(worst, item)
            elif item > worst[0]:
                heapq.heapreplace(worst, item)
    return [r for *_, r in sorted(worst, reverse=True)], failed, n_failed


PROMPT_CHARS = 6000  # of a logged prompt shown in the report (the samples file keeps it whole)


def _prompt(record: dict[str, Any]) -> str:
    """The request's messages, when the run logged them (--log-prompts), folded away."""
    messages = record.get("messages")
    if not isinstance(messages, list) or not messages:
        return ""
    text = "\n\n".join(f"[{m.get('role')}]\n{m.get('content')}" for m in messages if isinstance(m, dict))
    if len(text) > PROMPT_CHARS:
        text = text[:PROMPT_CHARS] + f"\n… ({len(text) - PROMPT_CHARS:,} more characters in the samples file)"
    return f"<details><summary>prompt</summary><pre>{_e(text)}</pre></details>"


def _worst(task_name: str, run_dir: Path) -> str:
    headline = next((m.name for m in TASKS[task_name].metrics if m.headline), None)
    scored, failed, n_failed = _lowest(task_name, run_dir, headline)
    parts = []
    if failed:
        items = "".join(f'<tr><td class="num">{r["id"]}</td><td class="err">{_e(r.get("error"))}</td></tr>' for r in failed)
        parts.append(f"<h3>{n_failed} request(s) failed</h3><table>{items}</table>")
    rows = []
    for r in scored[:WORST]:
        if r["metrics"][headline] >= 1.0:
            break
        details = r.get("details") or {}
        why = details.get("reasons") or ([f"letters read: {', '.join(details['letters']) or 'none'}"]
                                          if "letters" in details else []) or [
            f'{e["verdict"]} {e["type"]}: {e["original"]!r} → {e["correction"]!r}'
            for e in details.get("hypothesis_edits", []) + details.get("reference_edits", []) if e["verdict"] != "TP"]
        rows.append(f'<tr><td class="num">{r["id"]}</td><td class="num">{r["metrics"][headline]:.3f}</td>'
                    f'<td>{_prompt(r)}<pre>{_e(r.get("answer", r.get("output")))}</pre></td>'
                    f'<td>{"<br>".join(_e(w) for w in why[:8])}</td></tr>')
    if rows:
        parts.append(f"<h3>lowest {_e(headline)}</h3><table><tr><th>id</th><th>score</th><th>answer</th><th>why</th></tr>"
                     f"{''.join(rows)}</table>")
    return "".join(parts)


def render(run_dir: Path) -> str:
    doc = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    sections = []
    for name, task in doc.get("tasks", {}).items():
        spec = TASKS.get(name)
        headline = [m.name for m in spec.metrics if m.headline] if spec else []
        notes = "".join(f'<div class="note">{_e(n)}</div>' for n in task.get("notes", []))
        tokens = task.get("tokens", {})
        unasked = task.get("n_unasked", 0)
        counts = (f'{task.get("n", 0)} rows · {task.get("n_scored", 0)} scored · {task.get("n_errors", 0) - unasked} failed · '
                  + (f'<span class="err">{unasked} not asked</span> · ' if unasked else "") +
                  f'tokens {tokens.get("prompt", 0):,} in / {tokens.get("completion", 0):,} out')
        if tokens.get("reasoning"):
            counts += f' · reasoning {tokens["reasoning"]:,} (mean {tokens.get("mean_reasoning", 0):,} per answer)'
        if tokens.get("truncated"):
            counts += f' · <span class="err">{tokens["truncated"]} cut by the token limit</span>'
        if tokens.get("cost") is not None:
            counts += f' · cost {tokens["cost"]:.4f}'
        parts = [_breakdowns(task.get("breakdowns", {}))]
        sections.append(f'<h2>{_e(spec.mera_name if spec else name)}</h2><div class="muted">{_e(task.get("source", ""))} · '
                        f'{counts}</div>{notes}{_cards(task, headline)}{"".join(parts)}{_worst(name, run_dir)}')
    stopped = doc.get("stopped")
    if stopped:
        spent = f' (estimated {stopped["spent"]:.4f} spent)' if "spent" in stopped else ""
        sections.insert(0, f'<div class="note">The run stopped at {_e(stopped.get("by"))}{spent}: '
                           f'{_e(stopped.get("unasked", 0))} row(s) were not asked (never sent, not failed). '
                           f'To continue: <code>{_e(stopped.get("continue", ""))}</code></div>')
    wall = doc.get("wall_time_s")
    meta = f'model {_e(doc.get("model"))} · {_e(doc.get("created"))}' + (f" · {wall:.1f} s" if wall else "")
    return (f'<!doctype html><html lang="ru"><head><meta charset="utf-8"><title>merabench · {_e(doc.get("model"))}</title>'
            f'<style>{CSS}</style></head><body><h1>merabench report</h1><div class="muted">{meta} · merabench '
            f'{_e(doc.get("merabench_version"))}</div>{"".join(sections)}</body></html>\n')


def write_report(run_dir: Path) -> Path:
    path = run_dir / "report.html"
    write_atomic(path, render(run_dir))
    return path
