"""A run folder: one writer at a time, and one model with one set of settings per folder.

The lock is an advisory `flock` on `.merabench.lock`, held while a run or a scoring writes the
folder; the kernel drops it when the process dies (Ctrl-C, kill -9), and a forked child (the
scoring's workers) closes its copy at once, so no dead run leaves a held lock behind.
`run.json` names the model, the settings that shape its answers, the split and each task's data
(the `--data` spec in one spelling, a generated set's generator, the hub dataset's commit):
resuming a folder with other ones would mix two runs, and is refused. `--limit` is not among
them: it takes the first N rows of the same data, so a larger limit into the folder extends the
run (the answers it has are kept, only the new rows are asked), and a smaller one scores fewer.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from merabench.errors import ConfigError
from merabench.models.hf_source import spelt_model
from merabench.records import RunSettings
from merabench.support.files import write_atomic
from merabench.support.redaction import redact

RUN_FILE = "run.json"
LOCK_FILE = ".merabench.lock"


def make_folder(path: Path, what: str = "--out") -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"{what} {path}: cannot create the folder ({exc.strerror or exc})") from None
    if not os.access(path, os.W_OK):
        raise ConfigError(f"{what} {path}: the folder is not writable")


def check_folder(path: Path, what: str = "--out") -> None:
    """Refuse, before anything is made or said (the response cache, a lock, a warning about the
    answers), a folder path that cannot be written: a file or under one, or a folder (the path, or
    the nearest one above it that exists) on a read-only file system or without write permission.
    make_folder would fail only after them."""
    existing = next((p for p in (path, *path.parents) if p.exists()), None)
    if existing is None:
        return
    if not existing.is_dir():
        raise ConfigError(f"{what} {path}: cannot create the folder ({existing} is a file)")
    if not os.access(existing, os.W_OK):
        why = _unwritable(existing)
        raise ConfigError(f"{what} {path}: the folder is not writable ({why})" if existing == path
                          else f"{what} {path}: cannot create the folder ({existing} is not writable: {why})")


def _unwritable(folder: Path) -> str:
    """Why a folder that os.access says is not writable is not: its file system, or its permissions."""
    try:
        read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False
    return os.strerror(errno.EROFS if read_only else errno.EACCES)


#: the lock files this process holds open: a forked child (the scoring's workers) closes its copies
_HELD: set[IO[str]] = set()


def _close_held_locks() -> None:
    """In a forked child: drop its share of the parent's locks (closing a copy releases nothing);
    a child still at work when its parent is killed then holds no dead run's folder."""
    for handle in list(_HELD):
        handle.close()
    _HELD.clear()


os.register_at_fork(after_in_child=_close_held_locks)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the folder's lock, or fail at once when another merabench process holds it. The lock
    file is removed as the lock is let go, so a finished folder holds only the run's own files."""
    make_folder(path)
    handle = _held_lock(path / LOCK_FILE)
    _HELD.add(handle)
    try:
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}")
        handle.flush()
        yield
    finally:
        _HELD.discard(handle)
        with contextlib.suppress(OSError):  # removed while still held (see _held_lock); a read-only folder keeps it
            (path / LOCK_FILE).unlink()
        handle.close()


