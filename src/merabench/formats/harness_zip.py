"""merabench's three tasks merged into the ZIP the official MERA harness packed for the others
(`submission --run RUN --into HARNESS.zip --out SUB.zip`).

MERA's packer (`scripts/log_to_submission_v2.py` in the MERA repository) writes one `<Task>.json`
per task at the ZIP's top level and `logs_public.zip` beside them (public_logs.py). The merge
keeps every entry of the harness's ZIP as it is (same name, same bytes, same order) except our
three tasks' JSONs, which are ours (an older copy there, in any case, is replaced, and named). In
`logs_public.zip` the harness's logs of other tasks stay, ours replace its logs of our tasks.

Both ZIPs, the harness's and its logs_public.zip, pass the same guards (`refuse_unreadable`)
before a byte of the submission is written, and are copied an entry at a time with the cap on
what an entry inflates to: memory holds a piece of an entry, never the entry.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from merabench.errors import DataError, reading
from merabench.formats.public_logs import LOGS_FILE, merge_logs
from merabench.formats.zipentries import (
    copy_entry,
    copy_info,
    extracted,
    not_a_zip_file,
    open_zip,
    unreadable_entries,
)

#: an entry of the ZIP to write: its name (or the harness's entry's settings) and its bytes, or
#: what writes them to the entry's stream (a harness entry is copied, not held)
Piece = tuple[zipfile.ZipInfo | str, bytes | Callable[[IO[bytes]], None]]


@dataclass
class Merged:
    """What the merge did: our files that replaced the harness's, and the harness's logs of our tasks
    that ours replaced."""

    replaced: list[str] = field(default_factory=list)
    replaced_logs: list[str] = field(default_factory=list)


def refuse_unreadable(zf: zipfile.ZipFile, label: str, adding: Collection[str] = (),
                      replacing: Collection[str] = ()) -> None:
    """The first entry that cannot count (unreadable_entries), as one line: a copy would keep the
    problem (which duplicate MERA reads, a password it has not, a bomb, a folder beside a file, a
    name that unzips outside the folder)."""
    unreadable = unreadable_entries(zf, adding, replacing)
    if unreadable:
        raise DataError(f"{next(iter(unreadable.values()))}: repack it before merging", file=label)


def check_layout(zf: zipfile.ZipFile, path: Path, adding: Collection[str] = (),
                 replacing: Collection[str] = ()) -> None:
    """A harness ZIP holds task JSONs at its top level (and usually logs_public.zip): anything else
    is not one, and merging into it would make a ZIP MERA cannot read."""
    refuse_unreadable(zf, f"--into {path}", adding, replacing)
    names = [n for n in zf.namelist() if not n.endswith("/")]
    nested = [n for n in names if "/" in n and n.endswith(".json")]
    if nested:
        raise DataError(f"holds {nested[0]} inside a folder: MERA reads the task files at the ZIP's top level (is it "
                        "the folder zipped rather than the packer's ZIP?)", file=f"--into {path}")
    if not any(n.endswith(".json") for n in names) and LOGS_FILE not in names:
        raise DataError(f"holds no <Task>.json and no {LOGS_FILE}: not a ZIP the MERA harness packed",
                        file=f"--into {path}")


@contextlib.contextmanager
def harness_pieces(harness: Path, ours: Mapping[str, bytes], logs: bytes | None, tasks: set[str],
                   merged: Merged) -> Iterator[list[Piece]]:
    """The submission's entries in order: the harness's (logs_public.zip merged, our tasks' old
    files left out), then ours. Everything is checked before this yields, so nothing is written
    for a harness file that is no ZIP, not one the harness packed, or holds (in it or in its
    logs) an entry that cannot count: those are a DataError (one line). The pieces read the
    harness while the block runs."""
    problem = not_a_zip_file(harness)
    if problem:
        raise DataError(problem, file=f"--into {harness}")
    with reading(harness, "--into"):
        if not zipfile.is_zipfile(harness):
            raise DataError("is not a ZIP file", file=f"--into {harness}")
        zf = open_zip(harness, f"--into {harness}")
    with zf, tempfile.TemporaryFile() as merged_logs:
        with reading(harness, "--into"):  # not around the yield: the block's errors are the output's
            pieces = _pieces(zf, harness, ours, logs, tasks, merged, merged_logs)
        yield pieces


def _pieces(zf: zipfile.ZipFile, harness: Path, ours: Mapping[str, bytes], logs: bytes | None, tasks: set[str],
            merged: Merged, merged_logs: IO[bytes]) -> list[Piece]:
    """harness_pieces' list, after every check (the logs merged into `merged_logs` on the way). The
    harness's copy of one of our files is ours to replace in any case (its sage.json is the SAGE.json
    MERA's reader takes on a case-insensitive file system): dropped and named."""
    check_layout(zf, harness, {*ours, *([LOGS_FILE] if logs is not None else [])}, ours)
    ours_folded = {name.casefold() for name in ours}
    pieces: list[Piece] = []
    for info in zf.infolist():
        if info.filename.casefold() in ours_folded:
            merged.replaced.append(info.filename)
        elif info.filename == LOGS_FILE and logs is not None:
            merged.replaced_logs = _merged_logs(zf, info, logs, tasks, merged_logs, f"--into {harness}")
            pieces.append((copy_info(info), lambda dest: shutil.copyfileobj(merged_logs, dest, 1 << 20)))
        else:
            pieces.append(_kept(zf, info, f"--into {harness}!{info.filename}"))
    pieces += ours.items()
    if logs is not None and LOGS_FILE not in zf.namelist():
        pieces.append((LOGS_FILE, logs))
    return pieces


def _merged_logs(zf: zipfile.ZipFile, info: zipfile.ZipInfo, logs: bytes, tasks: set[str], dest: IO[bytes],
                 label: str) -> list[str]:
    """The harness's logs_public.zip, guarded as the harness's ZIP is, merged with ours into `dest`;
    the harness's logs ours replace."""
    inner_label = f"{label}!{LOGS_FILE}"
    with extracted(zf, info, inner_label) as theirs, zipfile.ZipFile(io.BytesIO(logs)) as ours:
        refuse_unreadable(theirs, inner_label, ours.namelist())
        replaced = merge_logs(theirs, ours, tasks, dest, inner_label)
    dest.seek(0)
    return replaced


def _kept(zf: zipfile.ZipFile, info: zipfile.ZipInfo, label: str) -> Piece:
    """A harness entry kept as it is: copied with the cap when the submission is written."""
    if info.is_dir():
        return copy_info(info), b""
    return copy_info(info), lambda dest: copy_entry(zf, info, dest, label)
