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


def _cells(line: str, delimiter: str) -> list[str]:
    return next(csv.reader([line], delimiter=delimiter))


def rewritten(table: CorpusFile, change: Callable[[list[str]], list[str]], facts: dict) -> CorpusFile:
    """The table with `change` applied to the cells of every record and header line (live or
    commented out); other lines (none in a corpus table but an empty last one) kept."""
    delimiter, quote_all = table.facts["delimiter"], table.facts["layout"] == "quoted"
    width = len(table.facts["header"])
    lines = []
    for line in table.file.text.split("\n"):
        comment = "# " if line.startswith("# ") else ""
        cells = _cells(line[len(comment):], delimiter) if line[len(comment):] else []
        lines.append(comment + render([change(cells)], delimiter, quote_all=quote_all)[0] if len(cells) == width
                     else line)
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
