"""A run folder as lm-evaluation-harness 0.4 logs: `results_<stamp>.json` and one
`samples_<task>_<stamp>.jsonl` per task, so tools written for lm-eval's JSON (and MERA's packer,
which finds answers by the glob `samples_<task>_*.json*` and reads `doc.meta.id` and
`filtered_resps`) read merabench's runs.

The values are merabench's own (metric names, bootstrap stderr, the per-row metrics); only the
layout is lm-eval's. Each metric sits under "<metric>,<filter>" with "<metric>_stderr,<filter>",
the filter named as the public task files name theirs. The standard error is the 95 % bootstrap
interval's half-width over 1.96 ("N/A" where no interval could be drawn, as lm-eval writes it).
"""

from __future__ import annotations

import calendar
import hashlib
import json
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from merabench.errors import ConfigError, DataError, reading, writing
from merabench.formats.results import RESULTS_FILE, check_text_protocol, task_settings
from merabench.records import RunSettings, Status
from merabench.rows.prompts import HistoryIndex
from merabench.rows.row import Row, TaskData
from merabench.runner.samples import dumps, missing_answers, read_records, samples_path
from merabench.support.files import write_atomic
from merabench.tasks import TASKS, get_task
from merabench.tasks.base import Task

STAMP_FORMAT = "%Y-%m-%dT%H-%M-%S.%f"  # lm-eval's file-name stamp, which MERA's packer parses
#: the filter each public task file applies before scoring (its metrics are keyed by it)
FILTERS = {"sage": "none", "russianregions": "none", "gorillahard": "scoring"}
Z95 = 1.959964


def stamp_of(created: str | None) -> str:
    """The lm-eval stamp for a results.json `created` time (UTC), or for now."""
    moment = time.strptime(created, "%Y-%m-%dT%H:%M:%SZ") if created else time.gmtime()
    return time.strftime("%Y-%m-%dT%H-%M-%S", moment) + ".000000"


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _stderr(ci95: Any) -> float | str:
    if isinstance(ci95, list) and len(ci95) == 2 and all(isinstance(v, int | float) for v in ci95):
        return round((ci95[1] - ci95[0]) / (2 * Z95), 6)
    return "N/A"


def generation_kwargs(settings: RunSettings) -> dict[str, Any]:
    """merabench's effective request parameters under lm-eval's names."""
    generation = settings.generation or {}
    out: dict[str, Any] = {"until": list(generation.get("stop") or []), "do_sample": False}
    if generation.get("max_tokens") is not None:
        out["max_gen_toks"] = generation["max_tokens"]
    for key in ("temperature", "seed", "reasoning_effort"):
        if generation.get(key) is not None:
            out[key] = generation[key]
    return out


def _task_results(task_name: str, result: Mapping[str, Any]) -> dict[str, Any]:
    flt = FILTERS.get(task_name, "none")
    out: dict[str, Any] = {"alias": task_name}
    ci95 = result.get("ci95") or {}
    for metric, value in (result.get("metrics") or {}).items():
        out[f"{metric},{flt}"] = value
        out[f"{metric}_stderr,{flt}"] = _stderr(ci95.get(metric))
    return out


def _task_config(task_name: str, result: Mapping[str, Any], settings: RunSettings) -> dict[str, Any]:
    task = get_task(task_name)
    info = result.get("metric_info") or {}
    return {
        "task": task_name,
        "dataset_path": task.hub_id,
        "merabench_source": result.get("source"),
        "test_split": settings.split,
        "output_type": "generate_until",
        "generation_kwargs": generation_kwargs(settings),
        "filter_list": [{"name": FILTERS.get(task_name, "none")}],
        "metric_list": [{"metric": name, "aggregation": meta.get("aggregation"),
                         "higher_is_better": meta.get("higher_is_better")} for name, meta in info.items()],
        "metadata": {"version": 1.0, "data_sha256": result.get("data_sha256")},
    }


def results_file(document: Mapping[str, Any]) -> dict[str, Any]:
    """results.json in lm-eval's results layout."""
    tasks: Mapping[str, Any] = document.get("tasks") or {}
    settings = RunSettings.from_json(document.get("settings"))
    return {
        "results": {name: _task_results(name, result) for name, result in tasks.items()},
        "group_subtasks": {name: [] for name in tasks},
        "configs": {name: _task_config(name, result, task_settings(dict(document), name))
                    for name, result in tasks.items()},
        "versions": {name: 1.0 for name in tasks},
        "n-shot": {name: 0 for name in tasks},
        "higher_is_better": {name: {m: meta.get("higher_is_better") for m, meta in
                                    (result.get("metric_info") or {}).items()} for name, result in tasks.items()},
        "n-samples": {name: {"original": result.get("n"), "effective": result.get("n_scored")}
                      for name, result in tasks.items()},
        "config": {"model": "merabench", "model_args": document.get("model"), "batch_size": None,
                   "gen_kwargs": generation_kwargs(settings), "limit": settings.limit},
        "git_hash": (document.get("merabench_commit") or "")[:7] or None,
        "date": calendar.timegm(time.strptime(document["created"], "%Y-%m-%dT%H:%M:%SZ"))
        if document.get("created") else time.time(),
        "task_hashes": {name: result.get("data_sha256") for name, result in tasks.items()},
        "model_name": document.get("model"),
        "total_evaluation_time_seconds": str(document.get("wall_time_s")),
        "merabench": {"schema_version": document.get("schema_version"),
                      "version": document.get("merabench_version"), "settings": document.get("settings") or {}},
    }


