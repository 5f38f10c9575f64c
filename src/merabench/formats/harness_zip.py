"""merabench's three tasks merged into the ZIP the official MERA harness packed for the others
(`submission --run RUN --into HARNESS.zip --out SUB.zip`).

MERA's packer (`scripts/log_to_submission_v2.py` in the MERA repository) writes one `<Task>.json`
per task at the ZIP's top level and `logs_public.zip` beside them, holding each packed task's
`samples_<task>_<stamp>.jsonl` and the `results_<stamp>.json` of the runs they came from. The
merge keeps every entry of the harness's ZIP as it is (same name, same bytes, same order) except
our three tasks' JSONs, which are ours (an older copy there is replaced, and named). In
`logs_public.zip` the harness's logs of other tasks stay; its samples of our tasks go (ours
replace them), with any results file left describing none of the samples that stay, as the
packer drops results of superseded runs; ours are added.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from merabench.errors import DataError, reading
from merabench.formats.zipentries import open_zip, read_entry, unreadable_entries

LOGS_FILE = "logs_public.zip"


@dataclass
class Merged:
    """What the merge did: our files that replaced the harness's, and the harness's logs of our tasks
    that ours replaced."""

    replaced: list[str] = field(default_factory=list)
    replaced_logs: list[str] = field(default_factory=list)


def _stamp(name: str) -> str:
    """The run stamp lm-eval puts at the end of a log's name (what ties a results file to samples)."""
    return Path(name).name.split(".json")[0].split("_")[-1]


def _ours(name: str, tasks: set[str]) -> bool:
    """A samples log of one of our tasks (`samples_<task>_<stamp>.jsonl`, task as lm-eval names it)."""
    base = Path(name).name
    return any(base.startswith(f"samples_{task}_") for task in tasks)


def check_layout(zf: zipfile.ZipFile, path: Path) -> None:
    """A harness ZIP holds task JSONs at its top level (and usually logs_public.zip): anything else
    is not one, and merging into it would make a ZIP MERA cannot read."""
    unreadable = unreadable_entries(zf)
    if unreadable:  # a copy of it would keep the problem: which duplicate MERA reads, a password it has not
        raise DataError(f"{next(iter(unreadable.values()))}: repack it before merging", file=f"--into {path}")
    names = [n for n in zf.namelist() if not n.endswith("/")]
    nested = [n for n in names if "/" in n and n.endswith(".json")]
    if nested:
        raise DataError(f"holds {nested[0]} inside a folder: MERA reads the task files at the ZIP's top level (is it "
                        "the folder zipped rather than the packer's ZIP?)", file=f"--into {path}")
    if not any(n.endswith(".json") for n in names) and LOGS_FILE not in names:
        raise DataError(f"holds no <Task>.json and no {LOGS_FILE}: not a ZIP the MERA harness packed",
                        file=f"--into {path}")


def merged_logs(theirs: bytes, ours: bytes, tasks: set[str], merged: Merged) -> bytes:
    """logs_public.zip with the harness's logs of other tasks and ours (see the module's docstring)."""
    inner = open_zip(io.BytesIO(theirs), f"--into {LOGS_FILE}")
    names = [n for n in inner.namelist() if not n.endswith("/")]
    dropped = [n for n in names if _ours(n, tasks)]
    kept_stamps = {_stamp(n) for n in names if Path(n).name.startswith("samples_") and n not in dropped}
    dropped_stamps = {_stamp(n) for n in dropped}
    for name in names:  # a results file of runs whose samples all went goes with them
        if Path(name).name.startswith("results_") and _stamp(name) in dropped_stamps - kept_stamps:
            dropped.append(name)
    merged.replaced_logs = sorted(dropped)
    ours_zip = zipfile.ZipFile(io.BytesIO(ours))
    clash = sorted(set(ours_zip.namelist()) & (set(names) - set(dropped)))
    if clash:
        raise DataError(f"{LOGS_FILE} already holds {clash[0]}, the name of one of merabench's logs: two runs "
                        "with the same stamp", file="--into")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as out:
        for info in inner.infolist():
            if info.filename not in dropped:
                out.writestr(info, inner.read(info.filename) if not info.is_dir() else b"")
        for info in ours_zip.infolist():
            out.writestr(info, ours_zip.read(info.filename))
    return buffer.getvalue()


def merged_entries(harness: Path, ours: Mapping[str, bytes], logs: bytes | None, tasks: set[str],
                   merged: Merged) -> Iterator[tuple[zipfile.ZipInfo | str, bytes]]:
    """The submission's entries in order: the harness's (logs_public.zip merged, our tasks' old
    files left out), then ours. A harness file that is no ZIP, or not one the harness
    packed, is a DataError (one line)."""
    with reading(harness, "--into"):
        if not harness.is_file():
            raise DataError("no such file" if not harness.exists() else "is a folder, not a ZIP file",
                            file=f"--into {harness}")
        if not zipfile.is_zipfile(harness):
            raise DataError("is not a ZIP file", file=f"--into {harness}")
        with open_zip(harness, f"--into {harness}") as zf:
            check_layout(zf, harness)
            written = set()
            for info in zf.infolist():
                if info.filename in ours:
                    merged.replaced.append(info.filename)
                    continue
                if info.filename == LOGS_FILE and logs is not None:
                    label = f"--into {harness}!{LOGS_FILE}"
                    yield info, merged_logs(read_entry(zf, LOGS_FILE, label), logs, tasks, merged)
                    written.add(LOGS_FILE)
                    continue
                yield info, (b"" if info.is_dir() else read_entry(zf, info.filename, f"--into {harness}!{info.filename}"))
            yield from ours.items()
            if logs is not None and LOGS_FILE not in written:
                yield LOGS_FILE, logs
