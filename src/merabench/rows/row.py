"""The MERA row model and loading rows from the hub, local files and the bundled samples.

A row is `{"instruction": str, "inputs": {str: str}, "outputs": str, "meta": {"id": int, ...}}`.
Local files may be JSONL (a row a line), a JSON list of rows, the MERA task JSON
`{"data": {"test": [...], "shots": [...]}}`, or a directory holding `test.jsonl` / `shots.jsonl`.
Every problem is a DataError naming the file, the line (or list index) and the field.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from merabench.errors import ConfigError, DataError, reading
from merabench.rows.inputfile import check_readable, is_stream, read_input
from merabench.rows.inputs import Inputs
from merabench.rows.jsonio import json_lines, lines_of, load_document

SPLITS = ("test", "shots")


@dataclass(frozen=True)
class Row:
    instruction: str
    inputs: Mapping[str, str]
    outputs: str
    meta: Mapping[str, Any]

    @property
    def id(self) -> int:
        return self.meta["id"]

    def to_dict(self) -> dict[str, Any]:
        return {"instruction": self.instruction, "inputs": dict(self.inputs),
                "outputs": self.outputs, "meta": dict(self.meta)}


@dataclass(frozen=True)
class TaskData:
    """The rows of one task: the evaluated split and the `shots` split (dialogue history); for
    rows read from the hub, the dataset's commit they were read at (`revision`, None offline or
    for any other data)."""

    source: str
    rows: tuple[Row, ...]
    shots: tuple[Row, ...] = field(default=())
    revision: str | None = None
    note: str | None = None  # what the summary says of these rows (the public SAGE pairs: not MERA's test set)

    @property
    def has_references(self) -> bool:
        """Public test rows carry empty outputs: nothing can be scored locally then."""
        return any(r.outputs.strip() for r in self.rows)

    def content_sha256(self) -> str:
        """A hash of the evaluated rows' content (not of the file's bytes): the same rows from a
        JSONL file, a JSON file or the hub give the same hash."""
        return rows_sha256(self.rows)


def rows_sha256(rows: Iterable[Row]) -> str:
    """sha256 over each row's canonical JSON (sorted keys, compact, UTF-8), a line per row."""
    import hashlib

    import orjson

    digest = hashlib.sha256()
    for row in rows:
        # orjson leaves a UTF-8 copy cached inside every non-ASCII string it serialises, and the rows'
        # strings live as long as the run (23 MB more for a generated GorillaHard set): it is given
        # fresh copies, dropped with their caches (still 2.4x faster than the json module)
        canonical = row.to_dict()
        canonical.update(instruction=_fresh(row.instruction), outputs=_fresh(row.outputs),
                         inputs={k: _fresh(v) for k, v in row.inputs.items()})
        digest.update(orjson.dumps(canonical, option=orjson.OPT_SORT_KEYS))
        digest.update(b"\n")
    return digest.hexdigest()


def compact_rows(rows: Iterable[Row]) -> None:
    """Keep the rows' long inputs as pieces shared between rows (merabench.rows.inputs)."""
    for row in rows:
        if isinstance(row.inputs, Inputs):
            row.inputs.compact()


def _fresh(value: Any) -> Any:
    """A new string with the same text (a slice and a concatenation copy it)."""
    return value[:1] + value[1:] if isinstance(value, str) else value


