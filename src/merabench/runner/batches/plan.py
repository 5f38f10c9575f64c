"""What the run's next batch holds, and what --max-cost leaves room for.

The requests are runner/batchfile.py's: `request_items` (the bodies and custom ids `export-requests`
writes) for the rows the folder has no answer for, and `request_line` for the next request of a
native row's conversation (replay.py). Left out: rows a batch of the folder still runs (submitted,
not yet downloaded), rows a downloaded batch answers or failed (the runner takes them), rows the
response cache answers, and, with `--batch-fallback direct`, rows an earlier batch failed (the
endpoint is asked for them instead).

Each request is priced at the batch price at the most it can cost: its prompt's UTF-8 bytes as
its tokens (a token covers one byte at least) plus the chat template's markers, and --max-tokens
for its answer. A batch is made of the requests, in order, while that sum stays within what
--max-cost leaves beside the folder's answers and the most its running batches can cost.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import orjson

from merabench.errors import BackendError
from merabench.models.shaping import ApiProfile, RequestShaper
from merabench.models.usage import TEMPLATE_TOKENS_PER_MESSAGE, sent_bytes
from merabench.runner.batches.job import BatchJob
from merabench.runner.batches.ledger import Ledger
from merabench.runner.batches.replay import NextStep, Replies, replay
from merabench.runner.batches.source import BatchSource, Key, key_of
from merabench.runner.batches.submit import Line
from merabench.runner.batchfile import options_tag, request_items, request_line, served_model
from merabench.runner.budget import Budget, Prices, Stop, StopCause
from merabench.runner.cache import ResponseCache
from merabench.runner.samples import read_answer_draws, samples_path
from merabench.runner.work import TaskRun, WorkItem

CACHE_LOOKUP_BATCH = 256


@dataclass
class Wave:
    """The requests of the next batch, planned as they are read (never all held)."""

    job: BatchJob
    runs: Sequence[TaskRun]
    source: BatchSource
    ledger: Ledger
    cache: ResponseCache | None
    continued: int = 0  # requests that go on a native row's conversation (its second step or later)

    def lines(self) -> Iterator[tuple[WorkItem, Line]]:
        """The requests to submit now (the module's docstring), in the rows' order."""
        records = self.ledger.records()
        running = {key_of(i) for r in records if r.state in ("creating", "submitted") for i in self.ledger.ids(r)}
        tried = set() if self.job.settings.fallback == "batch" else {
            key_of(i) for r in records if r.state == "settled" for i in self.ledger.ids(r)}
        model, options = served_model(self.job.model), self.job.options
        shaper = RequestShaper(ApiProfile(options.api_profile), frozenset(options.drop_params))
        tag = options_tag(model, options)
        fresh: list[tuple[WorkItem, Line]] = []
        for item, line in request_items(self.runs, model, options, self.job.system_prompt, self.job.out,
                                        self.job.asking):
            key: Key = (item.task.name, item.row.id, item.draw)
            if key in running:
                continue
            replies = self.source.answers.get(key)
            if replies:
                step = _next_step(item, replies)
                if step is not None:
                    self.continued += 1
                    yield step.item, self._line(step.item, request_line(step.item, model, options, shaper, tag))
                continue
            if key in tried:
                self.source.ask_directly.add(key)
                continue
            fresh.append((item, self._line(item, line)))
            if len(fresh) >= CACHE_LOOKUP_BATCH:
                yield from self._uncached(fresh)
                fresh = []
        yield from self._uncached(fresh)

    def _line(self, item: WorkItem, line: dict) -> Line:
        return Line(line["custom_id"], orjson.dumps(line).decode("utf-8") + "\n",
                    most_tokens(item, self.job.options.max_tokens))

    def _uncached(self, fresh: list[tuple[WorkItem, Line]]) -> Iterable[tuple[WorkItem, Line]]:
        """The requests the cache has no answer for (the runner takes the others from it)."""
        if self.cache is None or not fresh:
            return fresh
        keys = [self.source.cache_key(item) for item, _ in fresh]
        try:
            found = self.cache.get_many([k for k in keys if k is not None])
        except sqlite3.Error:
            return fresh  # the runner says the cache stopped working
        return [pair for pair, key in zip(fresh, keys, strict=True) if key not in found]


def _next_step(item: WorkItem, replies: Replies) -> NextStep | None:
    """A native row's next request when its conversation goes on; None when its batch answered or
    failed it (a text row's one request, a conversation ended or failed)."""
    if item.tools is None:
        return None
    try:
        outcome = replay(item, replies)
    except BackendError:
        return None
    return outcome if isinstance(outcome, NextStep) else None


def most_tokens(item: WorkItem, max_tokens: int) -> tuple[int, int]:
    """The most a request can use (the module's docstring): (prompt, completion) tokens."""
    tools = item.tools.tools if item.tools is not None else ()
    return sent_bytes(item.messages, tools) + TEMPLATE_TOKENS_PER_MESSAGE * len(item.messages), max_tokens


def committed(job: BatchJob, runs: Sequence[TaskRun], ledger: Ledger, prices: Prices | None) -> float:
    """What the folder's answers cost, and the most its unsettled batches can."""
    if prices is None:
        return 0.0
    probe = Budget(prices)
    for run in runs:
        draws = read_answer_draws(samples_path(job.out, run.task.name))
        for draw in job.asking.draws:
            for answer in draws.get(draw, {}).values():
                probe.add_kept(answer)
    discount = job.settings.discount  # what a batch's answers cost, of the prices given
    return probe.spent + sum(prices.cost(*r.most_tokens) * discount for r in ledger.unsettled())


class Room:
    """How much --max-cost leaves for new batches, and what did not fit."""

    def __init__(self, budget: Budget, committed: float, discount: float = 1.0) -> None:
        self.budget = budget
        self.prices = budget.prices
        self.discount = discount  # a batch request costs this share of the prices given
        self.left = math.inf if budget.max_cost is None else budget.max_cost - committed
        self.most = 0.0
        self.left_out = 0
        self.left_out_cost = 0.0

    def within(self, planned: Iterable[tuple[WorkItem, Line]]) -> Iterator[Line]:
        """The requests in order while their most cost fits; the rest counted, not submitted."""
        for _, line in planned:
            cost = self.prices.cost(*line.most_tokens) * self.discount if self.prices is not None else 0.0
            if self.left_out or self.most + cost > self.left:
                self.left_out += 1
                self.left_out_cost += cost
                continue
            self.most += cost
            yield line

    def say_left_out(self, say: Callable[[str], None]) -> None:
        """What did not fit stops the run at --max-cost (exit 3; the rows stay unasked)."""
        if not self.left_out:
            return
        self.budget.stop = Stop(StopCause.MAX_COST, f"--max-cost {self.budget.max_cost:g} would be passed: "
                                f"{self.left_out:,} request(s) not submitted (at most {self.left_out_cost:.4f} "
                                "more at the batch price)")
        say(f"{self.budget.stop.reason}; the folder's answers and running batches count too")
