"""A tool call as the chat API carries it: arguments as a JSON string, and the stub result each
step's call is answered with (the native tool loop sends it; a dialogue's history replays it)."""

from __future__ import annotations

import json
from typing import Any


def stub_result(step: int) -> str:
    """What a tool "returned" at a step: a JSON string naming the step's result."""
    return json.dumps(f"${step}")


def arguments_text(arguments: Any) -> str:
    """A call's arguments as the API carries them (a JSON string), whatever the server sent."""
    if isinstance(arguments, str):
        return arguments
    return json.dumps({} if arguments is None else arguments, ensure_ascii=False)
