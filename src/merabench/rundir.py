"""A run folder: one writer at a time, and one model with one set of settings per folder.

The lock is an advisory `flock` on `.merabench.lock`, held while a run or a scoring writes the
folder; the kernel drops it when the process dies, so a killed run never leaves a stale lock.
`run.json` names the model and the settings that shape its answers: resuming a folder with
other ones would mix two runs, and is refused.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from merabench.errors import ConfigError
from merabench.samples import write_atomic

RUN_FILE = "run.json"
LOCK_FILE = ".merabench.lock"


def make_folder(path: Path, what: str = "--out") -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"{what} {path}: cannot create the folder ({exc.strerror or exc})") from None
    if not os.access(path, os.W_OK):
        raise ConfigError(f"{what} {path}: the folder is not writable")


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the folder's lock, or fail at once when another merabench process holds it."""
    make_folder(path)
    handle = (path / LOCK_FILE).open("a+")
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise ConfigError(f"{path} is being written by another merabench run ({holder}); wait for it, "
                              "or use another --out") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}")
        handle.flush()
        yield
    finally:
        handle.close()


def check_identity(out_dir: Path, identity: dict[str, Any]) -> None:
    """Refuse to resume a folder that holds a run with another model or other settings."""
    path = out_dir / RUN_FILE
    if path.exists():
        try:
            previous = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            previous = None
        if previous is not None and previous != identity:
            raise ConfigError(f"{out_dir} holds a run with other settings ({'; '.join(changes(previous, identity))}); "
                              "use another --out, or delete the folder to start over")
    write_atomic(path, json.dumps(identity, ensure_ascii=False, indent=1) + "\n")


FLAGS = {"drop_params": "--drop-param", "options": "generation options"}


def changes(previous: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """Each setting that differs, named by its flag, with the folder's value and this run's
    (`--max-tokens 256 in the folder, 512 now`); the generation options are looked into."""
    found = []
    for key in sorted(set(previous) | set(now)):
        old, new = previous.get(key), now.get(key)
        if old == new:
            continue
        if isinstance(old, dict) and isinstance(new, dict):
            found += changes(old, new)
            continue
        flag = FLAGS.get(key, "--" + key.replace("_", "-"))
        found.append(f"{flag} {_shown(old)} in the folder, {_shown(new)} now")
    return found


def _shown(value: Any, limit: int = 80) -> str:
    text = "unset" if value is None else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "…"


def check_score_folder(out_dir: Path, source: str, task: str) -> None:
    """`score --out` writes results.json and samples_<task>.jsonl: into a run's folder (its raw
    answers) or another scoring's it would overwrite what was there; only the folder of this same
    scoring (the same predictions, the same task) is written again."""
    if (out_dir / RUN_FILE).exists():
        raise ConfigError(f"--out {out_dir} holds a run (its answers would be overwritten); score into another folder")
    results = out_dir / "results.json"
    if not results.exists():
        return
    try:
        previous = json.loads(results.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError, OSError, RecursionError):
        previous = None
    settings = previous.get("settings") if isinstance(previous, dict) else None
    same = isinstance(settings, dict) and previous.get("model") == source and settings.get("tasks") == [task]
    if not same:
        raise ConfigError(f"--out {out_dir} holds other results (not a scoring of these predictions for {task}); "
                          "score into another folder")
