"""The cost tier a reference picks, recomputed by the card's rule from the written row alone: of
two catalog tools with the same capability (the same description and parameters) that differ in
one caveat, cheap against dear, the dear one only where the question asks for what its caveat
alone offers (accuracy, access at once), the cheap one where it asks for cheapness. Independent of
the maker: the pair comes from the row's catalog, the side from the question's words (the cues
kept beside the cost-pick wordings, in families/choices.py, so a new wording cannot go unread).
"""

from __future__ import annotations

import json
import re
from typing import Any

from merabench.rows.row import Row
from merabench.tasks.gorillahard.generator.checks.rows import (
    Check,
    catalog_of,
    first_failures,
    reference_of,
    steps,
)
from merabench.tasks.gorillahard.generator.families.choices import CHEAP_CUES, DEAR_CUES

CAVEAT = "ограничения"
_PRICE = re.compile(r"^(Дёшево|Дорого) \((\d+(?:,\d+)?) ₽")


def _price(tool: dict[str, Any]) -> float | None:
    caveat = tool.get("constraints", {}).get(CAVEAT, "")
    found = _PRICE.match(caveat) if isinstance(caveat, str) else None
    return float(found.group(2).replace(",", ".")) if found else None


def cost_pairs(catalog: list[dict[str, Any]]) -> dict[str, tuple[str, str]]:
    """{tool: (cheap, dear)} for each catalog tool with a twin of the same capability that the
    caveat's price alone tells apart."""
    out: dict[str, tuple[str, str]] = {}
    priced = [(t, price) for t in catalog if (price := _price(t)) is not None]
    for a, price_a in priced:
        for b, price_b in priced:
            same = (a["description"], json.dumps(a.get("parameters"), sort_keys=True)) == (
                b["description"], json.dumps(b.get("parameters"), sort_keys=True))
            if a is not b and same and price_a < price_b:
                out[a["name"]] = out[b["name"]] = (a["name"], b["name"])
    return out


def check_tiers(rows: list[Row]) -> Check:
    """Each reference call of a same-capability pair's tool is the side the card's rule picks, and
    a row is labelled cost_pick exactly when it calls one (the label is what cost_optimal_rate is
    computed over)."""
    wrong = []
    picks = 0
    for row in rows:
        pairs = cost_pairs(catalog_of(row))
        called = [s["tool"] for s in steps(reference_of(row)) if s.get("tool") in pairs]
        labelled = row.meta["categories"].get("cost_pick") == "yes"
        if labelled != bool(called):
            wrong.append(f"row {row.id}: labelled cost_pick={'yes' if labelled else 'no'}, but its reference calls "
                         + (f"{', '.join(called)}, of a same-capability pair" if called else
                            "no tool of a same-capability pair"))
        question = row.inputs["question"]
        # what the question says it needs, by the cues kept beside the wordings that say them
        cheap, dear = bool(CHEAP_CUES.search(question)), bool(DEAR_CUES.search(question))
        for tool in called:
            picks += 1
            low, high = pairs[tool]
            if cheap == dear:
                wrong.append(f"row {row.id}: the question asks {'for both' if cheap else 'for neither'} of "
                             f"cheapness and what {high} alone offers, and the reference calls {tool}")
                continue
            expected = low if cheap else high
            if tool != expected:
                wrong.append(f"row {row.id}: the question asks for {'cheapness' if cheap else 'what only ' + high + ' offers'}"
                             f", the card's rule picks {expected}, the reference calls {tool}")
    return Check("tiers_by_rule", not wrong, first_failures(wrong) or
                 f"{picks} calls of a same-capability pair, each on the side the question's need picks")
