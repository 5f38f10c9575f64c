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
    if str(path) == STDIN:
        data = sys.stdin.buffer.read(MAX_BYTES + 1)
    else:
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise DataError(f"gives more than {MAX_BYTES >> 30} GiB; endless input is refused", file=str(path))
    return data
