"""MERA submission ZIPs: write one from a run folder, and check one before it is uploaded.

A submission is a ZIP with one JSON per task at its top level, named SAGE.json,
RussianRegions.json, GorillaHard.json, each `{"data": {"test": [{"outputs": "<answer>",
"meta": {"id": <int>}}, ...]}}` with one entry per test row, ids unique and complete, and
`logs_public.zip` beside them: the run's logs in lm-eval's layout (`samples_<task>_<stamp>.jsonl`
and `results_<stamp>.json`, at its top level), which MERA asks for with a public submission. A
ZIP made by MERA's own packer also holds the JSONs of MERA's other tasks: those are left
unchecked.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import tempfile
import zipfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from merabench.errors import ConfigError, DataError, reading, writing
from merabench.formats.harness_zip import Merged, Piece, harness_pieces
from merabench.formats.public_logs import LOGS_FILE, is_results, is_samples, log_problems
from merabench.formats.results import RESULTS_FILE, check_text_protocol
from merabench.formats.zipentries import (
    extracted,
    listed,
    not_a_zip_file,
    open_zip,
    read_entry,
    unreadable_contents,
    unreadable_entries,
)
from merabench.records import RunSettings
from merabench.rows.jsonio import loads
from merabench.runner.rundir import RUN_FILE
from merabench.runner.samples import missing_answers, read_answers, read_records, samples_path
from merabench.support.files import replacing
from merabench.support.redaction import redact
from merabench.tasks import TASKS


def _finished_counts(run_dir: Path) -> dict[str, Any]:
    path = run_dir / RESULTS_FILE
    if not path.exists():
        raise DataError("the run has not finished (no results.json): rerun the same command to finish it, "
                        "or pass --allow-incomplete", file=str(run_dir))
    with reading(path):
        doc = json.loads(path.read_text(encoding="utf-8"))
    tasks = doc.get("tasks") if isinstance(doc, dict) else None
    if not isinstance(tasks, dict):
        raise DataError("has no tasks", file=str(path))
    check_text_protocol(doc, run_dir, "a submission")
    return tasks


@dataclass
class Written:
    """What `write_submission` wrote: answers per task, what is incomplete (allowed with
    `allow_incomplete`), why the run is not for the leaderboard (allowed with `allow_unofficial`,
    and said in the ZIP's comment), and what of the harness's ZIP ours replaced (`into`)."""

    counts: dict[str, int]
    incomplete: list[str]
    unofficial: list[str] = field(default_factory=list)
    merged: Merged | None = None


def unofficial_causes(run_dir: Path) -> list[str]:
    """Why the run's answers are not what the leaderboard scores, a line per cause naming the
    tasks it holds for: rows that are not the test set (the bundled samples, by name or by content,
    a generated set, another split), a --limit, request parameters other than the harness's
    (--preset mera). A `merabench score` folder sent no request: no preset is asked of it."""
    from merabench.formats.results import read_results, task_settings

    doc = read_results(run_dir)
    if doc is None:
        return []
    found: dict[str, list[str]] = {}
    for name in (n for n in TASKS if n in doc["tasks"]):
        result = doc["tasks"][name]
        data_sha256 = result.get("data_sha256") if isinstance(result, dict) else None
        data_sha256 = data_sha256 if isinstance(data_sha256, str) else None
        for cause in _task_causes(name, task_settings(doc, name), data_sha256, sent=(run_dir / RUN_FILE).exists()):
            found.setdefault(cause, []).append(name)
    every = [n for n in TASKS if n in doc["tasks"]]
    return [cause if tasks == every else f"{cause} ({', '.join(tasks)})" for cause, tasks in found.items()]


#: how the comment of a ZIP packaged with --allow-unofficial starts; the causes follow, "; " apart
UNOFFICIAL = "merabench: not for the leaderboard (--allow-unofficial): "


def unofficial_causes_said(comment: bytes) -> list[str]:
    """The causes a ZIP's comment gives for it not being for the leaderboard (none: it gives none)."""
    text = comment.decode("utf-8", errors="replace")
    return [c for c in text.removeprefix(UNOFFICIAL).split("; ") if c] if text.startswith(UNOFFICIAL) else []


def _task_causes(name: str, settings: RunSettings, data_sha256: str | None, *, sent: bool) -> list[str]:
    from merabench.tasks.datasource import is_generated, spec_for

    spec = spec_for(list(settings.data), name)
    causes = []
    if spec == "bundled" or is_generated(spec) or spec.startswith("spellcheck:"):
        rows = ("the bundled sample rows" if spec == "bundled" else "a generated set" if is_generated(spec)
                else "the public SAGE benchmark's pairs")
        causes.append(f"run on {rows}, not MERA's test set (--data hub)")
    elif spec != "hub" and data_sha256 in _bundled_sha256s(name):  # found by content, whatever the file's name
        causes.append("run on the bundled sample rows (a local copy of them), not MERA's test set (--data hub)")
    if settings.split != "test":
        causes.append(f"run on the {settings.split} split, not test")
    if settings.limit is not None:
        causes.append(f"run with --limit {settings.limit}, only the first rows")
    if sent and settings.preset != "mera":
        causes.append("run without --preset mera, the leaderboard's request parameters")
    return causes


@functools.cache
def _bundled_sha256s(name: str) -> frozenset[str]:
    """The data_sha256 a run of the task's bundled rows records, for each bundled split: a local
    copy of them hashes the same (results.json hashes the rows' content, not their file)."""
    from merabench.rows.row import read_bundled, rows_sha256

    return frozenset(rows_sha256(rows) for rows in read_bundled(name).values())


def write_submission(run_dir: Path, out: Path, *, allow_incomplete: bool = False, allow_unofficial: bool = False,
                     into: Path | None = None) -> Written:
    """Write the ZIP (merged into the harness's ZIP `into`, when given); see `Written`."""
    problems: list[str] = []
    finished: dict[str, Any] | None
    try:
        finished = _finished_counts(run_dir)
    except DataError as exc:
        if not allow_incomplete:
            raise
        finished, problems = None, [str(exc)]
    unofficial = unofficial_causes(run_dir)
    if unofficial and not allow_unofficial:
        raise ConfigError("not for the leaderboard: " + "; ".join(unofficial) + " (--allow-unofficial packages it "
                          "anyway, and says so in the ZIP's comment)")
    entries, more = _task_entries(run_dir, finished)
    problems += more
    if not entries:
        raise DataError("no samples_<task>.jsonl in this folder: is it a `merabench run` folder?", file=str(run_dir))
    if problems and not allow_incomplete:
        raise DataError("incomplete: " + "; ".join(problems) + " (or pass --allow-incomplete)", file=str(run_dir))
    logs = _public_logs(run_dir, allow_incomplete) if (run_dir / RESULTS_FILE).exists() else None
    if logs is None:
        problems.append(f"{LOGS_FILE}: left out, the run has no results.json to export")
    # ASCII-escaped: a lone surrogate in an answer must not stop the write
    ours = {f"{name}.json": redact(json.dumps({"data": {"test": items}})).encode() for name, items in entries.items()}
    merged = Merged() if into is not None else None
    pieces: contextlib.AbstractContextManager[list[Piece]] = (
        harness_pieces(into, ours, logs, set(TASKS), merged) if into is not None and merged is not None
        else contextlib.nullcontext([*ours.items(), *([(LOGS_FILE, logs)] if logs is not None else [])]))
    with pieces as checked:  # the harness is checked whole before the ZIP is begun
        _write_zip(out, checked, UNOFFICIAL + "; ".join(unofficial) if unofficial else "")
    return Written({name: len(items) for name, items in entries.items()}, problems, unofficial, merged)


def _task_entries(run_dir: Path, finished: dict[str, Any] | None) -> tuple[dict[str, list[dict[str, Any]]], list[str]]:
    """Each task's submission entries (answered rows, as scored), and what is missing."""
    problems: list[str] = []
    entries: dict[str, list[dict[str, Any]]] = {}
    scoring = not (run_dir / RUN_FILE).exists()  # a `merabench score` folder: one task's scored predictions
    for task in TASKS.values():
        path = samples_path(run_dir, task.name)
        if not path.exists():
            problems.append(f"{task.mera_name}: not in this score folder (it holds one task; a submission comes "
                            "from a `merabench run` folder)"
                            if scoring else f"{task.mera_name}: not in this run (run it with --tasks {task.name})")
            continue
        if finished is not None and task.name not in finished:  # results.json, the report and the logs lack it
            problems.append(f"{task.mera_name}: {path.name} is in the folder but not in its results.json "
                            f"(run --tasks {task.name} into it to score it; only rows with no answer are asked)")
            continue
        answers = read_answers(path)
        lines = read_records(path)
        failed = sorted(i for i, a in answers.items() if not a.ok)
        expected = ((finished or {}).get(task.name) or {}).get("n")
        problems += missing_answers(task.mera_name, failed, len(answers), expected,
                                    sum(a.unasked for a in answers.values()), scoring=scoring)
        # the answer as it was scored: the harness's filter (left-stripped; think blocks out only with --strip-think)
        entries[task.mera_name] = [{"outputs": lines[i].get("answer", a.output) or "", "meta": {"id": i}}
                                   for i, a in sorted(answers.items()) if a.ok]
    return entries, problems


def _write_zip(out: Path, pieces: Iterable[Piece], comment: str) -> None:
    """The ZIP at `out`, written to `<name>.<pid>.tmp` beside it and renamed: nothing is left of it
    when a piece fails (a harness entry found corrupt half-way)."""
    with writing(out, "--out"):
        out.parent.mkdir(parents=True, exist_ok=True)
        with replacing(out, binary=True) as fh, zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for name, data in pieces:
                if isinstance(data, bytes):
                    zf.writestr(name, data)
                    continue
                with zf.open(name, "w") as entry:
                    data(entry)
            zf.comment = comment.encode("utf-8")[:65535]


def _public_logs(run_dir: Path, allow_incomplete: bool) -> bytes:
    """logs_public.zip: the run's lm-eval-style samples and results files at its top level."""
    from merabench.formats.lmeval import export_lmeval

    buffer = io.BytesIO()
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for path in export_lmeval(run_dir, Path(tmp), allow_incomplete=allow_incomplete)[0]:
            zf.write(path, path.name)
    return buffer.getvalue()


def _check_logs(zf: zipfile.ZipFile) -> list[str]:
    """logs_public.zip, when present: a ZIP whose entries can be read, whose samples files read as
    MERA's packer reads them and whose results files match their stamps (public_logs.py); its
    other entries are read through (_unread_problems)."""
    try:
        with extracted(zf, zf.getinfo(LOGS_FILE), LOGS_FILE) as inner:
            unreadable = unreadable_entries(inner)
            names = [n for n in inner.namelist() if not n.endswith("/") and n not in unreadable]
            problems = [f"{LOGS_FILE}!{problem}" for problem in unreadable.values()]
            read = {*unreadable, *(n for n in names if is_samples(n) or is_results(n))}
            problems += log_problems(inner, names, LOGS_FILE)
            return problems + _unread_problems(inner, LOGS_FILE, read)
    except DataError as exc:
        return [str(exc)]


def _unread_problems(zf: zipfile.ZipFile, label: str, read: set[str]) -> list[str]:
    """The entries no other check reads (other tasks' files, the logs' other files), each read
    through with the cap: one that cannot be read (a CRC-32 that differs) is a problem, as merging
    it would be."""
    return unreadable_contents(zf, (i for i in zf.infolist() if i.filename not in read), label)


def _check_task(zf: zipfile.ZipFile, name: str, expected: set[int] | None) -> list[str]:
    try:
        label = f"{zf.filename}!{name}"
        with reading(label):
            doc = loads(read_entry(zf, name, label))
    except DataError as exc:
        return [str(exc)]
    items = doc.get("data", {}).get("test") if isinstance(doc, dict) and isinstance(doc.get("data"), dict) else None
    if not isinstance(items, list):
        return [f'{name}: not {{"data": {{"test": [...]}}}} with a list']
    problems, ids = [], []
    for n, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("outputs"), str):
            problems.append(f"{name}: entry {n} has no string outputs")
            continue
        meta = item.get("meta")
        row_id = meta.get("id") if isinstance(meta, dict) else None
        if isinstance(row_id, bool) or not isinstance(row_id, int):
            problems.append(f"{name}: entry {n} has no integer meta.id")
            continue
        ids.append(row_id)
    duplicates = sorted(i for i, times in Counter(ids).items() if times > 1)
    if duplicates:
        problems.append(f"{name}: duplicate ids {duplicates[:5]}")
    if expected is not None:
        missing, extra = sorted(expected - set(ids)), sorted(set(ids) - expected)
        if missing:
            problems.append(f"{name}: {len(missing)} test row(s) missing (first {missing[:5]})")
        if extra:
            problems.append(f"{name}: {len(extra)} id(s) not in the test split (first {extra[:5]})")
    return problems


