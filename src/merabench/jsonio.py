"""JSON text -> Python, fast where it can be and as permissive as the json module where it must.

orjson parses several times faster, but it refuses what the json module accepts: lone surrogate
escapes ("\\ud800", which models emit), NaN/Infinity, integers beyond 64 bits. Those texts fall
back to the json module, so a file reads the same whichever parser answered, and a malformed one
gets the json module's message (with its column).
"""

from __future__ import annotations

import json
from typing import Any

import orjson


def loads(text: str | bytes) -> Any:
    """Bytes must be UTF-8 (a UnicodeDecodeError says where they are not)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text.decode("utf-8") if isinstance(text, bytes) else text)
