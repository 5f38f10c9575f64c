"""The answers a run's batches hold, as the runner's AnswerSource (runner/loop.py).

Each downloaded batch's output and error files are read as `import-responses` reads a batch
output (runner/batchfile.py: the same custom ids, the same options tag, the same bodies), so a
batch's answer is a direct answer's equal: the runner stores it in the response cache under the
key a direct request would have (the direct source's `cache_key`), writes it to the samples file,
counts its cost. A reply is filed under its row and the hash of the request it answers, so a
native row's conversation, answered over several batches, is put together again (replay.py).

A row its batch failed (a line of the error file, or none at all: the batch expired, was
cancelled or failed whole) is recorded as failed with the reason; with `--batch-fallback direct`
it is asked at once through the endpoint instead, as are the rows an earlier batch failed. A row
no batch and no fallback covers stays unasked (NotSent): the run stopped at `--max-cost` first.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from merabench.errors import BackendError, DataError, NotSent
from merabench.models.base import Completion, Generating, GenerationOptions
from merabench.records import Draw
from merabench.runner.batches.job import Fallback
from merabench.runner.batches.ledger import BatchRecord, Ledger
from merabench.runner.batches.replay import NextStep, replay
from merabench.runner.batchfile import ImportedSource, parse_custom_id
from merabench.runner.loop import BackendSource
from merabench.runner.work import WorkItem
from merabench.support.redaction import redact_url

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
    #: the share of the prices given that a batch's answers cost (--batch-discount)
    discount: float = 1.0
    #: by row and draw, then by the hash of the request answered: the reply, or why there is none
    answers: dict[Key, dict[str, Completion | str]] = field(default_factory=dict)
    #: rows asked through the endpoint (--batch-fallback direct: an earlier batch failed them)
    ask_directly: set[Key] = field(default_factory=set)
    #: whether a direct request may still be sent (the run's budget)
    may_spend: Callable[[], bool] = lambda: True
    #: rows whose answer or failure the runner was given (written to the samples): a batch
    #: settles once every row of it was, or was answered before (runner/batches/stage.py)
    served: set[Key] = field(default_factory=set)
    #: records whose files could not be read this run: downloaded again by the next
    unreadable: set[str] = field(default_factory=set)
    asked_directly: int = 0

    @property
    def name(self) -> str:
        return self.direct.name

    def cache_key(self, item: WorkItem) -> str | None:
        return self.direct.cache_key(item)  # a direct request's key: the answers are interchangeable

    async def preflight(self) -> list[str]:
        return await self.direct.preflight()

    def load(self, ledger: Ledger, model: str, options: GenerationOptions, say: Callable[[str], None]) -> None:
        """The replies of every downloaded batch not yet settled, oldest first (a later batch's
        reply to a request replaces an earlier's: requests are sent again only after they failed)."""
        self.answers.clear()
        for record in ledger.unsettled():
            if record.state != "downloaded":
                continue
            try:
                found = self._read(ledger, record, model, options)
            except DataError as exc:
                found, ended = {}, f"the output of batch {record.name} could not be read: {exc}"
                self._unreadable(ledger, record, exc, say)
            else:
                ended = _ended(record)
            for custom_id in ledger.ids(record):
                parsed = parse_custom_id(custom_id)
                if parsed is not None:
                    key = (parsed[0], parsed[1], parsed[4])
                    got = found.get(key)
                    self.answers.setdefault(key, {})[parsed[2]] = got[1] if got and got[0] == parsed[2] else ended

    def _read(self, ledger: Ledger, record: BatchRecord, model: str,
              options: GenerationOptions) -> dict[Key, tuple[str, Completion | str]]:
        found: dict[Key, tuple[str, Completion | str]] = {}
        endpoint = f"{self._url} (batch {record.batch_id})"
        for kind in ("errors", "output"):  # an answer in the output file wins over an error line
            path = ledger.path(record.part, kind)
            if path.exists() and path.stat().st_size:
                for key, (digest, answer) in ImportedSource.read(path, model, options).answers.items():
                    found[key] = (digest, dataclasses.replace(answer, endpoint=endpoint, attempts=1,
                                                              price_share=self.discount)
                                  if isinstance(answer, Completion) else answer)
        return found

    def _unreadable(self, ledger: Ledger, record: BatchRecord, exc: DataError, say: Callable[[str], None]) -> None:
        ledger.write(record.moved(state="submitted"))  # the next run downloads it again
        self.unreadable.add(record.part)
        say(f"{record.name}: its files cannot be read ({exc}); its {record.requests:,} row(s) are recorded as failed "
            "for now and not sent again: the next run downloads the files again (to ask the rows in a new batch "
            f"instead, delete {record.part}.json and {record.part}.ids from {ledger.folder})")

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
        replies = self.answers.get(key)
        if not replies:
            if key in self.ask_directly:
                return await self._directly(item, may_send)
            raise NotSent("not submitted in a batch")  # left out by --max-cost: it stays unasked
        try:
            return self._from(replies, item)
        except BackendError:
            if self.fallback == "direct":
                return await self._directly(item, may_send)
            raise

    @staticmethod
    def _from(replies: dict[str, Completion | str], item: WorkItem) -> Completion:
        """The row's answer from its replies: its one reply, or its conversation put together."""
        if item.tools is not None:
            outcome = replay(item, replies)
            if isinstance(outcome, NextStep):
                raise NotSent(f"step {outcome.step} of its conversation was not submitted")  # --max-cost
            return outcome
        answer = replies.get(item.messages_hash)
        if answer is None:
            raise BackendError("its batch answered another prompt than this row's (the data changed since it was "
                               "submitted)", retryable=False)
        if isinstance(answer, str):
            raise BackendError(answer, retryable=False)
        return answer

    async def _directly(self, item: WorkItem, may_send: Callable[[], bool]) -> Completion:
        self.asked_directly += 1
        return await self.direct.complete(item, lambda: may_send() and self.may_spend())

    @property
    def _url(self) -> str:
        urls = getattr(self.direct.backend, "urls", None) or ["the endpoint"]
        return redact_url(urls[0])

    def notes(self) -> list[str]:
        if not self.asked_directly:
            return []
        return [f"{self.asked_directly:,} row(s) a batch failed were asked directly (--batch-fallback direct)",
                *self.direct.notes()]

    def run_facts(self) -> dict[str, Any]:
        return self.direct.run_facts() if self.asked_directly else {}

    def generating(self) -> Generating | None:
        return None

    async def aclose(self) -> None:
        await self.direct.aclose()


def _ended(record: BatchRecord) -> str:
    """Why a request of this batch has no line in its files."""
    why = f": {'; '.join(record.errors)}" if record.errors else ""
    return f"batch {record.name} ended {record.status} without answering it{why}"
