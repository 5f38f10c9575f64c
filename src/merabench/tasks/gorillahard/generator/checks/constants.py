"""Values a family answers with whatever the seed (issue 46): a guess learnt on other seeds' sets.

A value a file-bound row reads from its file (written in the file, not stated in the question;
the attached files' own numbers written {n}, so `artifacts-production-{n}` is one value) that
answers at least half of a family's rows over the seeds, and answers some row of every seed, is
a constant of the family: a model fine-tuned on other seeds gives it without reading the file.
The rule needs several seeds, so it is no per-set check of `validate`: the blanked-contents audit
(benchmarks/gorillahard_blanked.py) prints it for seeds 0-4 and a test holds it there.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from merabench.rows.row import Row
from merabench.tasks.gorillahard.generator.checks import provenance
from merabench.tasks.gorillahard.generator.checks.rows import attached_files, library_reference

CONSTANT_SHARE = 0.5   # a guess that wins at least this share of a family's rows is a constant
RECURRING_SHARE = 0.25  # the audit also lists values this common on every seed


@dataclass(frozen=True)
class Constant:
    family: str
    argument: str   # tool.argument, under the library's names
    value: str
    rows: int       # rows answering with it, over the seeds
    of: int         # rows of the family reading that argument from their files, over the seeds
    seeds: int

    def line(self) -> str:
        return (f"{self.family}: {self.argument}={self.value} in {self.rows} of {self.of} rows "
                f"({self.rows / self.of:.0%}) over {self.seeds} seeds, on each of them")


def file_values(rows: Sequence[Row]) -> Iterator[tuple[str, str, str]]:
    """(family, tool.argument, value) for every value a file-bound row reads from its files."""
    for row in rows:
        if not provenance.file_bound(row):
            continue
        files = attached_files(row.inputs.get("context", ""))
        question = row.inputs.get("question", "")
        for arg in provenance.arguments(library_reference(row)):
            if arg.names_a_file(files) or provenance.stated(arg.value, question) \
                    or not provenance.in_contents(arg.value, files.values()):
                continue
            value = arg.value if isinstance(arg.value, str) else repr(arg.value)
            yield (row.meta["categories"].get("family", "?"), f"{arg.tool}.{arg.name}",
                   provenance.file_number_template(value, files))


def constants(sets: Mapping[int, Sequence[Row]], share: float = CONSTANT_SHARE) -> list[Constant]:
    """The values that answer some row of every seed's set and at least `share` of the family's
    rows over all of them."""
    per_seed: dict[tuple[str, str], dict[int, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    for seed, rows in sets.items():
        for family, argument, value in file_values(rows):
            per_seed[(family, argument)][seed][value] += 1
    found = []
    for (family, argument), seeds in sorted(per_seed.items()):
        if len(seeds) < len(sets):
            continue
        pooled = sum(seeds.values(), Counter())
        total = sum(pooled.values())
        everywhere = set.intersection(*(set(c) for c in seeds.values()))
        found += [Constant(family, argument, value, pooled[value], total, len(sets))
                  for value in sorted(everywhere) if pooled[value] >= share * total]
    return found
