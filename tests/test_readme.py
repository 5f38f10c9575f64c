"""The Python examples of the README and of docs/ run as written (in a scratch folder, with the built-in data). A
block fenced ```python with more words after it is an illustration for another system (Ray Data
on a GPU cluster) and is not run here."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCKS = [block for page in PAGES for block in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL)]


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{n}" for n in range(len(BLOCKS))])
def test_python_examples_run(block: str, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(block, "README.md", "exec"), {})
    finally:
        os.chdir(here)
    assert capsys.readouterr().out.strip()


def test_there_are_examples() -> None:
    assert BLOCKS
