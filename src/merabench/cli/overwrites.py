"""An output that is one of the command's inputs is refused before anything is read or written:
writing it would replace what is being read (`submission --into h.zip --out h.zip` put the merged
ZIP where the harness's was, without a word).

Every command that reads files and writes others names them here as (how the command line names
it, the file): its outputs, and its inputs (a run folder given to read stands for the files it
holds, `folder_files`). Files are compared as the system sees them: the same inode for files that
exist (a symlink, `./h.zip` and `h.zip`, a hard link), else the same resolved path.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from merabench.errors import ConfigError
from merabench.formats.results import RESULTS_FILE
from merabench.rows.inputfile import STDIN
from merabench.rows.spellcheck import is_spellcheck
from merabench.runner.rundir import RUN_FILE
from merabench.tasks import TASKS
from merabench.tasks.datasource import is_generated, spec_for

if TYPE_CHECKING:
    from merabench.pipeline import RunConfig

Named = tuple[str, Path]

#: what report/html.py writes into a run or score folder
REPORT_FILE = "report.html"


def refuse_replacing_inputs(outputs: Iterable[Named], inputs: Iterable[Named]) -> None:
    """A ConfigError (one line, exit 2) when an output is an input, or two outputs one file."""
    outputs, inputs = list(outputs), list(inputs)
    for n, (out_label, out) in enumerate(outputs):
        for other_label, other in [*inputs, *outputs[:n]]:
            if _same_file(out, other):
                what = "an input" if (other_label, other) in inputs else "the other output"
                raise ConfigError(f"{out_label}: the same file as {other_label}; writing it would replace {what} "
                                  f"(give another {out_label.split()[0]})")


def refuse_run_overwrites(command: str | None, params: Mapping[str, Any], config: RunConfig,
                          export_requests: Path | None) -> None:
    """run, export-requests and import-responses (`command`, its flags' values `params`): nothing
    they write is a file they read (the rows, the batch output, a config, price or prompt file;
    an export reads the run folder too)."""
    inputs = data_files(config.data, config.tasks) + given_files(
        ("--config", params.get("config")), ("--price-file", params.get("price_file")),
        ("--judge-prompt", params.get("judge_prompt")),
        ("the batch output" if command == "import-responses" else "--import-responses", config.import_responses))
    if export_requests is None:
        refuse_data_folder_as_out(config.out_dir(), config.data, config.tasks)
        cache = given_files(("--cache-path", config.cache.path)) if config.cache.enabled else []  # a database: an output
        refuse_replacing_inputs(folder_files(config.out_dir(), "--out", config.tasks) + cache, inputs)
        return
    out_flag, run_flag = ("--out", "--run") if command == "export-requests" else ("--export-requests", "--out")
    refuse_replacing_inputs([(f"{out_flag} {export_requests}", export_requests)],
                            inputs + folder_files(config.out_dir(), run_flag, config.tasks))


def refuse_data_folder_as_out(out: Path, specs: Sequence[str], tasks: Iterable[str]) -> None:
    """--out may not be a folder --data reads rows from: the run's own files would be read as rows
    (or pairs) by the next run into it, which could then never resume."""
    for task in _known(tasks):
        spec = spec_for(specs, task)
        folder = Path(spec.partition(":")[2] if is_spellcheck(spec) else spec)
        if spec in ("bundled", "hub", STDIN) or is_generated(spec) or not folder.is_dir():
            continue
        with contextlib.suppress(OSError, RuntimeError):
            if out.resolve() == folder.resolve():
                raise ConfigError(f"--out {out} is the folder --data {spec} reads its rows from: the run's files "
                                  "would be read as rows next time (give another --out)")


def refuse_score_overwrites(task: str, predictions: Path, data: str, judge_prompt: Path | None, out: Path) -> None:
    """score: its folder's files are none of the predictions, rows or prompt it reads."""
    refuse_replacing_inputs(folder_files(out, "--out", [task], run_file=False),
                            given_files(("--predictions", predictions), ("--judge-prompt", judge_prompt))
                            + data_files([data], [task]))


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b) and stat.S_ISREG(os.stat(b).st_mode)  # a terminal is no file to replace
    except OSError:  # one of them does not exist (yet)
        pass
    try:
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError):  # a symlink loop
        return False


def folder_files(folder: Path, label: str, tasks: Iterable[str], *, run_file: bool = True) -> list[Named]:
    """The files a run or score folder holds for `tasks` (run.json only with `run_file`: a score
    folder has none), each named `<label> <folder> (its <file>)`."""
    names = [*([RUN_FILE] if run_file else []), RESULTS_FILE, REPORT_FILE,
             *(f"samples_{t}.jsonl" for t in _known(tasks))]
    return [(f"{label} {folder} (its {name})".lstrip(), folder / name) for name in names]


def data_files(specs: Sequence[str], tasks: Iterable[str]) -> list[Named]:
    """The local files `--data` gives `tasks` (a `spellcheck:` path included; a folder's files are
    named by split, test.jsonl and shots.jsonl, never as a run's own)."""
    found = []
    for task in _known(tasks):
        spec = spec_for(specs, task)
        path = Path(spec.partition(":")[2] if is_spellcheck(spec) else spec)
        if spec not in ("bundled", "hub", STDIN) and not is_generated(spec) and path.is_file():
            found.append((f"--data {spec}", path))
    return found


def given_files(*flags: tuple[str, Path | str | None]) -> list[Named]:
    """The input files given by flags (`--config PATH`, ...), those set and not standard input (a
    value from a --config file arrives as a string)."""
    return [(f"{flag} {path}", Path(path)) for flag, path in flags if path is not None and str(path) != STDIN]


def _known(tasks: Iterable[str]) -> list[str]:
    """The tasks' names as files name them (an unknown one is refused later, by the command)."""
    return [key for key in (t.strip().lower() for t in tasks) if key in TASKS]
