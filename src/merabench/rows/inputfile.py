"""The bytes behind an input path (`--data`, `--data sage=spellcheck:PATH`, `--predictions`, a
config or price file): a regular file, a pipe (`<(...)`, `/dev/stdin`) or `-` for standard input.
A folder where a file is expected, a device (`/dev/zero` reads forever, also through a symlink:
the target is what would be read) or a socket is refused by name, and nothing is read past
MAX_BYTES. `read_input` is the one way in for an input read whole; `utf8_text` decodes it.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from merabench.errors import DataError, reading

STDIN = "-"
MAX_BYTES = 4 << 30  # a pipe that never ends is cut off here, not read until memory runs out; a larger file is refused


def is_stream(path: Path) -> bool:
    """Standard input or a pipe: read once, whole (no suffix, no second look)."""
    if str(path) == STDIN:
        return True
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False


def check_readable(path: Path, *, folder_ok: bool = False) -> None:
    """A DataError naming `path` unless it is a file (or a pipe, or a folder where one is fine)."""
    if str(path) == STDIN:
        return
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise DataError("no such file or directory", file=str(path)) from None
    except OSError as exc:
        raise DataError(f"cannot be read ({exc.strerror or type(exc).__name__})", file=str(path)) from None
    if stat.S_ISDIR(mode) and not folder_ok:
        raise DataError("is a folder; a file is expected here", file=str(path))
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISSOCK(mode):
        raise DataError("is a device or socket, not a file", file=str(path))


def read_stream(path: Path) -> bytes:
    """All of a pipe or of standard input (at most MAX_BYTES)."""
    check_readable(path)
    data = sys.stdin.buffer.read(MAX_BYTES + 1) if str(path) == STDIN else _pipe_bytes(path)
    if len(data) > MAX_BYTES:
        raise _too_large(path)
    return data


def read_input(path: Path) -> bytes:
    """All the bytes of an input path, whatever it is: a pipe or standard input as read_stream
    reads them, a regular file of at most MAX_BYTES; anything else is refused by check_readable."""
    if is_stream(path):
        return read_stream(path)
    check_file(path)
    with reading(path):
        return path.read_bytes()


def check_file(path: Path) -> None:
    """A DataError naming `path` unless it is a regular file of at most MAX_BYTES (refused before
    a byte is read, not once memory is full): what read_input asks of a file it reads whole, and a
    reader that streams a file asks too."""
    check_readable(path)
    if os.stat(path).st_size > MAX_BYTES:
        raise _too_large(path)


def _too_large(path: Path) -> DataError:
    return DataError(f"gives more than {MAX_BYTES >> 30} GiB; input that large (or endless) is refused",
                     file=str(path))


def utf8_text(data: bytes, *, file: str) -> str:
    """`data` as UTF-8 text without a leading byte order mark (Windows editors write one); bytes
    that are not UTF-8 are a DataError naming the file, the line and the column."""
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise not_utf8(exc, file=file) from None


def not_utf8(exc: UnicodeDecodeError, *, file: str, first_line: int = 1) -> DataError:
    """Where `exc`'s bytes stop being UTF-8, as a DataError naming the line and the column (in
    bytes); `first_line` is the number of the bytes' first line in the file."""
    data, at = exc.object, exc.start
    column = at - data.rfind(b"\n", 0, at)  # rfind gives -1 on the first line: column at + 1
    return DataError(f"not UTF-8 text (byte 0x{data[at]:02x} at column {column})", file=file,
                     line=first_line + data.count(b"\n", 0, at))


def _pipe_bytes(path: Path) -> bytes:
    """A named pipe's bytes. Opened without waiting first: a FIFO that no process has open for
    writing would block the open (and the read) forever, so it is refused by name at once; one
    with a writer (`<(...)`, `cmd | merabench ... /dev/stdin`) is read to its end."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as fh:
        try:
            first = os.read(fd, 1 << 16)
        except BlockingIOError:  # a writer holds it open and has written nothing yet: wait for it
            first = None
        if first == b"":
            raise DataError("is a pipe that no process writes to; give a file, or start its writer first",
                            file=str(path))
        os.set_blocking(fd, True)
        return (first or b"") + fh.read(MAX_BYTES + 1)


def read_text(path: Path, what: str) -> str:
    """A small text input (`--config`, `--price-file`, `--judge-prompt`) as UTF-8: a file or a pipe
    with a writer; a folder, a device or a pipe nobody writes is one line naming `what` and it."""
    try:
        return utf8_text(read_input(path), file=str(path))
    except DataError as exc:
        raise DataError(exc.reason, file=f"{what} {path}", line=exc.line) from None
