"""The fake inference engine (tests/fakeserver.py run as a program) standing in for vLLM/SGLang
under --serve-cmd, and how a test sees its processes come and go."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

FAKE_ENGINE = Path(__file__).resolve().parent / "fakeserver.py"


def engine(tmp_path: Path, *extra: str) -> str:
    return f"{sys.executable} {FAKE_ENGINE} --port {{port}} --pidfile {tmp_path}/pid-{{port}} " + " ".join(extra)


def engine_pids(tmp_path: Path) -> list[int]:
    """The pids the fake engines wrote; a file caught between its creation and its write is skipped."""
    written = [p.read_text().strip() for p in sorted(tmp_path.glob("pid-*"))]
    return [int(text) for text in written if text.isdigit()]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def gone(pids: list[int], within_s: float = 20.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not any(alive(p) for p in pids):
            return True
        time.sleep(0.1)
    return False
