"""The keeper of one served process tree: `python supervise.py PARENT_PID GRACE_S -- ARGV...`.

merabench starts each server replica under this small process, which makes itself the child
subreaper of everything below it (Linux `prctl(PR_SET_CHILD_SUBREAPER)`): a server that detaches
into its own session (`setsid`, a double fork) or forks a child and exits still has its
processes re-parented here, not to init, so "every process below the supervisor" is exactly the
server's processes, however they detach. It exits when the last of them has exited (with the
first process's exit code), or, on SIGTERM/SIGINT/SIGHUP or when merabench itself dies (even by
SIGKILL: `PR_SET_PDEATHSIG`), stops all of them: SIGTERM, then SIGKILL after GRACE_S seconds.

Standard library only, run as a script: it starts in a few tens of milliseconds and needs nothing
from merabench's environment.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time
from pathlib import Path

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
POLL_S = 0.05


def _prctl(option: int, value: int) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):  # not Linux: the process group is all there is to stop
        return False


def die_with_parent(sig: int) -> bool:
    """This process gets `sig` when its parent dies, however it dies (Linux; False elsewhere)."""
    return _prctl(PR_SET_PDEATHSIG, sig)


def descendants(root: int) -> list[int]:
    """Every living process below `root` (from /proc; empty where there is none)."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            stat = Path("/proc", entry, "stat").read_text()
        except OSError:
            continue  # exited meanwhile
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 2 and fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(entry))
    found: list[int] = []
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def signal_all(root: int, sig: int) -> int:
    """Send `sig` to every process below `root`; how many there were."""
    pids = descendants(root)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)
    return len(pids)


def _reap() -> tuple[list[tuple[int, int]], bool]:
    """(the (pid, status) of children that ended, whether any child is left)."""
    ended: list[tuple[int, int]] = []
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return ended, False
        if pid == 0:
            return ended, True
        ended.append((pid, status))


def main(argv: list[str]) -> int:
    parent, grace_s, command = int(argv[0]), float(argv[1]), argv[3:]
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    stopping: list[float] = []

    def stop(signum: int, frame: object) -> None:
        if not stopping:
            stopping.append(time.monotonic())

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, stop)
    if os.getppid() != parent:  # merabench died before the death signal was armed
        return 1
    try:  # posix_spawnp, not subprocess: a tenth of a second less to start on a busy machine
        first = os.posix_spawnp(command[0], command, os.environ,
                                file_actions=[(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0)])
    except OSError as exc:
        print(f"merabench: could not start the server ({' '.join(command)}): {exc.strerror or exc}", flush=True)
        return 127
    code: int | None = None
    me = os.getpid()
    signalled = 0
    while True:
        ended, left = _reap()
        for pid, status in ended:
            if pid == first and code is None:
                code = os.waitstatus_to_exitcode(status)
        if not left:
            return code if code is not None and code >= 0 else 128 + -(code or 0)
        if stopping:
            late = time.monotonic() - stopping[0] > grace_s
            if signalled == 0 or late:
                sig = signal.SIGKILL if late else signal.SIGTERM
                signal_all(me, sig)  # SIGKILL again on each turn: a process forked meanwhile goes too
                if code is None:  # without /proc, the first process at least
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(first, sig)
                signalled = 1
        time.sleep(POLL_S)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
