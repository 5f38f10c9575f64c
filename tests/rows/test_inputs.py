"""A row's long inputs kept as shared pieces (merabench.rows.inputs): the same text read back, one copy
of a file or a tool description for every row that holds it, safe to read while compacting."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
from helpers import generated_set
from hypothesis import given, settings
from hypothesis import strategies as st

from merabench.rows.inputs import LONG, Inputs
from merabench.rows.row import compact_rows, read_local, rows_sha256


def test_a_generated_sets_inputs_read_back_the_same_after_compacting_and_share_their_pieces(tmp_path_factory: pytest.TempPathFactory) -> None:
    rows = read_local(generated_set(tmp_path_factory, 1))["test"]  # the set of seed 1, made once a session
    before = [r.to_dict() for r in rows]
    digest = rows_sha256(rows)
    whole = {id(v): sys.getsizeof(v) for r in rows for v in r.inputs.values()}  # the distinct values loaded
    compact_rows(rows)
    assert [r.to_dict() for r in rows] == before
    assert rows_sha256(rows) == digest
    kept = {id(p): sys.getsizeof(p) for r in rows for name in r.inputs for p in r.inputs.parts(name)}
    # 38 MB of contexts and catalogs are ~8 MB of pieces: many rows now draw files of their own
    # (host inventories, flag files, reports), which no other row shares
    assert sum(kept.values()) < sum(whole.values()) / 4
    contexts = [r.inputs.parts("context") for r in rows if "context" in r.inputs]
    # cut between files (every long two-file context), and at blank lines in them
    two_files = [r.inputs.parts("context") for r in rows
                 if r.inputs["context"].count("[файл: ") == 2 and len(r.inputs["context"]) > LONG]
    assert len(two_files) > 300 and all(len(p) > 1 for p in two_files)
    assert sum(len(p) > 1 for p in contexts) > 0.5 * len(contexts)
    holders: dict[int, int] = {}
    for parts in contexts:
        for piece in set(map(id, parts)):
            holders[piece] = holders.get(piece, 0) + 1
    assert max(holders.values()) > 10  # a file attached to many rows is held once
    catalog = rows[0].inputs.parts("tools")
    assert len(catalog) > 5 and catalog[0].startswith('[{"name": ')  # one piece per tool


def test_short_values_stay_whole_and_edge_shapes_round_trip() -> None:
    cases = {"short": "Исправьте ошибки\n\nв тексте.", "blanks": "\n\n" * LONG, "edges": "\n\n" + "а" * LONG + "\n\n",
             "one_line_json": '[{"name": "x"}, {"name": "y"}]' * 100, "no_separator": "д" * (LONG + 5), "empty": ""}
    inputs = Inputs(cases)
    inputs.compact()
    assert dict(inputs) == cases and inputs == cases
    assert inputs.parts("short") == (cases["short"],) and inputs.parts("no_separator") == (cases["no_separator"],)
    assert len(inputs.parts("blanks")) == LONG + 1 and len(inputs.parts("one_line_json")) == 101
    assert inputs.get("absent", "—") == "—" and "edges" in inputs and len(inputs) == len(cases)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["\n\n", "}, {", "\n", "}", ", ", "{", "д", "ab", "x" * 300, "[файл: a.log]"]),
                min_size=1, max_size=40))
def test_any_text_reads_back_exactly(chunks: list[str]) -> None:
    text = "".join(chunks) * (LONG // max(1, len("".join(chunks))) + 1)
    inputs = Inputs({"context": text, "tools": text[::-1]})
    inputs.compact()
    assert inputs["context"] == text and inputs["tools"] == text[::-1]


def test_reading_while_another_thread_compacts_gives_the_same_text(tmp_path: Path) -> None:
    texts = [("\n\n".join(f"[файл: logs/app-{i}-{k}.log]\n" + "ERROR timeout\n" * 60 for k in range(3))) for i in range(300)]
    rows = [Inputs({"context": t, "question": f"Сколько ошибок в файле {i}?"}) for i, t in enumerate(texts)]
    wrong: list[int] = []

    def read_all() -> None:
        for _ in range(5):
            wrong.extend(i for i, inputs in enumerate(rows) if dict(inputs)["context"] != texts[i])

    reader = threading.Thread(target=read_all)
    reader.start()
    for inputs in rows:
        inputs.compact()
    reader.join()
    assert wrong == []
    assert all(len(inputs.parts("context")) == 3 for inputs in rows)
