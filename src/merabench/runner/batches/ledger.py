"""A run folder's batches: what `run --batch` submitted, written the moment it is known.

    <run folder>/batches/b001.json          the record: its state, the input file's and the batch's ids
    <run folder>/batches/b001.ids           the custom ids it asks, one a line (written before the upload)
    <run folder>/batches/b001.input.jsonl   the upload (removed once the batch exists)
    <run folder>/batches/b001.output.jsonl  the batch's output file, once it ended
    <run folder>/batches/b001.errors.jsonl  its error file, when it has one

A record's state only moves on: `uploading` (no batch can exist yet) -> `creating` (the input
file's id is written and the create is about to be sent: a batch may exist whose id was never
written; the next run looks it up by its input file) -> `submitted` (the batch's id, written the
moment the server gave it, before anything else can fail) -> `downloaded` (it ended; its files are
here) -> `settled` (every row it asked has its answer or its failure in the samples files). Each
write replaces the record whole (support/files.py write_atomic), so a kill leaves the old state or the new,
never half of one. Deleting a record's files forgets its batch: its rows are asked again.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal

from merabench.errors import ConfigError, reading
from merabench.support.files import write_atomic

State = Literal["uploading", "creating", "submitted", "downloaded", "settled"]
FileKind = Literal["input", "output", "errors"]  # a batch's files in the folder: b001.input.jsonl, ...
STATES: tuple[State, ...] = ("uploading", "creating", "submitted", "downloaded", "settled")
FOLDER = "batches"


@dataclass(frozen=True)
class BatchRecord:
    """One batch of the run, as far as it got (the module's docstring)."""

    part: str                           # b001, b002, ...: the files' names in the folder
    state: State
    requests: int
    created: float = field(default_factory=time.time)  # when the run began to submit it (Unix time)
    input_file_id: str | None = None
    batch_id: str | None = None
    status: str | None = None           # the server's last word: validating, in_progress, completed, ...
    completed: int = 0
    failed: int = 0
    expires_at: float | None = None
    output_file_id: str | None = None
    error_file_id: str | None = None
    errors: tuple[str, ...] = ()        # why the server failed the whole batch, when it did
    #: the most its requests can use, (prompt, completion) tokens: --max-cost counts it while it runs
    most_tokens: tuple[int, int] = (0, 0)

    @property
    def name(self) -> str:
        """How a line names it: `b001 (batch_abc)`."""
        return f"{self.part} ({self.batch_id})" if self.batch_id else self.part

    def moved(self, **changes: Any) -> BatchRecord:
        return replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "errors": list(self.errors), "most_tokens": list(self.most_tokens)}

    @classmethod
    def from_json(cls, doc: Any, where: Path) -> BatchRecord:
        known = {f.name for f in fields(cls)}
        if not isinstance(doc, dict) or doc.get("state") not in STATES or not isinstance(doc.get("part"), str) \
                or type(doc.get("requests")) is not int:
            raise ConfigError(f"{where} is not a batch record merabench wrote; {_FORGET}")
        values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in doc.items() if k in known}
        return cls(**values)


_FORGET = ("delete it and its b*.ids file to forget that batch (its rows are then asked again; if it runs on the "
           "server, cancel it there)")


class Ledger:
    """The folder's batch records (the module's docstring)."""

    def __init__(self, out_dir: Path) -> None:
        self.folder = out_dir / FOLDER

    def records(self) -> list[BatchRecord]:
        """Every record, oldest first."""
        if not self.folder.is_dir():
            return []
        found = []
        for path in sorted(self.folder.glob("b*.json")):
            with reading(path, "the batch record"):
                try:
                    doc = json.loads(path.read_text(encoding="utf-8"))
                except ValueError:
                    raise ConfigError(f"{path} is cut short or not JSON; {_FORGET}") from None
            found.append(BatchRecord.from_json(doc, path))
        return found

    def next_number(self) -> int:
        """The number of the next part (b001 is 1): past every record's."""
        taken = [int(p.stem[1:]) for p in self.folder.glob("b*.json") if p.stem[1:].isdigit()] if \
            self.folder.is_dir() else []
        return max(taken, default=0) + 1

    def forget(self, record: BatchRecord) -> None:
        """The record and its files removed: its rows are planned again."""
        for path in (self.folder / f"{record.part}.json", self.folder / f"{record.part}.ids",
                     *(self.path(record.part, kind) for kind in ("input", "output", "errors"))):
            path.unlink(missing_ok=True)

    def clear_strays(self) -> None:
        """Input and id files no record names (a run killed while it wrote them)."""
        if not self.folder.is_dir():
            return
        recorded = {p.stem for p in self.folder.glob("b*.json")}
        for path in [*self.folder.glob("b*.ids"), *self.folder.glob("b*.input.jsonl")]:
            if path.name.split(".", 1)[0] not in recorded:
                path.unlink(missing_ok=True)

    def write(self, record: BatchRecord) -> BatchRecord:
        self.folder.mkdir(parents=True, exist_ok=True)
        write_atomic(self.folder / f"{record.part}.json", json.dumps(record.to_json(), indent=1) + "\n")
        return record

    def write_ids(self, part: str, ids: Iterable[str]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        write_atomic(self.folder / f"{part}.ids", (f"{custom_id}\n" for custom_id in ids))

    def ids(self, record: BatchRecord) -> list[str]:
        path = self.folder / f"{record.part}.ids"
        with reading(path, "the custom ids of a batch"):
            return [line for line in path.read_text(encoding="utf-8").splitlines() if line]

    def path(self, part: str, kind: FileKind) -> Path:
        return self.folder / f"{part}.{kind}.jsonl"

    def unsettled(self) -> Iterator[BatchRecord]:
        return (r for r in self.records() if r.state != "settled")


def warn_running(out: Path, say: Callable[[str], None]) -> None:
    """A run without --batch into a folder whose batches are not yet imported: their rows would be
    asked directly and paid twice; said once, the run goes on."""
    try:
        running = [r for r in Ledger(out).unsettled() if r.batch_id]
    except ConfigError:  # a damaged record: the next --batch run says so
        return
    if running:
        say(f"warning: {out} has {len(running)} batch(es) not yet imported ({', '.join(r.name for r in running)}): "
            "this run asks their rows directly, paying for them twice; `run --batch` with this folder imports them")
