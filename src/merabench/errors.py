"""The one exception tree of merabench.

    MerabenchError            a user-facing problem: printed without a traceback, exit code 2
    ├── DataError             a row, file or prediction that is malformed (names file, line, field)
    ├── ConfigError           a flag or setting that cannot work (unknown task, bad model spec, ...)
    └── BackendError          a model request that failed; `retryable` says whether to try again

`cli.py` catches MerabenchError once; nothing else in the package prints errors.
"""

from __future__ import annotations


class MerabenchError(Exception):
    """Base class of every error merabench reports to a user."""

    exit_code = 2


class DataError(MerabenchError):
    """Malformed input data; the message names where it is."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 field: str | None = None, row_id: object = None) -> None:
        self.file, self.line, self.field, self.row_id = file, line, field, row_id
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
                 status: int | None = None) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after
        self.status = status
