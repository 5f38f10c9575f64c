"""Issue 46: a file-bound row needs its file. The per-row counterfactual (`file_needed` in validate),
the readers of where a value comes from, and the cross-seed constants, on real generated rows."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import generated_set

from merabench.rows.row import Row, read_local
from merabench.tasks.gorillahard.generator.build.generate import SetPlan, write_set
from merabench.tasks.gorillahard.generator.checks import counterfactual, provenance
from merabench.tasks.gorillahard.generator.checks.constants import constants
from merabench.tasks.gorillahard.generator.checks.counterfactual import (
    check_file_needed,
    finding,
    findings,
)
from merabench.tasks.gorillahard.generator.checks.rows import attached_files
from merabench.tasks.gorillahard.generator.checks.swaps import swap_pool
from merabench.tasks.gorillahard.generator.checks.validate import validate
from merabench.tasks.gorillahard.generator.families import FAMILIES, Family

SEEDS = range(5)


def _rows(factory: pytest.TempPathFactory, seed: int) -> list[Row]:
    """The test rows of seed `seed`'s default set, made once a session (other files read them too)."""
    return read_local(generated_set(factory, seed))["test"]


@pytest.fixture(scope="module")
def rows0(tmp_path_factory: pytest.TempPathFactory) -> list[Row]:
    return _rows(tmp_path_factory, 0)


@pytest.fixture(scope="module")
def found0(rows0: list[Row]) -> list[counterfactual.Finding]:
    return findings(rows0, 0)


def _row(rows: list[Row], maker: str) -> Row:
    return next(r for r in rows if r.meta["derivation"]["maker"] == maker)


def _finding(row: Row, seed: int | None = 0) -> counterfactual.Finding:
    pool = swap_pool(seed)
    return finding(row, FAMILIES[row.meta["derivation"]["maker"]], pool)


def _with(row: Row, **inputs: str) -> Row:
    return replace(row, inputs={**row.inputs, **inputs})


# --- where a value comes from -------------------------------------------------------------------

def test_a_value_is_stated_when_the_question_writes_it() -> None:
    question = "Покажи 20 последних строк журнала за 1,5 часа по городу Казань; 7 реплик в R4."
    assert provenance.stated(20, question) and provenance.stated(1.5, question)
    assert provenance.stated("казань", question) and provenance.stated(True, question)
    assert not provenance.stated(4, question)   # R4 is a rack, not the number 4
    assert not provenance.stated(2, question) and not provenance.stated("Каз", question)


def test_a_value_off_the_file_name_is_found_and_one_that_needs_the_contents_is_not() -> None:
    question = "Закрой задачу."
    assert provenance.off_the_name("BILL-4481", ["tickets/BILL-4481.md"], question) == "tickets/BILL-4481.md"
    assert provenance.off_the_name("customers_427", ["db/migrations/0427_customers.sql"], question)
    assert provenance.off_the_name("tr-8436-0071", ["traces/requests-8436.jsonl"], question) is None
    assert provenance.off_the_name("srv-022", ["analytics/servers_6414.tsv"], question) is None
    assert provenance.file_number_template("artifacts-production-7203", ["env/.env.7203"]) == "artifacts-production-{n}"


def test_a_choice_between_two_files_is_told_from_a_value_the_file_gives(rows0: list[Row]) -> None:
    rows = rows0
    assert provenance.path_choice(_row(rows, "log_checksum"))       # {"path": one of the two}
    assert provenance.path_choice(_row(rows, "tail_log"))           # the path, and n from the question
    assert not provenance.path_choice(_row(rows, "pod_logs"))       # namespace and deployment from the file
    assert not provenance.path_choice(_row(rows, "busiest_server"))  # one file


# --- the per-row counterfactual -----------------------------------------------------------------

def test_rows_whose_file_decides_the_answer_pass(rows0: list[Row], found0) -> None:
    for maker in ("busiest_server", "log_window", "slowest_trace", "unit_conversion", "pod_logs",
                  "ini_queue_depth", "pom_upgrade_plan", "cross_file_scale"):
        rows = [f for f in found0 if f.maker == maker]
        assert rows and all(f.leak is None for f in rows), (maker, [f.line() for f in rows if f.leak])
    # a choice the contents make flips under the swaps: allowed, counted, not a leak
    choices = [f for f in found0 if f.family in ("grounded_app_log", "grounded_python") and f.path_choice]
    assert len(choices) >= 40 and not [f.line() for f in choices if f.leak]


@pytest.mark.parametrize(("maker", "argument", "name"), [
    ("ticket_close", "issue", "tickets/{}.md"),     # v26's leak: the key was the ticket file's name
    ("busiest_server", "host", "fleet/{}.tsv"),     # any value moved into a file's name
])
def test_a_value_in_the_files_name_is_caught(rows0: list[Row], maker: str, argument: str, name: str) -> None:
    row = _row(rows0, maker)
    assert _finding(row).leak is None
    value = json.loads(row.outputs)["args"][argument]
    (path,) = attached_files(row.inputs["context"])
    renamed = _with(row, context=row.inputs["context"].replace(f"[файл: {path}]", f"[файл: {name.format(value)}]"))
    leak = _finding(renamed)
    assert leak.leak == "file_name"
    assert f"{argument}='{value}' is read off the attached file's name {name.format(value)}" in leak.detail


def test_a_value_moved_into_the_question_is_caught(rows0: list[Row]) -> None:
    rows = rows0
    row = _row(rows, "busiest_server")
    host = json.loads(row.outputs)["args"]["host"]
    told = _with(row, question=f"{row.inputs['question']} Это {host}.")
    leak = _finding(told)
    assert leak.leak == "in_question" and f"host='{host}'" in leak.detail


