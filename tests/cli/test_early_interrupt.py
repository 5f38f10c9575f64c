"""Ctrl-C in the first fraction of a second, while the command's modules are still importing (the
outside tester's x20: a KeyboardInterrupt traceback from inside an import, 7 of 7 times): the
installed `merabench` ends with one line and exit 130 whenever the signal lands."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import said_after_start

SCRIPT = Path(sys.executable).with_name("merabench")


@pytest.mark.skipif(not SCRIPT.exists() and shutil.which("merabench") is None, reason="needs the installed script")
@pytest.mark.parametrize("after_s", [0.02, 0.06, 0.12, 0.25, 0.5])
def test_ctrl_c_at_any_moment_of_start_up_is_exit_130_without_a_traceback(tmp_path: Path, after_s: float) -> None:
    script = str(SCRIPT) if SCRIPT.exists() else shutil.which("merabench")
    # 100 repeats of the bundled rows: a run of seconds, so the last moment still lands mid-run once
    # the modules are compiled and start-up is quick (the signal ends it: the repeats cost nothing)
    process = subprocess.Popen([script, "run", "--out", str(tmp_path / "out"), "--no-progress", "--repeats", "100"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(after_s)
    os.killpg(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    if process.returncode == 0:  # finished before the signal landed: nothing to see
        pytest.skip("the run ended before the signal")
    if process.returncode == -signal.SIGINT and not stderr:  # a loaded machine: the signal came before
        return  # the interpreter had its handler (the default action ends the process, silently)
    if _before_our_code(stderr):  # or while the interpreter or the console script itself was still
        # importing, before any merabench code; inside `site` (a .pth file's import) CPython makes it
        # "Fatal Python error: init_import_site" and exit 1
        site = "init_import_site" in stderr
        assert process.returncode in ((1,) if site else (130, -signal.SIGINT)), stderr
        return
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    said = said_after_start(stderr)  # the run's first line may have come before the signal
    assert len(said) == 1 and said[0].startswith("interrupted"), stderr


def _before_our_code(stderr: str) -> bool:
    """A KeyboardInterrupt traceback with no frame of merabench's code running: the signal landed
    while Python started or the installed script imported its entry point (the top level of
    cli/launch.py, before `entry` runs), where no handler of ours can be yet. Its frames then are
    the script's line 3, importlib's and launch.py's module lines."""
    frames = re.findall(r'File "([^"]+)", line \d+, in (\S+)', stderr)
    ours = [(path, where) for path, where in frames if re.search(r"/merabench/[\w/]*\.py$", path)]
    return "KeyboardInterrupt" in stderr and bool(frames) and all(
        path.endswith("/merabench/cli/launch.py") and where == "<module>" for path, where in ours)


def test_an_interrupt_python_wrapped_in_a_class_body_is_still_ctrl_c() -> None:
    """Ctrl-C landing in a descriptor's __set_name__ (each dataclass field has one) reaches the
    entry point as a RuntimeError whose cause is the KeyboardInterrupt: seen under load, a
    traceback and exit 1 instead of the interrupted line and exit 130."""
    from merabench.cli.launch import _is_interrupt

    class Trips:
        def __set_name__(self, owner: type, name: str) -> None:
            raise KeyboardInterrupt

    with pytest.raises(BaseException) as raised:
        type("Row", (), {"field": Trips()})
    # Python 3.11 wraps it in a RuntimeError (3.12 lets it through as it is)
    assert isinstance(raised.value, (RuntimeError, KeyboardInterrupt)) and _is_interrupt(raised.value)
    assert _is_interrupt(KeyboardInterrupt()) and not _is_interrupt(RuntimeError("a bug"))
    assert not _is_interrupt(SystemExit(2))
