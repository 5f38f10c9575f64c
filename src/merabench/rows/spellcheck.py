"""SAGE rows from the public SAGE benchmark's gold pairs (`--data sage=spellcheck:SUBSET|PATH`).

MERA's SAGE test answers are hidden; the public benchmark it was drawn from,
`ai-forever/spellcheck_punctuation_benchmark` (MIT; subsets RUSpellRU, MultidomainGold,
MedSpellchecker, GitHubTypoCorpusRu; columns `source` and `correction`, punctuation included), has
gold corrections for thousands of texts. Each pair becomes a SAGE row: `source` the input,
`correction` the reference, rendered with the task's own five prompts in rotation (row n gets
prompt n mod 5, one prompt per row as the card distributes them), ids 0, 1, 2, ... in the order
the pairs are read, so the same file gives the same ids on every run.

    spellcheck:RUSpellRU            the subset's test split from the hub
    spellcheck:RUSpellRU/train      another split
    spellcheck:PATH                 a local copy: a JSONL, JSON, CSV or parquet file, or a folder of them
                                    (a folder with test.* / train.* files: the test ones), read as
                                    --data reads its files (rows/pairfiles.py)
    spellcheck:-                    the same from standard input (or a pipe as PATH: `<(...)`), its
                                    format told by its bytes

The dataset has been published with a loading script, which recent `datasets` versions do not
run: the hub's parquet conversion (refs/convert/parquet) is read then, and the source says which.
Scores on these pairs are comparable in kind with the leaderboard's, not equal to them.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from merabench.errors import ConfigError, DataError, reading
from merabench.rows.inputfile import STDIN, check_readable, is_stream
from merabench.rows.jsonio import LONE_SURROGATE, has_lone_surrogate
from merabench.rows.pairfiles import SUFFIXES, Entry, described, read_pair_file
from merabench.rows.row import Row, TaskData, check_hub_reachable, hub_offline, read_bundled

PREFIX = "spellcheck:"
DATASET = "ai-forever/spellcheck_punctuation_benchmark"
SUBSETS = ("RUSpellRU", "MultidomainGold", "MedSpellchecker", "GitHubTypoCorpusRu")
PUBLIC_PAIRS = ("these are the public SAGE benchmark's pairs, not MERA's SAGE test set: scores are comparable in "
                "kind with the leaderboard's, not equal to them")
LOCAL_FORM = "--data sage=spellcheck:PATH (a JSONL, JSON, CSV or parquet file with source and correction, or a folder of them)"


def is_spellcheck(spec: str) -> bool:
    return spec.startswith(PREFIX)


def subset_of(spec: str) -> tuple[str, str] | None:
    """(subset, split) when the spec names a hub subset, else None (a local path)."""
    name, _, split = spec[len(PREFIX):].partition("/")
    return (name, split or "test") if name in SUBSETS else None


def spelt_spellcheck(spec: str) -> str:
    """One spelling: a subset or standard input as given, a local path absolute."""
    if subset_of(spec) or spec[len(PREFIX):] == STDIN:
        return spec
    return PREFIX + os.path.abspath(spec[len(PREFIX):])


def task_prompts() -> list[str]:
    """The SAGE task's own prompts, in the order the bundled rows first use them."""
    prompts: list[str] = []
    for row in read_bundled("sage")["test"]:
        if row.instruction not in prompts:
            prompts.append(row.instruction)
    return prompts


def as_rows(entries: Iterable[Entry]) -> list[Row]:
    """Each pair as a SAGE row (see the module's docstring), as the entries are read."""
    prompts = task_prompts()
    rows = []
    for n, entry in enumerate(entries):
        source, correction, domain = pair_of(entry)
        meta: dict[str, Any] = {"id": n, "prompt": n % len(prompts)}
        if domain is not None:
            meta["domain"] = domain
        rows.append(Row(prompts[n % len(prompts)], {"source": source}, correction, meta))
    return rows


def pair_of(entry: Entry) -> tuple[str, str, str | None]:
    """An entry's source, correction and domain (None when it has no text one). An entry that is
    not a pair, or a pair without string `source` and `correction` or with a string that is no
    text (a lone surrogate escape), is a DataError naming it: skipping it would shift every later
    id off the file's entries."""
    pair = entry.value
    if not isinstance(pair, dict):
        raise entry.refused(f"not a pair (got {described(pair)}); a pair is an object with string 'source' "
                            "and 'correction'")
    source, correction, domain = pair.get("source"), pair.get("correction"), pair.get("domain")
    if not isinstance(source, str) or not isinstance(correction, str):
        raise entry.refused("a pair needs string 'source' and 'correction' columns")
    domain = domain if isinstance(domain, str) else None
    for name, text in (("source", source), ("correction", correction), ("domain", domain)):
        if text is not None and has_lone_surrogate(text):
            raise entry.refused(f"'{name}' holds {LONE_SURROGATE}")
    return source, correction, domain


