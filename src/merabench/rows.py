"""The MERA row model and loading rows from the hub, local files and the bundled samples.

A row is `{"instruction": str, "inputs": {str: str}, "outputs": str, "meta": {"id": int, ...}}`.
Local files may be JSONL (a row a line), a JSON list of rows, the MERA task JSON
`{"data": {"test": [...], "shots": [...]}}`, or a directory holding `test.jsonl` / `shots.jsonl`.
Every problem is a DataError naming the file, the line (or list index) and the field.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from merabench.errors import ConfigError, DataError, reading
from merabench.inputfile import check_readable, is_stream, read_stream
from merabench.inputs import Inputs
from merabench.jsonio import json_lines, lines_of, loads

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
    """The rows of one task: the evaluated split and the `shots` split (dialogue history)."""

    source: str
    rows: tuple[Row, ...]
    shots: tuple[Row, ...] = field(default=())

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
    """Keep the rows' long inputs as pieces shared between rows (merabench.inputs)."""
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
        return _rows_of_document(loads(path.read_bytes(), text_only=True), path)


def _read_stream(path: Path) -> dict[str, list[Row]]:
    """A pipe or standard input, read once: a JSON document of rows, or JSONL."""
    with reading(path):
        data = read_stream(path)
        try:
            doc = loads(data, text_only=True)
        except json.JSONDecodeError:
            doc = None  # more than one value: JSONL (whose malformed line is named below)
        if isinstance(doc, list) or (isinstance(doc, dict) and isinstance(doc.get("data"), dict)):
            return _rows_of_document(doc, path)
        lines = lines_of(data.splitlines(), file=str(path), text_only=True)
        return {"test": [parse_row(obj, file=str(path), line=lineno) for lineno, obj in lines]}


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
        return _read_stream(path)
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
    return _read_json(path)


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


def read_hub(dataset_id: str, splits: Iterable[str] = SPLITS) -> dict[str, list[Row]]:
    try:
        import datasets  # heavy: imported only when the hub is asked for
    except ImportError:
        raise ConfigError("loading from the hub needs the 'datasets' package: "
                          "pip install 'merabench[hub]'") from None
    token = os.environ.get("HF_TOKEN") or None
    result = {}
    for split in splits:
        try:
            ds = datasets.load_dataset(dataset_id, split=split, token=token)
        except ValueError as exc:  # unknown split
            if split == "test":
                raise ConfigError(f"{dataset_id}: {exc}") from None
            continue
        except Exception as exc:  # network, auth (gated repo), missing dataset
            raise ConfigError(f"could not load {dataset_id} split '{split}' from the hub: {exc}. "
                              "Gated datasets need HF_TOKEN set.") from None
        label = f"hub:{dataset_id}/{split}"
        result[split] = [parse_row(_hub_value(r), file=label, line=i) for i, r in enumerate(ds)]
    return result


def hub_revision(dataset_id: str) -> str | None:
    """The commit of a hub dataset as it is now (what `load_dataset` reads), or None offline or
    for a local folder: results.json names it beside the rows' content hash."""
    if Path(dataset_id).exists():
        return None
    try:
        from huggingface_hub import HfApi

        return HfApi().dataset_info(dataset_id, token=os.environ.get("HF_TOKEN") or None).sha
    except Exception:  # no network, no access, no huggingface_hub: the content hash still identifies the rows
        return None


def to_task_data(splits: dict[str, list[Row]], *, source: str, split: str = "test") -> TaskData:
    if split not in splits:
        raise ConfigError(f"{source} has no split '{split}' (has: {', '.join(sorted(splits))})")
    rows = splits[split]
    shots = splits.get("shots", []) if split == "test" else []
    check_unique_ids(rows, file=f"{source} [{split}]")
    return TaskData(source=source, rows=tuple(rows), shots=tuple(shots))
