"""How varied a set's files are: the layouts and decoy kinds the files it attaches were drawn
with, per kind of file (the validator's `file_layouts` check and the audit's figures).

A written file does not say which layout it was drawn from, so the figures come from the corpus
the set's seed builds (each file's record keeps its layout and decoys), matched by path to the
files the rows attach: what counts is what a model is shown, not what the corpus holds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from merabench.tasks.gorillahard.generator.corpus import build_corpus

MIN_LAYOUTS = 3
MIN_DECOY_KINDS = 3
MIN_FILES = 6  # fewer attached files of a kind cannot be asked to show three of each
# kinds with no values a decoy could shadow, and why
NO_DECOYS = {"audio": "a stand-in for binary content"}


@dataclass(frozen=True)
class KindFigures:
    files: int
    layouts: Counter[str]
    decoys: Counter[str]

    def line(self, kind: str) -> str:
        shown = ", ".join(f"{k} {n}" for k, n in sorted(self.layouts.items()))
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.decoys.items())) or "none"
        return f"{kind}: {self.files} files; {len(self.layouts)} layouts ({shown}); {len(self.decoys)} decoy kinds ({kinds})"


def figures(paths: Iterable[str], seed: int) -> tuple[dict[str, KindFigures], list[str]]:
    """Per kind of file, the attached files' layouts and decoy kinds (a file counted once however
    many rows attach it), and the attached paths the seed's corpus does not hold."""
    by_path = {f.file.path: f for f in build_corpus(seed).files()}
    wanted = set(paths)
    grouped: dict[str, list] = {}
    for path in sorted(wanted & by_path.keys()):
        grouped.setdefault(by_path[path].kind, []).append(by_path[path])
    out = {kind: KindFigures(len(files), Counter(f.facts.get("layout", "?") for f in files),
                             Counter(k for f in files for k in f.facts.get("decoys", ())))
           for kind, files in sorted(grouped.items())}
    return out, sorted(wanted - by_path.keys())


def exemption(kind: str, f: KindFigures) -> str | None:
    """Why a kind is not held to the layouts rule at all, or None when it is."""
    if f.files < MIN_FILES:
        return f"{f.files} files < {MIN_FILES}"
    if set(f.layouts) == {"?"}:
        return "drawn without layouts"
    return None


def shortfalls(found: dict[str, KindFigures]) -> list[str]:
    """The kinds whose attached files show fewer layouts or decoy kinds than a set must (a kind a
    set attaches fewer than MIN_FILES files of, most of its rows having files made for them, is
    held to it in the corpus, not here)."""
    out = []
    for kind, f in found.items():
        if exemption(kind, f):  # few files, or a kind drawn without layouts
            continue
        if len(f.layouts) < MIN_LAYOUTS:
            out.append(f"{kind}: {len(f.layouts)} layouts < {MIN_LAYOUTS}")
        if kind not in NO_DECOYS and len(f.decoys) < MIN_DECOY_KINDS:
            out.append(f"{kind}: {len(f.decoys)} decoy kinds < {MIN_DECOY_KINDS}")
    return out