def _files(folder: Path, split: str) -> list[Path]:
    """A folder's data files: those of the split when it names files by split (the hub's layout),
    else all of them, in name order."""
    found = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in SUFFIXES)
    by_split = [p for p in found if p.stem.split("-")[0] in ("test", "train", "validation")]
    if by_split:
        found = [p for p in by_split if p.stem.split("-")[0] == split]
    if len({p.suffix for p in found}) > 1:  # one split in two formats: the same pairs twice, most likely
        raise DataError(f"holds its {split} pairs in more than one format ({', '.join(p.name for p in found)}): "
                        "keep one", file=str(folder))
    return found


def read_local_pairs(path: Path, split: str = "test") -> Iterator[Entry]:
    """The entries of a local copy, as they are read: a file, a folder's files of `split`
    (`_files`), or a pipe or standard input (read once, its format sniffed: rows/pairfiles.py)."""
    if is_stream(path):
        return read_pair_file(path)
    if not path.exists():
        raise DataError(f"no such file or folder; {LOCAL_FORM}", file=str(path))
    check_readable(path, folder_ok=True)  # a device (a symlink to /dev/zero too) or socket, by name
    with reading(path):
        files = _files(path, split) if path.is_dir() else [path]
    if not files:
        raise DataError(f"holds no {split} file of {', '.join(SUFFIXES)}", file=str(path))
    return itertools.chain.from_iterable(map(read_pair_file, files))


def read_hub_pairs(subset: str, split: str) -> tuple[list[dict[str, Any]], str]:
    """The subset's pairs from the hub, and how they were read (its loading script, or the parquet
    conversion where the installed `datasets` cannot run the script)."""
    if hub_offline():
        raise ConfigError(f"--data sage=spellcheck:{subset}: offline mode is on (HF_HUB_OFFLINE); {LOCAL_FORM}")
    # seconds, not the hub client's half minute of retry lines, when the hub cannot be reached
    check_hub_reachable(DATASET, spec=f"--data sage=spellcheck:{subset}", instead=f"download it and give {LOCAL_FORM}")
    try:
        import datasets
    except ImportError:
        raise ConfigError(f"reading {DATASET} needs the 'datasets' package (pip install 'merabench[hub]'); or "
                          f"{LOCAL_FORM}") from None
    try:
        return list(datasets.load_dataset(DATASET, subset, split=split)), "loading script"
    except Exception:  # no script support (datasets >= 4), or the script fails: the converted parquet
        files = f"hf://datasets/{DATASET}@refs%2Fconvert%2Fparquet/{subset}/{split}/*.parquet"
        try:
            return list(datasets.load_dataset("parquet", data_files=files, split="train")), "parquet conversion"
        except Exception as exc:
            said = " ".join(str(exc).split())[:200] or type(exc).__name__
            raise ConfigError(f"--data sage=spellcheck:{subset}: could not read {DATASET} from the hub ({said}); "
                              f"download it and give {LOCAL_FORM}") from None


def load_spellcheck(spec: str, split: str = "test") -> TaskData:
    """The SAGE rows of a `spellcheck:` spec (the run's --split picks the hub split unless the spec
    names one)."""
    named = subset_of(spec)
    if named is not None:
        subset, wanted = named
        pairs, how = read_hub_pairs(subset, wanted if "/" in spec else split)
        source = f"{PREFIX}{DATASET}/{subset}/{wanted if '/' in spec else split} ({how})"
        entries: Iterable[Entry] = (Entry(pair, source, place=f"row {n}") for n, pair in enumerate(pairs))
    else:
        path = Path(spec[len(PREFIX):])
        if not spec[len(PREFIX):]:
            raise ConfigError(f"--data sage=spellcheck: names nothing; give a subset ({', '.join(SUBSETS)}) or a PATH")
        entries = read_local_pairs(path, split)
        source = f"{PREFIX}{path}"
    rows = tuple(as_rows(entries))
    if not rows:
        raise DataError("holds no pairs", file=source)
    return TaskData(source=source, rows=rows, note=PUBLIC_PAIRS)
