"""A corpus table as another export writes it for one row: a column under another header, its
words in another vocabulary, the columns in another order. Exports differ so, and a request over
the table then reads the header or the value off the attached file instead of a constant of the
corpus (issue 46: `status`, `city` and a schema's first column were the same in every set).

Each line is rewritten in the file's own delimiter and quoting, a commented-out record and a
repeated header too, so the file's decoys stay as they were and nothing else changes.
"""

from __future__ import annotations

import csv
import random
from collections.abc import Callable

from merabench.tasks.gorillahard.generator.corpus import CorpusFile
from merabench.tasks.gorillahard.generator.corpus.tables import render
from merabench.tasks.gorillahard.generator.model import File


def _cells(lines: list[str], delimiter: str) -> list[list[str]]:
    """Each line's cells (an empty line none), read by one reader: a reader a line cost more than
    the reading. A line with an unclosed quote runs into the next under one reader (or makes it
    raise): such text is read a line at a time, as each line stands alone."""
    try:
        rows = list(csv.reader(lines, delimiter=delimiter))
    except csv.Error:
        rows = []
    if len(rows) != len(lines):
        rows = [next(csv.reader([line], delimiter=delimiter)) if line else [] for line in lines]
    return rows


def rewritten(table: CorpusFile, change: Callable[[list[str]], list[str]], facts: dict) -> CorpusFile:
    """The table with `change` applied to the cells of every record and header line (live or
    commented out); other lines (none in a corpus table but an empty last one) kept."""
    delimiter, quote_all = table.facts["delimiter"], table.facts["layout"] == "quoted"
    width = len(table.facts["header"])
    lines = table.file.text.split("\n")
    comments = ["# " if line.startswith("# ") else "" for line in lines]
    cells = _cells([line[len(comment):] for line, comment in zip(lines, comments, strict=True)], delimiter)
    at = [n for n, row in enumerate(cells) if len(row) == width]
    changed = [change(cells[n]) for n in at]
    rendered = render(changed, delimiter, quote_all=quote_all)
    if len(rendered) != len(changed):  # a cell holding a line break of its own: rendered a record at a time
        rendered = [render([row], delimiter, quote_all=quote_all)[0] for row in changed]
    for n, line in zip(at, rendered, strict=True):
        lines[n] = comments[n] + line
    return CorpusFile(File(table.file.path, table.file.fmt, "\n".join(lines)), table.kind, {**table.facts, **facts})


def recoded(table: CorpusFile, column: str, header: str, words: dict[str, str]) -> CorpusFile:
    """The table with `column` headed `header` and its cells mapped by `words` (others kept)."""
    at = table.facts["header"].index(column)

    def change(cells: list[str]) -> list[str]:
        cells[at] = header if cells[at] == column else words.get(cells[at], cells[at])
        return cells

    return rewritten(table, change, {"recoded": {column: header}})


def reordered(rng: random.Random, table: CorpusFile) -> CorpusFile:
    """The table with its columns in an order drawn for the row, the first and the last column
    never the schema's own (the order an export of that schema always had)."""
    width = len(table.facts["header"])
    while True:
        order = rng.sample(range(width), width)
        if order[0] != 0 and order[-1] != width - 1:
            break
    header = [table.facts["header"][i] for i in order]
    rows = [[row[i] for i in order] for row in table.facts["rows"]]
    return rewritten(table, lambda cells: [cells[i] for i in order], {"header": header, "rows": rows})
