"""`--data` specs -> rows per task.

A spec is `bundled` (the samples shipped in the package, the default), `hub` (the MERA dataset
on the Hugging Face hub), `generated[:SEED]` (a GorillaHard set made by the generator and kept
in the cache folder), `spellcheck:SUBSET|PATH` (SAGE rows from the public SAGE benchmark's pairs:
rows/spellcheck.py), or a local path; `task=SPEC` applies to one task only, e.g.
`--data bundled --data sage=my_sage.jsonl`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from merabench.errors import ConfigError, DataError
from merabench.models.base import SEED_MAX, SEED_MIN
from merabench.rows.inputfile import STDIN
from merabench.rows.row import (
    TaskData,
    check_hub_reachable,
    hub_offline,
    hub_revision,
    read_bundled,
    read_hub,
    read_local,
    to_task_data,
)
from merabench.rows.spellcheck import is_spellcheck, load_spellcheck, spelt_spellcheck
from merabench.tasks import TASKS
from merabench.tasks.base import Task


def _task_and_spec(spec: str) -> tuple[str | None, str]:
    """`TASK=SPEC` (a task's name, in any case) as (task, SPEC); any other spec as (None, spec)."""
    name, sep, rest = spec.partition("=")
    task = name.strip().lower()
    return (task, rest) if sep and task in TASKS else (None, spec)


def split_specs(specs: Sequence[str]) -> tuple[str, dict[str, str]]:
    """(the spec for all tasks, {task: spec} overrides)."""
    default, per_task = "bundled", {}
    for task, spec in map(_task_and_spec, specs):
        if task is None:
            default = spec
        else:
            per_task[task] = spec
    return default, per_task


def spec_for(specs: Sequence[str], task: str) -> str:
    """The spec `specs` give `task`: its own `TASK=SPEC`, else the last one for all tasks
    (`bundled` when there is none)."""
    default, per_task = split_specs(specs)
    return per_task.get(task, default)


def generated_seed(spec: str) -> int:
    """The seed of `generated[:SEED]` (0 when none is given)."""
    _, _, seed_text = spec.partition(":")
    try:
        seed = int(seed_text) if seed_text else 0
    except ValueError:
        seed = None
    if seed is None or not SEED_MIN <= seed <= SEED_MAX:
        raise ConfigError(f"--data {spec}: the seed must be an integer from {SEED_MIN} to {SEED_MAX}") from None
    return seed


def is_generated(spec: str) -> bool:
    return spec == "generated" or spec.startswith("generated:")


def generated_set(task: Task, spec: str) -> Path:
    """A generated set for `generated[:SEED]`, made once and kept in the cache folder."""
    if task.name != "gorillahard":
        raise ConfigError(f"--data {spec}: only gorillahard has a question generator")
    seed = generated_seed(spec)
    from merabench.support.paths import default_cache_path
    from merabench.tasks.gorillahard.generator.build.generate import GENERATOR_VERSION, SetPlan, write_set

    folder = default_cache_path().parent / "generated" / f"gorillahard-{GENERATOR_VERSION}-seed{seed}"
    if not (folder / "manifest.json").exists():
        write_set(SetPlan(seed=seed), folder)
    return folder


def spelt(spec: str) -> str:
    """A --data spec in one spelling: `generated` as `generated:0`, a local path absolute (a
    `spellcheck:` one too), the rest (`bundled`, `hub`, `-`, a spellcheck subset) as given."""
    if spec in ("bundled", "hub", STDIN):
        return spec
    if is_spellcheck(spec):
        return spelt_spellcheck(spec)
    if is_generated(spec):
        return f"generated:{generated_seed(spec)}"
    return os.path.abspath(spec)  # not resolved: /dev/fd/63 of `<(...)` is one spelling each time, its target is not


def recorded_specs(specs: Sequence[str]) -> list[str]:
    """The --data values as results.json records them: each in the spelling run.json gives it
    (`TASK=` kept), so a later reader (export lmeval, submission, report) finds the same data from
    any working directory."""
    return [spelt(spec) if task is None else f"{task}={spelt(spec)}" for task, spec in map(_task_and_spec, specs)]


def data_identity(tasks: Sequence[Task], specs: Sequence[str],
                  revisions: Mapping[str, str | None] | None = None) -> dict[str, dict[str, str]]:
    """What a run folder records of each task's data (rundir.check_identity): the --data spec in
    one spelling (`spelt`); for a generated set, the generator that made it (another version
    makes other rows from one seed); for the hub, the dataset's commit the rows were read at, when
    it is known (`revisions`: each task's TaskData.revision; offline it is not)."""
    recorded = {}
    for task in tasks:
        spec = spelt(spec_for(specs, task.name))
        recorded[task.name] = {"spec": spec}
        if is_generated(spec):
            from merabench.tasks.gorillahard.generator.build.generate import GENERATOR

            recorded[task.name]["generator"] = GENERATOR
        revision = (revisions or {}).get(task.name)
        if spec == "hub" and revision:
            recorded[task.name]["revision"] = revision
    return recorded


def load_task_data(task: Task, spec: str, split: str = "test") -> TaskData:
    data = _load(task, spec, split)
    check_task_rows(task, data)
    return data


def check_task_rows(task: Task, data: TaskData) -> None:
    """Rows are the task's rows: some, each with the inputs the task reads and a reference it
    can parse (a RussianRegions file given as SAGE data is refused, not scored as SAGE)."""
    if not data.rows:
        raise DataError(f"holds no {task.name} rows", file=data.source)
    for row in (*data.rows, *data.shots):
        missing = sorted(task.required_inputs - set(row.inputs))
        if missing:
            raise DataError(f"is not a {task.name} row: inputs has no {', '.join(repr(m) for m in missing)}",
                            file=data.source, row_id=row.id, field="inputs")
        problem = task.reference_problem(row.outputs) if row.outputs.strip() else None
        if problem:
            raise DataError(f"{problem}", file=data.source, row_id=row.id, field="outputs")


def _load(task: Task, spec: str, split: str) -> TaskData:
    if spec == "bundled":
        return to_task_data(read_bundled(task.name), source=f"bundled:{task.name}", split=split)
    if spec == "hub":
        if not hub_offline():
            check_hub_reachable(task.hub_id)  # seconds, not the hub client's half minute of retries
        revision = hub_revision(task.hub_id)
        source = f"hub:{task.hub_id}" + (f"@{revision}" if revision else "")
        return to_task_data(read_hub(task.hub_id), source=source, split=split, revision=revision)
    if is_generated(spec):
        return to_task_data(read_local(generated_set(task, spec)), source=spec, split=split)
    if is_spellcheck(spec):
        _spellcheck_for_sage(task, spec)
        return load_spellcheck(spec, split)
    return to_task_data(read_local(Path(spec)), source=spec, split=split)


def _spellcheck_for_sage(task: Task, spec: str) -> None:
    if task.name != "sage":
        raise ConfigError(f"--data {spec}: the spellcheck pairs are SAGE rows; give them to sage alone "
                          f"(--data sage={spec})")


def load_for_tasks(tasks: Sequence[Task], specs: Sequence[str], split: str = "test") -> dict[str, TaskData]:
    unknown = set(split_specs(specs)[1]) - {t.name for t in tasks}
    if unknown:
        raise ConfigError(f"--data names task(s) not being run: {', '.join(sorted(unknown))}")
    for task in tasks:  # before anything is loaded: a mistake costs no download
        if is_spellcheck(spec_for(specs, task.name)):
            _spellcheck_for_sage(task, spec_for(specs, task.name))
    return {t.name: load_task_data(t, spec_for(specs, t.name), split) for t in tasks}
