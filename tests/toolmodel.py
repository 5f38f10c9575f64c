"""A fake model for tests/fakeserver.py that knows a GorillaHard set's references and answers them
in either protocol: as the envelope's text (a text-mode request), or as real `tool_calls` shapes,
step by step (a request that carries `tools`).

The reply is chosen from what an API model sees: the last user message (the prompt) and, for a
native request, the tool names sent and how many tool results follow that message (the step).
Catalog names are found among the sent names the way an API client would guess them (dots and
other characters as underscores), not through merabench's own mapping.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from merabench.rows.prompts import render_row
from merabench.rows.row import Row
from merabench.tasks.gorillahard.native.prompt import native_prompt

DONE = "Готово."


def _guess(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)


def _sent_name(name: str, sent: Sequence[str]) -> str:
    return _guess(name) if _guess(name) in sent else name


def _call(n: int, name: str, args: Any, sent: Sequence[str], *, as_object: bool = False) -> dict[str, Any]:
    arguments = args if as_object else json.dumps(args, ensure_ascii=False)
    return {"id": f"call_{n}", "type": "function", "function": {"name": _sent_name(name, sent), "arguments": arguments}}


def _steps(reference: dict[str, Any], sent: Sequence[str]) -> list[list[dict[str, Any]]]:
    """The reference as the model's replies, each a list of tool calls ([] ends with text)."""
    if "tool" in reference:
        return [[_call(1, reference["tool"], reference["args"], sent)]]
    if "calls" in reference:
        return [[_call(k, c["tool"], c["args"], sent) for k, c in enumerate(reference["calls"], 1)]]
    if "plan" in reference:
        return [[_call(k, s["tool"], s["args"], sent)] for k, s in enumerate(reference["plan"], 1)]
    if "clarify" in reference:
        return [[_call(1, "clarify", {"question": reference["clarify"]}, sent)]]
    return [[_call(1, "abstain", {"reason": reference.get("reason", "")}, sent)]]


@dataclass
class ToolModel:
    """`reply(body)` for FakeServer; `twist(row, steps)` may change the native replies of a row
    (a model's mistakes); every request's body is kept in `bodies`."""

    rows: Sequence[Row]
    twist: Callable[[Row, list[list[dict[str, Any]]]], list[list[dict[str, Any]]]] | None = None
    reasoning: str | None = None
    bodies: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._text = {render_row(r): r for r in self.rows}
        # a dialogue's turn may read as another's: told apart by its catalog, as the server sees it
        self._native = {(native_prompt(r), frozenset(_guess(t["name"]) for t in json.loads(r.inputs["tools"]))): r
                        for r in self.rows}

    def reply(self, body: dict[str, Any]) -> Any:
        self.bodies.append(body)
        messages = body["messages"]
        last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
        prompt = messages[last_user]["content"]
        if not body.get("tools"):
            return self._text[prompt].outputs
        sent = [t["function"]["name"] for t in body["tools"]]
        row = self._native[(prompt, frozenset(sent) - {"clarify", "abstain"})]
        steps = _steps(json.loads(row.outputs), sent)
        if self.twist is not None:
            steps = self.twist(row, steps)
        replied = sum(1 for m in messages[last_user + 1:] if m["role"] == "assistant")
        calls = steps[replied] if replied < len(steps) else []
        answer: dict[str, Any] = {"content": None if calls else DONE}
        if calls:
            answer["tool_calls"] = calls
        if self.reasoning:
            answer["reasoning_content"] = self.reasoning
        return answer
