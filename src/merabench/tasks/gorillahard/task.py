"""GorillaHard: tool selection answered with one JSON envelope (spec/gorillahard.md)."""

from __future__ import annotations

import json
import random

from merabench.rows import Row
from merabench.tasks.base import PlaceholderScorer, Task

# A call to a tool no catalog has: well-formed and wrong on every row.
COPY_ANSWER = json.dumps({"tool": "baseline.noop", "args": {}})


def catalog_tool_names(row: Row) -> list[str]:
    try:
        tools = json.loads(row.inputs.get("tools", "[]"))
    except json.JSONDecodeError:
        return []
    if not isinstance(tools, list):
        return []
    return [t["name"] for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)]


class GorillaHardTask(PlaceholderScorer, Task):
    name = "gorillahard"
    mera_name = "GorillaHard"
    hub_id = "MERA-evaluation/GorillaHard"
    description = "pick tools from a catalog and answer with one JSON envelope; strict deterministic scorer"

    def copy_answer(self, row: Row) -> str:
        return COPY_ANSWER

    def random_answer(self, row: Row, rng: random.Random) -> str:
        names = catalog_tool_names(row)
        if not names:
            return COPY_ANSWER
        return json.dumps({"tool": rng.choice(names), "args": {}}, ensure_ascii=False)