def test_a_checker_that_ignores_the_files_is_caught(rows0: list[Row],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A reference that no swap and no blanking can move is a leak: the check can fail."""
    rows = rows0
    row = _row(rows, "log_window")
    lenient = replace(FAMILIES["log_window"], check=lambda view: [])
    monkeypatch.setitem(FAMILIES, "log_window", lenient)
    leak = _finding(row)
    assert leak.leak == "survives_blank" and "line=" in leak.detail


def test_a_checker_that_reads_the_file_is_moved_by_every_swap(rows0: list[Row],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    rows = rows0
    row = _row(rows, "log_window")
    view_files = attached_files(row.inputs["context"])

    def exact(view) -> list[str]:  # accepts only the row's own files
        return [] if view.files == view_files else ["another file"]

    monkeypatch.setitem(FAMILIES, "log_window", Family("log_window", "grounding", "T2_hard", 12,
                                                       FAMILIES["log_window"].make, exact))
    result = _finding(row)
    assert result.leak is None and result.survived == 0 and result.swaps >= 8


def test_a_hand_made_set_is_judged_by_names_question_and_blanking(rows0: list[Row]) -> None:
    """With no seed to rebuild a corpus from, the swaps (from the set's own attachments, many of them
    one file rewritten) judge nothing; a file's name, the question and blanking still do."""
    assert [f.line() for f in findings(rows0, None) if f.leak] == []
    row = _row(rows0, "busiest_server")
    host = json.loads(row.outputs)["args"]["host"]
    told = _with(row, question=f"{row.inputs['question']} Это {host}.")
    (leak,) = [f for f in findings([*rows0, replace(told, meta={**told.meta, "id": 10_000})], None) if f.leak]
    assert leak.row_id == 10_000 and leak.leak == "in_question"


def test_the_check_holds_on_a_generated_set_and_counts_the_two_file_choices(rows0: list[Row]) -> None:
    held = check_file_needed(rows0, {"seed": 0})
    assert held.ok, held.detail
    counts = re.search(r"(\d+) file-bound rows, (\d+) need their file \((\d+) of them only", held.detail)
    assert counts and counts[1] == counts[2] and int(counts[3]) >= 40, held.detail


def test_validate_fails_a_set_with_a_new_leak(tmp_path: Path) -> None:
    folder = tmp_path / "set"
    write_set(SetPlan(seed=0, rows=300, dialogues=6), folder)
    lines = (folder / "test.jsonl").read_text(encoding="utf-8").splitlines()
    edited = []
    for line in lines:
        row = json.loads(line)
        if row["meta"]["derivation"].get("maker") == "busiest_server":
            host = json.loads(row["outputs"])["args"]["host"]
            row["inputs"]["question"] += f" Это {host}."
        edited.append(json.dumps(row, ensure_ascii=False))
    (folder / "test.jsonl").write_text("\n".join(edited) + "\n", encoding="utf-8")
    checks = {c.name: c for c in validate(folder, only=("file_needed",))}
    assert not checks["file_needed"].ok and "(busiest_server): every argument is stated" in checks["file_needed"].detail


# --- across seeds 0-4 ---------------------------------------------------------------------------

def test_across_seeds_0_to_4_no_row_leaks_and_no_family_has_a_constant(tmp_path_factory: pytest.TempPathFactory,
                                                                      found0: list[counterfactual.Finding]) -> None:
    """One test for the five sets, each made once: no file-bound row of any leaks, no family
    answers one value on half its rows or more on every seed, and a value made one on every seed
    is found as a constant where the real one varies. Seed 0's findings are the module's."""
    sets = {seed: _rows(tmp_path_factory, seed) for seed in SEEDS}
    found = {0: found0, **{seed: findings(rows, seed) for seed, rows in sets.items() if seed != 0}}
    leaking = [f.line() for seed in SEEDS for f in found[seed] if f.leak]
    assert leaking == []
    assert [(c.family, c.argument, c.value) for c in constants(sets)] == []
    same = {seed: [_city_headed(_one_port(row)) for row in rows] for seed, rows in sets.items()}
    made = {(c.family, c.argument, c.value) for c in constants(same)}
    assert ("docker_port_check", "net.check_port.port", "7777") in made
    # v26's leak: every sales table's city column headed `city`, as every seed's corpus heads it
    assert ("sales_in_city", "table.filter_eq.column", "city") in made


def _one_port(row: Row) -> Row:
    """A docker_port_check row made to answer port 7777, in its file and its reference."""
    if row.meta["derivation"]["maker"] != "docker_port_check":
        return row
    port = json.loads(row.outputs)["args"]["port"]
    context = re.sub(rf"(?<!\d){port}(?!\d)", "7777", row.inputs["context"])
    return replace(row, outputs=row.outputs.replace(f'"port": {port}', '"port": 7777'),
                   inputs={**row.inputs, "context": context})


def _city_headed(row: Row) -> Row:
    """A sales_in_city row given back v26's header: its city column `city`, in its file and its reference."""
    if row.meta["derivation"]["maker"] != "sales_in_city":
        return row
    header = json.loads(row.outputs)["args"]["column"]
    (path,) = attached_files(row.inputs["context"])
    first = attached_files(row.inputs["context"])[path].splitlines()[0]
    cells = re.split(r"([,;\t|])", first)
    assert header in [cell.strip('"') for cell in cells], (header, first)
    constant = "".join(cell.replace(header, "city") if cell.strip('"') == header else cell for cell in cells)
    return replace(row, outputs=row.outputs.replace(f'"column": "{header}"', '"column": "city"'),
                   inputs={**row.inputs, "context": row.inputs["context"].replace(first, constant, 1)})
