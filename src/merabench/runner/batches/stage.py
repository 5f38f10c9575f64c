"""`run --batch` as a stage of the run: inside its folder lock, before the runner (pipeline.py).

1. Bring forward what a killed run left between two steps (submit.bring_forward).
2. Plan the requests the run still needs: formats/batch.py's `request_items`, the bodies and
   custom ids `export-requests` writes, less the rows a batch of the folder holds or runs and the
   rows the response cache answers. With `--batch-fallback direct` the rows an earlier batch
   failed are left to the endpoint instead.
3. Price them at the batch price (`--batch-discount` of the prices given), the most they can
   cost (a prompt's bytes as its tokens, an answer as --max-tokens), and submit no more than
   `--max-cost` leaves room for, beside what the folder's answers and running batches cost.
4. Submit (submit.py), then follow until every batch ended, downloading its files (follow.py).
5. Hand the runner a source that answers from them (source.py); once it wrote their rows, the
   batches are settled and never read again.
"""

from __future__ import annotations

import asyncio
import math
import shlex
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from merabench.errors import ConfigError
from merabench.formats.batch import request_items, served_model
from merabench.formats.samples import read_answer_draws, samples_path
from merabench.models.base import GenerationOptions
from merabench.models.batch_api import BatchClient
from merabench.records import Answer, Draw
from merabench.runner.batches.follow import follow
from merabench.runner.batches.ledger import Ledger
from merabench.runner.batches.source import BatchSource, Fallback, Key, key_of
from merabench.runner.batches.submit import (
    DEFAULT_MAX_MB,
    DEFAULT_MAX_REQUESTS,
    Line,
    bring_forward,
    metadata_for,
    submit,
    write_inputs,
)
from merabench.runner.budget import Budget, Prices
from merabench.runner.cache import ResponseCache
from merabench.runner.usage import TEMPLATE_TOKENS_PER_MESSAGE, sent_bytes
from merabench.runner.work import Asking, TaskRun, WorkItem

CACHE_LOOKUP_BATCH = 256


@dataclass(frozen=True)
class BatchSettings:
    """`run --batch`'s flags."""

    poll_s: float = 60.0
    detach: bool = False
    fallback: Fallback = "batch"
    discount: float = 0.5
    max_requests: int = DEFAULT_MAX_REQUESTS
    max_mb: float = DEFAULT_MAX_MB

    def check(self) -> None:
        """One line for a value no Batch API run can use."""
        if not (math.isfinite(self.poll_s) and self.poll_s > 0):
            raise ConfigError(f"--batch-poll must be a number of seconds above 0, got {self.poll_s:g}")
        if not (math.isfinite(self.discount) and 0 < self.discount <= 1):
            raise ConfigError(f"--batch-discount is the batch price's share of the prices given, above 0 and at most "
                              f"1 (0.5: half price), got {self.discount:g}")
        if self.fallback not in ("batch", "direct"):
            raise ConfigError(f"--batch-fallback must be batch or direct, got {self.fallback!r}")
        if self.max_requests < 1 or not (math.isfinite(self.max_mb) and self.max_mb > 0):
            raise ConfigError("--batch-max-requests and --batch-max-mb must be above 0")

    def prices(self, given: Prices | None) -> Prices | None:
        """The batch price: the prices given, times the discount."""
        if given is None:
            return None
        return Prices(given.input_per_million * self.discount, given.output_per_million * self.discount)

    def recorded(self) -> dict[str, object]:
        """What results.json's settings say of it."""
        return {"discount": self.discount, "fallback": self.fallback, "max_requests": self.max_requests,
                "max_mb": self.max_mb}


@dataclass(frozen=True)
class BatchJob:
    """What the stage needs of the run."""

    settings: BatchSettings
    model: str                         # openai:<name>
    options: GenerationOptions
    system_prompt: str | None
    asking: Asking
    out: Path
    base_url: str
    api_key: str | None
    max_retries: int = 5
    timeout_s: float = 600.0
    retry_delay_s: float = 1.0
    command: tuple[str, ...] = ()     # the CLI's arguments: the line that continues a detached run

    def continue_with(self) -> str:
        if not self.command:
            return "to continue: the same run again without detach (it waits, imports and scores)"
        words = [w for w in self.command if w != "--detach"]
        return (f"to continue: {shlex.join(['merabench', *words])} (it waits for them, imports and scores; "
                "with --detach it imports and scores once they ended)")


