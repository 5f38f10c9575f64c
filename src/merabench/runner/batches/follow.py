"""The batches a run folder records, followed until each ended, and their files brought home.

Every `poll_s` seconds each batch still running is asked for its state (a server's Retry-After is
respected by the client, models/batch_api.py); a line says what changed: its status, the requests
done and failed, its age, when its 24 h window ends. A batch that ended gets its output file and
its error file downloaded into the folder, and its record moves to `downloaded`. With `detach`
the run does not wait: it stops with the line that says how to continue (errors.RunPaused, exit 3).
A batch id the server does not know is one line (exit 2), never a resubmission behind the user's
back.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from merabench.errors import ConfigError, RunPaused
from merabench.models.batch_api import BatchClient, BatchInfo, BatchUnknown
from merabench.runner.batches.ledger import BatchRecord, FileKind, Ledger


def duration(seconds: float) -> str:
    """`45 s`, `12 min`, `3 h 05 min`."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds // 60:.0f} min"
    return f"{seconds // 3600:.0f} h {seconds % 3600 // 60:02.0f} min"


def progress_line(record: BatchRecord, now: float | None = None) -> str:
    """`b001 (batch_abc): in_progress, 40 of 65 ended (38 answered, 2 failed); 3 min old; window ends ...`."""
    now = time.time() if now is None else now
    failed = f" ({record.completed:,} answered, {record.failed:,} failed)" if record.failed else ""
    window = ""
    if record.expires_at is not None and record.status not in ("completed", "failed", "expired", "cancelled"):
        ends = datetime.fromtimestamp(record.expires_at, UTC).strftime("%Y-%m-%d %H:%M UTC")
        window = f"; its 24 h window ends {ends} (in {duration(record.expires_at - now)})"
    return (f"{record.name}: {record.status}, {record.completed + record.failed:,} of {record.requests:,} ended"
            f"{failed}; {duration(now - record.created)} old{window}")


def lost_line(record: BatchRecord, ledger: Ledger, shown: str) -> str:
    return (f"batch {record.name}, recorded in {ledger.folder / (record.part + '.json')}, is unknown to the Batch API "
            f"at {shown} (HTTP 404): was it made with another API key or base URL? Its {record.requests:,} request(s) "
            "are not sent again behind your back: with the key and URL it was made with the same command continues; "
            f"to ask its rows again in a new batch, delete {record.part}.json and {record.part}.ids from "
            f"{ledger.folder}")


def updated(record: BatchRecord, info: BatchInfo) -> BatchRecord:
    return record.moved(status=info.status, completed=info.completed, failed=info.failed,
                        expires_at=info.expires_at or record.expires_at, output_file_id=info.output_file_id,
                        error_file_id=info.error_file_id, errors=info.errors)


async def follow(client: BatchClient, ledger: Ledger, *, poll_s: float, detach: bool, should_stop: Callable[[], bool],
                 say: Callable[[str], None], continue_with: str, retried: str) -> None:
    """Poll the folder's submitted batches until every one ended and is downloaded (the
    module's docstring)."""
    while True:
        running: list[BatchRecord] = []
        for record in [r for r in ledger.unsettled() if r.state == "submitted" and r.batch_id]:
            try:
                info = await client.retrieve(record.batch_id or "")
            except BatchUnknown:
                raise ConfigError(lost_line(record, ledger, client.shown)) from None
            now = updated(record, info)
            if now != record:
                ledger.write(now)
                say(progress_line(now))
            if info.terminal:
                await download(client, ledger, now, say, retried)
            else:
                running.append(now)
        if not running:
            return
        if detach:
            raise RunPaused(detached_line(running, continue_with))
        if should_stop():
            raise RunPaused(f"--deadline reached while {len(running)} batch(es) still run on the server "
                            f"({', '.join(r.name for r in running)}); nothing is lost: {continue_with}")
        await asyncio.sleep(poll_s)


def detached_line(running: Sequence[BatchRecord], continue_with: str) -> str:
    """What a detached run leaves running, by when it is answered, and the command that continues."""
    requests = sum(r.requests for r in running)
    ends = max((r.expires_at for r in running if r.expires_at), default=None)
    by = f"by {datetime.fromtimestamp(ends, UTC).strftime('%Y-%m-%d %H:%M UTC')} at the latest" if ends else \
        "within 24 h"
    return (f"--detach: {len(running)} batch(es) of {requests:,} request(s) run on the server "
            f"({', '.join(f'{r.name} {r.status}' for r in running)}), answered {by}; {continue_with}")


async def download(client: BatchClient, ledger: Ledger, record: BatchRecord, say: Callable[[str], None],
                   retried: str) -> None:
    """An ended batch's output and error files into the folder; its record `downloaded`, with a
    line when it did not complete (failed, expired, cancelled) or some of its requests failed;
    `retried` says when those are asked again."""
    files: tuple[tuple[FileKind, str | None], ...] = (("output", record.output_file_id), ("errors", record.error_file_id))
    for kind, file_id in files:
        if file_id:
            await client.download(file_id, ledger.path(record.part, kind))
    ledger.write(record.moved(state="downloaded"))
    if record.status != "completed":
        why = f" ({'; '.join(record.errors)})" if record.errors else ""
        say(f"{record.name} ended {record.status}{why}: {record.completed:,} of {record.requests:,} answered; the "
            f"rest are recorded as failed with their reason; {retried}")
    elif record.failed:
        say(f"{record.name}: {record.failed:,} of its {record.requests:,} request(s) failed (the error file gives "
            f"each reason, kept in the samples); {retried}")
