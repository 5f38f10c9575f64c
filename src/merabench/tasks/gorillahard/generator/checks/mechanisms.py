"""The validator's guard on the multi-call and plan rows: their mechanisms are drawn per row.

A parallel, plan or approx row decides which calls to make (which hosts, which environments,
which columns, which link, which line, which time-out) by reading its file; that holds only
while the set draws the mechanisms widely: several conditions, layouts and decoys over the host
inventories, several conditions over the flag files, call counts that vary, several link kinds
in the tickets, several settings blamed, several time-out sources. A set where one of them
collapses to a single pattern (a regression to "call once per listed host") fails here.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from merabench.rows.row import Row

HOSTS = ("dns_runbook", "ttl_runbook_hosts", "traceroute_runbook_hosts", "dns_host_list", "ping_listed_hosts",
         "whois_listed_hosts")
FLAGS = ("flag_both_envs", "flag_off_both_envs", "flag_state_both_envs")
COLUMNS = ("two_means", "two_medians", "two_maxima")
# makers -> (derivation key, the fewest distinct values a card-size set must show)
GOALS: dict[str, tuple[tuple[str, ...], str, int]] = {
    # a condition's shape: its attribute, and how it is said (anything but it, a second attribute,
    # as a named host's, as most hosts'); 14 shapes, 13-14 on seeds 100-199. Counted by its first
    # attribute alone (4 of them), a failed check, drawn first on two rows or so, went missing on
    # one set in 30 or so
    "host conditions": (HOSTS, "where", 10), "host layouts": (HOSTS, "layout", 6), "host decoys": (HOSTS, "decoys", 4),
    "flag layouts": (FLAGS, "layout", 5), "flag conditions": (FLAGS, "condition", 4), "flag decoys": (FLAGS, "decoys", 3),
    "column headers": (COLUMNS, "columns", 30), "export links": (("download_then_count", "download_then_sum"), "link", 5),
    "blamed settings": (("blame_then_show",), "constant", 8), "time-out sources": (("unit_conversion",), "source", 5),
}


def _condition_shape(derivation: dict[str, Any]) -> str:
    """'env', 'not env', 'role and check', 'env as host', 'role as most' and so on."""
    attribute = str(derivation["where"][0])
    if derivation.get("negated"):
        return f"not {attribute}"
    if derivation.get("also"):
        return f"{attribute} and {derivation['also'][0]}"
    if derivation.get("anchor"):
        return f"{attribute} as host"
    return f"{attribute} as most" if derivation.get("most") else attribute


def _values(value: Any, key: str) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    return [str(value)]


def drawn_mechanisms(test: list[Row]) -> tuple[list[str], str]:
    """(what falls short of its goal, a summary)."""
    seen: dict[str, Counter[str]] = {name: Counter() for name in GOALS}
    counts: Counter[int] = Counter()
    for row in test:
        derivation = row.meta.get("derivation", {})
        maker = derivation.get("maker")
        for name, (makers, key, _) in GOALS.items():
            if maker in makers and key in derivation:
                seen[name].update([_condition_shape(derivation)] if key == "where" else _values(derivation[key], key))
        if maker in HOSTS + FLAGS:
            counts[len(json.loads(row.outputs).get("calls", []))] += 1
    short = [f"{name}: {len(seen[name])} < {goal}" for name, (_, _, goal) in GOALS.items() if len(seen[name]) < goal]
    if len(counts) < 3:
        short.append(f"calls per host or flag row take {len(counts)} values, fewer than 3")
    summary = ", ".join(f"{name} {len(seen[name])}" for name in GOALS) + \
        f"; calls per row {dict(sorted(counts.items()))}"
    return short, summary
