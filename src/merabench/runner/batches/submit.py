"""Requests to batches: input files split at the API's limits, each uploaded and made a batch,
every step written to the ledger before the next is taken; and, when a run starts, the records
that a killed run left between two steps brought forward.

The two moments a kill costs something:

- between the upload and the create: the record says `creating` with the input file's id. The
  next run asks the server's list of batches for one made from that file; none: the create never
  arrived, and the batch is created now from the file already uploaded (nothing is uploaded twice).
- between the create and writing the batch's id: the same record, but the server made the
  batch. The next run finds it by its input file and follows it: no second batch. A server that
  does not list batches cannot say whether it made one: the batch is created again and the line
  names the input file, whose first batch, if there is one, is an orphan that runs and is billed.
  Either way no row counts twice: only the batch the folder records is imported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

from merabench.models.batch_api import BatchClient, BatchInfo
from merabench.runner.batches.ledger import BatchRecord, Ledger
from merabench.support.files import replacing
from merabench.support.redaction import redact


@dataclass(frozen=True)
class Line:
    """One request of a batch input file: its custom id, its JSON line, the most tokens it can use."""

    custom_id: str
    text: str
    most_tokens: tuple[int, int]


@dataclass(frozen=True)
class Part:
    """One input file written for upload: its part name, the custom ids it asks, the most tokens
    they can use."""

    part: str
    ids: tuple[str, ...]
    most_tokens: tuple[int, int]


def write_inputs(ledger: Ledger, lines: Iterable[Line], max_requests: int, max_bytes: int) -> list[Part]:
    """The lines written into input files of at most `max_requests` lines and `max_bytes` bytes
    each (a line larger than that alone in its file), streamed, never held whole; each file's
    custom ids beside it. No record names them yet."""
    ledger.clear_strays()
    ledger.folder.mkdir(parents=True, exist_ok=True)
    number = ledger.next_number()
    pending: Iterator[Line] = iter(lines)
    carried: list[Line] = []
    parts: list[Part] = []
    while True:
        part = f"b{number + len(parts):03d}"
        ids: list[str] = []
        size = prompt = completion = 0
        with replacing(ledger.path(part, "input"), binary=True) as fh:
            for line in chain(carried, pending):
                raw = redact(line.text).encode("utf-8", "backslashreplace")
                if ids and (len(ids) >= max_requests or size + len(raw) > max_bytes):
                    carried = [line]
                    break
                fh.write(raw)
                size += len(raw)
                ids.append(line.custom_id)
                prompt, completion = prompt + line.most_tokens[0], completion + line.most_tokens[1]
            else:
                carried = []
        if not ids:
            ledger.path(part, "input").unlink(missing_ok=True)
            return parts
        ledger.write_ids(part, ids)
        parts.append(Part(part, tuple(ids), (prompt, completion)))
        if not carried:
            return parts


def submitted(record: BatchRecord, info: BatchInfo) -> BatchRecord:
    return record.moved(state="submitted", batch_id=info.id, status=info.status, expires_at=info.expires_at)


async def submit(client: BatchClient, ledger: Ledger, part: Part, metadata: Mapping[str, str]) -> BatchRecord:
    """Upload one input file and create its batch, the ledger written after each step (the
    batch's id the moment the server gives it)."""
    record = ledger.write(BatchRecord(part.part, "uploading", len(part.ids), most_tokens=part.most_tokens))
    file_id = await client.upload(ledger.path(part.part, "input"))
    record = ledger.write(record.moved(state="creating", input_file_id=file_id))
    info = await client.create(file_id, {**metadata, "merabench_part": part.part})
    record = ledger.write(submitted(record, info))
    ledger.path(part.part, "input").unlink(missing_ok=True)
    return record


async def bring_forward(client: BatchClient, ledger: Ledger, metadata: Mapping[str, str],
                        say: Callable[[str], None]) -> None:
    """The records a killed run left between two steps (the module's docstring), brought to
    `submitted` or forgotten, each with a line."""
    for record in ledger.records():
        if record.state == "uploading":
            ledger.forget(record)
            say(f"{record.part}: the last run ended while uploading its input; no batch was made from it (a file it "
                f"may have left on the server costs nothing to run); its {record.requests:,} request(s) are planned "
                "again")
        elif record.state == "creating" and record.input_file_id:
            await _finish_creating(client, ledger, record, metadata, say)


async def _finish_creating(client: BatchClient, ledger: Ledger, record: BatchRecord, metadata: Mapping[str, str],
                           say: Callable[[str], None]) -> None:
    file_id = record.input_file_id or ""
    found, listed = await client.find(file_id)
    if found is not None:
        ledger.write(submitted(record, found))
        say(f"{record.part}: the last run ended after creating batch {found.id} from {file_id} and before writing "
            "its id: found on the server by its input file and followed; no second batch was created")
        return
    info = await client.create(file_id, {**metadata, "merabench_part": record.part})
    ledger.write(submitted(record, info))
    ledger.path(record.part, "input").unlink(missing_ok=True)
    if listed:
        say(f"{record.part}: the last run ended between uploading {file_id} and creating its batch (the server "
            f"lists none made from it): created now, {info.id}")
        return
    say(f"{record.part}: the last run ended as it created the batch of {file_id}, and {client.shown} does not list "
        f"batches, so whether it made one cannot be known: created it now ({info.id}); if a first one exists it is "
        f"an orphan that runs and is billed for its {record.requests:,} request(s): find the batch of input file "
        f"{file_id} in the provider's console and cancel it. Its answers are never imported: no row counts twice")


def metadata_for(out_dir: Path, model: str) -> dict[str, str]:
    """What each batch's metadata says of the run (the API takes 16 pairs of at most 512 characters)."""
    return {"merabench_run": out_dir.name[:500] or "run", "merabench_model": model[:500]}
