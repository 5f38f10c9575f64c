"""The red-team solver scored by the real scorer: the headline metrics and the pass rate per lever."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from merabench.rows.row import Row
from redteam import solver as redteam


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


#: the card's bar for a no-model solver; issue 23 found it out of reach of every generator built so far,
#: so the benchmark reports a miss and the validator does not gate on it
REDTEAM_LIMIT = 0.25


def gate_line(rows: Sequence[Row], shots: Sequence[Row], seed: int | None) -> tuple[bool, str]:
    """Whether the solver passes at most REDTEAM_LIMIT of the rows, and the line that says so. Its
    dev seed's set is scored leave-one-out, which is optimistic."""
    dev = seed == redteam.DEV_SEED
    m = scores(rows, shots, leave_out="row" if dev else "")["metrics"]
    rate = m.get("sample_pass_rate", 0.0)
    figures = (f"{rate:.2f}" + (f" on its dev seed {redteam.DEV_SEED}, leave-one-out" if dev else "")
               + f" (balance_score {m.get('balance_score', 0.0):.2f}, dialog_pass_rate "
               f"{m.get('dialog_pass_rate', 0.0):.2f})")
    ok = rate <= REDTEAM_LIMIT
    return ok, f"red-team solver {figures} {'<=' if ok else '>'} {REDTEAM_LIMIT}"