def _load_rows(task_name: str, settings: RunSettings) -> TaskData | None:
    """The run's rows, loaded again from its data spec; None when they cannot be (moved, offline)."""
    from merabench.tasks.datasource import load_for_tasks

    try:
        return load_for_tasks([get_task(task_name)], list(settings.data) or ["bundled"], settings.split)[task_name]
    except (ConfigError, DataError):
        return None


def _prompt(task: Task, record: Mapping[str, Any], row: Row | None, history: HistoryIndex | None,
            system_prompt: str | None) -> str:
    """The request's messages as the JSON text lm-eval logs for a chat model: the logged ones
    (--log-prompts), else rendered again from the row (rendering is deterministic); "" if unknown."""
    messages = record.get("messages")
    if messages is None and row is not None and history is not None:
        try:
            messages = task.messages(row, history, system_prompt)
        except DataError:  # a dialogue turn without its history: it was never asked
            messages = None
    return json.dumps(messages, ensure_ascii=False) if messages else ""


def sample_lines(task_name: str, records: Mapping[int, dict[str, Any]], data: TaskData | None,
                 settings: RunSettings) -> Iterator[dict[str, Any]]:
    """One lm-eval samples line per answered row, in the data's order (a row whose request failed
    was never answered: it has no line, never an empty response)."""
    task = get_task(task_name)
    flt = FILTERS.get(task_name, "none")
    rows = {r.id: r for r in data.rows} if data else {}
    answered = {i for i, record in records.items() if record.get("status") == "ok"}
    order = [r.id for r in data.rows if r.id in answered] if data else sorted(answered)
    history = HistoryIndex(data.shots) if data else None
    kwargs = generation_kwargs(settings)
    names = [m.name for m in task.metrics if not m.derived]
    for doc_id, row_id in enumerate(order):
        record = records[row_id]
        row = rows.get(row_id)
        raw = record.get("output") or ""
        scored = record.get("answer", raw)
        doc = row.to_dict() if row else {"meta": {"id": row_id}}
        target = row.outputs if row else ""
        prompt = _prompt(task, record, row, history, settings.system_prompt)
        metrics = record.get("metrics") or {}
        line: dict[str, Any] = {
            "doc_id": doc_id, "doc": doc, "target": target,
            "arguments": {"gen_args_0": {"arg_0": prompt, "arg_1": kwargs}},
            "resps": [[raw]], "filtered_resps": [scored if scored is not None else ""],
            "filter": flt, "metrics": [n for n in names if n in metrics],
            "doc_hash": _sha256(json.dumps(doc, ensure_ascii=False, sort_keys=True)),
            "prompt_hash": _sha256(prompt), "target_hash": _sha256(target),
        }
        line.update({n: metrics[n] for n in names if n in metrics})
        yield line


def export_lmeval(run_dir: Path, out_dir: Path, *, allow_incomplete: bool = False) -> tuple[list[Path], list[str]]:
    """Write the run's lm-eval-style logs into out_dir; returns the files written (results first)
    and what was left out. Only answered rows are written: a run with rows whose request failed, or
    never asked, is refused (a DataError) unless `allow_incomplete`, and then those rows are left
    out (as `submission` does)."""
    path = run_dir / RESULTS_FILE
    if not path.exists():
        raise DataError("no results.json: finish the run (rerun the same command) before exporting it",
                        file=str(run_dir))
    with reading(path):
        document = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(document, dict) or not isinstance(document.get("tasks"), dict):
        raise DataError("has no tasks", file=str(path))
    check_text_protocol(document, run_dir, "an lm-eval export")
    stamp = stamp_of(document.get("created"))
    records_of = {name: read_records(samples_path(run_dir, name)) for name in document["tasks"] if name in TASKS}
    problems = [p for name, records in records_of.items() for p in missing_answers(
        name, sorted(i for i, r in records.items() if r.get("status") != "ok"), len(records),
        (document["tasks"].get(name) or {}).get("n"),
        sum(r.get("status") == Status.UNASKED for r in records.values()))]
    if problems and not allow_incomplete:
        raise DataError("incomplete: " + "; ".join(problems) + " (or pass --allow-incomplete to leave those rows out)",
                        file=str(run_dir))
    written = []
    with writing(out_dir, "--out"):
        out_dir.mkdir(parents=True, exist_ok=True)
        results_path = out_dir / f"results_{stamp}.json"
        write_atomic(results_path, json.dumps(results_file(document), ensure_ascii=False, indent=2) + "\n")
        written.append(results_path)
        for task_name, records in records_of.items():
            settings = task_settings(document, task_name)  # a task kept from an earlier run: that run's
            data = _load_rows(task_name, settings)
            target = out_dir / f"samples_{task_name}_{stamp}.jsonl"
            write_atomic(target, (dumps(line) + "\n" for line in sample_lines(task_name, records, data, settings)))
            written.append(target)
    return written, problems
