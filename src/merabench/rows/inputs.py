"""A row's inputs, with long values kept as pieces shared between rows.

A generated GorillaHard set attaches the same files and the same tool descriptions to many rows:
its 1,169 rows hold about 38 MB of contexts and catalogs (as UCS-2 strings, the files being
mostly ASCII) made of about 2 MB of distinct paragraphs and catalog entries. `compact` cuts a long
value at its blank lines or, a one-line JSON list of objects having none, between the objects;
each piece is interned (one copy for every row that holds it) and the value is joined again when
it is read. The text read back is exactly the text loaded (`sep.join(text.split(sep)) == text`);
a read costs a copy of the value (a few microseconds for a 20 KB context), which no caller keeps.

Rows are loaded whole and compacted later, by a run's warm-up thread while the first requests are
out: cutting a set costs about 0.1 s that the time to the first request should not pay. A reader
meanwhile gets the whole value or the pieces joined, the same text either way (each entry is
replaced by one assignment, atomic under the GIL).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from typing import final

LONG = 2_000                     # shorter values (every SAGE and RussianRegions input) stay whole
SEPARATORS = ("\n\n", "}, {")    # blank lines (files, paragraphs), then a JSON list's objects


@final  # no subclass: `type(value) is _Pieces` (the fast check) then tells mypy the rest are str
class _Pieces:
    __slots__ = ("parts", "sep")

    def __init__(self, sep: str, parts: tuple[str, ...]) -> None:
        self.sep = sep
        self.parts = parts

    def text(self) -> str:
        return self.sep.join(self.parts)


def _pieces(value: str) -> _Pieces | None:
    for sep in SEPARATORS:
        parts = value.split(sep)
        if len(parts) > 1:
            return _Pieces(sep, tuple(map(sys.intern, parts)))
    return None


class Inputs(Mapping[str, str]):
    """Read-only {name: text}, as the row's JSON has it; values must be exact `str`."""

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, str]) -> None:
        # whole values interned: rows repeat a few templates and some inputs (a shared text)
        self._values: dict[str, str | _Pieces] = {sys.intern(k): sys.intern(v) for k, v in values.items()}

    def compact(self) -> None:
        """Keep every long value as shared pieces (see the module)."""
        for name, value in self._values.items():
            if type(value) is str and len(value) >= LONG:
                pieces = _pieces(value)
                if pieces is not None:
                    self._values[name] = pieces

    def parts(self, name: str) -> tuple[str, ...]:
        """The pieces a value is kept as (one: the whole value), joined by its separator."""
        value = self._values[name]
        return value.parts if type(value) is _Pieces else (value,)

    def cut(self, name: str, sep: str) -> tuple[str, ...]:
        """The value split at `sep`: the kept pieces when it is kept cut there (no copy)."""
        value = self._values[name]
        if type(value) is _Pieces:
            return value.parts if value.sep == sep else tuple(value.text().split(sep))
        return tuple(value.split(sep))

    def __getitem__(self, name: str) -> str:
        value = self._values[name]
        return value.text() if type(value) is _Pieces else value

    def __contains__(self, name: object) -> bool:  # Mapping's own would join the value to answer
        return name in self._values

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"Inputs({dict(self)!r})"


def cut(inputs: Mapping[str, str], name: str, sep: str) -> tuple[str, ...]:
    """`inputs[name].split(sep)`, from the kept pieces where there are some (rows built in code
    may hold a plain dict)."""
    return inputs.cut(name, sep) if isinstance(inputs, Inputs) else tuple(inputs[name].split(sep))
