"""The red-team solver scored by the real scorer: the headline metrics and the pass rate per lever."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from merabench.rows import Row
from merabench.tasks.gorillahard.generator import redteam


def scores(rows: Sequence[Row], shots: Sequence[Row] = (), *, leave_out: str = "") -> dict[str, Any]:
    """sample_pass_rate, balance_score, dialog_pass_rate and the per-lever pass rates."""
    from merabench.tasks.gorillahard.task import GorillaHardTask

    task = GorillaHardTask()
    answers = redteam.answers(rows, shots, leave_out=leave_out)
    scored = [task.score(row, answers[row.id]) for row in rows]
    total = task.aggregate(rows, scored)
    levers = total.breakdowns["lever"].rows
    return {"metrics": dict(total.metrics),
            "levers": {name: (cell["n"], cell["sample_pass_rate"]) for name, cell in levers.items()},
            "passed": {row.id: s.metrics.get("sample_pass_rate", 0.0) for row, s in zip(rows, scored, strict=True)}}


def report_lines(rows: Sequence[Row], shots: Sequence[Row] = (), *, leave_out: str = "") -> list[str]:
    figures = scores(rows, shots, leave_out=leave_out)
    m = figures["metrics"]
    levers = ", ".join(f"{name} {rate:.2f} ({n})" for name, (n, rate) in
                       sorted(figures["levers"].items(), key=lambda kv: -kv[1][0]))
    return [f"red-team solver: sample_pass_rate {m.get('sample_pass_rate', 0):.3f}, balance_score "
            f"{m.get('balance_score', 0):.3f}, dialog_pass_rate {m.get('dialog_pass_rate', 0):.3f}",
            f"by lever: {levers}"]
