"""`--serve vllm|sglang` / `--serve-cmd`: start the model's server for the run and stop it after.

Each replica is a subprocess in its own process group on a free port of 127.0.0.1 (with its own
GPU set under `--serve-replicas`), its output in `serve-<n>.log` in the run folder. The run
starts once every replica answers `GET /v1/models`; a replica that exits first, or is not ready
within `--serve-timeout`, ends the run with one line and the log's last lines. Whatever happens
next (success, an error, Ctrl-C, SIGTERM) every replica's process group is sent SIGTERM, then
SIGKILL if it has not exited: nothing is left running.

The replicas feed the usual least-busy endpoint pool. The cache and resume know the served
model by what it serves (engine, model, server arguments), not by its port.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from merabench.errors import ConfigError

ENGINES = {
    "vllm": "vllm serve {model} --host 127.0.0.1 --port {port}",
    "sglang": "python -m sglang.launch_server --model-path {model} --host 127.0.0.1 --port {port}",
}
STOP_GRACE_S = 15.0
POLL_S = 0.25


@dataclass(frozen=True)
class ServeSpec:
    engine: str | None          # vllm, sglang, or None with a command
    model: str                  # what the server loads, and the name it serves it under
    args: tuple[str, ...] = ()  # passed through to the engine (e.g. --tensor-parallel-size 2)
    command: str | None = None  # a whole command instead of an engine: {model} and {port} filled in
    replicas: int = 1
    gpus: tuple[str, ...] = ()  # CUDA_VISIBLE_DEVICES of each replica
    timeout_s: float = 600.0

    def __post_init__(self) -> None:
        if (self.engine is None) == (self.command is None):
            raise ConfigError("give --serve vllm|sglang or --serve-cmd CMD, not both")
        if self.engine is not None and self.engine not in ENGINES:
            raise ConfigError(f"unknown --serve '{self.engine}'; known: {', '.join(ENGINES)} (or --serve-cmd)")
        if self.command is not None and "{port}" not in self.command:
            raise ConfigError("--serve-cmd must contain {port}, where the server is to listen")
        if self.replicas < 1:
            raise ConfigError("--serve-replicas must be at least 1")
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
        env = dict(os.environ)
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


@dataclass
class Replica:
    process: subprocess.Popen
    url: str
    log: Path

    def stop(self) -> None:
        """SIGTERM to the replica's whole process group, SIGKILL after a grace period."""
        if self.process.poll() is not None:
            return
        for sig, wait in ((signal.SIGTERM, STOP_GRACE_S), (signal.SIGKILL, 5.0)):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)
            try:
                self.process.wait(wait)
                return
            except subprocess.TimeoutExpired:
                continue


def _start(spec: ServeSpec, replica: int, folder: Path) -> Replica:
    port = free_port()
    log = folder / f"serve-{replica}.log"
    argv = spec.argv(port)
    with log.open("ab") as sink:
        try:
            process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
                                       env=spec.environment(replica), start_new_session=True)
        except OSError as exc:
            raise ConfigError(f"could not start the server ({shlex.join(argv)}): {exc.strerror or exc}") from None
    return Replica(process, f"http://127.0.0.1:{port}/v1", log)


def _wait_ready(replicas: Sequence[Replica], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    waiting = list(replicas)
    while waiting:
        for replica in list(waiting):
            code = replica.process.poll()
            if code is not None:
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
