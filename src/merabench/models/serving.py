"""`--serve vllm|sglang` / `--serve-cmd`: start the model's server for the run and stop it after.

Each replica runs on a free port of 127.0.0.1 (with its own GPU set under `--serve-replicas`)
under a supervisor (support/supervise.py) that is the subreaper of every process the server starts, so
a server that detaches (`setsid`, a double fork, a launcher that forks and exits) is still
known. Its output goes through the one redaction into `serve-<n>.log` in the run folder. The run
starts once every replica answers `GET /v1/models`; a replica whose processes have all exited
first, or that is not ready within `--serve-timeout`, ends the run with one line and the log's
last lines. Whatever happens next (success, an error, Ctrl-C, SIGTERM, and merabench killed
outright) every process of every replica is sent SIGTERM, then SIGKILL: nothing is left running.

A server gets merabench's environment without the variables that hold credentials (names with
KEY, TOKEN, SECRET, PASSWORD... as a word, a URL with a password, any value holding a secret of
the run): OPENAI_API_KEY is the client's, not the server's. `--serve-env NAME` passes one
(HF_TOKEN for a gated hub model, say).

The replicas feed the usual least-busy endpoint pool. The cache and resume know the served
model by what it serves (engine, model, server arguments), not by its port.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from merabench.errors import ConfigError
from merabench.support import supervise
from merabench.support.redaction import StreamRedactor, names_a_credential, redact
from merabench.support.supervise import signal_all

ENGINES = {
    "vllm": "vllm serve {model} --host 127.0.0.1 --port {port}",
    "sglang": "python -m sglang.launch_server --model-path {model} --host 127.0.0.1 --port {port}",
}
STOP_GRACE_S = 15.0
POLL_S = 0.25
#: the most replicas one run starts (past that: the engine's own data parallelism, or a router
#: behind --base-url); with GPUs present and no --serve-gpus, at most one replica per GPU
MAX_REPLICAS = 64
SUPERVISOR = Path(supervise.__file__)  # run as a script: -I -S, importing nothing of merabench
_URL_WITH_PASSWORD = re.compile(r"://[^/@\s]*:[^/@\s]*@")


def holds_credentials(name: str, value: str) -> bool:
    """Whether an environment variable looks like a credential: by a word of its name
    (OPENAI_API_KEY, HF_TOKEN, AWS_SECRET_ACCESS_KEY; not TOKENIZERS_PARALLELISM or PWD), a URL
    with a password, or a value holding a secret the run knows."""
    return names_a_credential(name) or bool(_URL_WITH_PASSWORD.search(value)) or redact(value) != value


def gpus_present() -> int | None:
    """How many GPUs this process may use (CUDA_VISIBLE_DEVICES, else the NVIDIA driver's list);
    None when none is known (a CPU server, or another accelerator)."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip():
        return len([d for d in visible.split(",") if d.strip()])
    try:
        return len(os.listdir("/proc/driver/nvidia/gpus")) or None
    except OSError:
        return None


@dataclass(frozen=True)
class ServeSpec:
    engine: str | None          # vllm, sglang, or None with a command
    model: str                  # what the server loads, and the name it serves it under
    args: tuple[str, ...] = ()  # passed through to the engine (e.g. --tensor-parallel-size 2)
    command: str | None = None  # a whole command instead of an engine: {model} and {port} filled in
    replicas: int = 1
    gpus: tuple[str, ...] = ()  # CUDA_VISIBLE_DEVICES of each replica
    timeout_s: float = 600.0
    env: tuple[str, ...] = ()   # environment variables passed although they look like credentials

    def __post_init__(self) -> None:
        if (self.engine is None) == (self.command is None):
            raise ConfigError("give --serve vllm|sglang or --serve-cmd CMD, not both")
        if self.engine is not None and self.engine not in ENGINES:
            raise ConfigError(f"unknown --serve '{self.engine}'; known: {', '.join(ENGINES)} (or --serve-cmd)")
        if self.command is not None and "{port}" not in self.command:
            raise ConfigError("--serve-cmd must contain {port}, where the server is to listen")
        if self.command is not None:
            try:
                shlex.split(self.command)  # split again for each replica's argv
            except ValueError as exc:  # an unclosed quotation
                raise ConfigError(f"--serve-cmd cannot be split into words: {exc}") from None
        if self.replicas < 1:
            raise ConfigError("--serve-replicas must be at least 1")
        if self.replicas > MAX_REPLICAS:
            raise ConfigError(f"--serve-replicas {self.replicas}: at most {MAX_REPLICAS} (for more, the engine's own "
                              "data parallelism, e.g. --serve-args '--data-parallel-size N', or a router behind --base-url)")
        present = gpus_present()
        if not self.gpus and self.replicas > 1 and present is not None and self.replicas > present:
            raise ConfigError(f"--serve-replicas {self.replicas}: only {present} GPU(s) present (replica n gets GPU n; "
                              "--serve-gpus sets them explicitly)")
        for name in self.env:
            if name not in os.environ:
                raise ConfigError(f"--serve-env {name}: not set in this environment")
        if self.gpus and len(self.gpus) != self.replicas:
            raise ConfigError(f"--serve-gpus names {len(self.gpus)} GPU set(s) for {self.replicas} replica(s)")

    def identity(self) -> dict[str, Any]:
        """What the endpoint serves, for the cache key (its ports change every run)."""
        return {"served": {"engine": self.engine, "command": self.command, "model": self.model,
                           "args": list(self.args)}}

    def argv(self, port: int) -> list[str]:
        template = self.command if self.command is not None else ENGINES[self.engine or ""]
        words = [w.replace("{model}", self.model).replace("{port}", str(port)) for w in shlex.split(template)]
        return words + list(self.args)

    def environment(self, replica: int) -> dict[str, str]:
        """What the server needs: this environment without its credentials, but for --serve-env."""
        env = {k: v for k, v in os.environ.items() if k in self.env or not holds_credentials(k, v)}
        if self.gpus:
            env["CUDA_VISIBLE_DEVICES"] = self.gpus[replica]
        elif self.replicas > 1:
            env["CUDA_VISIBLE_DEVICES"] = str(replica)
        return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def last_lines(path: Path, n: int = 12) -> str:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    return " | ".join(line.strip() for line in lines[-n:] if line.strip())


def _answers_models(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/models", timeout=2) as reply:  # noqa: S310 - our own local server
            return reply.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def _copy_log(pipe: Any, log: Path) -> None:
    """The server's output into its log, masked by the one redaction, as it comes."""
    decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")  # bytes that are not UTF-8 stay as they were
    redactor = StreamRedactor()
    with log.open("ab") as sink, pipe:
        while chunk := os.read(pipe.fileno(), 65536):
            sink.write(redactor.feed(decoder.decode(chunk)).encode("utf-8", "surrogateescape"))
            sink.flush()
        sink.write(redactor.feed(decoder.decode(b"", final=True)).encode("utf-8", "surrogateescape"))
        sink.write(redactor.finish().encode("utf-8", "surrogateescape"))


@dataclass
class Replica:
    process: subprocess.Popen   # the supervisor (supervise.py): alive while any of the server's processes is
    url: str
    log: Path
    copier: threading.Thread | None = None

    def settle_log(self, timeout_s: float = 5.0) -> None:
        """Wait until the log holds everything the server wrote (its output closed)."""
        if self.copier is not None:
            self.copier.join(timeout_s)

    def stop(self) -> None:
        """Every process of the server: SIGTERM, SIGKILL after a grace period (the supervisor's
        job); should the supervisor itself not end, its processes are killed from here."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(STOP_GRACE_S + 5.0)
            except subprocess.TimeoutExpired:
                signal_all(self.process.pid, signal.SIGKILL)
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(5.0)
        self.settle_log()


def _start(spec: ServeSpec, replica: int, folder: Path) -> Replica:
    port = free_port()
    log = folder / f"serve-{replica}.log"
    argv = spec.argv(port)
    if not argv or shutil.which(argv[0]) is None:
        raise ConfigError(f"could not start the server ({redact(shlex.join(argv))}): no such command")
    supervised = [sys.executable, "-I", "-S", str(SUPERVISOR), str(os.getpid()), str(STOP_GRACE_S), "--", *argv]
    try:
        process = subprocess.Popen(supervised, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, env=spec.environment(replica), start_new_session=True)
    except OSError as exc:
        raise ConfigError(f"could not start the server ({redact(shlex.join(argv))}): {exc.strerror or exc}") from None
    copier = threading.Thread(target=_copy_log, args=(process.stdout, log), daemon=True, name=f"serve-{replica}.log")
    copier.start()
    return Replica(process, f"http://127.0.0.1:{port}/v1", log, copier)


def _wait_ready(replicas: Sequence[Replica], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    waiting = list(replicas)
    while waiting:
        for replica in list(waiting):
            code = replica.process.poll()
            if code is not None:
                replica.settle_log()
                raise ConfigError(f"the server exited with code {code} before it was ready; its log "
                                  f"({replica.log}): {last_lines(replica.log) or 'empty'}")
            if _answers_models(replica.url):
                waiting.remove(replica)
        if waiting and time.monotonic() > deadline:
            replica = waiting[0]
            raise ConfigError(f"the server did not answer {replica.url}/models within {timeout_s:g} s "
                              f"(--serve-timeout); its log ({replica.log}): {last_lines(replica.log) or 'empty'}")
        if waiting:
            time.sleep(POLL_S)


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM unwinds like Ctrl-C, so the servers are stopped on the way out."""
    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def serving(spec: ServeSpec, folder: Path, say: Any = lambda message: None) -> Iterator[list[str]]:
    """The base URLs of the started, ready replicas; every one is stopped when the block ends."""
    folder.mkdir(parents=True, exist_ok=True)
    replicas: list[Replica] = []
    with _sigterm_as_interrupt():
        try:
            for n in range(spec.replicas):
                replicas.append(_start(spec, n, folder))
            say(f"starting {spec.replicas} server replica(s) for {spec.model} (logs: {folder}/serve-*.log)")
            _wait_ready(replicas, spec.timeout_s)
            yield [r.url for r in replicas]
        finally:
            for replica in replicas:
                replica.stop()
