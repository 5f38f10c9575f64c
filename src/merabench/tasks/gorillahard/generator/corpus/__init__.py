"""The file corpus of a generated set: plausible working files under plausible paths, built from
the seed, each with the facts that questions about it need.

A set draws its questions from one corpus of 372 files (28 of them holding one thing twice, for
the clarifications) in the card's 15 format labels. Every format comes with a mechanism natural
to it: a `;`-delimited table under a .csv name, a header repeated in the middle of an export, an
old value commented out above the real one, a Dockerfile instruction continued over lines with
backslashes, an instruction planted in a comment of a ticket or an .env file, a time-out in
milliseconds where a tool wants seconds. Values that questions single out (a maximum, the first
line of an event) are unique by construction, so no question has two right answers by accident.
"""

from __future__ import annotations

import functools
import random
from collections import defaultdict
from dataclasses import dataclass

from merabench.tasks.gorillahard.generator.corpus.ambiguous import AMBIGUOUS_FACTORIES
from merabench.tasks.gorillahard.generator.corpus.code import (
    dockerfile,
    pom_xml,
    python_module,
    sql_migration,
)
from merabench.tasks.gorillahard.generator.corpus.common import CorpusFile
from merabench.tasks.gorillahard.generator.corpus.configs import (
    deploy_yaml,
    env_file,
    pyproject_toml,
    service_json,
    settings_ini,
)
from merabench.tasks.gorillahard.generator.corpus.documents import (
    audio_file,
    hosts_md,
    hosts_txt,
    ticket_file,
)
from merabench.tasks.gorillahard.generator.corpus.logs import LOG_EVENTS, events_jsonl, fetch_log, log_file
from merabench.tasks.gorillahard.generator.corpus.tables import (
    TABLE_SCHEMAS,
    invoices_file,
    monthly_mean,
    table_file,
)

__all__ = ["FACTORIES", "LOG_EVENTS", "TABLE_SCHEMAS", "Corpus", "CorpusFile", "build_corpus", "monthly_mean"]

# the numbers files carry (in paths, keys, dates): wide enough that two seeds' corpora of some 370
# files seldom give one path to both (a question recalled from another seed would then fit it)
FILE_NUMBERS = range(1, 10000)
# kind -> (factory, how many files a corpus holds): enough that every maker of a kind finds a file
# of its own per row (one maker over the same file with the same answer would ask one thing twice)
FACTORIES = {
    "table": (table_file, 40), "app_log": (log_file, 32), "deploy_yaml": (deploy_yaml, 32), "env": (env_file, 24),
    "ticket": (ticket_file, 20), "hosts_md": (hosts_md, 20), "dockerfile": (dockerfile, 16), "sql": (sql_migration, 16),
    "python": (python_module, 16), "service_json": (service_json, 16), "events_jsonl": (events_jsonl, 12),
    "pom": (pom_xml, 12), "worker_ini": (settings_ini, 16), "pyproject": (pyproject_toml, 12),
    "hosts_txt": (hosts_txt, 12), "audio": (audio_file, 8), "invoices": (invoices_file, 24),
    "fetch_log": (fetch_log, 16),
}


@dataclass(frozen=True)
class Corpus:
    by_kind: dict[str, list[CorpusFile]]
    seed: int = 0  # the set's: what a set draws once for all its rows (which picking criteria it uses)

    def pick(self, kind: str, rng: random.Random) -> CorpusFile:
        return rng.choice(self.by_kind[kind])

    def files(self) -> list[CorpusFile]:
        return [f for group in self.by_kind.values() for f in group]


# a process that generates a set and validates it (the validator reads the seed's corpus and the
# next seed's, and makes the next seed's set) builds each corpus once; a corpus is read, never
# changed (test_generator.py's same-bytes test checks it after a whole set is drawn from it)
@functools.lru_cache(maxsize=4)
def build_corpus(seed: int) -> Corpus:
    """The corpus of `seed` (shared between callers: read, never change it)."""
    rng = random.Random(f"{seed}:corpus")
    by_kind: dict[str, list[CorpusFile]] = defaultdict(list)
    # a file's number (in its path, ticket key, dates) is drawn per seed: a question of one seed and
    # its nearest twin in another then name different files, not the file at the same position
    numbers = rng.sample(FILE_NUMBERS, sum(count for _, count in FACTORIES.values()))
    taken = set(numbers)
    for kind, (factory, count) in FACTORIES.items():
        for index in range(count):  # the composition (schemas, planted files, refund limits) by position
            by_kind[kind].append(factory(rng, numbers.pop(), index))
    # the files that hold one thing twice (for the clarifications) from a stream of their own, under
    # numbers no other file has: adding them changes no other file of the corpus
    extra = random.Random(f"{seed}:corpus:ambiguous")
    spare = extra.sample(sorted(set(FILE_NUMBERS) - taken), sum(count for _, count in AMBIGUOUS_FACTORIES.values()))
    for kind, (factory, count) in AMBIGUOUS_FACTORIES.items():
        for index in range(count):
            by_kind[kind].append(factory(extra, spare.pop(), index))
    return Corpus(dict(by_kind), seed)