@dataclass(frozen=True)
class Checked:
    """What `check_submission` found: every problem of the format, and why the ZIP is not for the
    leaderboard as the comment `--allow-unofficial` wrote into it says (empty: it says nothing)."""

    problems: list[str]
    unofficial: list[str]


def check_submission(path: Path, expected_ids: dict[str, set[int]] | None = None) -> Checked:
    """Every problem of a submission ZIP. Each of merabench's tasks must be there; with
    `expected_ids` (by MERA name) every test row must be too. A file that is not a readable ZIP
    is a DataError (nothing can be checked), not a problem; an entry that cannot be read is a
    problem. Linear in the entries: a ZIP of 100,000 of them is checked in seconds."""
    problem = not_a_zip_file(path)
    if problem:
        raise DataError(problem, file=str(path))
    with reading(path, "submission"):
        if not zipfile.is_zipfile(path):
            raise DataError("is not a ZIP file", file=str(path))
        with open_zip(path, f"submission {path}") as zf:
            names = set(zf.namelist())
            nested = [name for name in zf.namelist() if "/" in name and name.endswith(".json")]
            problems = [f"{listed(nested)}: inside a folder; MERA reads the task files at the top level"
                        for _ in nested[:1]]
            unreadable = unreadable_entries(zf)
            problems += unreadable.values()
            for task in TASKS.values():
                name = f"{task.mera_name}.json"
                if name not in names:
                    problems.append(f"{name}: missing")
                    continue
                if name not in unreadable:
                    problems += _check_task(zf, name, None if expected_ids is None else expected_ids.get(task.mera_name))
            if LOGS_FILE in names and LOGS_FILE not in unreadable:
                problems += _check_logs(zf)
            read = {*unreadable, LOGS_FILE, *(f"{task.mera_name}.json" for task in TASKS.values())}
            problems += _unread_problems(zf, str(path), read)
            return Checked(problems, unofficial_causes_said(zf.comment))
