"""The task registry."""

from __future__ import annotations

from merabench.errors import ConfigError
from merabench.tasks.base import Task
from merabench.tasks.gorillahard.task import GorillaHardTask
from merabench.tasks.russianregions.task import RussianRegionsTask
from merabench.tasks.sage.task import SageTask

TASKS: dict[str, Task] = {t.name: t for t in (SageTask(), RussianRegionsTask(), GorillaHardTask())}


def get_task(name: str) -> Task:
    key = name.strip().lower()
    if key not in TASKS:
        raise ConfigError(f"unknown task '{name}'; known tasks: {', '.join(TASKS)}")
    return TASKS[key]


def parse_task_list(spec: str) -> list[Task]:
    names = [n for n in (s.strip() for s in spec.split(",")) if n]
    if not names:
        raise ConfigError("no task named; known tasks: " + ", ".join(TASKS))
    tasks = [get_task(n) for n in names]
    if len({t.name for t in tasks}) != len(tasks):
        raise ConfigError(f"a task is named twice in '{spec}'")
    return tasks
