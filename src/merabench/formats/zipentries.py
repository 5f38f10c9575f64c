"""ZIP entries read with a cap: a submission ZIP and its logs_public.zip come from anywhere.

An entry is read a piece at a time and never past MAX_ENTRY_BYTES inflated, whatever its headers
claim, so a ZIP bomb (a kilobyte that inflates to gigabytes) is refused by name with bounded
memory. An entry that cannot be read — a compression method no reader knows, corrupt compressed
bytes, a CRC-32 that does not match, a local header naming another file than the central
directory does (two readers would see two files) — is a DataError naming the ZIP and the entry:
`submission --check` lists it as a problem, `score` stops on it.

`unreadable_entries` sets aside, before anything is read, what no copy of the ZIP may carry: an
encrypted entry, a bomb, a name twice (or twice but for case), a name an unzip would write outside
its folder, a folder named as a file. The same guards hold for a ZIP inside a ZIP (a harness's
logs_public.zip): `extracted` copies it out with the cap, and `unreadable_entries` and the readers
here are applied to it as to any ZIP.
"""

from __future__ import annotations

import contextlib
import lzma
import os
import re
import stat
import tempfile
import zipfile
import zlib
from collections import Counter, deque
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from typing import IO

from merabench.errors import DataError

#: what one entry may inflate to: a task's answers or lm-eval samples are tens of megabytes
MAX_ENTRY_BYTES = 256 << 20
_CHUNK = 1 << 20
_VISIBLE = re.compile(rb"\S")

# what zipfile and the decompressors raise on an entry they cannot read (RuntimeError: encrypted)
# (ValueError: an offset that points before the file's start)
_UNREADABLE = (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, NotImplementedError, RuntimeError, OSError,
               ValueError)


