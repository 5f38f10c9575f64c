"""Two runs side by side: per task and metric, the paired difference over the rows both scored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from merabench.errors import ConfigError
from merabench.samples import read_records, samples_path
from merabench.stats import paired_difference
from merabench.tasks import TASKS


def compare_runs(first: Path, second: Path) -> dict[str, Any]:
    """{task: {metric: paired difference}} for the tasks both folders scored."""
    out: dict[str, Any] = {}
    for task in TASKS.values():
        a, b = read_records(samples_path(first, task.name)), read_records(samples_path(second, task.name))
        shared = sorted(i for i in a.keys() & b.keys() if a[i].get("metrics") and b[i].get("metrics"))
        if not shared:
            continue
        names = sorted({name for i in shared for name in a[i]["metrics"]})
        metrics = {}
        for name in names:  # each metric over the rows it applies to on both sides
            rows = [i for i in shared if name in a[i]["metrics"] and name in b[i]["metrics"]]
            result = paired_difference([a[i]["metrics"][name] for i in rows], [b[i]["metrics"][name] for i in rows])
            if result:
                metrics[name] = result
        out[task.name] = metrics
    if not out:
        raise ConfigError(f"{first} and {second} share no scored rows of any task")
    return out


def headline_first(task: str, metrics: dict[str, Any]) -> list[str]:
    headline = [m.name for m in TASKS[task].metrics if m.headline]
    return [m for m in headline if m in metrics] + [m for m in metrics if m not in headline]


def to_json(result: dict[str, Any]) -> str:
    return json.dumps(result, ensure_ascii=False, indent=1)
