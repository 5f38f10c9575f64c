"""The task registry."""

from __future__ import annotations

from merabench.errors import ConfigError, one_of
from merabench.records import ToolMode
from merabench.tasks.base import Task
from merabench.tasks.gorillahard.native.task import GorillaHardNativeTask
from merabench.tasks.gorillahard.task import GorillaHardTask
from merabench.tasks.russianregions.task import RussianRegionsTask
from merabench.tasks.sage.task import SageTask

TASKS: dict[str, Task] = {t.name: t for t in (SageTask(), RussianRegionsTask(), GorillaHardTask())}
#: a task asked through native tool calls (`run --tool-mode native`), where it has such a variant
NATIVE_VARIANTS: dict[str, Task] = {"gorillahard": GorillaHardNativeTask()}


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


def in_tool_mode(tasks: list[Task], mode: ToolMode) -> list[Task]:
    """The tasks as `--tool-mode` asks them: as they are in text mode; natively, each that has a
    native variant (a run whose tasks have none is refused: the flag would change nothing)."""
    if one_of(ToolMode, mode, "--tool-mode") == ToolMode.TEXT:
        return tasks
    if not any(t.name in NATIVE_VARIANTS for t in tasks):
        raise ConfigError(f"--tool-mode {mode} applies to {', '.join(NATIVE_VARIANTS)} only, which --tasks leaves out")
    return [NATIVE_VARIANTS.get(t.name, t) for t in tasks]
