"""The leaderboard of several runs (`merabench compare RUN RUN ... --html FILE`) as one
self-contained page: a table per task, a row per run, each headline metric with its 95 % interval
and its paired difference from the best run. No scripts, no external files; every text from a run
folder is escaped."""

from __future__ import annotations

import html
import time
from typing import Any

from merabench.tasks import TASKS

CSS = """
body{font:15px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:80rem;color:#1d2430;padding:0 1rem}
h2{margin-top:2rem;border-bottom:2px solid #e3e7ee;padding-bottom:.3rem}.muted{color:#66707f;font-size:.85rem}
table{border-collapse:collapse;width:100%;margin:.3rem 0 1rem}td,th{padding:.3rem .6rem;border-bottom:1px solid #eef1f5;vertical-align:top}
th{font-weight:600;color:#3c4656;text-align:left}th.num,td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.num .muted{white-space:normal}.best{font-weight:600;color:#14652f}.sig{color:#b3261e}.note{background:#fff7e0;border-left:4px solid #e8b100;padding:.4rem .7rem;margin:.4rem 0}
"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def cell_text(cell: dict[str, Any]) -> str:
    """"0.8123 [0.7810, 0.8402]" with the difference from the best run, when there is one."""
    text = f"{cell['value']:.4f}"
    if cell.get("ci95"):
        text += f" [{cell['ci95'][0]:.4f}, {cell['ci95'][1]:.4f}]"
    return text


def versus_best(cell: dict[str, Any], *, digits: int = 3, alone: bool = False) -> str:
    """"best", or the paired difference from the best run (* when its interval excludes 0), with
    that interval and its units unless `alone` (the terminal shows them in columns of their own)."""
    if cell.get("best"):
        return "best"
    diff = cell.get("vs_best")
    if not diff:
        return ""
    said = f"{diff['difference']:+.{digits}f}" + (" *" if diff["significant"] else "")
    if alone:
        return said
    return f"{said} [{diff['low']:+.{digits}f}, {diff['high']:+.{digits}f}] over {diff['n']} {diff['unit']}"


def render(board: dict[str, Any]) -> str:
    sections = []
    for name, task in board["tasks"].items():
        spec = TASKS[name]
        metrics = [m.name for m in spec.metrics if any(m.name in r["metrics"] for r in task["runs"])]
        head = "".join(f'<th class="num">{_e(m)}</th>' for m in metrics)
        rows = []
        for run in task["runs"]:
            cells = []
            for metric in metrics:
                cell = run["metrics"].get(metric)
                if cell is None:
                    cells.append('<td class="num">—</td>')
                    continue
                css = "best" if cell.get("best") else "sig" if cell.get("vs_best", {}).get("significant") else ""
                cells.append(f'<td class="num {css}">{_e(cell_text(cell))}<br><span class="muted">'
                             f'{_e(versus_best(cell))}</span></td>')
            rows.append(f'<tr><td class="num">{_e(run.get("rank", ""))}</td><td>{_e(run["folder"])}</td>'
                        f'<td>{_e(run["model"])}</td><td class="muted">{_e(run["data"])}</td>{"".join(cells)}</tr>')
        sections.append(f'<h2>{_e(spec.mera_name)}</h2><div class="muted">{task["rows"]} rows shared by every run · '
                        f'ranked by {_e(task["ranked_by"])}</div><table><tr><th class="num">rank</th><th>run</th>'
                        f'<th>model</th><th>data</th>{head}</tr>{"".join(rows)}</table>')
    notes = "".join(f'<div class="note">{_e(n)}</div>' for n in board.get("notes", []))
    made = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>merabench leaderboard</title>'
            f'<style>{CSS}</style></head><body><h1>merabench leaderboard</h1><div class="muted">{made} · each value '
            f'with its 95 % bootstrap interval over the rows every run shares; under it the paired difference from '
            f'the best run of that metric, in the metric\'s own unit (*: its interval excludes 0)'
            f'</div>{notes}{"".join(sections)}</body></html>\n')
