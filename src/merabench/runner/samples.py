"""samples_<task>.jsonl: one line per row, streamed as answers arrive and rewritten sorted, with
the metrics, when the run is scored.

While a run is under way answer records are appended and flushed to the OS after every batch
(so a killed process loses nothing the OS has), and fsync'd at most every second (so a power cut
loses at most that). A crash can leave a partial last line; readers skip it.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeGuard

import orjson

from merabench.records import BASE, Answer, Draw, status_of
from merabench.rows.jsonio import loads
from merabench.support.files import temporary_beside
from merabench.support.redaction import redact

FSYNC_INTERVAL_S = 1.0


def samples_path(out_dir: Path, task_name: str) -> Path:
    return out_dir / f"samples_{task_name}.jsonl"


def dumps(record: Mapping[str, Any]) -> str:
    """A record's JSON line, the run's secrets masked (every samples line is written from here)."""
    try:
        return redact(orjson.dumps(record).decode("utf-8"))
    except TypeError:  # e.g. a lone surrogate in a model's answer, which orjson refuses: keep it escaped
        return redact(json.dumps(record, ensure_ascii=True, separators=(",", ":")))


def read_lines(path: Path) -> Iterable[dict[str, Any]]:
    """Every JSON object line; unreadable lines (a write cut short by a crash) are skipped."""
    if not path.exists():
        return
    with path.open(encoding="utf-8", errors="replace") as fh:
        for text in fh:
            try:
                record = loads(text)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict):
                yield record


def read_records(path: Path, draw: Draw = BASE) -> dict[int, dict[str, Any]]:
    """The last line per id of one draw (for tools that read the scored fields too), each as
    `trusted` makes it; by default the base draw, the answers the leaderboard's protocol asks for."""
    return read_record_draws(path).get(draw, {})


def read_record_draws(path: Path) -> dict[Draw, dict[int, dict[str, Any]]]:
    """read_records for every draw in the file (`run --repeats`, `--wordings all`)."""
    found: dict[Draw, dict[int, dict[str, Any]]] = {}
    for record in map(trusted, read_lines(path)):
        if record is not None:
            found.setdefault(draw_of(record), {})[record["id"]] = record
    return found


def draw_of(record: Mapping[str, Any]) -> Draw:
    """The draw a samples line records (none named: the base draw)."""
    repeat, wording = record.get("repeat"), record.get("wording")
    return Draw(repeat if _index(repeat) else 0, wording if _index(wording) else None)


def _index(value: Any) -> TypeGuard[int]:
    return type(value) is int and value >= 0


#: the largest magnitude a per-row metric may have (F1s, rates, counts): 1e308 is a damaged line
METRIC_BOUND = 1e12


def _measure(value: Any) -> bool:
    # type(), not isinstance: True is no measure; NaN and inf fail the comparison (read per value
    # of every line, twice, by the report)
    return type(value) in (int, float) and -METRIC_BOUND <= value <= METRIC_BOUND


def trusted(record: dict[str, Any]) -> dict[str, Any] | None:
    """A samples line with the types every reader relies on, or None without an integer id. A
    file edited by hand or damaged (metrics a string, a NaN, details a list, output an object,
    status a number) must cost the report or a comparison that row's figures, never a crash:
    metrics keep only their finite numbers (none: the row is unscored), details are an object,
    output, status and error are text or absent."""
    row_id = record.get("id")
    if not isinstance(row_id, int) or isinstance(row_id, bool):
        return None
    metrics = record.get("metrics")
    if metrics is not None:
        if not isinstance(metrics, dict):
            metrics = None
        elif not all(map(_measure, metrics.values())):
            metrics = {k: v for k, v in metrics.items() if _measure(v)}
        record["metrics"] = metrics or None
    if not isinstance(record.get("details"), dict | None):
        record["details"] = {}
    for key in ("output", "status", "error"):
        if not isinstance(record.get(key), str | None):
            record[key] = None if key != "status" else "error"
    if record.get("status") is not None:
        status, record["error"] = status_of(record)
        record["status"] = status.value
    return record


def read_answers(path: Path, draw: Draw = BASE) -> dict[int, Answer]:
    """The last answer record per id of one draw (by default the base draw)."""
    return read_answer_draws(path).get(draw, {})


def read_answer_draws(path: Path) -> dict[Draw, dict[int, Answer]]:
    """The last answer record per id, for every draw in the file."""
    answers: dict[Draw, dict[int, Answer]] = {}
    for line in read_lines(path):
        answer = Answer.from_json(line)
        if answer is not None:
            answers.setdefault(answer.draw, {})[answer.id] = answer
    return answers


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

    def write_many(self, answers: Iterable[Answer]) -> None:
        self._fh.write("".join(dumps(a.to_json()) + "\n" for a in answers))
        self._fh.flush()
        if time.monotonic() - self._last_sync >= FSYNC_INTERVAL_S:
            self.sync()

    def sync(self) -> None:
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._last_sync = time.monotonic()

    def close(self) -> None:
        if not self._fh.closed:
            try:
                self.sync()
            finally:
                with contextlib.suppress(OSError):  # a full disk: the unwritten tail is asked again on resume
                    self._fh.close()


class SamplesFile:
    """The final samples file, written a line at a time to a temporary file that replaces the
    old one only when complete (a reader never sees half of it); `None`: write nothing."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._tmp: Path | None = None
        self._fh: Any = None

    def __enter__(self) -> SamplesFile:
        if self.path is not None:
            self._tmp = temporary_beside(self.path)
            self._fh = self._tmp.open("w", encoding="utf-8", errors="backslashreplace")
        return self

    def write(self, record: Mapping[str, Any]) -> None:
        if self._fh is not None:
            self._fh.write(dumps(record) + "\n")

    def __exit__(self, kind: object, *rest: object) -> None:
        if self._fh is None or self._tmp is None or self.path is None:
            return
        try:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
            if kind is None:
                os.replace(self._tmp, self.path)
        finally:
            with contextlib.suppress(OSError):  # a full disk fails the close's flush again
                self._fh.close()
            self._tmp.unlink(missing_ok=True)


def missing_answers(label: str, failed: Sequence[int], answered_or_failed: int, planned: int | None,
                    unasked: int = 0, *, scoring: bool = False) -> list[str]:
    """What keeps a task's samples from being a complete set of answers, one line each: rows
    without an answer (`unasked` of them never sent: the run stopped early), and rows missing
    from the samples (fewer records than the run planned). `scoring`: the samples of a
    `merabench score` folder, whose missing answers were missing from the predictions."""
    problems = []
    if failed:
        never = f", {unasked} of them never asked" if unasked else ""
        fix = ("the predictions scored into this folder had none for them" if scoring
               else "rerun the same command to retry them")
        problems.append(f"{label}: {len(failed)} row(s) have no answer{never} (first ids: {list(failed)[:5]}); {fix}")
    if isinstance(planned, int) and answered_or_failed < planned:
        problems.append(f"{label}: {answered_or_failed} of {planned} rows answered")
    return problems