@dataclass
class Batching:
    """The stage's part in the rest of the run (pipeline.py)."""

    ledger: Ledger
    source: BatchSource

    def should_stop(self) -> bool:
        """The runner never stops importing what is paid for: --max-cost was counted before any
        batch was created, and a request the fallback sends directly asks the budget itself."""
        return False

    def settle(self, answers: Mapping[str, Mapping[Draw, Mapping[int, Answer]]]) -> None:
        """Every downloaded batch whose rows the runner wrote (or that were answered before) is
        settled: a later run does not read it again, and asks its failed rows again."""
        for record in self.ledger.unsettled():
            if record.state != "downloaded":
                continue
            keys = [key_of(custom_id) for custom_id in self.ledger.ids(record)]
            if all(key is not None and (key in self.source.served or _answered(answers, key)) for key in keys):
                self.ledger.write(record.moved(state="settled"))


def _answered(answers: Mapping[str, Mapping[Draw, Mapping[int, Answer]]], key: Key) -> bool:
    answer = answers.get(key[0], {}).get(key[2], {}).get(key[1])
    return answer is not None and answer.ok


def start_batches(job: BatchJob, source: BatchSource, runs: Sequence[TaskRun], cache: ResponseCache | None,
                  budget: Budget, say: Callable[[str], None]) -> Batching:
    """Steps 1 to 4 of the module's docstring; the source then holds the batches' answers."""
    job.settings.check()
    ledger = Ledger(job.out)
    source.may_spend = lambda: not budget.should_stop()
    asyncio.run(_submit_and_follow(job, source, runs, ledger, cache, budget, say))
    source.load(ledger, job.model, job.options, say)
    return Batching(ledger, source)


async def _submit_and_follow(job: BatchJob, source: BatchSource, runs: Sequence[TaskRun], ledger: Ledger,
                             cache: ResponseCache | None, budget: Budget, say: Callable[[str], None]) -> None:
    async with BatchClient(job.base_url, job.api_key, max_retries=job.max_retries, timeout_s=job.timeout_s,
                           retry_delay_s=job.retry_delay_s) as client:
        metadata = metadata_for(job.out, served_model(job.model))
        await bring_forward(client, ledger, metadata, say)
        held = {key for record in ledger.unsettled() for key in map(key_of, ledger.ids(record))}
        tried = set() if job.settings.fallback == "batch" else {
            key for record in ledger.records() if record.state == "settled" for key in map(key_of, ledger.ids(record))}
        room = _Room(budget, _committed(job, runs, ledger, budget.prices))
        planned = _planned(job, runs, source, cache, held, tried)
        parts = write_inputs(ledger, room.within(planned), job.settings.max_requests,
                             int(job.settings.max_mb * 1_000_000))
        room.say_left_out(say)
        if parts:
            say(_submitting(sum(len(p.ids) for p in parts), len(parts), client.shown, room, job.settings.discount))
        for part in parts:
            record = await submit(client, ledger, part, metadata)
            say(f"{record.name}: submitted, {record.requests:,} request(s)")
        retried = ("with --batch-fallback direct they are asked directly now" if job.settings.fallback == "direct"
                   else "the next run asks them again in a new batch")
        await follow(client, ledger, poll_s=job.settings.poll_s, detach=job.settings.detach,
                     should_stop=lambda: budget.should_stop() and budget.limit == "--deadline", say=say,
                     continue_with=job.continue_with(), retried=retried)


