"""The live progress display: one bar per task with done/total, rate, errors and ETA, and under
them a line on what is under way right now (runner/live.py): requests in flight and the oldest
one's age, and for a model in this process the tokens of the row it generates and their rate."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from rich.console import Console, RenderableType
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from merabench.runner.live import LiveStatus


class _RateErrors(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        rate = f"{speed:6.1f}/s" if speed else "     –/s"
        errors = task.fields.get("errors", 0)
        return Text(f"{rate}  errors {errors}", style="red" if errors else "dim")


def seconds(value: float) -> str:
    """An age as a person reads it: 4.2 s, 1 min 05 s, 1 h 02 min."""
    if value < 60:
        return f"{value:.1f} s"
    if value < 3600:
        return f"{int(value // 60)} min {int(value % 60):02d} s"
    return f"{int(value // 3600)} h {int(value % 3600 // 60):02d} min"


def live_line(status: LiveStatus) -> str:
    """What is under way, in one short line ('' when nothing is)."""
    if not status.in_flight:
        return ""
    oldest = f", the oldest {seconds(status.oldest_s)}" if status.oldest_s is not None else ""
    generating = status.generating
    if generating is None:
        return f"in flight: {status.in_flight:,} request(s){oldest}"
    if generating.loading:
        return f"loading the model: {seconds(generating.elapsed_s)}"
    rate = generating.tokens_per_s
    made = (f"this row: {generating.tokens:,} token(s)" + (f", {rate:.1f}/s" if rate else "")
            + f", {seconds(generating.elapsed_s)}")
    waiting = status.in_flight - 1
    return made + (f"; {waiting:,} row(s) waiting{oldest}" if waiting > 0 else "")


class _ProgressWithStatus(Progress):
    """rich's Progress with the live line under the bars (refreshed with them, 10 times a second)."""

    status: Callable[[], LiveStatus] | None = None

    def get_renderables(self) -> Iterable[RenderableType]:
        yield from super().get_renderables()
        line = live_line(self.status()) if self.status is not None else ""
        if line:
            yield Text(line, style="dim", overflow="ellipsis", no_wrap=True)


class RichProgress:
    def __init__(self, console: Console) -> None:
        self._progress = _ProgressWithStatus(TextColumn("{task.description:<15}"), BarColumn(), MofNCompleteColumn(),
                                             _RateErrors(), TimeRemainingColumn(), console=console, transient=False)
        self._ids: dict[str, TaskID] = {}
        self._errors: dict[str, int] = {}

    def __enter__(self) -> RichProgress:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def finish(self) -> None:
        self._progress.status = None  # the run has stopped answering: nothing is under way
        self._progress.stop()

    def start(self, task: str, total: int, done: int) -> None:
        self._errors[task] = 0
        self._ids[task] = self._progress.add_task(task, total=total, completed=done, errors=0)

    def follow(self, status: Callable[[], LiveStatus]) -> None:
        self._progress.status = status

    def advance(self, task: str, *, error: bool) -> None:
        if error:
            self._errors[task] += 1
        self._progress.update(self._ids[task], advance=1, errors=self._errors[task])
