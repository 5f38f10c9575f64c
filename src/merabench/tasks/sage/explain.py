"""A readable account of one SAGE example: the three texts and every edit with its verdict."""

from __future__ import annotations

from merabench.support.think import has_think
from merabench.tasks.sage.edit_notes import describe, why
from merabench.tasks.sage.metrics import score_example


def explain(source: str, reference: str, hypothesis: str) -> str:
    result = score_example(source, reference, hypothesis)
    lines = [f"source:     {source!r}", f"reference:  {reference!r}", f"hypothesis: {hypothesis.lstrip()!r}", ""]
    if "note" in result.details:
        lines.append(result.details["note"])
    lines.extend(result.details.get("bounded", []))
    if has_think(hypothesis):
        lines.append("the hypothesis holds a <think> block: it is scored as text, as the leaderboard's harness does "
                     "(--strip-think removes it first, an extra)")
    for title, key in (("reference edits (what should change)", "reference_edits"),
                       ("hypothesis edits (what the model changed)", "hypothesis_edits")):
        edits = result.details.get(key, [])
        lines.append(f"{title}: {len(edits)}")
        for e in sorted(edits, key=lambda e: tuple(e["span"])):
            lines.append(f"  {e['verdict']:<2}  {describe(e)}")
            lines.extend(f"        {note}" for note in why(e))
    lines.append("")
    counts = result.details.get("counts", {})
    for kind, (tp, fp, fn) in counts.items():
        lines.append(f"{kind:<5} TP {tp}  FP {fp}  FN {fn}")
    lines.append("  ".join(f"{name} {value:.4f}" for name, value in result.metrics.items()))
    return "\n".join(lines)
