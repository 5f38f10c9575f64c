"""Other files to put in an attached file's place (issue 46's counterfactual): files of the same
kind and, where there are enough, of the same name but for its numbers, from the corpora of the
set's seed and the next (a hand-made set has none to swap with).

A same-named file is the hardest swap to survive: a sales table for a sales table keeps the
columns, so only what the row's own contents decide can change. Where a name has too few
fellows (a row's own file, a rare kind), any file of the kind will do.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from merabench.tasks.gorillahard.generator.corpus import build_corpus

MIN_SAME_NAMED = 12  # fewer same-named fellows than this: files of the kind make up the swaps (a handful
# of same-named files can share a trait by chance, six logs of one service none with a full disk)


def name_stem(path: str) -> str:
    """A file's name without its folders, numbers and extension (reports/sales_1846.csv and
    data/sales_77.tsv -> sales_: one schema whatever the delimiter)."""
    name = path.rsplit("/", 1)[-1]
    return re.sub(r"\d+", "", name.rsplit(".", 1)[0] if "." in name.strip(".") else name)


def _extension(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[-1] if "." in name else name


@dataclass(frozen=True)
class SwapPool:
    by_name: dict[str, list[tuple[str, str]]]   # name stem -> (path, text)
    by_kind: dict[str, list[tuple[str, str]]]   # corpus kind (or extension) -> (path, text)
    kind_of: dict[str, str]

    def partners(self, path: str, text: str) -> list[str]:
        """The texts to show under `path` instead of its own: the same-named files' where there
        are enough of them, else those and the other files of its kind (for a file not in the
        corpus: of its extension)."""
        def others(group: list[tuple[str, str]]) -> list[str]:
            return sorted({t for p, t in group if p != path and t != text})

        same = others(self.by_name.get(name_stem(path), []))
        if len(same) >= MIN_SAME_NAMED:
            return same
        kind = self.by_kind.get(self.kind_of.get(path, f".{_extension(path)}"), [])
        return same + [t for t in others(kind) if t not in same]


def swap_pool(seed: int | None) -> SwapPool:
    """The files a set's rows can be swapped with: the corpora of the set's seed and the next (two,
    so that a name whose files of one corpus happen to share a trait, six service logs none with a
    full disk, does not pass for a name that tells the trait on every seed, as sales_*.csv holds
    sales). A hand-made set has none: its own attachments hold files a maker rewrote for many rows
    (a table's columns reordered, a ticket re-keyed), copies of the row's own file that a value
    survives without coming from anywhere else."""
    files: list[tuple[str, str, str]] = []   # path, kind, text
    for corpus_seed in (seed, seed + 1) if seed is not None else ():
        files += [(f.file.path, f.kind, f.file.text) for f in build_corpus(corpus_seed).files()]
    by_name: dict[str, list[tuple[str, str]]] = defaultdict(list)
    by_kind: dict[str, list[tuple[str, str]]] = defaultdict(list)
    kind_of: dict[str, str] = {}
    for path, kind, text in sorted(files):
        by_name[name_stem(path)].append((path, text))
        by_kind[kind].append((path, text))
        kind_of.setdefault(path, kind)
        by_kind[f".{_extension(path)}"].append((path, text))  # a file outside the corpus finds its fellows by extension
    return SwapPool(dict(by_name), dict(by_kind), kind_of)
