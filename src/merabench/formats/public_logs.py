"""logs_public.zip, the lm-eval logs a public MERA submission carries beside its task JSONs: what
MERA's packer reads of it (checked here), and the harness's logs merged with ours.

MERA's packer (`scripts/log_to_submission_v2.py`) puts at its top level, per packed task,
`samples_<task>_<stamp>.jsonl` (one JSON object a line, of which it reads `doc.meta.id`, an
integer or text or a float that is one, and `filtered_resps`) and the `results_<stamp>.json` of
the run they came from (read whole, JSON); the stamp at the end of a name ties a results file to
its samples. docs/formats.md says the same for users.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Collection
from pathlib import Path
from typing import IO, Any

from merabench.errors import DataError, reading
from merabench.formats.zipentries import copy_entry, copy_info, entry_lines, read_entry
from merabench.rows.jsonio import loads

LOGS_FILE = "logs_public.zip"


def stamp(name: str) -> str:
    """The run stamp lm-eval puts at the end of a log's name (what ties a results file to samples)."""
    return Path(name).name.split(".json")[0].split("_")[-1]


def is_samples(name: str) -> bool:
    return Path(name).name.startswith("samples_") and ".json" in name


def is_results(name: str) -> bool:
    return Path(name).name.startswith("results_")


def of_tasks(name: str, tasks: Collection[str]) -> bool:
    """A samples log of one of `tasks` (`samples_<task>_<stamp>.jsonl`, task as lm-eval names it)."""
    base = Path(name).name
    return any(base.startswith(f"samples_{task}_") for task in tasks)


def log_problems(logs: zipfile.ZipFile, names: list[str], label: str, *, whole: bool = True) -> list[str]:
    """Every problem MERA's packer would meet in the entries `names` of a logs ZIP (readable ones:
    unreadable_entries has set the others aside): each samples file's lines, each results file's
    JSON, a results file for every stamp of samples and, when `names` is the `whole` of the
    logs, at least one samples file. Each problem starts with `label!entry`."""
    samples = [n for n in names if is_samples(n)]
    results = [n for n in names if is_results(n)]
    problems = []
    if whole and not samples:
        problems.append(f"{label}: no samples_<task>_<stamp>.jsonl")
    missing = {stamp(n) for n in samples} - {stamp(n) for n in results}
    if missing:
        problems.append(f"{label}: no results_<stamp>.json for the samples of {sorted(missing)}")
    problems += [p for name in results if (p := _results_problem(logs, name, f"{label}!{name}"))]
    problems += [p for name in samples if (p := _samples_problem(logs, name, f"{label}!{name}"))]
    return problems


def _results_problem(logs: zipfile.ZipFile, name: str, label: str) -> str | None:
    """A results file of the logs: read whole (MERA's packer reads it) and JSON."""
    try:
        with reading(label):
            loads(read_entry(logs, name, label))
    except DataError as exc:
        return str(exc)
    return None


def _samples_problem(logs: zipfile.ZipFile, name: str, label: str) -> str | None:
    """The first problem of a samples file of the logs, streamed line by line."""
    try:
        for n, text in entry_lines(logs, name, label):
            problem = line_problem(text)
            if problem:
                return f"{label}: line {n} {problem}"
    except DataError as exc:
        return str(exc)
    return None


def line_problem(text: bytes) -> str | None:
    """What a samples line lacks of what MERA's packer reads (`doc.meta.id` as an integer: as_row_id,
    `filtered_resps`), said exactly; None when it has both."""
    try:
        line = loads(text)
    except (ValueError, RecursionError):
        return "is not JSON"
    if not isinstance(line, dict):
        return "is not a JSON object"
    doc = line.get("doc")
    if not isinstance(doc, dict):
        return "has no doc.meta.id (no doc object)"
    meta = doc.get("meta")
    if not isinstance(meta, dict):
        return "has no doc.meta.id (no doc.meta object)"
    if "id" not in meta:
        return "has no doc.meta.id"
    if as_row_id(meta["id"]) is None:
        return f"has doc.meta.id {json.dumps(meta['id'], ensure_ascii=False)[:40]}, not an integer"
    if "filtered_resps" not in line:
        return "has no filtered_resps"
    return None


def as_row_id(value: Any) -> int | None:
    """`value` as the row id the packer reads (`int(...)`), when it is one: an integer, or text or a
    float that is one (7, "7", 7.0); None for anything else. JSON `true` is no id, though Python
    counts it as 1, and neither is 2.5, which int() would cut to row 2."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None  # NaN and infinities are not integers
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:  # also a string of more digits than int() takes
            return None
    return None


def merge_logs(theirs: zipfile.ZipFile, ours: zipfile.ZipFile, tasks: Collection[str], dest: IO[bytes],
               label: str) -> list[str]:
    """The harness's logs (`theirs`, readable: unreadable_entries has refused the others) with
    ours, written to `dest` entry by entry with the cap, never an entry whole in memory; returns
    the harness's logs ours replace, by name. Theirs of our tasks go, with any results file left
    describing none of the samples that stay (as the packer drops superseded runs' results);
    what stays must be what MERA's packer reads (else a DataError, before `dest` is written)."""
    names = [n for n in theirs.namelist() if not n.endswith("/")]
    dropped = _superseded(names, tasks)
    kept = [n for n in names if n not in dropped]
    clash = sorted(set(ours.namelist()) & set(kept))
    if clash:
        raise DataError(f"already holds {clash[0]}, the name of one of merabench's logs: two runs with the same "
                        "stamp", file=label)
    problems = log_problems(theirs, kept, label, whole=False)
    if problems:
        raise DataError(f"{problems[0]}; MERA's packer could not read it: fix the harness's logs, then merge")
    with zipfile.ZipFile(dest, "w", compression=zipfile.ZIP_DEFLATED) as out:
        for source, infos in ((theirs, [i for i in theirs.infolist() if i.filename not in dropped]),
                              (ours, ours.infolist())):
            for info in infos:
                _copy(source, info, out, f"{label}!{info.filename}")
    return sorted(dropped)


def _superseded(names: list[str], tasks: Collection[str]) -> set[str]:
    """The samples of `tasks` among `names`, and the results files of runs none of whose samples stay."""
    dropped = {n for n in names if of_tasks(n, tasks)}
    kept_stamps = {stamp(n) for n in names if is_samples(n) and n not in dropped}
    gone = {stamp(n) for n in dropped} - kept_stamps
    return dropped | {n for n in names if is_results(n) and stamp(n) in gone}


def _copy(source: zipfile.ZipFile, info: zipfile.ZipInfo, out: zipfile.ZipFile, label: str) -> None:
    if info.is_dir():
        out.writestr(copy_info(info), b"")
        return
    with out.open(copy_info(info), "w") as fh:
        copy_entry(source, info, fh, label)
