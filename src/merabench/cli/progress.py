"""The live progress display: one bar per task with done/total, rate, errors and ETA."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class _RateErrors(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        rate = f"{speed:6.1f}/s" if speed else "     –/s"
        errors = task.fields.get("errors", 0)
        return Text(f"{rate}  errors {errors}", style="red" if errors else "dim")


class RichProgress:
    def __init__(self, console: Console) -> None:
        self._progress = Progress(TextColumn("{task.description:<15}"), BarColumn(), MofNCompleteColumn(),
                                  _RateErrors(), TimeRemainingColumn(), console=console, transient=False)
        self._ids: dict[str, int] = {}
        self._errors: dict[str, int] = {}

    def __enter__(self) -> RichProgress:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def finish(self) -> None:
        self._progress.stop()

    def start(self, task: str, total: int, done: int) -> None:
        self._errors[task] = 0
        self._ids[task] = self._progress.add_task(task, total=total, completed=done, errors=0)

    def advance(self, task: str, *, error: bool) -> None:
        if error:
            self._errors[task] += 1
        self._progress.update(self._ids[task], advance=1, errors=self._errors[task])
