"""One `merabench` process timed from start to exit, with its own peak RSS (not a test).

The peak is read by the process itself at exit, as VmHWM of /proc/self/status (the high-water mark
of its own memory since exec). Not ru_maxrss: Linux carries the spawning process's peak into the
child's at exec, so a benchmark holding a generated set in memory would inflate it by a hundred MB.
"""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass

MARK = "merabench-peak-kb:"


@dataclass(frozen=True)
class Measured:
    seconds: float
    peak_mb: float
    exit_code: int
    stderr: str


def run_merabench(args: list[str], *, prelude: str = "") -> Measured:
    """`merabench ARGS` in a fresh interpreter; `prelude` is Python run first (e.g. hiding torch)."""
    code = (prelude + "import sys\nfrom merabench.cli.main import entry\n"
            f"sys.argv = ['merabench'] + {args!r}\n"
            "try:\n    entry()\nfinally:\n"
            "    hwm = [ln.split()[1] for ln in open('/proc/self/status') if ln.startswith('VmHWM')]\n"
            f"    print('{MARK}', hwm[0], file=sys.stderr)\n")
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          check=False)
    seconds = time.perf_counter() - started
    peaks = [line.split()[-1] for line in proc.stderr.splitlines() if line.startswith(MARK)]
    return Measured(seconds, int(peaks[-1]) / 1024 if peaks else float("nan"), proc.returncode, proc.stderr)