def parse_row(obj: Any, *, file: str, line: int) -> Row:
    """Validate one decoded row; `line` is the 1-based line (JSONL) or list index (JSON)."""
    if not isinstance(obj, dict):
        raise DataError(f"a row must be a JSON object, got {type(obj).__name__}", file=file, line=line)
    row_id = obj.get("meta", {}).get("id") if isinstance(obj.get("meta"), dict) else None

    def fail(fld: str, msg: str) -> DataError:
        return DataError(msg, file=file, line=line, field=fld, row_id=row_id)

    for key in ("instruction", "inputs", "outputs", "meta"):
        if key not in obj:
            raise fail(key, "missing")
    if not isinstance(obj["instruction"], str):
        raise fail("instruction", "must be a string")
    inputs = obj["inputs"]
    if not isinstance(inputs, dict):
        raise fail("inputs", "must be an object of strings")
    for name, value in inputs.items():
        if not isinstance(value, str):
            raise fail(f"inputs.{name}", f"must be a string, got {type(value).__name__}")
    outputs = obj["outputs"]
    if outputs is None:
        outputs = ""
    if not isinstance(outputs, str):
        raise fail("outputs", f"must be a string, got {type(outputs).__name__}")
    meta = obj["meta"]
    if not isinstance(meta, dict):
        raise fail("meta", "must be an object")
    if "id" not in meta:
        raise fail("meta.id", "missing")
    if isinstance(meta["id"], bool) or not isinstance(meta["id"], int):
        raise fail("meta.id", f"must be an integer, got {meta['id']!r}")
    if not -(2**63) <= meta["id"] < 2**63:
        raise fail("meta.id", "must fit in 64 bits")
    for key in ("turn_id", "n_turns"):  # dialogue position: history and dialogue metrics count on them
        value = meta.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise fail(f"meta.{key}", f"must be an integer, got {value!r}")
    # rows repeat a few instruction templates and many inputs or parts of them (a file, a tool's
    # description): one copy of each keeps a large set's memory down
    return Row(sys.intern(obj["instruction"]), Inputs(inputs), outputs, dict(meta))


def check_unique_ids(rows: Iterable[Row], *, file: str) -> None:
    seen: set[int] = set()
    for row in rows:
        if row.id in seen:
            raise DataError("duplicate id", file=file, field="meta.id", row_id=row.id)
        seen.add(row.id)


def _read_jsonl(path: Path) -> list[Row]:
    with reading(path):
        return [parse_row(obj, file=str(path), line=lineno) for lineno, obj in json_lines(path, text_only=True)]


def _read_json(path: Path) -> dict[str, list[Row]]:
    with reading(path):
        return _rows_of_document(load_document(read_input(path), file=str(path), text_only=True), path)


def _read_sniffed(path: Path) -> dict[str, list[Row]]:
    """A pipe, standard input or a file named neither .json nor .jsonl, read once: a JSON
    document of rows, or JSONL."""
    with reading(path):
        data = read_input(path)
        _refuse_a_table(path, data)
        try:
            doc = load_document(data, file=str(path), text_only=True)
        except json.JSONDecodeError:
            doc = None  # more than one value: JSONL (whose malformed line is named below)
        if isinstance(doc, list) or (isinstance(doc, dict) and isinstance(doc.get("data"), dict)):
            return _rows_of_document(doc, path)
        lines = lines_of(data.splitlines(), file=str(path), text_only=True)
        return {"test": [parse_row(obj, file=str(path), line=lineno) for lineno, obj in lines]}


TABLE_SUFFIXES = (".csv", ".tsv", ".parquet")
#: a CSV header line: two or more plain names apart by commas, semicolons or tabs (no JSON row starts so)
_CSV_HEADER = re.compile(r'\s*"?[\w .-]+"?(\s*[,;\t]\s*"?[\w .-]+"?)+\s*')


def _refuse_a_table(path: Path, data: bytes) -> None:
    """A CSV or parquet file where rows are expected (SAGE pairs given without `spellcheck:`, most
    likely) is one line saying what it looks like and what --data takes, not "not valid JSON"."""
    start = data[:4096].lstrip()[:200]
    first_line = start.split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    if start[:1] in (b"{", b"["):  # JSON, whatever the name says: read as such
        return
    if data.startswith(b"PAR1"):
        looks = "a parquet file"
    elif _CSV_HEADER.fullmatch(first_line) or path.suffix.lower() in TABLE_SUFFIXES:
        looks = f"a CSV file (first line: {first_line[:80]!r})"
    else:
        return
    raise DataError(f"looks like {looks}, not MERA rows: --data takes JSONL rows, a JSON list of rows, the MERA task "
                    "JSON or a folder with test.jsonl; SAGE pairs (source and correction columns in a CSV, JSON or "
                    f"parquet file) are read with --data sage=spellcheck:{path}", file=str(path))