def _submitting(requests: int, batches: int, shown: str, room: _Room, discount: float) -> str:
    cost = (f"; at the batch price ({discount:g} of the prices given) they cost at most {room.most:.4f} (a prompt's "
            "bytes counted as its tokens, an answer as --max-tokens)" if room.prices is not None else "")
    return (f"submitting {requests:,} request(s) to the Batch API at {shown} in {batches} batch(es){cost}; a batch "
            "is answered within 24 h")


def _planned(job: BatchJob, runs: Sequence[TaskRun], source: BatchSource, cache: ResponseCache | None,
             held: set[Key | None], tried: set[Key | None]) -> Iterator[tuple[WorkItem, Line]]:
    """The requests to submit: request_items less the rows a batch holds and the rows the cache
    answers; the rows in `tried` are left to the endpoint (--batch-fallback direct)."""
    import orjson

    waiting: list[tuple[WorkItem, Line]] = []
    for item, line in request_items(runs, served_model(job.model), job.options, job.system_prompt, job.out,
                                    job.asking):
        key = (item.task.name, item.row.id, item.draw)
        if key in held:
            continue
        if key in tried:
            source.ask_directly.add(key)
            continue
        text = orjson.dumps(line).decode("utf-8") + "\n"
        waiting.append((item, Line(line["custom_id"], text, most_tokens(item, job.options.max_tokens))))
        if len(waiting) >= CACHE_LOOKUP_BATCH:
            yield from _uncached(waiting, source, cache)
            waiting = []
    yield from _uncached(waiting, source, cache)


def _uncached(waiting: list[tuple[WorkItem, Line]], source: BatchSource,
              cache: ResponseCache | None) -> Iterable[tuple[WorkItem, Line]]:
    """The requests the cache has no answer for (the runner takes the others from it)."""
    if cache is None or not waiting:
        return waiting
    import sqlite3

    keys = [source.cache_key(item) for item, _ in waiting]
    try:
        found = cache.get_many([k for k in keys if k is not None])
    except sqlite3.Error:
        return waiting  # the runner says the cache stopped working
    return [pair for pair, key in zip(waiting, keys, strict=True) if key not in found]


def most_tokens(item: WorkItem, max_tokens: int) -> tuple[int, int]:
    """The most a request can use: its prompt's bytes (each token covers one at least) plus the
    chat template's markers, and --max-tokens."""
    return sent_bytes(item.messages) + TEMPLATE_TOKENS_PER_MESSAGE * len(item.messages), max_tokens


def _committed(job: BatchJob, runs: Sequence[TaskRun], ledger: Ledger, prices: Prices | None) -> float:
    """What the folder's answers cost, and the most its unsettled batches can."""
    if prices is None:
        return 0.0
    probe = Budget(prices)
    for run in runs:
        draws = read_answer_draws(samples_path(job.out, run.task.name))
        for draw in job.asking.draws:
            for answer in draws.get(draw, {}).values():
                probe.add_kept(answer)
    return probe.spent + sum(prices.cost(*r.most_tokens) for r in ledger.unsettled())


class _Room:
    """How much --max-cost leaves for new batches, and what did not fit."""

    def __init__(self, budget: Budget, committed: float) -> None:
        self.budget = budget
        self.prices = budget.prices
        self.left = math.inf if budget.max_cost is None else budget.max_cost - committed
        self.most = 0.0
        self.left_out = 0
        self.left_out_cost = 0.0

    def within(self, planned: Iterable[tuple[WorkItem, Line]]) -> Iterator[Line]:
        """The requests in order while their most cost fits; the rest counted, not submitted."""
        for _, line in planned:
            cost = self.prices.cost(*line.most_tokens) if self.prices is not None else 0.0
            if self.left_out or self.most + cost > self.left:
                self.left_out += 1
                self.left_out_cost += cost
                continue
            self.most += cost
            yield line

    def say_left_out(self, say: Callable[[str], None]) -> None:
        if not self.left_out:
            return
        self.budget.stopped_by = (f"--max-cost {self.budget.max_cost:g} would be passed: {self.left_out:,} request(s) "
                                  f"not submitted (at most {self.left_out_cost:.4f} more at the batch price)")
        say(f"{self.budget.stopped_by}; the folder's answers and running batches count too")

