"""A test session killed with SIGTERM (a CI time-out, a killed job) leaves no command running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc and sends POSIX signals")

LONG_TEST = '''
import os, subprocess, sys
def test_waits_on_a_long_command():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    open(os.environ["CHILD_PID_FILE"], "w").write(str(child.pid))
    child.wait()
'''


def test_sigterm_stops_the_commands_a_test_started(tmp_path: Path) -> None:
    (tmp_path / "test_long.py").write_text(LONG_TEST)
    tests = Path(__file__).parent
    pid_file = tmp_path / "child.pid"
    env = {**os.environ, "PYTHONPATH": f"{tests}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
           "CHILD_PID_FILE": str(pid_file)}
    session = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "conftest", "-p", "no:cacheprovider",
                                str(tmp_path / "test_long.py")],
                               cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 60
    while not pid_file.exists() and time.monotonic() < deadline and session.poll() is None:
        time.sleep(0.05)
    assert pid_file.exists(), session.communicate()[0]
    child = int(pid_file.read_text())
    session.send_signal(signal.SIGTERM)
    output, _ = session.communicate(timeout=30)
    time.sleep(0.2)
    state = Path(f"/proc/{child}/stat")
    alive = state.exists() and state.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    if alive:
        os.kill(child, signal.SIGKILL)
    assert not alive, f"the test's command {child} outlived the session"
    assert session.returncode == 2, output  # interrupted, never a pass