def _rows_of_document(doc: Any, path: Path) -> dict[str, list[Row]]:
    if isinstance(doc, list):
        return {"test": [parse_row(o, file=str(path), line=i) for i, o in enumerate(doc)]}
    if isinstance(doc, dict) and isinstance(doc.get("data"), dict):
        splits = {}
        for split, items in doc["data"].items():
            if not isinstance(items, list):
                raise DataError("must be a list of rows", file=str(path), field=f"data.{split}")
            splits[split] = [parse_row(o, file=f"{path}#data.{split}", line=i) for i, o in enumerate(items)]
        return splits
    raise DataError('expected a list of rows or {"data": {"test": [...], "shots": [...]}}', file=str(path))


def read_local(path: Path) -> dict[str, list[Row]]:
    """Read every split a local path holds, as {split: rows}."""
    check_readable(path, folder_ok=True)
    if is_stream(path):
        return _read_sniffed(path)
    if path.is_dir():
        splits = {}
        for split in SPLITS:
            for candidate in (path / f"{split}.jsonl", path / f"{split}.json"):
                if candidate.exists():
                    found = read_local(candidate)
                    splits[split] = found.get("test", found.get(split, []))
                    break
        if "test" not in splits:
            raise DataError("directory holds no test.jsonl or test.json", file=str(path))
        return splits
    if path.suffix == ".jsonl":
        return {"test": _read_jsonl(path)}
    if path.suffix == ".json":
        return _read_json(path)
    return _read_sniffed(path)


def read_bundled(task: str) -> dict[str, list[Row]]:
    base = resources.files("merabench") / "data" / task
    splits = {}
    for split in SPLITS:
        res = base / f"{split}.jsonl"
        if res.is_file():
            with resources.as_file(res) as real:
                splits[split] = _read_jsonl(Path(real))
    if "test" not in splits:
        raise ConfigError(f"no bundled rows for task '{task}'")
    return splits


def _hub_value(value: Any) -> Any:
    """The hub's struct columns give every row every key; absent ones come back as None."""
    if isinstance(value, dict):
        return {k: _hub_value(v) for k, v in value.items() if v is not None}
    return value


def _cached_anywhere(dataset_id: str) -> bool:
    """Whether the hub's or datasets' cache folder holds anything of the dataset (checked before
    importing datasets, which takes seconds, only to learn it has nothing offline)."""
    home = Path(os.environ.get("HF_HOME", Path.home() / ".cache" / "huggingface"))
    owner, _, name = dataset_id.partition("/")
    hub = Path(os.environ.get("HF_HUB_CACHE", home / "hub")) / f"datasets--{owner}--{name}"
    sets = Path(os.environ.get("HF_DATASETS_CACHE", home / "datasets")) / f"{owner}___{name}".lower()
    return hub.exists() or sets.exists() or (sets.parent / f"{owner}___{name}").exists()


def read_hub(dataset_id: str, splits: Iterable[str] = SPLITS) -> dict[str, list[Row]]:
    if not Path(dataset_id).exists():  # a local folder in the hub's layout needs no hub
        if hub_offline() and not _cached_anywhere(dataset_id):
            raise ConfigError(_offline_message(dataset_id))
        if not hub_offline():
            check_hub_reachable(dataset_id)
    try:
        import datasets  # heavy: imported only when the hub is asked for
    except ImportError:
        raise ConfigError("loading from the hub needs the 'datasets' package: "
                          "pip install 'merabench[hub]'") from None
    token = os.environ.get("HF_TOKEN") or None
    offline = hub_offline()
    result = {}
    for split in splits:
        try:
            ds = datasets.load_dataset(dataset_id, split=split, token=token)
        except ValueError as exc:  # unknown split
            if split == "test" and not offline:
                raise ConfigError(f"{dataset_id}: {exc}") from None
            if split == "test":
                raise ConfigError(_offline_message(dataset_id)) from None
            continue
        except Exception as exc:  # network, auth (gated repo), missing dataset
            raise ConfigError(_hub_failure(dataset_id, split, exc, offline)) from None
        label = f"hub:{dataset_id}/{split}"
        result[split] = [parse_row(_hub_value(r), file=label, line=i) for i, r in enumerate(ds)]
    return result


