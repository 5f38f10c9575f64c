"""The blanked-contents audit (issue 46): the solver sees paths, not contents, and its tally."""

from __future__ import annotations

import json

from redteam import blanked as audit
from redteam import files as redteam_files
from redteam import solver as redteam

from merabench.rows.row import Row
from merabench.tasks.gorillahard.generator.build.generate import SetPlan, generate

CONTEXT = "[файл: tickets/BILL-4481.md]\n# BILL-4481\nАвтор: Попова\n\n[файл: logs/app-7.log]\nERROR x\n"


def _row(context: str = CONTEXT, question: str = "Закрой задачу.") -> Row:
    return Row("", {"question": question, "context": context, "tools": "[]", "format": ""}, "{}",
               {"id": 0, "dialog_id": "d", "n_turns": 1, "categories": {"lever": "grounding", "family": "f"}})


def test_blanking_keeps_every_path_and_drops_every_line_of_the_files() -> None:
    shown = audit.blanked(_row())
    files = redteam_files.attached(shown.inputs["context"])
    assert list(files) == ["tickets/BILL-4481.md", "logs/app-7.log"]
    assert "".join(files.values()).strip() == "" and "Попова" not in shown.inputs["context"]
    assert audit.blanked(_row("(файлов нет)")).inputs["context"] == "(файлов нет)"


def test_a_guess_takes_a_numbered_value_off_a_path_and_never_a_bare_word() -> None:
    prompt = redteam.prompt_of(audit.blanked(_row()))
    assert audit._path_token(prompt, "OPS-12") == "BILL-4481"
    assert audit._path_token(prompt, "python") is None and audit._path_token(prompt, 7) is None


def test_the_audit_wins_what_needs_no_file_and_not_what_the_file_decides() -> None:
    """On a held-out v27 set: the rows that need no file are won as often as ever, the file-bound
    ones at most issue 46's 0.05 (a v26 set gave 0.13, log_level_count won in full)."""
    test, shots = generate(SetPlan(seed=5, rows=300, dialogues=6))
    rows = [Row(**r) for r in test]
    result = audit.audit(rows, [Row(**r) for r in shots])
    tally = result.tally
    assert sum(tally.rows.values()) == sum(1 for r in rows if r.meta["categories"]["lever"] in
                                           ("grounding", "scan", "approx"))
    solved, bound = tally.file_bound()
    assert bound and solved / bound <= 0.05, (solved, bound)
    assert tally.rows["log_level_count"] and tally.solved["log_level_count"] < tally.rows["log_level_count"]
    # a log window's line is only in the file
    assert tally.rows["log_window"] and tally.solved["log_window"] == 0
    assert 0.05 < result.overall < 0.5 and tally.choices()[1] > 0


def test_the_family_table_puts_the_most_solved_first_with_its_choices() -> None:
    one, two = audit.Tally(), audit.Tally()
    one.rows.update({"a": 4, "b": 4}), one.solved.update({"a": 1, "b": 4})
    two.rows.update({"a": 4}), two.solved.update({"a": 1}), two.choice_rows.update({"a": 4}), two.choice_solved.update({"a": 1})
    lines = audit.family_table({0: one, 1: two})
    assert lines[1].split() == ["b", "4/4", "0/0", "4/4"]
    assert lines[2].split() == ["a", "1/4", "1/4", "2/8", "1/4"]
    total = audit.Tally()
    total.add(one), total.add(two)
    assert total.file_bound() == (5, 8) and total.choices() == (1, 4)


def test_the_dev_answers_line_up_with_the_bank() -> None:
    """A value the recipe read from a dev file is the dev answer's value for that argument."""
    recipes = redteam.index().recipes
    assert len(audit.dev_answers()) == len(recipes)
    read = [(i, n, name) for i, r in enumerate(recipes) for n, step in enumerate(r["steps"])
            for name, spec in step["args"].items() if spec["t"] == "fkey"]
    assert read and all(audit._dev_value(i, n, name) is not None for i, n, name in read)
    i, n, name = read[0]
    assert json.dumps(audit._dev_value(i, n, name)) in json.dumps(audit.dev_answers()[i], ensure_ascii=False)
