"""The solver's bank: what it learnt from the dev seed's set (recipes, the headers each column
phrase named and their roots, the catalogs' operation labels), read once from bank.json. The
solver and its rules both read it, so it sits apart from both."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from redteam import files as rf

BANK_PATH = Path(__file__).with_name("bank.json")

@lru_cache(maxsize=1)
def bank() -> dict[str, Any]:
    known = json.loads(BANK_PATH.read_text(encoding="utf-8"))
    rf.set_labels(known.get("labels", {}), known.get("shapes", {}))
    return known


def column_roots() -> dict[str, list[str]]:
    """A column phrase -> the roots of the headers dev rows used for it (read from the bank, so a
    rule never sees them empty because nothing loaded the bank yet)."""
    return bank().get("roots", {})
