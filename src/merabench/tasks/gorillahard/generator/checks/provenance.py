"""Where a reference's argument values can be had without reading a file's contents (issue 46):
stated in the question, read off an attached file's name, or neither.

The rows of the file-bound levers (grounding, scan, approx) claim that the answer needs the file;
a value the question states, or one the file's path spells out, needs no file. These readers
work from the written row alone (question, paths, reference) and share nothing with the
families that made it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from merabench.rows.row import Row
from merabench.tasks.gorillahard.generator.checks.rows import attached_files, library_reference, steps

# the levers whose rows say the answer is in the attached file (near_miss rows are not among them:
# always calling wins those by design, their refusal twins are what costs)
FILE_BOUND_LEVERS = ("grounding", "scan", "approx")

_TOKEN = re.compile(r"[^\W_]+")
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class Argument:
    tool: str     # under the library's name
    name: str
    value: Any

    def shown(self) -> str:
        return f"{self.name}={self.value!r}"

    def names_a_file(self, files: Mapping[str, str]) -> bool:
        """The value is the path of one of the attached files."""
        return isinstance(self.value, str) and self.value in files


def file_bound(row: Row) -> bool:
    return row.meta.get("categories", {}).get("lever") in FILE_BOUND_LEVERS


def arguments(reference: Mapping[str, Any]) -> list[Argument]:
    """Every argument of every call of a reference, in order (none for a refusal or a question)."""
    return [Argument(step.get("tool", ""), name, value)
            for step in steps(dict(reference)) for name, value in (step.get("args") or {}).items()]


def _number_forms(value: float) -> set[str]:
    forms = {repr(value) if isinstance(value, float) else str(value)}
    if float(value).is_integer():
        forms.add(str(int(value)))
    forms |= {f.replace(".", ",") for f in forms}  # a decimal comma, as a Russian question writes it
    return forms


def stated(value: Any, question: str) -> bool:
    """The value is the question's own: a string or number written in it (a whole word, case
    aside), or a yes/no the wording decides (no file holds an option like `compress`)."""
    if value is None or isinstance(value, bool):
        return True
    if isinstance(value, list):
        return all(stated(v, question) for v in value)
    if isinstance(value, dict):
        return all(stated(v, question) for v in value.values())
    if isinstance(value, int | float):
        return any(re.search(rf"(?<![\w.,]){re.escape(form)}(?![\w]|[.,]\d)", question)
                   for form in _number_forms(value))
    text = str(value)
    return bool(text) and re.search(rf"(?<!\w){re.escape(text)}(?!\w)", question, re.IGNORECASE) is not None


def tokens(text: str) -> list[str]:
    """The words and numbers of a value or a path, lower-cased, a number without leading zeros
    (0427_customers.sql names table customers_427)."""
    return [t.lstrip("0") or "0" if t.isdigit() else t.lower() for t in _TOKEN.findall(text)]


def off_the_name(value: Any, paths: Iterable[str], question: str) -> str | None:
    """The attached path a string value is read off: every word and number of the value is in
    that path or in the question, and at least one (a number, or a word of three letters or more)
    only in the path (`BILL-4481` off tickets/BILL-4481.md, `billing-worker` off
    config/billing-worker-4455.json). None when some part of the value needs the contents."""
    if not isinstance(value, str):
        return None
    mine = tokens(value)
    said = set(tokens(question))
    for path in paths:
        if value == path:
            continue
        named = set(tokens(path))
        if mine and all(t in named or t in said for t in mine) and any(
                t in named and t not in said and (t.isdigit() or len(t) >= 3) for t in mine):
            return path
    return None


def file_number_template(value: str, paths: Iterable[str]) -> str:
    """The value with every number that an attached path also carries written as {n}: a value
    made of a constant and the file's number (`artifacts-production-{n}`) is as guessable as a
    constant once the path is shown."""
    numbers = {t for path in paths for t in tokens(path) if t.isdigit()}
    return _DIGITS.sub(lambda m: "{n}" if (m.group().lstrip("0") or "0") in numbers else m.group(), value)


def in_contents(value: Any, texts: Iterable[str]) -> bool:
    """The value written in one of the files (as a whole token): one the contents could supply."""
    forms = _number_forms(value) if isinstance(value, int | float) and not isinstance(value, bool) else {str(value)}
    return any(re.search(rf"(?<![\w.-]){re.escape(form)}(?![\w-]|\.\w)", text)
               for text in texts for form in forms if form)


def path_choice(row: Row) -> bool:
    """Two files attached and the reference's only value the files decide is which of them: a
    path argument naming one, every other value stated in the question. A guess is right half
    the time: allowed, and counted apart."""
    files = attached_files(row.inputs.get("context", ""))
    if len(files) != 2:
        return False
    args = arguments(library_reference(row))
    chosen = [a for a in args if a.names_a_file(files)]
    return bool(chosen) and all(stated(a.value, row.inputs.get("question", "")) for a in args if a not in chosen)
