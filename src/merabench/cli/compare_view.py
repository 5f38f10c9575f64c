"""`merabench compare` in the terminal: tables that fit the width or, where they cannot, the same
figures a record per line; never a number or a name cut to `…`.

Two runs are A and B (named once above the tables): per task, each metric's A, B, B − A and its
95 % interval over its units; GorillaHard also within each lever and answer kind. Three runs or
more: per task and headline metric, the runs ranked, each value with its interval and its paired
difference from the best run. Four decimals from 110 columns, three below.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from merabench.cli.app import escape, say, stdout_console
from merabench.formats.compare_power import said
from merabench.report.leaderboard import versus_best
from merabench.tasks import TASKS

WIDE = 110
PIPED_WIDTH = 80  # piped or redirected, with no $COLUMNS: the width most terminals and viewers show


def _width() -> int:
    """The terminal's width; piped, $COLUMNS or 80 (not the 160 the summary's tables get: these
    tables can always fold into records, and a file of them is read in a terminal later)."""
    console = stdout_console()
    if console.is_terminal:
        return console.width
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) >= 40 else PIPED_WIDTH


def _digits() -> int:
    return 4 if _width() >= WIDE else 3


def _needed(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> int:
    """The width of a table of these cells (no rules): each column's widest cell, and two spaces
    between columns."""
    widths = [max(len(cell) for cell in [c, *(r[k] for r in rows)]) for k, c in enumerate(columns)]
    return sum(widths) + 2 * (len(widths) - 1)  # a space of padding each side of a column, none at the edges


def _stacked(row: Sequence[str], columns: Sequence[str], left: int, width: int) -> list[str]:
    """A row as a record: its label, then `column value` pairs, wrapped between pairs."""
    lines, line = ["  " + "  ".join(c for c in row[:left] if c)], "     "
    for column, value in zip(columns[left:], row[left:], strict=True):
        if not value:
            continue
        pair = f"{column} {value}"
        if len(line) + len(pair) + 2 > width and line.strip():
            lines.append(line.rstrip())
            line = "     "
        line += pair + "   "
    return [*lines, line.rstrip()] if line.strip() else lines


def _print_fitted(renderable: Any) -> None:
    """`renderable` laid out to the width, each line without the blanks rich pads it with."""
    console = stdout_console()
    with console.capture() as captured:
        console.print(renderable, width=_width())
    console.file.write("".join(line.rstrip() + "\n" for line in captured.get().splitlines()))


def show(title: str, columns: Sequence[str], rows: Sequence[Sequence[str]], *, left: int = 1) -> None:
    """A table when it fits the terminal (the first `left` columns left-aligned), else each row as a
    record of `column value` pairs; never a cell cut."""
    console = stdout_console()
    if _needed(columns, rows) <= _width():
        from rich.table import Table

        table = Table(title=escape(title), title_justify="left", box=None, padding=(0, 1), pad_edge=False,
                      header_style="bold underline")
        for k, column in enumerate(columns):
            table.add_column(escape(column), justify="left" if k < left else "right", no_wrap=True)
        for row in rows:
            table.add_row(*(escape(cell) for cell in row))
        _print_fitted(table)
        return
    console.print(escape(title), highlight=False, soft_wrap=True)
    for row in rows:
        for line in _stacked(row, columns, left, _width()):
            console.print(escape(line), highlight=False, soft_wrap=True)


def _num(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "—"
    return f"{value:+.{_digits()}f}" if signed else f"{value:.{_digits()}f}"


def _interval(low: float | None, high: float | None, signed: bool = True) -> str:
    return "—" if low is None or high is None else f"{_num(low, signed)} … {_num(high, signed)}"


def print_paired(result: dict[str, Any]) -> None:
    for side, folder in (("A", result["first"]), ("B", result["second"])):
        stdout_console().print(escape(f"{side} = {folder}"), highlight=False, soft_wrap=True)
    wide = _width() >= WIDE
    for task, metrics in result["tasks"].items():
        from merabench.formats.compare import headline_first

        rows = []
        for name in headline_first(task, metrics):
            m = metrics[name]
            significant = m["low"] > 0 or m["high"] < 0
            row = [name, f"{m['n']} {m['unit']}", _num(m["first"]), _num(m["second"]),
                   _num(m["difference"], True) + (" *" if significant else ""), _interval(m["low"], m["high"])]
            if wide:
                row += ["" if m["second_better"] is None else str(m["second_better"]),
                        "" if m["first_better"] is None else str(m["first_better"])]
            rows.append(row)
        columns = ["metric", "over", "A", "B", "B − A", "95 % interval"] + (["B better", "A better"] if wide else [])
        show(f"{task}: B minus A", columns, rows)
        _print_breakdowns(task, result)
    stdout_console().print("* the interval excludes 0")
    _print_power(result.get("power") or {})
    for note in result["notes"]:
        say(f"note: {note}")


def _print_power(powers: dict[str, Any]) -> None:
    """Per task and headline metric, what the comparison could see, and what a target would take."""
    lines = [(f"{task} {metric}", entry) for task, metrics in powers.items() for metric, entry in metrics.items()]
    if not lines:
        return
    _print_fitted("what these runs can tell apart (5 % two-sided, 80 % power):")
    for label, entry in lines:
        words = said(entry, _digits())
        _print_wrapped(f"{label}: {words['sentence']}", "  ", "      ")
        if "advice" in words:
            _print_wrapped(words["advice"], "    ", "      ")


def _print_wrapped(text: str, first: str, rest: str) -> None:
    """A paragraph wrapped between words to the width, its later lines indented under the first."""
    import textwrap

    for line in textwrap.wrap(text, _width(), initial_indent=first, subsequent_indent=rest, break_long_words=False):
        stdout_console().print(escape(line), highlight=False, soft_wrap=True)


def _print_breakdowns(task: str, result: dict[str, Any]) -> None:
    """Per lever and per answer kind (GorillaHard), the headline metric paired within each label."""
    within = result.get("breakdowns", {}).get(task)
    if not within:
        return
    modes = result.get("tool_modes", {}).get(task)
    sides = [f"A ({modes[0]})", f"B ({modes[1]})"] if modes else ["A", "B"]
    for dimension, cells in within.items():
        if dimension == "metric":
            continue
        rows = [[label, str(c["n"]), _num(c["first"]), _num(c["second"]),
                 _num(c["difference"], True) + (" *" if c["low"] is not None and (c["low"] > 0 or c["high"] < 0) else ""),
                 _interval(c["low"], c["high"])] for label, c in cells.items()]
        show(f"{task} {within['metric']} by {dimension.replace('_', ' ')}: B minus A",
             [dimension.replace("_", " "), "rows", *sides, "B − A", "95 % interval"], rows)


def print_leaderboard(result: dict[str, Any]) -> None:
    for name, task in result["tasks"].items():
        metrics = [m.name for m in TASKS[name].metrics if any(m.name in r["metrics"] for r in task["runs"])]
        runs = task["runs"]
        stdout_console().print(escape(f"{name}: {task['rows']} rows shared by every run"), highlight=False)
        for run in runs:  # a folder whole on its line, to be copied (the terminal wraps a long one)
            stdout_console().print(escape(f"  {run['folder']} = {run['model']} on {run['data']}"), highlight=False,
                                   soft_wrap=True)
        for metric in metrics:
            ranked = sorted(runs, key=lambda r: r.get("rank", 0)) if metric == task["ranked_by"] else runs
            rows = []
            for run in ranked:
                cell = run["metrics"].get(metric)
                if not cell:
                    continue
                ci = cell.get("ci95") or [None, None]
                diff = cell.get("vs_best") or {}
                rows.append([str(run.get("rank", "")) if metric == task["ranked_by"] else "", run["folder"],
                             _num(cell["value"]), _interval(ci[0], ci[1], signed=False),
                             versus_best(cell, digits=_digits(), alone=True),
                             _interval(diff.get("low"), diff.get("high")) if diff else ""])
            unit = next((c["vs_best"]["unit"] for r in runs if (c := r["metrics"].get(metric)) and c.get("vs_best")), "")
            show(f"{name} {metric}" + (" (ranked by it)" if metric == task["ranked_by"] else "") +
                 (f", over {unit}" if unit else ""),
                 ["rank", "run", "value", "95 % interval", "− best", "its interval"], rows, left=2)
    _print_fitted("each value with its 95 % interval; − best: the paired difference from the best run "
                  "(*: its interval excludes 0)")
    for note in result["notes"]:
        say(f"note: {note}")
