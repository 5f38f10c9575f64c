"""`run --batch` as a stage of the run: inside its folder lock, before the runner (pipeline.py).

1. Bring forward what a killed run left between two steps (submit.bring_forward).
2. Read what the folder's downloaded batches answered (source.py), and plan the next batch: the
   requests still needed, priced at the batch price within what --max-cost leaves (plan.py).
3. Submit it (submit.py) and follow every running batch until it ended, downloading its files
   (follow.py); `--detach` stops here, with the command that continues.
4. Again from 2 while a batch was submitted or awaited: a native row's conversation goes on in
   the next wave (replay.py); a text run ends after its one batch.
5. Hand the runner the source that answers from the batches; once it wrote their rows, they are
   settled and never read again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from merabench.models.batch_api import BatchClient
from merabench.records import Answer, Draw
from merabench.runner.batches.follow import follow
from merabench.runner.batches.job import BatchJob
from merabench.runner.batches.ledger import Ledger
from merabench.runner.batches.plan import Room, Wave, committed
from merabench.runner.batches.source import BatchSource, Key, key_of
from merabench.runner.batches.submit import Part, bring_forward, metadata_for, submit, write_inputs
from merabench.runner.batchfile import served_model
from merabench.runner.budget import Budget, StopCause
from merabench.runner.cache import ResponseCache
from merabench.runner.work import TaskRun


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
    return Batching(ledger, source)


async def _submit_and_follow(job: BatchJob, source: BatchSource, runs: Sequence[TaskRun], ledger: Ledger,
                             cache: ResponseCache | None, budget: Budget, say: Callable[[str], None]) -> None:
    """Steps 1 to 4 of the module's docstring."""
    async with BatchClient(job.base_url, job.api_key, max_retries=job.policy.max_retries,
                           timeout_s=job.policy.timeout_s, retry_delay_s=job.policy.retry_delay_s) as client:
        metadata = metadata_for(job.out, served_model(job.model))
        await bring_forward(client, ledger, metadata, say)
        while True:
            source.load(ledger, job.model, job.options, say)
            awaited = [r for r in ledger.unsettled() if r.state == "submitted" and r.part not in source.unreadable]
            room = Room(budget, committed(job, runs, ledger, budget.prices), job.settings.discount)
            wave = Wave(job, runs, source, ledger, cache)
            parts = write_inputs(ledger, room.within(wave.lines()), job.settings.max_requests,
                                 int(job.settings.max_mb * 1_000_000))
            room.say_left_out(say)
            if parts:
                say(_submitting(parts, wave, client.shown, room, job.settings.discount))
            for part in parts:
                record = await submit(client, ledger, part, metadata)
                say(f"{record.name}: submitted, {record.requests:,} request(s)")
            if not parts and not awaited:
                return
            await follow(client, ledger, poll_s=job.settings.poll_s, detach=job.settings.detach,
                         should_stop=lambda: budget.should_stop() and budget.limit is StopCause.DEADLINE, say=say,
                         continue_with=job.continue_with(), retried=_retried(job))
            if room.left_out:
                source.load(ledger, job.model, job.options, say)
                return


def _retried(job: BatchJob) -> str:
    return ("with --batch-fallback direct they are asked directly now" if job.settings.fallback == "direct"
            else "the next run asks them again in a new batch")


def _submitting(parts: Sequence[Part], wave: Wave, shown: str, room: Room, discount: float) -> str:
    requests = sum(len(p.ids) for p in parts)
    steps = f", {wave.continued:,} of them the next step of a tool-calling conversation" if wave.continued else ""
    cost = (f"; at the batch price ({discount:g} of the prices given) they cost at most {room.most:.4f} (a prompt's "
            "bytes counted as its tokens, an answer as --max-tokens)" if room.prices is not None else "")
    return (f"submitting {requests:,} request(s){steps} to the Batch API at {shown} in {len(parts)} batch(es){cost}; "
            "a batch is answered within 24 h")
