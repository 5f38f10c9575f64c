"""What a run is doing right now, for a person watching it: the requests in flight and the oldest
one's age, and, for a model in this process, the tokens of the row it is generating. A local
model on a CPU takes minutes a row; a bar standing at 0/5 cannot tell that from a hang.
Also the run's first line: how many rows it will ask and how many requests that is at most."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from merabench.models.base import Generating


@dataclass(frozen=True)
class LiveStatus:
    """A snapshot: requests (or rows) in flight, the oldest one's age, what a local model is making."""

    in_flight: int
    oldest_s: float | None
    generating: Generating | None = None


class InFlight:
    """The start times of the requests in flight. Read from the display's thread: a snapshot is
    taken in one C-level step (a tuple of a dict's values), never while it changes."""

    def __init__(self, generating: Callable[[], Generating | None] = lambda: None) -> None:
        self._started: dict[object, float] = {}
        self._generating = generating

    def enter(self) -> object:
        token = object()
        self._started[token] = time.monotonic()
        return token

    def leave(self, token: object) -> None:
        self._started.pop(token, None)

    def __len__(self) -> int:
        return len(self._started)

    def status(self) -> LiveStatus:
        starts = tuple(self._started.values())
        oldest = time.monotonic() - min(starts) if starts else None
        return LiveStatus(len(starts), oldest, self._generating())


def plan_line(source: str, to_ask: Mapping[str, int], kept: int, requests: int | None, draws: int = 1) -> str:
    """The run's first line: rows to ask per task (a row asked in several draws, `--repeats` or
    `--wordings all`, counts once a draw), and at most how many requests (None: a baseline, which
    sends none)."""
    rows = sum(to_ask.values())
    per_task = ", ".join(f"{task} {count:,}" for task, count in to_ask.items())
    what = f"{rows:,} row(s)" if draws == 1 else f"{rows:,} askings of a row ({draws} a row)"
    kept_part = f"; {kept:,} kept from this folder" if kept else ""
    if requests is None:
        return f"{source}: {what} to answer ({per_task}){kept_part}; a baseline sends no request"
    several = " (tool-calling conversations: several a row)" if requests > rows else ""
    return (f"{source}: {what} to ask ({per_task}){kept_part}; at most {requests:,} request(s){several}, "
            "fewer where the response cache has the answer")
