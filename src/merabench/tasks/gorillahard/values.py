"""Canonical argument values: what counts as the same value when answers are compared.

As the public scorer: booleans and the strings "true"/"false" are one value; numbers and numeric
strings are one value, compared at 12 significant digits (`%.12g`), numeric strings read as
Python's float() reads them ("1_000", "2.5e1", " 5 "); other strings are stripped; objects compare
key by key and lists element by element, in order. The canonical form is hashable, so multisets
of calls compare as Counters.
"""

from __future__ import annotations

from typing import Any

Canonical = tuple


def _number(value: float | int) -> Canonical:
    try:
        return ("num", "%.12g" % value)  # noqa: UP031 - the public scorer's exact formatting
    except OverflowError:  # an integer beyond float range
        return ("num", str(value))


def canonical(value: Any) -> Canonical:
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int | float):
        return _number(value)
    if isinstance(value, str):
        text = value.strip()
        if text in ("true", "false"):
            return ("bool", text == "true")
        try:
            return _number(float(text))
        except ValueError:
            return ("str", text)
    if isinstance(value, dict):
        return ("obj", tuple(sorted((str(k), canonical(v)) for k, v in value.items())))
    if isinstance(value, list):
        return ("list", tuple(canonical(v) for v in value))
    if value is None:
        return ("null",)
    return ("other", repr(value))
