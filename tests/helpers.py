"""Builders shared by the tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SAGE_INSTRUCTION = "Исправь ошибки в тексте, ответь только текстом.\n\nТекст:\n{source}"
SOURCES = ["Превет, как дила?", "Я незнаю что сказать", "Он пришол домой поздно", "В москве идет дождь",
           "Кто то стучит в дверь", "Мы поехали на дачу но забыли ключи"]


def sage_rows(n: int) -> list[dict]:
    return [{"instruction": SAGE_INSTRUCTION, "inputs": {"source": f"{SOURCES[i % len(SOURCES)]} ({i})"},
             "outputs": f"исправлено ({i})", "meta": {"id": i}} for i in range(n)]


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