LOCAL_COPY = "point --data at a local copy instead (--data TASK=PATH: a JSONL or JSON file, or a folder with test.jsonl)"


def hub_offline() -> bool:
    """Whether the user switched the hub off (huggingface_hub's and datasets' own variables)."""
    return any(os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")
               for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"))


def _offline_message(dataset_id: str) -> str:
    return f"--data hub: offline mode is on (HF_HUB_OFFLINE) and {dataset_id} is not in the local cache; {LOCAL_COPY}"


def check_hub_reachable(dataset_id: str, timeout_s: float = 4.0, *, spec: str = "--data hub",
                        instead: str = f"{LOCAL_COPY}, or set HF_HUB_OFFLINE=1 to use a cached copy") -> None:
    """One request to the hub's endpoint, answered or not within seconds: without a network the
    hub client retries for half a minute before it says so. The line names `spec` (what asked for
    the hub) and says what to do `instead`."""
    import urllib.error
    import urllib.request

    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")
    try:
        urllib.request.urlopen(urllib.request.Request(endpoint, method="HEAD"), timeout=timeout_s).close()
    except urllib.error.HTTPError:
        return  # it answered: reachable
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise ConfigError(f"{spec}: the hub ({endpoint}) is unreachable ({reason}) while loading {dataset_id}; "
                          f"{instead}") from None


def _hub_failure(dataset_id: str, split: str, exc: BaseException, offline: bool) -> str:
    """The one line for a failed hub load: offline, refused (401/403: the token), or otherwise."""
    if offline:
        return _offline_message(dataset_id)
    status = None
    seen: BaseException | None = exc
    while seen is not None and status is None:
        response = getattr(seen, "response", None)
        status = getattr(response, "status_code", None)
        if type(seen).__name__ == "GatedRepoError":
            status = status or 403
        seen = seen.__cause__ or seen.__context__
    first_line = " ".join(str(exc).split()) or type(exc).__name__
    if status in (401, 403):
        return (f"--data hub: the hub refused {dataset_id} ({status}): a gated dataset needs HF_TOKEN set to a "
                "token that accepted its terms")
    return f"--data hub: could not load {dataset_id} split '{split}': {first_line}; {LOCAL_COPY}"


def hub_revision(dataset_id: str) -> str | None:
    """The commit of a hub dataset as it is now (what `load_dataset` reads), or None offline or
    for a local folder: results.json names it beside the rows' content hash."""
    if Path(dataset_id).exists() or hub_offline():
        return None
    try:
        from huggingface_hub import HfApi

        return HfApi().dataset_info(dataset_id, token=os.environ.get("HF_TOKEN") or None).sha
    except Exception:  # no network, no access, no huggingface_hub: the content hash still identifies the rows
        return None


def to_task_data(splits: dict[str, list[Row]], *, source: str, split: str = "test",
                 revision: str | None = None) -> TaskData:
    if split not in splits:
        raise ConfigError(f"{source} has no split '{split}' (has: {', '.join(sorted(splits))})")
    rows = splits[split]
    shots = splits.get("shots", []) if split == "test" else []
    check_unique_ids(rows, file=f"{source} [{split}]")
    return TaskData(source=source, rows=tuple(rows), shots=tuple(shots), revision=revision)
