"""samples_<task>.jsonl: the per-row answer records, streamed during a run and rewritten sorted
(with metrics) at its end.

While a run is under way records are appended as they arrive and flushed to the OS after every
batch (so a killed process loses nothing the OS has), and fsync'd at most every second (so a
power cut loses at most that). A crash can leave a partial last line; readers skip it.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

Record = dict[str, Any]

FSYNC_INTERVAL_S = 1.0


def samples_path(out_dir: Path, task_name: str) -> Path:
    return out_dir / f"samples_{task_name}.jsonl"


def dumps(record: Record) -> str:
    try:
        return orjson.dumps(record).decode("utf-8")
    except TypeError:  # e.g. a lone surrogate in a model's answer, which orjson refuses: keep it escaped
        return json.dumps(record, ensure_ascii=True, separators=(",", ":"))


def read_records(path: Path) -> dict[int, Record]:
    """The last record per id; unreadable lines (a write cut short by a crash) are skipped."""
    records: dict[int, Record] = {}
    if not path.exists():
        return records
    with path.open(encoding="utf-8", errors="replace") as fh:
        for text in fh:
            try:
                record = json.loads(text)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict) and isinstance(record.get("id"), int):
                records[record["id"]] = record
    return records


class SampleWriter:
    """Appends records to one samples file; `flush` after each batch, fsync at most every second."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = path.open("a", encoding="utf-8")
        # a crash mid-write leaves a partial line; start ours on a fresh one
        if self._fh.tell() > 0:
            with path.open("rb") as check:
                check.seek(-1, os.SEEK_END)
                if check.read(1) != b"\n":
                    self._fh.write("\n")
        self._last_sync = time.monotonic()

    def write_many(self, records: Iterable[Record]) -> None:
        self._fh.write("".join(dumps(r) + "\n" for r in records))
        self._fh.flush()
        if time.monotonic() - self._last_sync >= FSYNC_INTERVAL_S:
            self.sync()

    def sync(self) -> None:
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._last_sync = time.monotonic()

    def close(self) -> None:
        if not self._fh.closed:
            self.sync()
            self._fh.close()


def write_atomic(path: Path, text: str) -> None:
    """Write via a temporary file and rename, so a reader never sees half a file."""
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def write_final(path: Path, records: Iterable[Record]) -> None:
    write_atomic(path, "".join(dumps(r) + "\n" for r in sorted(records, key=lambda r: r["id"])))
