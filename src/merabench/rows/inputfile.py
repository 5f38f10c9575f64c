"""The bytes behind an input path (`--data`, `--predictions`): a regular file, a pipe
(`<(...)`, `/dev/stdin`) or `-` for standard input. A folder where a file is expected, a device
(`/dev/zero` reads forever) or a socket is refused by name, and a pipe is read at most MAX_BYTES.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from merabench.errors import DataError

STDIN = "-"
MAX_BYTES = 4 << 30  # a pipe that never ends is cut off here, not read until memory runs out


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
        raise DataError(f"gives more than {MAX_BYTES >> 30} GiB; endless input is refused", file=str(path))
    return data


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
        if is_stream(path):
            data = read_stream(path)
        else:
            check_readable(path)
            data = path.read_bytes()
    except DataError as exc:
        raise DataError(exc.reason, file=f"{what} {path}") from None
    return data.decode("utf-8")
