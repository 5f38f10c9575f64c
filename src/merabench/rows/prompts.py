"""Prompt rendering and chat messages, including dialogue history for multi-turn rows.

Rendering replaces `{name}` with `inputs[name]` literally and in one pass: templates and inputs
hold JSON with other braces, so `str.format` is wrong, and a value that itself contains `{x}` must
not be substituted again. A `{name}` that looks like a placeholder but has no input is an error.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from typing import Any, NotRequired, TypedDict

import orjson

from merabench.errors import DataError
from merabench.rows.row import Row

MAX_HISTORY_TURNS = 8  # MERA's num_fewshot ceiling for dialogue history

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class Message(TypedDict):
    role: str
    content: str
    tool_calls: NotRequired[list[dict[str, Any]]]   # an assistant's calls (native tool calling)
    tool_call_id: NotRequired[str]                  # a tool result: the call it answers


def render(instruction: str, inputs: dict[str, str], *, row_id: object = None) -> str:
    def substitute(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in inputs:
            raise DataError(f"the instruction uses {{{name}}} but inputs has no '{name}'",
                            row_id=row_id, field=f"inputs.{name}")
        return inputs[name]

    return _PLACEHOLDER.sub(substitute, instruction)


def render_row(row: Row) -> str:
    return render(row.instruction, dict(row.inputs), row_id=row.id)


class HistoryIndex:
    """Earlier dialogue turns from `shots`, found by (dialog_id, wording)."""

    def __init__(self, shots: Iterable[Row]) -> None:
        self._turns: dict[tuple[str, object], dict[int, Row]] = {}
        for row in shots:
            dialog_id = row.meta.get("dialog_id")
            if dialog_id is None or "turn_id" not in row.meta:
                continue
            key = (str(dialog_id), row.meta.get("wording"))
            self._turns.setdefault(key, {})[int(row.meta["turn_id"])] = row

    def earlier_turns(self, row: Row) -> list[Row]:
        """The turns before `row` in its dialogue, oldest first; [] for single-turn rows.

        Raises DataError if any earlier turn is missing: a dialogue turn asked without its
        history measures something else, so it is never sent that way.
        """
        turn_id = int(row.meta.get("turn_id") or 0)
        if turn_id <= 0 or row.meta.get("dialog_id") is None:
            return []
        key = (str(row.meta["dialog_id"]), row.meta.get("wording"))
        known = self._turns.get(key, {})
        missing = [t for t in range(turn_id) if t not in known]
        if missing:
            raise DataError(f"dialogue {key[0]!r} (wording {key[1]}) lacks earlier turn(s) "
                            f"{missing} in the shots split", row_id=row.id, field="meta.dialog_id")
        return [known[t] for t in range(turn_id)]


def build_messages(row: Row, history: Sequence[Row] = (), *, system_prompt: str | None = None) -> list[Message]:
    """System prompt, then each earlier turn as (bare question, reference), then the full prompt.

    Only the last MAX_HISTORY_TURNS earlier turns are kept. The earlier user turns hold the bare
    `inputs.question` (not their rendered prompt), as the public harness does.
    """
    messages: list[Message] = []
    if system_prompt:
        messages.append({"role": "system", "content": system_prompt})
    for turn in list(history)[-MAX_HISTORY_TURNS:]:
        question = turn.inputs.get("question")
        if question is None:
            raise DataError("a dialogue history turn needs inputs.question", row_id=turn.id,
                            field="inputs.question")
        messages.append({"role": "user", "content": question})
        messages.append({"role": "assistant", "content": turn.outputs})
    messages.append({"role": "user", "content": render_row(row)})
    return messages


def messages_digest(messages: Sequence[Message]) -> str:
    """sha256 of the message list: the identity of a request's content."""
    return hashlib.sha256(orjson.dumps(list(messages), option=orjson.OPT_SORT_KEYS)).hexdigest()


def request_digest(messages: Sequence[Message], tools: Sequence[Any] = (), policy: str = "") -> str:
    """The identity of a request's content: its messages, and with native tool calling the tools
    and the conversation's policy too (text-mode digests are the messages' alone, as ever)."""
    if not tools:
        return messages_digest(messages)
    blob = {"messages": list(messages), "tools": list(tools), "policy": policy}
    return hashlib.sha256(orjson.dumps(blob, option=orjson.OPT_SORT_KEYS)).hexdigest()


def messages_hash(messages: Sequence[Message]) -> str:
    """The short form kept in samples files to tell whether a saved answer is still current."""
    return messages_digest(messages)[:16]
