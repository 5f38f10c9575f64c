from __future__ import annotations

import json
from pathlib import Path

import pytest

from merabench.errors import DataError
from merabench.rows.row import read_bundled, read_hub, read_local, to_task_data
from merabench.tasks import TASKS
from merabench.tasks.datasource import load_for_tasks

ROW = {"instruction": "Исправь ошибки:\n{source}", "inputs": {"source": "Превет, как дила?"},
       "outputs": "Привет, как дела?", "meta": {"id": 7}}


def write_jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_jsonl_list_taskjson_and_directory_give_the_same_rows(tmp_path: Path) -> None:
    shot = dict(ROW, meta={"id": 100})
    jsonl = read_local(write_jsonl(tmp_path / "rows.jsonl", [ROW]))
    as_list = tmp_path / "rows.json"
    as_list.write_text(json.dumps([ROW], ensure_ascii=False), encoding="utf-8")
    task_json = tmp_path / "SAGE.json"
    task_json.write_text(json.dumps({"data": {"test": [ROW], "shots": [shot]}}, ensure_ascii=False), encoding="utf-8")
    folder = tmp_path / "set"
    folder.mkdir()
    write_jsonl(folder / "test.jsonl", [ROW])
    write_jsonl(folder / "shots.jsonl", [shot])

    assert jsonl["test"] == read_local(as_list)["test"] == read_local(task_json)["test"] == read_local(folder)["test"]
    assert jsonl["test"][0].inputs["source"] == "Превет, как дила?"
    assert [r.id for r in read_local(task_json)["shots"]] == [100]
    assert [r.id for r in read_local(folder)["shots"]] == [100]


@pytest.mark.parametrize(("content", "line", "field", "fragment"), [
    ('{"instruction": "x", "inputs": {}, "outputs": "y", "meta": {"id": 1}}\n{"instruction": "x"', 2, None, "not valid JSON"),
    ('{"instruction": "x", "inputs": {}, "outputs": "y"}', 1, "meta", "missing"),
    ('{"instruction": "x", "inputs": {"source": 5}, "outputs": "y", "meta": {"id": 1}}', 1, "inputs.source", "must be a string"),
    ('{"instruction": "x", "inputs": {}, "outputs": "y", "meta": {"id": "1"}}', 1, "meta.id", "integer"),
    ('["not", "a", "row"]', 1, None, "JSON object"),
])
def test_broken_rows_name_file_line_and_field(tmp_path: Path, content: str, line: int, field: str | None,
                                               fragment: str) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DataError) as info:
        read_local(path)
    err = info.value
    assert err.file == str(path) and err.line == line and err.field == field
    assert fragment in str(err) and f"{path}:{line}" in str(err)


def test_duplicate_ids_are_rejected(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "dup.jsonl", [ROW, ROW])
    with pytest.raises(DataError, match="duplicate id"):
        to_task_data(read_local(path), source=str(path))


def test_missing_path_and_empty_directory(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such file"):
        read_local(tmp_path / "nope.jsonl")
    with pytest.raises(DataError, match="no test.jsonl"):
        read_local(tmp_path)


@pytest.mark.parametrize("task", list(TASKS))
def test_bundled_rows_load_for_every_task(task: str) -> None:
    splits = read_bundled(task)
    assert splits["test"], task
    assert all(r.outputs for r in splits["test"])


def test_per_task_data_override(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "sage.jsonl", [ROW])
    data = load_for_tasks([TASKS["sage"], TASKS["russianregions"]], ["bundled", f"sage={path}"])
    assert [r.id for r in data["sage"].rows] == [7]
    assert data["russianregions"].source == "bundled:russianregions"


def test_hub_loader_reads_a_datasets_repository_layout(tmp_path: Path) -> None:
    """The hub path goes through datasets.load_dataset; a local repo folder stands in for the hub.
    Rows with different `inputs` keys come back with None for absent keys, which must vanish."""
    pytest.importorskip("datasets")
    other = {"instruction": "{question}", "inputs": {"question": "Сколько?", "context": "файл"},
             "outputs": "3", "meta": {"id": 8}}
    write_jsonl(tmp_path / "test.jsonl", [ROW, other])
    write_jsonl(tmp_path / "shots.jsonl", [dict(ROW, meta={"id": 1})])
    # the split layout a hub dataset card declares (MERA's repos name a `shots` split this way)
    (tmp_path / "README.md").write_text(
        "---\nconfigs:\n- config_name: default\n  data_files:\n  - split: test\n    path: test.jsonl\n"
        "  - split: shots\n    path: shots.jsonl\n---\n", encoding="utf-8")
    splits = read_hub(str(tmp_path))
    first, second = splits["test"]
    assert dict(first.inputs) == {"source": "Превет, как дила?"}
    assert dict(second.inputs) == {"question": "Сколько?", "context": "файл"}
    assert [r.id for r in splits["shots"]] == [1]


def test_the_data_hash_is_orjsons_canonical_bytes_without_leaving_utf8_copies_in_the_rows() -> None:
    import hashlib
    import sys

    import orjson

    from merabench.rows.row import read_bundled, rows_sha256

    rows = read_bundled("gorillahard")["test"]
    sizes = [sys.getsizeof(r.inputs["context"]) for r in rows]
    digest = rows_sha256(rows)
    # the string's size counts a cached UTF-8 copy: hashing must not add one to every row
    assert [sys.getsizeof(r.inputs["context"]) for r in rows] == sizes
    oracle = hashlib.sha256(b"".join(orjson.dumps(r.to_dict(), option=orjson.OPT_SORT_KEYS) + b"\n" for r in rows))
    assert digest == oracle.hexdigest()


def test_reading_a_rows_catalog_leaves_no_utf8_copy_in_it_and_parses_what_json_parses() -> None:
    import json
    import sys

    from merabench.rows.jsonio import loads
    from merabench.rows.row import read_bundled
    from merabench.tasks.gorillahard.metrics import catalog_of

    rows = read_bundled("gorillahard")["test"]
    sizes = [sys.getsizeof(r.inputs["tools"]) for r in rows]
    catalogs = [catalog_of(r) for r in rows]  # scoring parses every row's catalog (Cyrillic descriptions)
    assert [sys.getsizeof(r.inputs["tools"]) for r in rows] == sizes
    assert all(c.names for c in catalogs)
    assert loads(rows[0].inputs["tools"]) == json.loads(rows[0].inputs["tools"])
    assert loads('{"a": "\\ud800"}') == {"a": "\ud800"}  # a lone surrogate: the standard parser reads it
    assert loads('"ascii only"') == "ascii only" and loads('{"k": "д"}'.encode()) == {"k": "д"}


def test_a_request_body_kept_in_flight_takes_about_its_own_length() -> None:
    import tracemalloc

    import orjson

    from merabench.rows.jsonio import dumps_kept

    body = {"model": "m", "messages": [{"role": "user", "content": "Каталог инструментов: " * 1200}]}
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = dumps_kept(body)
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept == orjson.dumps(body) and type(kept) is bytes
    # the body and a UTF-8 copy orjson caches inside the (short-lived) prompt string; orjson's own
    # buffer alone is about ten times the text
    assert grown < 2.5 * len(kept), (grown, len(kept))
