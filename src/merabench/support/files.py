"""Files written whole or not at all: a temporary file beside the target (one per process, so two
writers of one path never share one), synced and renamed over it; what a killed process left
behind is removed by the next writer. Text passes through the run's redaction on the way."""

from __future__ import annotations

import contextlib
import glob
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from merabench.support.redaction import redact, redact_stream


def write_atomic(path: Path, text: str | Iterable[str]) -> None:
    """Write via a temporary file and rename, so a reader never sees half a file; `text` may come
    in pieces (written as they come, never joined). A lone surrogate (a model can emit one) is
    written as its escape `\\udXXX`, which JSON reads back as itself. The run's secrets are
    masked (redaction.py): results.json, the report, exported requests and logs come through here."""
    with replacing(path, binary=False) as fh:
        if isinstance(text, str):
            fh.write(redact(text))
        else:
            fh.writelines(redact_stream(text))


@contextlib.contextmanager
def replacing(path: Path, *, binary: bool) -> Iterator[IO[Any]]:
    """A file for `path`'s new content: `<name>.<pid>.tmp` beside it (two writers of one path never
    share one), synced and renamed over `path` when the block ends, removed if it fails. Text is
    UTF-8, a lone surrogate written as its escape; bytes (a ZIP) are written as given."""
    tmp = temporary_beside(path)
    try:
        with (tmp.open("wb") if binary else tmp.open("w", encoding="utf-8", errors="backslashreplace")) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def temporary_beside(path: Path) -> Path:
    """The temporary file a write of `path` goes through (`<name>.<pid>.tmp`), after removing the
    ones a killed earlier process left beside it (SIGKILL runs no clean-up; their pid is gone)."""
    with contextlib.suppress(OSError):  # a folder that cannot be listed: the write says why
        for stale in path.parent.glob(f"{glob.escape(path.name)}.*.tmp"):
            pid = stale.name[len(path.name) + 1:-len(".tmp")]
            if pid.isdigit() and not _running(int(pid)):
                stale.unlink(missing_ok=True)
    return path.with_name(f"{path.name}.{os.getpid()}.tmp")


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's process, or a name that is no pid: not ours to remove
    return True