def _open_lock(lock_file: Path) -> IO[str]:
    """The lock file, opened without following a link: a symlink planted there would make the run
    write its pid over the file it points to; a folder or a FIFO there is no lock either."""
    try:
        fd = os.open(lock_file, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
    except OSError as exc:
        what = {errno.ELOOP: "is a symbolic link", errno.EISDIR: "is a folder"}.get(
            exc.errno or 0, f"cannot be opened ({os.strerror(exc.errno or errno.EIO)})")
        raise ConfigError(f"{lock_file} {what}, not the lock file a run keeps; {_START_OVER}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ConfigError(f"{lock_file} is no regular file, not the lock file a run keeps; {_START_OVER}")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "a+")


def _held_lock(lock_file: Path) -> IO[str]:
    """The lock file opened and locked. A process that opened it just before its holder removed
    it would lock a file no longer in the folder, beside a third that makes a new one: so the lock
    counts only while the file locked is still the one at its path, else the new one is taken."""
    while True:
        handle = _open_lock(lock_file)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            raise ConfigError(f"{lock_file.parent} is being written by another merabench run ({holder}); wait for "
                              "it, or use another --out") from None
        try:
            if os.fstat(handle.fileno()).st_ino == os.stat(lock_file).st_ino:
                return handle
        except FileNotFoundError:
            pass
        handle.close()


def check_identity(out_dir: Path, identity: dict[str, Any]) -> None:
    """Refuse to resume a folder that holds a run with another model, other settings or other data
    (`same_run`); record the run in its run.json."""
    write_atomic(out_dir / RUN_FILE, json.dumps(same_run(out_dir, identity), ensure_ascii=False, indent=1) + "\n")


_START_OVER = "use another --out, or delete the folder to start over"


def same_run(out_dir: Path, identity: dict[str, Any], remedy: str = _START_OVER) -> dict[str, Any]:
    """What the folder's run.json is to hold for a run of `identity`; a ConfigError, ending with
    `remedy`, when the folder holds a run with another model, other settings or other data. Nothing
    is written: `export-requests --run` asks it too, as the later import will.

    `identity["data"]` is by task ({task: {"spec": ..., "generator": ...}}): a task the folder has
    data of must come with the same data, a task new to the folder adds its own. A field the
    folder's run.json lacks (one written before merabench recorded it) is not compared; it is
    recorded from now on. The identity is compared as run.json holds it, secrets masked (a key
    that is also the model's name is `openai:***` in the folder and now)."""
    identity = json.loads(redact(json.dumps(identity, ensure_ascii=False)))
    previous = recorded_identity(out_dir, remedy)
    if previous is None:
        return identity
    found = changes(previous, identity)
    if found:
        raise ConfigError(f"{out_dir} holds a run with other settings ({'; '.join(found)}); {remedy}")
    return {**previous, **identity, "data": _merged(_data(previous), _data(identity))}


def _check_plain_file(path: Path, remedy: str) -> None:
    """A run's own file is a regular file in its folder: a FIFO would hang the read, a folder
    crash it, a symlink make the run append its answers to a file outside the folder."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        what = "a symbolic link" if stat.S_ISLNK(mode) else "a folder" if stat.S_ISDIR(mode) else "no regular file"
        raise ConfigError(f"{path} is {what}, not the file a run writes; {remedy}")


def recorded_identity(out_dir: Path, remedy: str = _START_OVER) -> dict[str, Any] | None:
    """The folder's run.json, or None for a folder with no run yet. Answers whose run cannot be
    read (run.json missing beside them, cut short, not an object, naming no model) could be any
    model's: the folder is refused, never resumed as this run's."""
    path = out_dir / RUN_FILE
    answers = sorted(out_dir.glob("samples_*.jsonl"))
    for own in [path, *answers]:
        _check_plain_file(own, remedy)
    if not path.exists():
        if answers:
            raise ConfigError(f"{out_dir} holds answers ({', '.join(p.name for p in answers)}) but no {RUN_FILE}: which model "
                              f"gave them cannot be known, so they are not reused; {remedy}")
        return None
    try:
        previous = json.loads(path.read_text(encoding="utf-8"))
        damage = None if isinstance(previous, dict) else "is not a JSON object"
    except (ValueError, UnicodeDecodeError, RecursionError):
        previous, damage = None, "is cut short or not JSON"
    if damage is None and not isinstance(previous.get("model"), str):
        damage = "names no model"
    if damage:
        raise ConfigError(f"{path} {damage}: the folder's run cannot be identified, so its answers are not "
                          f"reused; {remedy}")
    return previous


def _merged(was: dict[str, Any], now: dict[str, Any]) -> dict[str, Any]:
    """The tasks' data records of the folder and of this run, entry by entry: a task new to the
    folder adds its own, and a hub commit not known now (offline) stays recorded."""
    merged = dict(was)
    for task, entry in now.items():
        earlier = was.get(task)
        merged[task] = {**earlier, **entry} if isinstance(earlier, dict) and isinstance(entry, dict) else entry
    return merged


FLAGS = {"drop_params": "--drop-param", "options": "generation options"}
#: settings run.json records only when they are not the default, with their default: a run with
#: the default into a folder of another value (--wordings all) would mix two protocols
DEFAULTS = {"wordings": "assigned"}


def changes(previous: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """Each setting of `now` that differs from the folder's, named by its flag, with the folder's
    value and this run's (`--max-tokens 256 in the folder, 512 now`); the generation options are
    looked into, the data task by task (a task new to the folder is no change). A field the
    folder's run.json lacks (written before merabench recorded it) is not compared."""
    found = []
    now = {**{k: v for k, v in DEFAULTS.items() if k in previous}, **now}
    for key in sorted(k for k in now if k in previous):
        if key == "data":
            was = _data(previous)
            found += [f"--data of {task} {_spec(was[task])} in the folder, {_spec(spec)} now"
                      + (" (the hub dataset changed since)" if _revised(was[task], spec) else "")
                      for task, spec in _data(now).items() if task in was and _differ(was[task], spec)]
        elif key == "model":  # a folder of an earlier version may name an hf: file by a relative path
            found += _differences(key, spelt_model(previous[key]), now[key])
        else:
            found += _differences(key, previous[key], now[key])
    return found


def _differences(key: str, old: Any, new: Any) -> list[str]:
    if old == new:
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        return [line for k in sorted(set(old) | set(new)) for line in _differences(k, old.get(k), new.get(k))]
    return [f"{FLAGS.get(key, '--' + key.replace('_', '-'))} {_shown(old)} in the folder, {_shown(new)} now"]


def _shown(value: Any, limit: int = 80) -> str:
    text = "unset" if value is None else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "…"


def _data(identity: dict[str, Any]) -> dict[str, Any]:
    data = identity.get("data")
    return data if isinstance(data, dict) else {}


def _differ(was: Any, now: Any) -> bool:
    """Two records of a task's data differ: in what both name (a hub commit is known only when
    the hub was reached; one run offline is compared on its spec alone)."""
    if not isinstance(was, dict) or not isinstance(now, dict):
        return was != now
    return was.get("spec") != now.get("spec") or any(was[k] != now[k] for k in set(was) & set(now))


def _revised(was: Any, now: Any) -> bool:
    return isinstance(was, dict) and isinstance(now, dict) and was.get("spec") == now.get("spec") == "hub" \
        and None not in (was.get("revision"), now.get("revision")) and was["revision"] != now["revision"]


def _spec(entry: Any) -> str:
    """A task's recorded data as the message shows it: `generated:0 (merabench.gorillahard/v16)`,
    `hub (revision 1a2b3c…)`."""
    if not isinstance(entry, dict):
        return _shown(entry)
    return (_shown(entry.get("spec")) + (f" ({entry['generator']})" if entry.get("generator") else "")
            + (f" (revision {entry['revision']})" if entry.get("revision") else ""))


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
    settings = RunSettings.from_json(previous.get("settings") if isinstance(previous, dict) else None)
    same = isinstance(previous, dict) and previous.get("model") == source and settings.tasks == (task,)
    if not same:
        raise ConfigError(f"--out {out_dir} holds other results (not a scoring of these predictions for {task}); "
                          "score into another folder")
