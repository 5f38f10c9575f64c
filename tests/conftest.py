from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

# Never the user's hub cache: one empty one for the session, set before helpers.py notes the
# variables read at import (a command given its own HF_HOME runs as a process, not in this one).
os.environ["HF_HOME"] = tempfile.mkdtemp(prefix="merabench-tests-hf-")

from fakeserver import FakeServer  # noqa: E402

# A worker holds what its tests share (generated sets of 35 MB parsed, corpora, a server's
# requests), and Python's collector, at its default of a young pass every 700 new objects, walks
# the survivors again and again: some 7 % of the CPU of the generator's and the repeats' tests.
# Young passes 70 times rarer change nothing a test checks but when cyclic garbage is freed:
# commands run in-process run with these thresholds too (and put them back after), a process of
# merabench starts with the defaults.
gc.set_threshold(50_000, 20, 20)

# A session started with Ctrl-C ignored (in the background of a script, under nohup) would hand
# SIG_IGN on to every merabench it starts, and each Ctrl-C test would fail for it: Python's own
# handler here makes a started process begin with the default again.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def fake_server() -> Iterator[FakeServer]:
    server = FakeServer().start()
    yield server
    server.stop()


@pytest.fixture
def make_server() -> Iterator:
    started: list[FakeServer] = []

    def make(**kwargs) -> FakeServer:
        server = FakeServer(**kwargs).start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own response cache, never the user's."""
    path = tmp_path / "cache.sqlite"
    monkeypatch.setenv("MERABENCH_CACHE", str(path))
    return path


def _children() -> list[int]:
    """The processes this test session started and that still run (from /proc: Linux only)."""
    me, found = str(os.getpid()), []
    for entry in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = entry.read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        if fields[1] == me:  # the parent's pid, the field after the state
            found.append(int(entry.parent.name))
    return found


def _stop_on_sigterm(signum: int, frame: object) -> None:
    """A SIGTERM (a CI time-out, a killed job) ends the session as Ctrl-C does, so fixtures tear
    down their servers, and first stops every command a test started: a `merabench run` left
    running would go on loading a model or answering rows after the session is gone."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends the session at once
    for pid in _children():
        with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
            os.kill(pid, signal.SIGTERM)
    raise KeyboardInterrupt("SIGTERM")


def pytest_configure(config: pytest.Config) -> None:
    if sys.platform == "linux" and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _stop_on_sigterm)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """In CI a skipped test is a failure: every test, agreement tests included, must run there."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = len(reporter.stats.get("skipped", [])) if reporter else 0
    if os.environ.get("CI") and skipped and exitstatus == 0:
        reporter.write_line(f"CI: {skipped} test(s) skipped; every test must run in CI", red=True)
        session.exitstatus = 1


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A whole generated GorillaHard set (1,169 rows: every lever and answer kind, 30 dialogues),
    seed 3, made once a session by `merabench generate`; the tests read it and never change it."""
    from helpers import made_once, run_cli

    def make(out: Path) -> None:
        done = run_cli("generate", "gorillahard", "--out", str(out), "--seed", "3")
        assert done.returncode == 0, done.stderr

    return made_once(tmp_path_factory, "generated-seed-3", make)


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled rows of every task answered by the reference: a finished run folder that the
    module's tests read (submission, export, check) and do not change."""
    from helpers import run_cli

    run = tmp_path_factory.mktemp("ref") / "run"
    done = run_cli("run", "--model", "reference", "--out", str(run), "--no-progress")
    assert done.returncode == 0, done.stderr
    return run
