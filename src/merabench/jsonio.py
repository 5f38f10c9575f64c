"""JSON text -> Python, fast where it can be and as permissive as the json module where it must.

orjson parses several times faster, but it refuses what the json module accepts: lone surrogate
escapes ("\\ud800", which models emit), NaN/Infinity, integers beyond 64 bits. Those texts fall
back to the json module, so a file reads the same whichever parser answered, and a malformed one
gets the json module's message (with its column).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from merabench.errors import DataError


def loads(text: str | bytes) -> Any:
    """Bytes must be UTF-8 (a UnicodeDecodeError says where they are not)."""
    try:
        return orjson.loads(_utf8(text))
    except (orjson.JSONDecodeError, UnicodeEncodeError):  # a lone surrogate: the standard parser takes it
        return json.loads(text.decode("utf-8") if isinstance(text, bytes) else text)


def _utf8(text: str | bytes) -> str | bytes:
    """What orjson should read. A non-ASCII str handed to it keeps a UTF-8 copy of itself for
    the rest of its life (CPython caches the encoding on the object): every row's catalog would
    carry one, 14 MB over a GorillaHard set. A temporary encoding is dropped after the parse."""
    return text if isinstance(text, bytes) or text.isascii() else text.encode("utf-8")


def dumps_kept(obj: Any) -> bytes:
    """orjson's bytes for a value that will be held a while (a request body in flight): orjson
    sizes its buffer generously (about 260 KB for a 26 KB GorillaHard body), so the text is copied
    into a bytes object of its own length and the large buffer dropped at once."""
    return bytes(memoryview(orjson.dumps(obj)))


def json_lines(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, value) for every non-blank line of a JSONL file; a line that is not JSON or not
    UTF-8 is a DataError naming the file, the line and the column. Read as bytes: the parser decodes."""
    with path.open("rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                yield lineno, loads(raw)
            except json.JSONDecodeError as exc:
                raise DataError(f"not valid JSON ({exc.msg} at column {exc.colno})", file=str(path), line=lineno) from None
            except UnicodeDecodeError as exc:
                raise DataError(f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at column {exc.start + 1})",
                                file=str(path), line=lineno) from None
