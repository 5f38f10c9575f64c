"""The messages of a native tool-calling request: the task's own wording without the pasted catalog
and format block, and a dialogue's earlier turns replayed as the assistant's tool calls.

The instruction keeps its wording (the seven rules included), `Контекст:` with the files and
`Вопрос:` with the question; the `Инструменты:` and `Формат ответа:` blocks (label and placeholder)
are cut, since the catalog goes as `tools` and the answer is given by calling them. An earlier
turn of a dialogue is its bare question (as in text mode) and then its reference answer as calls:
a call or independent calls as one assistant turn, a plan as one turn per step, a clarification or
refusal as a call to the clarify or abstain tool; each call is followed by its stub result, as the
live conversation has them (runner/tool_loop.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from merabench.errors import DataError
from merabench.models.tool_wire import arguments_text, stub_result
from merabench.rows.prompts import MAX_HISTORY_TURNS, Message, render
from merabench.rows.row import Row
from merabench.tasks.gorillahard.native.tools import ABSTAIN, CLARIFY, api_name

LEFT_OUT = ("tools", "format")


def _block(name: str) -> re.Pattern[str]:
    """A placeholder on its own line, with the label line just above it when there is one."""
    return re.compile(r"(?:[^\n{}]*:[ \t]*\n)?[ \t]*\{" + name + r"\}[ \t]*(?:\n|$)")


_BLOCKS = tuple(_block(name) for name in LEFT_OUT)


def native_instruction(instruction: str) -> str:
    """The instruction without the catalog and format blocks (their labels too)."""
    for block in _BLOCKS:
        instruction = block.sub("", instruction)
    return re.sub(r"\n{3,}", "\n\n", instruction).rstrip("\n")


def native_prompt(row: Row) -> str:
    inputs = {k: v for k, v in row.inputs.items() if k not in LEFT_OUT}
    return render(native_instruction(row.instruction), inputs, row_id=row.id)


def _calls_of(envelope: Any) -> list[list[tuple[Any, Any]]] | None:
    """A reference envelope as the assistant's turns of (tool, args), as the envelope has them (a
    tool may be missing or no string: the caller names it by str()); None when it is none."""
    if not isinstance(envelope, dict):
        return None
    if "tool" in envelope:
        return [[(envelope["tool"], envelope.get("args"))]]
    if isinstance(envelope.get("calls"), list):
        return [[(c.get("tool"), c.get("args")) for c in envelope["calls"] if isinstance(c, dict)]]
    if isinstance(envelope.get("plan"), list):
        return [[(s.get("tool"), s.get("args"))] for s in envelope["plan"] if isinstance(s, dict)]
    if "clarify" in envelope:
        return [[(CLARIFY, {"question": envelope["clarify"]})]]
    if "abstain" in envelope:
        return [[(ABSTAIN, {"reason": envelope.get("reason", "")})]]
    return None


def replayed(turn: Row, sent_as: Mapping[str, str], number: int) -> list[Message]:
    """One earlier turn: its question, then its reference as tool calls with stub results (its
    reference as text when it is not an envelope)."""
    question = turn.inputs.get("question")
    if question is None:
        raise DataError("a dialogue history turn needs inputs.question", row_id=turn.id, field="inputs.question")
    messages: list[Message] = [{"role": "user", "content": question}]
    try:
        turns = _calls_of(json.loads(turn.outputs))
    except (ValueError, RecursionError):
        turns = None
    if not turns:
        return [*messages, {"role": "assistant", "content": turn.outputs}]
    step = 0
    for calls in turns:
        ids = [f"h{number}_{step + k + 1}" for k in range(len(calls))]
        messages.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": i, "type": "function", "function": {"name": sent_as.get(str(tool), api_name(str(tool), set())),
                                                       "arguments": arguments_text(args)}}
            for i, (tool, args) in zip(ids, calls, strict=True)]})
        for i in ids:
            step += 1
            messages.append({"role": "tool", "tool_call_id": i, "content": stub_result(step)})
    return messages


def native_messages(row: Row, history: Sequence[Row], sent_as: Mapping[str, str],
                    system_prompt: str | None = None) -> list[Message]:
    """System prompt, the earlier turns replayed (the last MAX_HISTORY_TURNS), then the prompt.
    `sent_as`: each catalog name by the name it is sent under."""
    messages: list[Message] = [{"role": "system", "content": system_prompt}] if system_prompt else []
    for number, turn in enumerate(list(history)[-MAX_HISTORY_TURNS:], start=1):
        messages += replayed(turn, sent_as, number)
    messages.append({"role": "user", "content": native_prompt(row)})
    return messages
