"""JSON text -> Python, fast where it can be and as permissive as the json module where it must.

orjson parses several times faster, but it refuses what the json module accepts: lone surrogate
escapes ("\\ud800", which models emit), NaN/Infinity, integers beyond 64 bits. Those texts fall
back to the json module, so a file reads the same whichever parser answered, and a malformed one
gets the json module's message (with its column).

Nesting deeper than orjson's limit (1,024 levels) is refused as malformed, not handed to the json
module (which would recurse until Python's stack gives out): no row, answer or catalog is that deep.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from merabench.errors import DataError, json_problem
from merabench.rows.inputfile import not_utf8

MAX_DEPTH = 1024
#: what a lone surrogate escape is, in the line that refuses one
LONE_SURROGATE = "a lone surrogate escape (\\ud800-\\udfff), which is no character"
_SURROGATE = re.compile("[\ud800-\udfff]")


def loads(text: str | bytes, *, text_only: bool = False, constants: bool = False) -> Any:
    """Bytes must be UTF-8 (a UnicodeDecodeError says where they are not). `text_only`: a string
    holding a lone surrogate escape is refused (rows are text to send; an answer may hold one).
    `constants`: NaN, Infinity and -Infinity are read as floats, not refused (a reply body's
    counters; never a row's). A leading UTF-8 byte order mark (Windows editors write one) is
    skipped."""
    text = _without_bom(text)
    try:
        data = _utf8(text)
        if not _long_digits(data):  # orjson reads an integer past 64 bits as a float: 10**30 -> 1e+30
            return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if str(exc).startswith("depth limit exceeded"):
            doc = exc.doc if isinstance(exc.doc, str) else bytes(exc.doc).decode("utf-8", "replace")
            raise json.JSONDecodeError(f"nested deeper than {MAX_DEPTH} levels", doc, exc.pos) from None
    except UnicodeEncodeError:  # a lone surrogate in a str: the standard parser takes it
        pass
    doc = text.decode("utf-8") if isinstance(text, bytes) else text
    try:
        value = json.loads(doc, parse_constant=None if constants else _no_constant)
    except json.JSONDecodeError:
        raise
    except _NotJson as exc:
        raise json.JSONDecodeError(str(exc), doc, doc.find(exc.literal)) from None
    except ValueError:  # an integer past Python's 4,300-digit conversion limit: malformed here too
        limit = sys.get_int_max_str_digits()
        digits = re.search(rf"\d{{{limit},}}", doc)
        raise json.JSONDecodeError(f"a number of more than {limit:,} digits", doc,
                                   digits.start() if digits else 0) from None
    if text_only and _has_lone_surrogate(value):
        raise json.JSONDecodeError(f"a string holds {LONE_SURROGATE}",
                                   text if isinstance(text, str) else text.decode("utf-8"), 0)
    return value


#: a run of digits that may be an integer orjson cannot hold (19 digits: 2**63 has 19); such a
#: text (rare: long numbers, or digits inside a string) goes to the standard parser, which is exact
_DIGITS_AS_ZEROS = bytes(ord("0") if 0x30 <= i <= 0x39 else ord(" ") for i in range(256))
_DIGITS_WINDOW = 1 << 20


def _long_digits(data: str | bytes) -> bool:
    """Whether `data` (bytes, or an ASCII str: what _utf8 gives) holds 19 digits in a row: mapped
    to zeros and searched, ten times faster than a pattern (it runs on every reply and row). A long
    text is mapped a window at a time (a run across two windows is in the first's overlap), so a
    line of 30 MB is not copied whole."""
    raw = data.encode("ascii") if isinstance(data, str) else data
    if len(raw) <= _DIGITS_WINDOW:
        return b"0" * 19 in raw.translate(_DIGITS_AS_ZEROS)
    return any(b"0" * 19 in raw[at:at + _DIGITS_WINDOW + 18].translate(_DIGITS_AS_ZEROS)
               for at in range(0, len(raw), _DIGITS_WINDOW))


class _NotJson(ValueError):
    def __init__(self, literal: str) -> None:
        super().__init__(f"{literal} is not a JSON value")
        self.literal = literal


def _no_constant(name: str) -> None:
    """NaN, Infinity and -Infinity are no JSON (the standard parser takes them; orjson does not)."""
    raise _NotJson(name)


def _without_bom(text: str | bytes) -> str | bytes:
    if isinstance(text, bytes):
        return text[3:] if text.startswith(b"\xef\xbb\xbf") else text
    return text[1:] if text.startswith("\ufeff") else text


def _has_lone_surrogate(value: Any) -> bool:
    """Whether a decoded value holds a string with a lone surrogate (checked only where orjson,
    which refuses them, did not parse)."""
    return _any_scalar(value, lambda item: isinstance(item, str) and has_lone_surrogate(item))


def has_non_finite(value: Any) -> bool:
    """Whether a decoded value holds NaN or an infinity (what `loads(..., constants=True)` lets in)."""
    return _any_scalar(value, lambda item: isinstance(item, float) and not math.isfinite(item))


def _any_scalar(value: Any, test: Callable[[Any], bool]) -> bool:
    """Whether `test` holds for a key or a scalar anywhere in a decoded value (no recursion)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif test(item):
            return True
    return False


def has_lone_surrogate(text: str) -> bool:
    """Whether a string holds a lone surrogate (searched, not encoded: no copy of a long text)."""
    return not text.isascii() and _SURROGATE.search(text) is not None


def _utf8(text: str | bytes) -> str | bytes:
    """What orjson should read. A non-ASCII str handed to it keeps a UTF-8 copy of itself for
    the rest of its life (CPython caches the encoding on the object): every row's catalog would
    carry one, 14 MB over a GorillaHard set. A temporary encoding is dropped after the parse."""
    return text if isinstance(text, bytes) or text.isascii() else text.encode("utf-8")


def load_document(data: bytes, *, file: str, text_only: bool = False) -> Any:
    """A whole file's bytes as one JSON value (`loads`); bytes that are not UTF-8 are a DataError
    naming the line, not only the offset."""
    try:
        return loads(data, text_only=text_only)
    except UnicodeDecodeError as exc:
        raise not_utf8(exc, file=file) from None


def dumps_kept(obj: Any) -> bytes:
    """orjson's bytes for a value that will be held a while (a request body in flight): orjson
    sizes its buffer generously (about 260 KB for a 26 KB GorillaHard body), so the text is copied
    into a bytes object of its own length and the large buffer dropped at once."""
    return bytes(memoryview(orjson.dumps(obj)))


def nested_deeper_than(value: Any, levels: int) -> bool:
    """Whether a parsed value nests objects or arrays more than `levels` deep (a scalar is 0 deep,
    `{}` 1), found without recursion and without looking further down than `levels`."""
    todo = [(value, 0)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, dict | list):
            if depth == levels:
                return True
            todo.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return False


class _Syntax(str):
    """A piece of JSON punctuation on dumps_any_depth's stack (a string value is a plain str)."""


def dumps_any_depth(value: Any) -> str:
    """Compact JSON text of a parsed value however deep it nests, non-ASCII kept, written without
    recursion: json.dumps recurses once a level (Python's stack gives out near 1,000 levels) and
    orjson.dumps refuses more than 255."""
    out: list[str] = []
    todo: list[Any] = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, _Syntax):
            out.append(item)
        elif isinstance(item, dict):  # pushed last to first: popped as "{", key, value, ",", ... "}"
            todo.append(_Syntax("}"))
            for n, (key, child) in reversed(list(enumerate(item.items()))):
                todo += [child, _Syntax(json.dumps(str(key), ensure_ascii=False) + ":"), *([_Syntax(",")] if n else [])]
            todo.append(_Syntax("{"))
        elif isinstance(item, list):
            todo.append(_Syntax("]"))
            for n, child in reversed(list(enumerate(item))):
                todo += [child, *([_Syntax(",")] if n else [])]
            todo.append(_Syntax("["))
        else:
            out.append(json.dumps(item, ensure_ascii=False))
    return "".join(out)


def json_lines(path: Path, *, text_only: bool = False) -> Iterator[tuple[int, Any]]:
    """(line number, value) for every non-blank line of a JSONL file; a line that is not JSON or not
    UTF-8 is a DataError naming the file, the line and the column. Read as bytes: the parser decodes."""
    with path.open("rb") as fh:
        yield from lines_of(fh, file=str(path), text_only=text_only)


def lines_of(raw_lines: Iterable[bytes], *, file: str, text_only: bool = False) -> Iterator[tuple[int, Any]]:
    """json_lines over lines already at hand (a pipe read whole)."""
    for lineno, raw in enumerate(raw_lines, start=1):
        if not raw or raw.isspace():  # blank (strip() would copy a long line to say so)
            continue
        try:
            yield lineno, loads(raw, text_only=text_only)
        except json.JSONDecodeError as exc:
            raise DataError(f"not valid JSON ({json_problem(exc)} at column {exc.colno})", file=file,
                            line=lineno) from None
        except UnicodeDecodeError as exc:
            raise not_utf8(exc, file=file, first_line=lineno) from None
