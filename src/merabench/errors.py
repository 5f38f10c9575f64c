"""The one exception tree of merabench.

    MerabenchError            a user-facing problem: printed without a traceback, exit code 2
    ├── DataError             a row, file or prediction that is malformed (names file, line, field)
    ├── ConfigError           a flag or setting that cannot work (unknown task, bad model spec, ...)
    ├── BackendError          a model request that failed; `retryable` says whether to try again
    ├── ServerRefused         every endpoint refused to serve for longer than the run waits: stop sending
    ├── NotSent               the run stopped sending (--max-cost, --deadline, ...) before a request left
    └── RunPaused             not finished, nothing lost, the same command continues (exit 3): batches
                              still running after `run --batch --detach`, a Batch API that kept refusing

`cli.py` catches MerabenchError once; nothing else in the package prints errors. Where files are
read, `reading(path)` maps what the standard library raises (OS, decoding, JSON, ZIP, sqlite
errors) into a DataError that names the file, and `writing(path)` maps OS errors into a
ConfigError, in one place (as httpx maps its transport's exceptions at one boundary).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sqlite3
import tomllib
import zipfile
import zlib
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import TypeVar

#: the exit code of a run that stopped before its end and resumes (--max-cost, --deadline, a server
#: that refused to serve, batches left running): not a failure, not finished either
STOPPED_EXIT = 3


class MerabenchError(Exception):
    """Base class of every error merabench reports to a user."""

    exit_code = 2


class DataError(MerabenchError):
    """Malformed input data; the message names where it is."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 field: str | None = None, row_id: object = None) -> None:
        self.file, self.line, self.field, self.row_id, self.reason = file, line, field, row_id, message
        where = []
        if file is not None:
            where.append(f"{file}" + (f":{line}" if line is not None else ""))
        elif line is not None:
            where.append(f"line {line}")
        if row_id is not None:
            where.append(f"row id {row_id}")
        if field is not None:
            where.append(f"field '{field}'")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class ConfigError(MerabenchError):
    """A setting or combination of flags that cannot work."""


class BackendError(MerabenchError):
    """A failed model request. `retryable` errors are retried by the backend's retry loop."""

    def __init__(self, message: str, *, retryable: bool, retry_after: float | None = None,
                 status: int | None = None, body: object = None, attempts: int = 0,
                 connection: bool = False, timed_out: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.connection = connection  # no reply on the wire: refused, reset or closed before any answer
        self.timed_out = timed_out    # no reply within the time-out
        self.attempts = attempts  # requests sent before giving up (0: none, or not counted)
        self.retry_after = retry_after
        self.status = status
        self.body = body  # the server's parsed error body, when it sent JSON


class ServerRefused(MerabenchError):
    """Every endpoint asked to wait past the back-off ceiling, or kept refusing: the run stops
    sending, keeps what it has, and the same command resumes."""

    exit_code = STOPPED_EXIT


class NotSent(MerabenchError):
    """A request that was about to leave when the run stopped sending (its `Request.may_send`
    said no): not the row's failure, the row stays unasked for the rerun. Never shown."""


class RunPaused(MerabenchError):
    """A run that stopped before its end with nothing lost and nothing failed: its batches still
    run on the server (`run --batch --detach`), or the Batch API kept refusing. The message says
    what continues it; the CLI prints it as a line, not as an error."""

    exit_code = STOPPED_EXIT


def _os_reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def json_problem(exc: json.JSONDecodeError) -> str:
    """The json module's complaint as a phrase: some of its messages end in a dangling "at"
    ("Invalid control character at"), which a caller's own "at column N" would double."""
    problem = exc.msg.removesuffix(" at")
    if problem == "Invalid control character":
        problem += " (a raw TAB or newline inside a string: JSON writes them \\t, \\n)"
    return problem


@contextlib.contextmanager
def reading(path: Path | str, what: str = "") -> Iterator[None]:
    """Turn the errors of reading `path` into a DataError naming it (`what` says what it is)."""
    label = f"{what} {path}".strip()
    try:
        yield
    except MerabenchError:
        raise
    except UnicodeDecodeError as exc:
        raise DataError(f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})",
                        file=label) from None
    except json.JSONDecodeError as exc:
        raise DataError(f"not valid JSON ({json_problem(exc)} at line {exc.lineno}, column {exc.colno})",
                        file=label) from None
    except tomllib.TOMLDecodeError as exc:
        raise DataError(f"not valid TOML ({exc})", file=label) from None
    except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise DataError(f"not a readable ZIP file ({exc})", file=label) from None
    except sqlite3.DatabaseError as exc:
        raise DataError(f"not a readable sqlite database ({exc})", file=label) from None
    except RecursionError:  # the json and toml modules recurse per nesting level
        raise DataError("nested too deeply to read", file=label) from None
    except FileNotFoundError:
        raise DataError("no such file or directory", file=label) from None
    except IsADirectoryError:
        raise DataError("is a folder; a file is expected here", file=label) from None
    except OSError as exc:
        raise DataError(f"cannot be read ({_os_reason(exc)})", file=label) from None


@contextlib.contextmanager
def writing(path: Path | str, what: str = "") -> Iterator[None]:
    """Turn the OS errors of writing `path` into a ConfigError naming it."""
    try:
        yield
    except MerabenchError:
        raise
    except OSError as exc:
        raise ConfigError(f"{what} {path}: cannot be written ({_os_reason(exc)})".strip()) from None


def check_writable(path: Path | str, what: str) -> None:
    """Refuse, before the work that would fill it, a file that cannot be written: a folder, a
    missing or read-only folder around it (a comparison's table printed, then a refusal, is
    forty lines for a one-line mistake)."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise ConfigError(f"{what} {path}: cannot be written (it is a folder; a file is expected here)")
    if not folder.is_dir():
        raise ConfigError(f"{what} {path}: cannot be written (the folder {folder} does not exist)")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ConfigError(f"{what} {path}: cannot be written (read-only)")


FULL_DISK = (errno.ENOSPC, errno.EDQUOT)


@contextlib.contextmanager
def disk_space(folder: Path | str) -> Iterator[None]:
    """A full disk (or quota) while a run writes `folder`: one line that names it and says the run
    resumes. Answers are appended line by line and every other file is replaced whole, so what
    is on disk is the answers so far plus at most a cut last line, which a resume skips."""
    try:
        yield
    except OSError as exc:
        if exc.errno not in FULL_DISK:
            raise
        raise ConfigError(f"{folder}: no space left on the device ({_os_reason(exc)}); the answers written so far "
                          "are kept: free some space, then rerun the same command to resume") from None
    except sqlite3.OperationalError as exc:
        if "full" not in str(exc):
            raise
        raise ConfigError(f"the response cache: {exc}; the run's answers are kept: free some space (or pass "
                          "--no-cache), then rerun the same command to resume") from None


_Choice = TypeVar("_Choice", bound=StrEnum)


def one_of(kind: type[_Choice], value: str, flag: str) -> _Choice:
    """`value` as a member of the enum behind a flag's choices, or one line naming them all."""
    try:
        return kind(value)
    except ValueError:
        raise ConfigError(f"unknown {flag} {value!r}; known: {', '.join(m.value for m in kind)}") from None
