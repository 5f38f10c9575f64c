"""The catalog read entry by entry (each entry parsed once per process) gives exactly what one
parse of the whole catalog gives, on every shape a catalog can take, whole or kept as pieces."""

from __future__ import annotations

import json
from unittest import mock

import pytest
from helpers import generated_set
from hypothesis import given, settings
from hypothesis import strategies as st

from merabench.rows import inputs as inputs_module
from merabench.rows.inputs import Inputs
from merabench.rows.row import Row, compact_rows, read_local
from merabench.tasks.gorillahard import metrics

TOOLS = [
    {"name": "files.move", "family": "files", "description": "Перемещает файл.",
     "parameters": {"path": {"type": "string", "required": True}}},
    {"name": "table.mean", "family": "tables", "description": "Среднее по столбцу"},
    {"name": "logs.tail", "family": "logs", "description": "Последние строки журнала"},
]


def catalog_text_cases() -> dict[str, str]:
    nested = dict(TOOLS[0], parameters={"items": [{"a": 1}, {"b": 2}]})  # "}, {" inside an entry
    quoted = dict(TOOLS[1], description='разделитель "}, {" в описании')  # ... inside a string
    return {
        "plain": json.dumps(TOOLS, ensure_ascii=False),
        "one entry": json.dumps(TOOLS[:1], ensure_ascii=False),
        "empty list": "[]",
        "nested list of objects": json.dumps([nested, TOOLS[1]], ensure_ascii=False),
        "separator in a string": json.dumps([TOOLS[0], quoted, TOOLS[2]], ensure_ascii=False),
        "pretty, blank lines": json.dumps(TOOLS, ensure_ascii=False, indent=2).replace("},\n", "},\n\n"),
        "leading space": " " + json.dumps(TOOLS, ensure_ascii=False),
        "not objects first": json.dumps([1, *TOOLS], ensure_ascii=False),
        "names of every type": json.dumps([{"name": 7, "family": "x"}, {"name": ["a"]}, {"name": None},
                                           {"family": "no name"}, {"name": "dup", "family": "first"},
                                           {"name": "dup", "family": "second"}]),
        "NaN only the standard parser reads": json.dumps(TOOLS[:2]).replace('"required": true', '"w": NaN'),
        "integer past 64 bits": json.dumps([TOOLS[1], {"name": "big", "n": 10**30}]),
        "broken entry": json.dumps(TOOLS)[:-3] + "]",
        "not JSON": "инструменты: files.move, table.mean",
        "an object, not a list": json.dumps(TOOLS[0]),
    }


def catalog_of_text(text: str, *, compacted: bool = False, plain_dict: bool = False) -> metrics.Catalog:
    inputs = {"tools": text} if plain_dict else Inputs({"tools": text})
    if compacted and isinstance(inputs, Inputs):
        with mock.patch.object(inputs_module, "LONG", 1):  # keep even a short catalog as pieces
            inputs.compact()
    return metrics.catalog_of(Row("{tools}", inputs, "", {"id": 1}))


def test_every_shape_reads_as_one_whole_parse() -> None:
    for why, text in catalog_text_cases().items():
        whole = metrics._parse_catalog(text)
        assert catalog_of_text(text) == whole, why
        assert catalog_of_text(text, compacted=True) == whole, why  # cut at "}, {" or at blank lines
        assert catalog_of_text(text, plain_dict=True) == whole, why
    assert metrics._parse_catalog(catalog_text_cases()["plain"]).names == {"files.move", "table.mean", "logs.tail"}
    dup = catalog_of_text(catalog_text_cases()["names of every type"], compacted=False)
    assert dup.names == frozenset({7, "['a']", None, "dup"}) and dup.families == {"dup": "second"}


def test_a_generated_sets_catalogs_whole_and_compacted(tmp_path_factory: pytest.TempPathFactory) -> None:
    rows = read_local(generated_set(tmp_path_factory, 1))["test"]  # the set of seed 1, made once a session
    wholes = [metrics._parse_catalog(r.inputs["tools"]) for r in rows]
    assert [metrics.catalog_of(r) for r in rows] == wholes
    compact_rows(rows)
    assert [metrics.catalog_of(r) for r in rows] == wholes
    assert all(len(w.names) > 1 for w in wholes)


def test_reused_catalogs_are_the_same() -> None:
    text = catalog_text_cases()["plain"]
    with metrics.catalogs_reused():
        first = catalog_of_text(text, compacted=True)
        assert catalog_of_text(text, compacted=False) is first
    assert first == metrics._parse_catalog(text)


_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(alphabet='}{, ]["\\:ая\n', max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(alphabet="}{, n", max_size=4), inner,
                                                                 max_size=3),
    max_leaves=8)
_tools = st.lists(st.fixed_dictionaries({"name": _values}, optional={"family": _values, "p": _values})
                  | _values, max_size=5)


@settings(max_examples=300, deadline=None)
@given(_tools, st.sampled_from([", ", ","]), st.booleans())
def test_any_catalog_reads_as_one_whole_parse(tools: list, separator: str, compacted: bool) -> None:
    text = json.dumps(tools, ensure_ascii=False, separators=(separator, ": "))
    assert catalog_of_text(text, compacted=compacted) == metrics._parse_catalog(text)


def test_a_piece_is_read_by_where_it_stands() -> None:
    """`[{"name": "b"` opens one catalog and stands in the middle of a broken one: the broken one
    must not borrow the parse of the first (it has no valid entries at all)."""
    assert catalog_of_text('[{"name": "b"}, {"name": "c"}]').names == {"b", "c"}
    broken = '[{"name": "a"}, {[{"name": "b"}, {"name": "c"}]'
    assert catalog_of_text(broken) == metrics._parse_catalog(broken) == metrics.Catalog(frozenset(), {})
