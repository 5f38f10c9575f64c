"""The `Check` record every check returns, and how the checks read a written row: its attached
files, catalog and reference (each parsed once and shared), and whether a set is of the card's size.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
from dataclasses import dataclass
from typing import Any

from merabench.rows.jsonio import loads
from merabench.rows.row import Row
from merabench.tasks.gorillahard.generator.card import CARD_DIALOGUES, CARD_ROWS
from merabench.tasks.gorillahard.generator.families import View
from merabench.tasks.gorillahard.generator.library.providers import canonical, canonical_text

FILE_HEADER = re.compile(r"^\[файл: (.+)\]$", re.MULTILINE)


def card_size(manifest: dict[str, Any]) -> bool:
    return manifest.get("rows") == CARD_ROWS and manifest.get("dialogues") == CARD_DIALOGUES


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    enforced: bool = True   # a failing check that is not enforced is reported, not a failure of the set


@functools.lru_cache(maxsize=4096)  # several checks read each row's files: split each context once
def attached_files(context: str) -> dict[str, str]:
    """{path: text} of a rendered context (shared between callers: read, never change it)."""
    headers = list(FILE_HEADER.finditer(context))
    files = {}
    for n, match in enumerate(headers):
        end = headers[n + 1].start() if n + 1 < len(headers) else len(context)
        files[match.group(1)] = context[match.end() + 1:end].rstrip("\n") + "\n"
    return files


def catalog_of(row: Row) -> list[dict[str, Any]]:
    return parsed_catalog(row.inputs["tools"])


@functools.lru_cache(maxsize=4096)  # several checks and the shortcut audit read each row's catalog
def parsed_catalog(tools: str) -> list[dict[str, Any]]:
    """A rendered catalog's tools (shared between callers: read, never change them)."""
    return loads(tools)


def reference_of(row: Row) -> dict[str, Any]:
    return json.loads(row.outputs)


def library_reference(row: Row) -> dict[str, Any]:
    """The reference under the library's tool names, whichever provider serves the row."""
    return json.loads(canonical_text(row.outputs))


def view_of(row: Row) -> View:
    """A written row as the families' checks read it: the files, the reference, the recorded
    derivation (whose tool labels name the catalog's tools) and the catalog's tools under the
    library's names."""
    derivation = json.loads(canonical_text(json.dumps(row.meta.get("derivation", {}), ensure_ascii=False)))
    return View(row.inputs["question"], attached_files(row.inputs["context"]), library_reference(row),
                derivation, tuple(canonical(t["name"]) for t in catalog_of(row)))


def steps(reference: dict[str, Any]) -> list[dict[str, Any]]:
    return [reference] if "tool" in reference else reference.get("plan", []) + reference.get("calls", [])


def first_failures(items: list[str], limit: int = 3) -> str:
    return "; ".join(items[:limit]) + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


def _russian_locale(value: float) -> str:
    """A number as the Russian locale writes it: spaced thousands, a decimal comma."""
    whole = f"{abs(int(value)):,}".replace(",", " ")
    fraction = f"{abs(value) % 1:.10g}"[1:].replace(".", ",") if value % 1 else ""
    return ("-" if value < 0 else "") + whole + fraction


def in_body(value: str, texts: list[str]) -> bool:
    """The value (or the same in thousandths: a unit to convert) in a file's lines, that file's
    first line and every line equal to it left out (a table's header, wherever it repeats): a
    format decoy can bear only on what is read from the body."""
    forms = {value}
    with contextlib.suppress(ValueError):
        forms.add(str(round(float(value) * 1000)))
        forms.add(_russian_locale(float(value)))  # a table may write 12 345,00 for 12345
    for text in texts:
        lines = text.splitlines()
        body = "\n".join(line for line in lines if line != lines[0]) if lines else ""
        if any(re.search(rf"(?<![\w.-]){re.escape(form)}(?![\w.-])", body) for form in forms):
            return True
    return False