def not_a_zip_file(path: Path) -> str | None:
    """Why `path` cannot be opened as a ZIP, or None: a ZIP's directory is at its end, so it is
    read by seeking, from a regular file (or a symlink to one); a named pipe or a device is not
    one, and /dev/zero would be read for ever."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "no such file"
    except OSError as exc:
        return f"cannot be read ({exc.strerror or type(exc).__name__})"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "is a folder, not a ZIP file"
    kind = ("a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device")
    return f"is {kind}, not a regular file; a ZIP is read from a file (save it to one first)"


def open_zip(source: Path | IO[bytes], label: str) -> zipfile.ZipFile:
    """The ZIP, or a DataError naming `label` when its directory cannot be read (zipfile also
    raises NotImplementedError for a version it does not know, ValueError for a negative offset)."""
    try:
        return zipfile.ZipFile(source)
    except (zipfile.BadZipFile, NotImplementedError, ValueError, EOFError) as exc:
        raise DataError(f"not a readable ZIP file ({exc})", file=label) from None


def _reason(info: zipfile.ZipInfo, exc: BaseException) -> str:
    if isinstance(exc, NotImplementedError):
        return f"stored with compression method {info.compress_type}, which no ZIP reader is bound to know"
    if "CRC" in str(exc):
        return "its bytes are corrupt (their CRC-32 differs from the one recorded)"
    if "differ" in str(exc):  # zipfile: "File name in directory ... and header ... differ."
        return f"its local header names another file than the ZIP's directory does ({exc})"
    if isinstance(exc, zlib.error | lzma.LZMAError | EOFError):
        return f"its compressed bytes are corrupt ({exc})"
    return str(exc) or type(exc).__name__


def _too_big() -> str:
    return (f"inflates to more than {MAX_ENTRY_BYTES >> 20} MiB (a ZIP bomb, or no submission's file); "
            "read no further")


@contextlib.contextmanager
def _opened(zf: zipfile.ZipFile, entry: str | zipfile.ZipInfo, label: str) -> Iterator[IO[bytes]]:
    # an entry named twice is read by its ZipInfo: by name, zipfile gives the last copy each time
    info = entry if isinstance(entry, zipfile.ZipInfo) else zf.getinfo(entry)
    try:
        with zf.open(info) as fh:
            yield fh
    except _UNREADABLE as exc:
        raise DataError(f"cannot be read: {_reason(info, exc)}", file=label) from None


def read_entry(zf: zipfile.ZipFile, name: str, label: str) -> bytes:
    """The inflated bytes of `name`; a DataError naming `label` when they cannot be read or
    pass MAX_ENTRY_BYTES (read one byte past the cap, no more)."""
    with _opened(zf, name, label) as fh:
        data = fh.read(MAX_ENTRY_BYTES + 1)
    if len(data) > MAX_ENTRY_BYTES:
        raise DataError(_too_big(), file=label)
    return data


def _chunks(zf: zipfile.ZipFile, entry: str | zipfile.ZipInfo, label: str) -> Iterator[bytes]:
    """The entry's inflated bytes a megabyte at a time (memory holds one piece), never past
    MAX_ENTRY_BYTES: a DataError naming `label` when they cannot be read or pass it."""
    with _opened(zf, entry, label) as fh:
        size = 0
        while chunk := fh.read(_CHUNK):
            size += len(chunk)
            if size > MAX_ENTRY_BYTES:
                raise DataError(_too_big(), file=label)
            yield chunk


def copy_entry(zf: zipfile.ZipFile, info: zipfile.ZipInfo, dest: IO[bytes], label: str) -> None:
    """`info`'s inflated bytes written to `dest` a megabyte at a time, with the cap (_chunks); an
    error writing `dest` (a full disk) is the output's, not the entry's."""
    for chunk in _chunks(zf, info, label):
        dest.write(chunk)


def unreadable_contents(zf: zipfile.ZipFile, infos: Iterable[zipfile.ZipInfo], label: str) -> list[str]:
    """Why each of `infos` cannot be read to its end (corrupt bytes, a CRC-32 that differs, past the
    cap), each starting with `label!entry`: every byte is inflated, a megabyte at a time, and
    dropped; zipfile checks the CRC-32 only at the end."""
    problems = []
    for info in infos:
        if info.is_dir():
            continue
        try:
            deque(_chunks(zf, info, f"{label}!{info.filename}"), maxlen=0)
        except DataError as exc:
            problems.append(str(exc))
    return problems


@contextlib.contextmanager
def extracted(zf: zipfile.ZipFile, info: zipfile.ZipInfo, label: str) -> Iterator[zipfile.ZipFile]:
    """The ZIP stored as entry `info` of `zf`, copied with the cap to an anonymous temporary file
    (a ZIP is read by seeking, which an inflating entry does by inflating again) and opened."""
    with tempfile.TemporaryFile() as copy:
        copy_entry(zf, info, copy, label)
        copy.seek(0)
        with open_zip(copy, label) as inner:
            yield inner


def copy_info(info: zipfile.ZipInfo) -> zipfile.ZipInfo:
    """A new ZipInfo for writing `info`'s entry into another ZIP: same name, time, method and
    attributes (writing fills in sizes and CRC, which must not touch the one being read)."""
    fresh = zipfile.ZipInfo(info.filename, info.date_time)
    fresh.compress_type = info.compress_type
    fresh.external_attr, fresh.create_system, fresh.comment = info.external_attr, info.create_system, info.comment
    return fresh


def entry_lines(zf: zipfile.ZipFile, name: str, label: str) -> Iterator[tuple[int, bytes]]:
    """(line number, line) for every non-blank line of `name`, read a megabyte at a time: memory
    holds one piece (or one long line), never the entry; past MAX_ENTRY_BYTES it is a DataError."""
    lineno, pending = 1, []
    for chunk in _chunks(zf, name, label):
        cut = chunk.rfind(b"\n") + 1
        if not cut:  # inside one long line: kept as pieces, joined once the line ends
            pending.append(chunk)
            continue
        piece = b"".join([*pending, chunk[:cut]])
        pending = [chunk[cut:]]
        yield from _non_blank(piece, lineno)
        lineno += piece.count(b"\n")
    yield from _non_blank(b"".join(pending), lineno)


def _non_blank(text: bytes, lineno: int) -> Iterator[tuple[int, bytes]]:
    """The non-blank lines of `text` (whole lines) numbered from `lineno`, found by searching for
    a visible byte: a run of blank lines costs one C-level scan, not a Python step per line."""
    pos = counted = 0
    while found := _VISIBLE.search(text, pos):
        start = text.rfind(b"\n", 0, found.start()) + 1
        end = text.find(b"\n", found.start())
        end = len(text) if end < 0 else end
        lineno += text.count(b"\n", counted, start)
        counted = start
        yield lineno, text[start:end]
        pos = end + 1


def listed(names: list[str], first: int = 5) -> str:
    """Entry names for a message: the first few, then how many more (a ZIP may hold 100,000)."""
    more = f" and {len(names) - first:,} more" if len(names) > first else ""
    return ", ".join(names[:first]) + more


def unreadable_entries(zf: zipfile.ZipFile, adding: Collection[str] = (),
                       replacing: Collection[str] = ()) -> dict[str, str]:
    """Entries that cannot count, by name: encrypted ones (MERA has no password), unsafe names
    (unzipped, they land outside the folder), names given twice (which copy a reader takes is up
    to the reader), also but for case (_case_twins), ones recorded as inflating past
    MAX_ENTRY_BYTES (a bomb, refused before a byte is inflated: zipfile never inflates an entry
    past its recorded size), and folders named as a file of the ZIP or of `adding`, the files
    about to be added to it (no unzip can extract a folder and a file of one name). `replacing`:
    those of `adding` that replace the ZIP's entries of their name in any case."""
    found: dict[str, str] = {}
    for info in zf.infolist():
        if info.flag_bits & 0x1:
            found[info.filename] = f"{info.filename}: encrypted; MERA cannot read it without a password"
        elif info.file_size > MAX_ENTRY_BYTES:
            found[info.filename] = f"{info.filename}: {_too_big()}"
        elif unsafe := _unsafe_name(info.filename):
            found[info.filename] = f"{info.filename}: {unsafe}"
    counts = Counter(zf.namelist())  # counted once: names.count per name was quadratic
    for name in sorted(n for n, count in counts.items() if count > 1):
        found[name] = f"{name}: in the ZIP {counts[name]} times; only one copy may be there"
    for name, why in _case_twins(list(counts), adding, replacing).items():
        found.setdefault(name, why)  # a name twice keeps that message
    found.update(_folders_named_as_files(list(counts), adding))
    return found


