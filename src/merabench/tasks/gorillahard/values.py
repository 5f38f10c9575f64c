"""Canonical argument values: what counts as the same value when answers are compared.

As the public scorer: a boolean -> "true"/"false"; a number -> `%.12g` of it as a float; a string
-> stripped, then "true"/"false" if it is that in any case (`"TRUE"` == `true`), else `%.12g` of
`float()` of it when Python accepts it (`"5"`, `" 2.5e1 "`, `"1_000"`, `"nan"`), else the
stripped text; an object -> keys sorted, values canonical; a list -> element by element; anything
else (null) -> its `str()`, so `null` equals the string `"None"`.

One deliberate difference: an integer beyond float range makes the public scorer raise
(`OverflowError`) and lose the run; here it stays its exact decimal text.
"""

from __future__ import annotations

import json
from typing import Any


def _number(value: float | int) -> str:
    try:
        return "%.12g" % float(value)  # noqa: UP031 - the public scorer's exact formatting
    except OverflowError:
        return str(value)


def canonical(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return _number(value)
    if isinstance(value, str):
        text = value.strip()
        low = text.lower()
        if low in ("true", "false"):
            return low
        try:
            return _number(float(text))
        except ValueError:
            return text
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return [canonical(v) for v in value]
    return str(value)


def args_equal(answer_args: dict[str, Any], reference_args: dict[str, Any]) -> bool:
    """The same argument names, every value equal after canonicalisation."""
    if set(answer_args) != set(reference_args):
        return False
    return all(canonical(answer_args[k]) == canonical(reference_args[k]) for k in reference_args)


def args_of(step: dict[str, Any]) -> dict[str, Any]:
    """A step's `args`, or {} when they are not an object."""
    args = step.get("args")
    return args if isinstance(args, dict) else {}


def step_key(step: dict[str, Any]) -> str:
    """One call as text, for comparing calls as a multiset (order-insensitive)."""
    return json.dumps({"tool": step.get("tool"), "args": canonical(args_of(step))}, ensure_ascii=False,
                      sort_keys=True)
