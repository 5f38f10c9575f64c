"""The files of a local copy of the public SAGE benchmark's pairs (`--data sage=spellcheck:PATH`):
JSONL, JSON, CSV or parquet.

Each file is read whole through the guarded input of `--data` (rows/inputfile.py: a pipe nobody
writes, a device, a file past the size cap are refused by name) and its text decoded with the
same UTF-8 check. Every entry comes back with where it is, so a problem with it is one line
naming the file and the line (JSONL, CSV) or the entry (a JSON list, a parquet table).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from merabench.errors import DataError, reading
from merabench.rows.inputfile import read_input, utf8_text
from merabench.rows.jsonio import lines_of, load_document

SUFFIXES = (".jsonl", ".json", ".csv", ".parquet")
COLUMNS = ("source", "correction")
#: a CSV field's longest text, in characters: the csv module's own limit (128 Ki) refuses long texts
#: that are real, while no cap at all lets one unclosed quote swallow the file into one field
CSV_FIELD_MAX = 16 << 20
_JSON_LIST = re.compile(rb"(\xef\xbb\xbf)?\s*\[")  # the hub's .json files are JSON lines; a local one may be a list


@dataclass(frozen=True)
class Entry:
    """One entry of a pair file as read (a pair when it is an object with string `source` and
    `correction`), and where it is."""

    value: Any
    file: str
    line: int | None = None   # in a JSONL or CSV file
    place: str | None = None  # elsewhere: "entry 3" of a JSON list, "row 3" of a parquet table or a hub split

    def refused(self, reason: str) -> DataError:
        return DataError(reason if self.place is None else f"{self.place}: {reason}", file=self.file, line=self.line)


def read_pair_file(path: Path) -> list[Entry]:
    """Every entry of one pair file, picked by its suffix (one of SUFFIXES)."""
    data, file = read_input(path), str(path)
    with reading(path):
        if path.suffix == ".parquet":
            return _parquet_entries(data, file)
        if path.suffix == ".csv":
            return _csv_entries(utf8_text(data, file=file), file)
        if path.suffix == ".json" and _JSON_LIST.match(data):
            doc = load_document(data, file=file)
            return [Entry(value, file, place=f"entry {n}") for n, value in enumerate(doc)]
        return [Entry(value, file, line=n) for n, value in lines_of(data.splitlines(), file=file)]


def check_columns(names: list[str], file: str, line: int | None = None) -> None:
    """A table (CSV, parquet) without a `source` or `correction` column is refused naming the
    columns it has: the usual cause is another dataset's file, or a header spelt otherwise."""
    missing = [name for name in COLUMNS if name not in names]
    if missing:
        has = ", ".join(repr(name) for name in names)[:200] or "none"
        raise DataError(f"has no {' or '.join(repr(m) for m in missing)} column (its columns: {has}); a pair "
                        "file needs 'source' and 'correction'", file=file, line=line)


def _csv_entries(text: str, file: str) -> list[Entry]:
    """The records of a CSV file with a header line, each named by the line it starts on."""
    records = csv.reader(io.StringIO(text, newline=""))
    entries = []
    with _csv_fields_up_to(CSV_FIELD_MAX):
        try:
            header = next(records, None)
            if header is None:
                return []
            check_columns(header, file, line=1)
            while True:
                start = records.line_num + 1
                record = next(records, None)
                if record is None:
                    return entries
                if record:  # a blank line is no record
                    entries.append(Entry(dict(zip(header, record, strict=False)), file, line=start))
        except csv.Error as exc:
            raise DataError(f"not readable as CSV ({exc})", file=file, line=records.line_num) from None


@contextlib.contextmanager
def _csv_fields_up_to(limit: int) -> Iterator[None]:
    """The csv module's field limit is one for the whole process: raised for this read only."""
    before = csv.field_size_limit(limit)
    try:
        yield
    finally:
        csv.field_size_limit(before)


def _parquet_entries(data: bytes, file: str) -> list[Entry]:
    import pyarrow as pa  # heavy, and only for parquet
    import pyarrow.parquet as pq

    try:
        table = pq.ParquetFile(pa.BufferReader(data))
        names = table.schema_arrow.names
        check_columns(names, file)
        values = table.read(columns=[name for name in (*COLUMNS, "domain") if name in names]).to_pylist()
    except (pa.ArrowException, OSError) as exc:
        said = " ".join(str(exc).split()).removeprefix("Could not open Parquet input source '<Buffer>': ")
        raise DataError(f"not a parquet file, or a damaged one ({said[:200] or type(exc).__name__})",
                        file=file) from None
    return [Entry(value, file, place=f"row {n}") for n, value in enumerate(values)]


def described(value: Any) -> str:
    """A JSON value in a few words: "null", "a number: 1", "a string: \"x\"", "a list"."""
    if value is None:
        return "null"
    if isinstance(value, list | dict):  # by kind only: a deeply nested one is not written out again
        return "a list" if isinstance(value, list) else "an object"
    kind = {bool: "a boolean", int: "a number", float: "a number", str: "a string"}.get(type(value), type(value).__name__)
    text = json.dumps(value, ensure_ascii=False, default=str)
    return f"{kind}: {text if len(text) <= 40 else text[:40] + '…'}"
