"""report.html's row table: every row of every task travels in the page's JSON, escaped so no
answer can end the script element, with the attributes, flags and failure classes its filters
read; breakdowns that say nothing are folded; the page is rebuilt from a folder alone."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fakeserver import FakeServer
from helpers import page_data

from merabench.models import BackendSettings
from merabench.pipeline import RunConfig, evaluate
from merabench.report.html import render, script_json
from merabench.report.rows import PREVIEW_CHARS, collect_rows
from merabench.rows.prompts import render_row
from merabench.rows.row import read_bundled
from merabench.runner.cache import CacheSettings
from merabench.runner.samples import read_answers
from merabench.tasks.russianregions.extract import reference_letter

HOSTILE = '</script><script>window.pwned=1</script><!-- & </SCRIPT >'


def regions_answer(row) -> str:
    """By id: no letter at all, a wrong letter, the right letter with a wrong unit, the reference."""
    letter = reference_letter(row.outputs)
    wrong = next(x for x in "АБВГ" if x != letter)
    return ["не знаю", f"Ответ: {wrong}", f"Ответ: {letter}; неведомо", f"Ответ: {row.outputs}"][row.id % 4]


def answers() -> dict[str, object]:
    by_prompt: dict[str, object] = {}
    for row in read_bundled("sage")["test"]:
        by_prompt[render_row(row)] = {0: HOSTILE, 1: "<think>ищу</think>" + row.outputs,
                                      2: {"content": row.inputs["source"][:5], "finish_reason": "length"}}.get(
                                          row.id, row.outputs if row.id % 2 else row.inputs["source"])
    for row in read_bundled("russianregions")["test"]:
        by_prompt[render_row(row)] = regions_answer(row)
    for row in read_bundled("gorillahard")["test"]:
        by_prompt[render_row(row)] = ["не json", row.outputs, "<think>план</think>" + row.outputs][row.id % 3]
    return by_prompt


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    known = answers()
    server = FakeServer(reply=lambda body: known[body["messages"][-1]["content"]]).start()
    try:
        out = tmp_path_factory.mktemp("report") / "run"
        evaluate(RunConfig(model="openai:m", endpoint=BackendSettings((server.url,)), out=out, cache=CacheSettings(enabled=False), log_prompts=True))
    finally:
        server.stop()
    return out


def test_every_row_of_every_task_is_in_the_page_once(run_dir: Path) -> None:
    data = page_data((run_dir / "report.html").read_text(encoding="utf-8"))
    names = [t["name"] for t in data["tasks"]]
    assert names == ["sage", "russianregions", "gorillahard"]
    for n, name in enumerate(names):
        ids = [r["i"] for r in data["rows"] if r["t"] == n]
        expected = [r.id for r in read_bundled(name)["test"]]
        assert sorted(ids) == sorted(expected) and len(ids) == len(set(ids))


def test_an_answer_cannot_close_the_script_element(run_dir: Path) -> None:
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "window.pwned" not in page.split('id="report-data">', 1)[0]
    assert page.lower().count("</script") == 3  # the two data elements' ends and the code's: none from an answer
    assert "<!--" not in page
    row = next(r for r in page_data(page)["rows"] if r["t"] == 0 and r["i"] == 0)
    assert row["o"] == HOSTILE  # escaped, not altered


def test_script_json_escapes_what_html_would_read() -> None:
    text = script_json({"a": "</script>\u2028<!--&"})
    assert not set("<>&") & set(text) and "\u2028" not in text
    assert json.loads(text) == {"a": "</script>\u2028<!--&"}


def test_rows_carry_what_the_filters_read(run_dir: Path) -> None:
    data = page_data((run_dir / "report.html").read_text(encoding="utf-8"))
    sage = {r["i"]: r for r in data["rows"] if r["t"] == 0}
    assert sage[1]["k"] and not sage[3]["k"]  # has a think block
    assert sage[2]["c"] and not sage[3]["c"]  # cut by the token limit
    assert sage[1]["x"] is None  # SAGE scores the think block as text by default: the scored text is the answer
    source_rows = {r.id: r for r in read_bundled("sage")["test"]}
    assert sage[4]["r"] == source_rows[4].outputs and sage[4]["a"] == {"type": source_rows[4].meta["category"]}
    assert sage[4]["p"] and source_rows[4].inputs["source"] in sage[4]["p"]  # the logged prompt
    assert any(f.startswith("FN ") for f in sage[4]["f"])  # the source unchanged: edits missed
    assert sage[3]["f"] == [] and sage[3]["v"] == 1.0

    regions = {r["i"]: r for r in data["rows"] if r["t"] == 1}
    for row in read_bundled("russianregions")["test"]:
        unit = "right letter, wrong or missing unit" if row.meta["task_type"] in (2, 3) else "right letter, text around it"
        expected = [["no letter (format)"], ["wrong letter"], [unit], []][row.id % 4]
        assert regions[row.id]["f"] == expected, row.id
        assert regions[row.id]["a"] == {"type": f"type {row.meta['task_type']}"}

    gorilla = {r["i"]: r for r in data["rows"] if r["t"] == 2}
    first = read_bundled("gorillahard")["test"][0]
    assert set(gorilla[first.id]["a"]) == {"tier", "lever", "family", "kind"}
    assert gorilla[0]["v"] == 0.0 and {"no_object_found", "format:exactly_one_object"} <= set(gorilla[0]["f"])
    checks = {v[0]: v[1] for v in gorilla[0]["d"]}
    assert checks["exactly_one_object"] is False and checks["no_object_found"] is False
    assert gorilla[2]["x"] == gorilla[2]["r"]  # GorillaHard removes the think block before scoring
    assert gorilla[1]["f"] == [] and all(v[1] is not False for v in gorilla[1]["d"])


def test_worst_rows_come_first(run_dir: Path) -> None:
    rows = [r for r in page_data((run_dir / "report.html").read_text(encoding="utf-8"))["rows"] if r["t"] == 0]
    scores = [r["v"] for r in rows if r["v"] is not None]
    assert scores == sorted(scores) and scores[0] < scores[-1]


def test_breakdowns_with_nothing_to_compare_are_folded_and_numbers_sit_under_right_aligned_headings(
        run_dir: Path) -> None:
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert '<th class="num">exact_match</th>' in page
    assert "group_exact_match" not in page.split("by task type", 1)[1].split("</details>", 1)[0]
    assert "wording spread</b>" in page and "mixes the wording with which questions got it" in page  # explained
    assert "geometric mean" in page  # and so is balance_score
    assert "why rows lost points" in page


def test_a_failing_run_folds_its_tables_of_zeros(tmp_path: Path) -> None:
    out = tmp_path / "run"
    evaluate(RunConfig(model="copy", tasks=("gorillahard",), out=out, cache=CacheSettings(enabled=False)))
    page = (out / "report.html").read_text(encoding="utf-8")
    assert re.search(r'<details class="fold"><summary><b>sample_pass_rate by lever</b>', page)


def test_the_page_is_rebuilt_with_references_from_the_folder_alone(run_dir: Path) -> None:
    again = page_data(render(run_dir))
    assert all(r["r"] is not None for r in again["rows"])


def test_past_the_budget_texts_are_previews_and_say_so(run_dir: Path) -> None:
    rows = collect_rows(run_dir, "sage", read_bundled("sage")["test"], strip_think=False, budget=2_000)
    shortened = [e for e in rows.entries if e.get("short")]
    assert shortened and rows.budget_note
    assert all(e["p"] is None and len(e["o"]) <= PREVIEW_CHARS for e in rows.entries[-5:])  # prompts left out
    assert rows.entries[0]["p"]  # the worst row came whole


@pytest.mark.parametrize("never_asked", [
    {"status": "unasked", "error": "the run stopped at --deadline first"},
    {"status": "error", "error": "not asked: the run stopped at --deadline first"},  # a folder of an older version
], ids=["unasked", "older-version"])
def test_rows_never_asked_are_not_failures_and_come_last(tmp_path: Path, never_asked: dict) -> None:
    rows = read_bundled("sage")["test"][:3]
    lines = [{"id": rows[0].id, "output": None, **never_asked},
             {"id": rows[1].id, "status": "error", "output": None, "error": "HTTP 500 after 5 retries"},
             {"id": rows[2].id, "status": "ok", "output": rows[2].inputs["source"], "metrics": {"errant_f1": 0.0}}]
    (tmp_path / "samples_sage.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    collected = collect_rows(tmp_path, "sage", rows, strip_think=False)
    assert [e["s"] for e in collected.entries] == ["error", "ok", "unasked"]
    assert collected.n_failed == 1 and collected.entries[-1]["f"] == ["not asked (the run stopped at a limit)"]
    answers = read_answers(tmp_path / "samples_sage.jsonl")
    assert answers[rows[0].id].unasked and answers[rows[0].id].error == "the run stopped at --deadline first"
    assert not answers[rows[1].id].unasked and not answers[rows[1].id].ok


def test_the_page_needs_nothing_from_anywhere(run_dir: Path) -> None:
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert re.findall(r'(?:src|href)="([^"#][^"]*)"', page) == []  # only in-page links
    assert "@import" not in page and "url(" not in page.split('id="report-data"', 1)[0]


def test_the_written_page_is_the_rendered_one(run_dir: Path, tmp_path: Path) -> None:
    """write_report writes the page in pieces (the rows' JSON a batch at a time): the file is the
    page render gives whole, and its JSON elements read back, across CHUNK boundaries too."""
    import shutil

    from merabench.report import html

    folder = tmp_path / "again"
    shutil.copytree(run_dir, folder)
    (folder / "report.html").unlink()
    whole = render(folder)
    old_chunk = html.CHUNK
    try:
        html.CHUNK = 300  # many pieces over a bundled run's rows
        assert len(list(html.page(folder))) > 20
        html.write_report(folder)
    finally:
        html.CHUNK = old_chunk
    written = (folder / "report.html").read_text(encoding="utf-8")
    assert written == whole
    assert len(page_data(written)["rows"]) == sum(len(read_bundled(t)["test"]) for t in ("sage", "russianregions",
                                                                                       "gorillahard"))


def test_collecting_rows_holds_one_record_at_a_time(tmp_path: Path) -> None:
    """A logged prompt of every row (GorillaHard's run to 34k characters) is read from the samples
    file when the budget can take it, not held for every row: 300 rows of 40k-character prompts
    (~24 MB as Python strings) collected within a 100 kB budget stay within a few MB."""
    import tracemalloc

    rows = read_bundled("sage")["test"]
    with (tmp_path / "samples_sage.jsonl").open("w", encoding="utf-8") as out:
        for n in range(300):
            row = rows[n % len(rows)]
            prompt = f"Исправь {n}: " + "текст " * 6_500
            out.write(json.dumps({"id": n, "status": "ok", "output": row.inputs["source"], "metrics": {"errant_f1": 0.5},
                                  "messages": [{"role": "user", "content": prompt}]}, ensure_ascii=True) + "\n")
    tracemalloc.start()
    try:
        collected = collect_rows(tmp_path, "sage", None, strip_think=False, budget=100_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(collected.entries) == 300
    assert peak < 4 * 2**20
    first, rest = collected.entries[0], collected.entries[1:]
    assert first["p"].startswith("[user]\nИсправь 0: ") and len(first["p"]) == len("[user]\nИсправь 0: ") + 6 * 6_500
    assert all(e["p"] is None and "p" in e["short"] for e in rest[5:])  # the budget spent: prompts left out
    assert [e["i"] for e in collected.entries] == list(range(300))  # equal scores: by id
