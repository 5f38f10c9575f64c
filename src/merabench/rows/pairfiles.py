"""The files of a local copy of the public SAGE benchmark's pairs (`--data sage=spellcheck:PATH`):
JSONL, JSON, CSV or parquet, or the same through a pipe or standard input.

Each file goes through the guarded input of `--data` (rows/inputfile.py: a pipe nobody writes, a
device, a file past the size cap are refused by name) with the same UTF-8 check. A file's format is
its suffix's; a pipe's or standard input's, read once, is sniffed from its bytes (`sniffed`). Every
entry comes back with where it is, so a problem with it is one line naming the file and the line
(JSONL, CSV) or the entry (a JSON list, a parquet table).

Entries come one at a time, and what they were read from is let go as they go: a JSONL file is
read a line at a time, a JSON list's entries and a CSV's text are dropped as they are turned
into entries, a parquet table is read a batch at a time. The pairs' strings are then held once,
by their rows (rows/spellcheck.py), not beside the file's bytes and its parsed copy.
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
from typing import Any, Literal

from merabench.errors import DataError, reading
from merabench.rows.inputfile import check_file, is_stream, read_input, utf8_text
from merabench.rows.jsonio import json_lines, lines_of, load_document

SUFFIXES = (".jsonl", ".json", ".csv", ".parquet")
COLUMNS = ("source", "correction")
#: a CSV field's longest text, in characters: the csv module's own limit (128 Ki) refuses long texts
#: that are real, while no cap at all lets one unclosed quote swallow the file into one field
CSV_FIELD_MAX = 16 << 20
_JSON_LIST = re.compile(rb"(\xef\xbb\xbf)?\s*\[")  # the hub's .json files are JSON lines; a local one may be a list
_JSON_LINES = re.compile(rb"(\xef\xbb\xbf)?\s*(\{|\Z)")  # a JSON object first, or nothing at all
_PARQUET_MAGIC = b"PAR1"
_LINE = re.compile(r"[^\r\n]*(?:\r\n?|\n)|[^\r\n]+")  # a line and its end (\n, \r\n or \r), or the last one without
Format = Literal["jsonl", "json list", "csv", "parquet"]
_BY_SUFFIX: dict[str, Format] = {".jsonl": "jsonl", ".json": "jsonl", ".csv": "csv", ".parquet": "parquet"}


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


def read_pair_file(path: Path) -> Iterator[Entry]:
    """Every entry of one pair file, in order: a file by its suffix (one of SUFFIXES; a .json file
    holds a list or JSON lines); a pipe, standard input or a file of another name (`/dev/stdin`
    given a file) by what its bytes look like."""
    file = str(path)
    with reading(path):
        if is_stream(path) or path.suffix not in SUFFIXES:
            data = read_input(path)
            entries = entries_of(data, sniffed(data), file)
            del data  # held on only by the entries that need it (JSON lines, parquet)
        elif (form := _form_of(path)) == "jsonl":
            check_file(path)
            entries = (Entry(value, file, line=n) for n, value in json_lines(path))  # a line at a time
        else:
            entries = entries_of(read_input(path), form, file)
        yield from entries


def sniffed(data: bytes) -> Format:
    """The format of a pipe's bytes: parquet by its magic bytes, a JSON list by its `[`, JSON lines
    by a first `{` (or no bytes at all), else CSV, whose header must then name the columns."""
    if data.startswith(_PARQUET_MAGIC):
        return "parquet"
    if _JSON_LIST.match(data):
        return "json list"
    return "jsonl" if _JSON_LINES.match(data) else "csv"


def entries_of(data: bytes, form: Format, file: str) -> Iterator[Entry]:
    """The entries of a file's bytes in `form`; only JSON lines and parquet keep `data` while
    they are read."""
    if form == "parquet":
        return _parquet_entries(data, file)
    if form == "csv":
        return _csv_entries(utf8_text(data, file=file), file)
    if form == "json list":
        return _list_entries(load_document(data, file=file), file)
    return (Entry(value, file, line=n) for n, value in lines_of(io.BytesIO(data), file=file))


def _form_of(path: Path) -> Format:
    """A file's format by its suffix; a .json file holds a JSON list (its first bytes say so) or,
    as the hub's do, JSON lines."""
    if path.suffix != ".json":
        return _BY_SUFFIX[path.suffix]
    check_file(path)
    with path.open("rb") as fh:
        return "json list" if _JSON_LIST.match(fh.read(4096)) else "jsonl"


def _list_entries(doc: Any, file: str) -> Iterator[Entry]:
    """A JSON list's entries, each let go by the list once handed on."""
    for n in range(len(doc)):
        value, doc[n] = doc[n], None
        yield Entry(value, file, place=f"entry {n}")


def check_columns(names: list[str], file: str, line: int | None = None) -> None:
    """A table (CSV, parquet) without a `source` or `correction` column is refused naming the
    columns it has: the usual cause is another dataset's file, or a header spelt otherwise."""
    missing = [name for name in COLUMNS if name not in names]
    if missing:
        has = ", ".join(repr(name) for name in names)[:200] or "none"
        raise DataError(f"has no {' or '.join(repr(m) for m in missing)} column (its columns: {has}); a pair "
                        "file needs 'source' and 'correction'", file=file, line=line)


def _csv_entries(text: str, file: str) -> Iterator[Entry]:
    """The records of a CSV file with a header line, each named by the line it starts on. Its
    lines are cut from the text one at a time (a StringIO would hold a copy of 4 bytes a
    character)."""
    records = csv.reader(match.group() for match in _LINE.finditer(text))
    with _csv_fields_up_to(CSV_FIELD_MAX):
        try:
            header = next(records, None)
            if header is None:
                return
            check_columns(header, file, line=1)
            while True:
                start = records.line_num + 1
                record = next(records, None)
                if record is None:
                    return
                if record:  # a blank line is no record
                    yield Entry(dict(zip(header, record, strict=False)), file, line=start)
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


def _parquet_entries(data: bytes, file: str) -> Iterator[Entry]:
    """A parquet table's rows, read a batch at a time."""
    import pyarrow as pa  # heavy, and only for parquet
    import pyarrow.parquet as pq

    n = 0
    try:
        table = pq.ParquetFile(pa.BufferReader(data))
        names = table.schema_arrow.names
        check_columns(names, file)
        for batch in table.iter_batches(columns=[name for name in (*COLUMNS, "domain") if name in names]):
            for value in batch.to_pylist():
                yield Entry(value, file, place=f"row {n}")
                n += 1
    except (pa.ArrowException, OSError) as exc:
        said = " ".join(str(exc).split()).removeprefix("Could not open Parquet input source '<Buffer>': ")
        raise DataError(f"not a parquet file, or a damaged one ({said[:200] or type(exc).__name__})",
                        file=file) from None


def described(value: Any) -> str:
    """A JSON value in a few words: "null", "a number: 1", "a string: \"x\"", "a list"."""
    if value is None:
        return "null"
    if isinstance(value, list | dict):  # by kind only: a deeply nested one is not written out again
        return "a list" if isinstance(value, list) else "an object"
    kind = {bool: "a boolean", int: "a number", float: "a number", str: "a string"}.get(type(value), type(value).__name__)
    text = json.dumps(value, ensure_ascii=False, default=str)
    return f"{kind}: {text if len(text) <= 40 else text[:40] + '…'}"
