"""A readable account of one SAGE example: the three texts and every edit with its verdict."""

from __future__ import annotations

from merabench.tasks.sage.metrics import score_example


def explain(source: str, reference: str, hypothesis: str) -> str:
    result = score_example(source, reference, hypothesis)
    lines = [f"source:     {source!r}", f"reference:  {reference!r}", f"hypothesis: {hypothesis.lstrip()!r}", ""]
    if "note" in result.details:
        lines.append(result.details["note"])
    for title, key in (("reference edits (what should change)", "reference_edits"),
                       ("hypothesis edits (what the model changed)", "hypothesis_edits")):
        edits = result.details.get(key, [])
        lines.append(f"{title}: {len(edits)}")
        for e in edits:
            start, end = e["span"]
            lines.append(f"  {e['verdict']:<2}  {e['type']:<5} tokens {start}-{end}: "
                         f"{e['original']!r} -> {e['correction']!r}")
    lines.append("")
    counts = result.details.get("counts", {})
    for kind, (tp, fp, fn) in counts.items():
        lines.append(f"{kind:<5} TP {tp}  FP {fp}  FN {fn}")
    lines.append("  ".join(f"{name} {value:.4f}" for name, value in result.metrics.items()))
    return "\n".join(lines)