_DRIVE = re.compile(r"[A-Za-z]:")


def _unsafe_name(name: str) -> str | None:
    """Why an unzip would write the entry `name` outside the folder it unzips into, or somewhere
    else on another system (the ZIP slip); None for a name that stays inside."""
    where = "an unzip writes it outside the folder it unzips into, or refuses it"
    if name.startswith("/"):
        return f"an absolute name; {where}"
    if _DRIVE.match(name):
        return f"names a drive ({name[:2]}); {where}"
    if ".." in name.split("/"):
        return f"a .. in its name; {where}"
    if "\\" in name:
        return "a backslash in its name; on Windows that is a folder separator, and an unzip there writes it elsewhere"
    return None


def _case_twins(names: list[str], adding: Collection[str], replacing: Collection[str]) -> dict[str, str]:
    """Names of the ZIP, or of it with `adding` added, that differ only in case, by the first:
    unzipped on a case-insensitive file system (Windows, macOS) one overwrites the other, and
    which stays is up to the unzip. The ZIP's names `replacing` replaces are not counted."""
    replaced = {name.casefold() for name in replacing}
    spellings: dict[str, set[str]] = {}
    for name in [*(n for n in names if n.casefold() not in replaced), *adding]:
        spellings.setdefault(name.casefold(), set()).add(name)
    found = {}
    for twins in (sorted(group) for group in spellings.values() if len(group) > 1):
        found[twins[0]] = (f"{', '.join(twins)}: names that differ only in case; unzipped where case is not told "
                           "apart (Windows, macOS), one overwrites the other, so only one may be there")
    return found


def _folders_named_as_files(names: list[str], adding: Collection[str]) -> dict[str, str]:
    """`X/` (a folder entry, or the folder of `X/y`) where `X` is a file too, by the folder's name."""
    files = {n for n in names if not n.endswith("/")}
    folders = {n.rstrip("/") for n in names if n.endswith("/")}
    folders |= {n[:at] for n in names for at in _slashes(n)}
    found = {}
    for name in sorted(folders & (files | set(adding))):
        whose = "" if name in files else " merabench adds"
        found[f"{name}/"] = f"{name}/: a folder named as the file {name}{whose}; no unzip can extract both"
    return found


def _slashes(name: str) -> Iterator[int]:
    """Where `name`'s folders end (the slash of `a/` and of `a/b/` in `a/b/c`)."""
    at = name.find("/")
    while 0 < at < len(name) - 1:
        yield at
        at = name.find("/", at + 1)
