"""The answers a run's batches hold, as the runner's AnswerSource (runner/loop.py).

Each downloaded batch's output and error files are read as `import-responses` reads a batch
output (formats/batch.py: the same custom ids, the same options tag, the same bodies), so a
batch's answer is a direct answer's equal: the runner stores it in the response cache under the
key a direct request would have (the direct source's `cache_key`), writes it to the samples file,
counts its cost. A row its batch failed (a line of the error file, or none at all: the batch
expired, was cancelled or failed whole) is recorded as failed with the reason; with
`--batch-fallback direct` it is asked at once through the endpoint instead, as are the rows an
earlier batch failed. A row no batch and no fallback covers stays unasked (NotSent): the run
stopped at `--max-cost` before it was submitted.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from merabench.errors import BackendError, DataError, NotSent
from merabench.formats.batch import ImportedSource, parse_custom_id
from merabench.models.base import Completion, Generating, GenerationOptions
from merabench.records import Draw
from merabench.runner.batches.ledger import BatchRecord, Ledger
from merabench.runner.loop import BackendSource
from merabench.runner.redaction import redact_url
from merabench.runner.work import WorkItem

Fallback = Literal["batch", "direct"]
#: a row of a draw: (task, row id, draw)
Key = tuple[str, int, Draw]


def key_of(custom_id: str) -> Key | None:
    parsed = parse_custom_id(custom_id)
    return None if parsed is None else (parsed[0], parsed[1], parsed[4])


@dataclass
class BatchSource:
    """Answers from the folder's batches, and the endpoint itself for what falls back to it."""

    direct: BackendSource
    fallback: Fallback = "batch"
    #: by row and draw: the prompt's hash, the answer or why there is none, and the batch's record
    answers: dict[Key, tuple[str, Completion | str, BatchRecord]] = field(default_factory=dict)
    #: rows asked through the endpoint (--batch-fallback direct: an earlier batch failed them)
    ask_directly: set[Key] = field(default_factory=set)
    #: whether a direct request may still be sent (the run's budget)
    may_spend: Callable[[], bool] = lambda: True
    #: rows whose answer or failure the runner was given (written to the samples): a batch
    #: settles once every row of it was, or was answered before (runner/batches/stage.py)
    served: set[Key] = field(default_factory=set)
    asked_directly: int = 0
    _notes: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.direct.name

    def cache_key(self, item: WorkItem) -> str | None:
        return self.direct.cache_key(item)  # a direct request's key: the answers are interchangeable

    async def preflight(self) -> list[str]:
        return await self.direct.preflight()

    def load(self, ledger: Ledger, model: str, options: GenerationOptions, say: Callable[[str], None]) -> None:
        """The answers of every downloaded batch not yet settled, oldest first (a later batch's
        answer to a row replaces an earlier's: rows are sent again only after they failed)."""
        for record in ledger.unsettled():
            if record.state != "downloaded":
                continue
            try:
                found = self._read(ledger, record, model, options)
            except DataError as exc:
                ledger.write(record.moved(state="submitted"))  # the next run downloads it again
                say(f"{record.name}: its files cannot be read ({exc}); its {record.requests:,} row(s) are recorded "
                    "as failed for now and not sent again: the next run downloads the files again (to ask the rows "
                    f"in a new batch instead, delete {record.part}.json and {record.part}.ids from {ledger.folder})")
                found = {}
                ended = f"the output of batch {record.name} could not be read: {exc}"
            else:
                ended = _ended(record)
            for custom_id in ledger.ids(record):
                key = key_of(custom_id)
                parsed = parse_custom_id(custom_id)
                if key is None or parsed is None:
                    continue
                self.answers[key] = (*found.get(key, (parsed[2], ended)), record)

    @staticmethod
    def _read(ledger: Ledger, record: BatchRecord, model: str,
              options: GenerationOptions) -> dict[Key, tuple[str, Completion | str]]:
        found: dict[Key, tuple[str, Completion | str]] = {}
        for kind in ("errors", "output"):  # an answer in the output file wins over an error line
            path = ledger.path(record.part, kind)  # type: ignore[arg-type]
            if path.exists() and path.stat().st_size:
                found.update(ImportedSource.read(path, model, options).answers)
        return found

    async def complete(self, item: WorkItem, may_send: Callable[[], bool]) -> Completion:
        key = (item.task.name, item.row.id, item.draw)
        try:
            completion = await self._answer(key, item, may_send)
        except BackendError:
            self.served.add(key)  # recorded as failed, with the reason
            raise
        self.served.add(key)
        return completion

    async def _answer(self, key: Key, item: WorkItem, may_send: Callable[[], bool]) -> Completion:
        found = self.answers.get(key)
        if found is None:
            if key in self.ask_directly:
                return await self._directly(item, may_send)
            raise NotSent("not submitted in a batch")  # left out by --max-cost: it stays unasked
        messages_hash, answer, record = found
        if messages_hash != item.messages_hash:
            raise BackendError(f"batch {record.name} answered another prompt than this row's (the data changed "
                               "since it was submitted)", retryable=False)
        if isinstance(answer, str):
            if self.fallback == "direct":
                return await self._directly(item, may_send)
            raise BackendError(answer, retryable=False)
        return dataclasses.replace(answer, endpoint=f"{self._url} (batch {record.batch_id})", attempts=1)

    async def _directly(self, item: WorkItem, may_send: Callable[[], bool]) -> Completion:
        self.asked_directly += 1
        return await self.direct.complete(item, lambda: may_send() and self.may_spend())

    @property
    def _url(self) -> str:
        urls = getattr(self.direct.backend, "urls", None) or ["the endpoint"]
        return redact_url(urls[0])

    def notes(self) -> list[str]:
        direct = f"{self.asked_directly:,} row(s) a batch failed were asked directly (--batch-fallback direct)"
        return self._notes + ([direct] if self.asked_directly else []) + (
            self.direct.notes() if self.asked_directly else [])

    def run_facts(self) -> dict[str, Any]:
        return self.direct.run_facts() if self.asked_directly else {}

    def generating(self) -> Generating | None:
        return None

    async def aclose(self) -> None:
        await self.direct.aclose()


def _ended(record: BatchRecord) -> str:
    """Why a row of this batch has no line in its files."""
    why = f": {'; '.join(record.errors)}" if record.errors else ""
    return f"batch {record.name} ended {record.status} without answering it{why}"
