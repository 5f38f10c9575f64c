"""Builders shared by the tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
    return [sys.executable, "-m", "merabench.cli", *args]


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run(cli_command(*args), capture_output=True, text=True, env=full_env, timeout=timeout)
