"""`merabench compare`: paired differences between two runs on the same rows."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers import run_cli, write_jsonl

from merabench.scoring.stats import bootstrap_means, interval, paired_difference


def test_bootstrap_and_paired_difference_are_seeded_and_sane() -> None:
    values = np.array([0.0, 1.0] * 50)
    assert interval(bootstrap_means(values)) == interval(bootstrap_means(values))
    low, high = interval(bootstrap_means(values))
    assert low < 0.5 < high
    graded = np.array([0.1, 0.9, 0.5, 0.7] * 25)  # not 0/1: resampled row by row
    low, high = interval(bootstrap_means(graded))
    assert low < graded.mean() < high
    same = paired_difference([0.2, 0.4, 0.6], [0.2, 0.4, 0.6])
    assert same["difference"] == 0 and same["low"] == same["high"] == 0
    better = paired_difference([0.0] * 10, [1.0] * 10)
    assert better["second_better"] == 10 and better["low"] == 1.0


@pytest.fixture(scope="module")
def baseline_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    for model in ("reference", "copy", "random"):
        done = run_cli("run", "--model", model, "--out", str(root / model), "--no-progress")
        assert done.returncode == 0, done.stderr
    return root


def aggregates(run: Path, task: str) -> dict[str, float]:
    return json.loads((run / "results.json").read_text())["tasks"][task]["metrics"]


def test_compare_two_runs_in_each_metric_s_own_unit(baseline_runs: Path, tmp_path: Path) -> None:
    a, b = baseline_runs / "reference", baseline_runs / "random"
    result = run_cli("compare", str(a), str(b), "--json", str(tmp_path / "c.json"))
    assert result.returncode == 0, result.stderr
    doc = json.loads((tmp_path / "c.json").read_text())["tasks"]
    for task, metrics in doc.items():  # every difference is b's aggregate minus a's (the same rows here)
        for name, m in metrics.items():
            assert m["first"] == pytest.approx(aggregates(a, task)[name]), (task, name)
            assert m["second"] == pytest.approx(aggregates(b, task)[name]), (task, name)
            assert m["difference"] == pytest.approx(m["second"] - m["first"]), (task, name)
            assert m["low"] <= m["difference"] <= m["high"], (task, name)
    group = doc["russianregions"]["group_exact_match"]
    assert (group["difference"], group["unit"], group["n"]) == (-1.0, "groups", 12)  # not -0.9444 row by row
    assert doc["gorillahard"]["balance_score"]["unit"] == "levers" and doc["gorillahard"]["balance_score"]["n"] == 16
    assert doc["gorillahard"]["dialog_pass_rate"]["unit"] == "dialogues"
    assert doc["gorillahard"]["tool_match_rate"]["n"] == 22  # only the rows that need a call
    assert doc["sage"]["spell_micro_f1"]["unit"] == "rows (corpus)"
    copy_vs_random = run_cli("compare", str(baseline_runs / "copy"), str(b), "--json", str(tmp_path / "d.json"))
    assert copy_vs_random.returncode == 0
    both_zero = json.loads((tmp_path / "d.json").read_text())["tasks"]["russianregions"]["group_exact_match"]
    assert both_zero["difference"] == 0.0 and both_zero["first"] == both_zero["second"] == 0.0
    assert run_cli("compare", str(a), str(tmp_path / "nothing")).returncode == 2


def test_group_and_balance_differences_follow_their_aggregation() -> None:
    from merabench.formats.compare import metric_difference
    from merabench.rows.row import Row
    from merabench.tasks import TASKS
    from merabench.tasks.aggregation import aggregate_metric
    from merabench.tasks.base import SampleScore

    rows = [Row("{x}", {"x": "?"}, "Б", {"id": i, "group_id": i // 3, "task_type": 1}) for i in range(12)]
    first = [SampleScore({"group_exact_match": v}) for v in (1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 0, 0)]
    second = [SampleScore({"group_exact_match": v}) for v in (1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1)]
    spec = TASKS["russianregions"].spec("group_exact_match")
    diff = metric_difference(spec, rows, first, second)
    assert diff["n"] == 4 and diff["unit"] == "groups"
    assert diff["difference"] == pytest.approx(aggregate_metric(spec, rows, second)[0]
                                               - aggregate_metric(spec, rows, first)[0])
    levers = [Row("{x}", {"x": "?"}, "{}", {"id": i, "categories": {"lever": f"L{i % 3}"}}) for i in range(9)]
    balance = TASKS["gorillahard"].spec("balance_score")
    a = [SampleScore({"balance_score": v}) for v in (1, 1, 1, 0, 1, 0, 0, 1, 1)]
    b = [SampleScore({"balance_score": v}) for v in (1, 0, 0, 1, 1, 1, 1, 1, 1)]
    diff = metric_difference(balance, levers, a, b)
    assert diff["unit"] == "levers" and diff["n"] == 3
    assert diff["difference"] == pytest.approx(aggregate_metric(balance, levers, b)[0]
                                               - aggregate_metric(balance, levers, a)[0])
    assert diff["difference"] != pytest.approx(sum(x.metrics["balance_score"] - y.metrics["balance_score"]
                                                   for x, y in zip(b, a, strict=True)) / 9)


def test_runs_on_different_data_are_compared_over_their_equal_rows_only(baseline_runs: Path, tmp_path: Path) -> None:
    from merabench.rows.row import read_bundled

    rows = [r.to_dict() for r in read_bundled("sage")["test"]]
    changed = [dict(r, outputs=r["outputs"] + " (иначе)") if n < 5 else r for n, r in enumerate(rows)]
    extra = [dict(rows[0], meta=dict(rows[0]["meta"], id=10_000 + k)) for k in range(3)]
    data = write_jsonl(tmp_path / "sage.jsonl", changed + extra)
    run = tmp_path / "other"
    assert run_cli("run", "--model", "reference", "--tasks", "sage", "--data", str(data), "--out", str(run),
                   "--no-progress").returncode == 0
    result = run_cli("compare", str(baseline_runs / "reference"), str(run), "--json", str(tmp_path / "c.json"))
    assert result.returncode == 0, result.stderr
    assert "sage: compared over the 60 row(s) whose content is equal in every run; 8 row(s) left out" in result.stderr
    assert "russianregions: not in every run" in result.stderr
    doc = json.loads((tmp_path / "c.json").read_text())
    assert set(doc["tasks"]) == {"sage"} and doc["tasks"]["sage"]["errant_f1"]["n"] == 60
    assert doc["tasks"]["sage"]["errant_f1"]["difference"] == 0.0  # the equal rows: both the reference

    disjoint = write_jsonl(tmp_path / "disjoint.jsonl", [dict(r, outputs=r["outputs"] + "!") for r in rows[:4]])
    other = tmp_path / "disjoint"
    assert run_cli("run", "--model", "reference", "--tasks", "sage", "--data", str(disjoint), "--out", str(other),
                   "--no-progress").returncode == 0
    refused = run_cli("compare", str(baseline_runs / "reference"), str(other))
    assert refused.returncode == 2 and "share no row with the same content" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1


def test_three_runs_make_a_leaderboard_and_a_page(baseline_runs: Path, tmp_path: Path) -> None:
    runs = [str(baseline_runs / m) for m in ("random", "reference", "copy")]
    page = tmp_path / "board.html"
    result = run_cli("compare", *runs, "--json", str(tmp_path / "b.json"), "--html", str(page))
    assert result.returncode == 0, result.stderr
    assert "sage errant_f1 (ranked by it)" in result.stdout
    assert "gorillahard sample_pass_rate (ranked by it)" in result.stdout
    board = json.loads((tmp_path / "b.json").read_text())
    sage = board["tasks"]["sage"]
    assert [Path(r["folder"]).name for r in sage["runs"]] == ["reference", "copy", "random"]
    assert [r["rank"] for r in sage["runs"]] == [1, 2, 3]
    best, second, third = sage["runs"]
    assert best["model"] == "reference" and best["metrics"]["errant_f1"]["best"]
    assert best["metrics"]["errant_f1"]["value"] == aggregates(baseline_runs / "reference", "sage")["errant_f1"]
    assert second["metrics"]["errant_f1"]["ci95"] == aggregates_ci(baseline_runs / "copy", "sage")["errant_f1"]
    assert second["metrics"]["errant_f1"]["vs_best"]["significant"] is True
    gorilla = board["tasks"]["gorillahard"]["runs"]
    assert [r["rank"] for r in gorilla] == [1, 2, 2]  # copy and random tie at 0
    assert gorilla[1]["metrics"]["balance_score"]["vs_best"]["unit"] == "levers"
    text = page.read_text(encoding="utf-8")
    assert "<script" not in text and "http" not in text and text.count("<table>") == 3
    assert "reference" in text and "95 %" in text


def aggregates_ci(run: Path, task: str) -> dict[str, list[float]]:
    return json.loads((run / "results.json").read_text())["tasks"][task]["ci95"]


def test_folder_names_are_printed_as_text_not_markup(baseline_runs: Path, tmp_path: Path) -> None:
    import shutil

    first, second = tmp_path / "[exp]" / "reference", tmp_path / "[/b]" / "random"
    shutil.copytree(baseline_runs / "reference", first)
    shutil.copytree(baseline_runs / "random", second)
    result = run_cli("compare", str(first), str(second))
    assert result.returncode == 0, result.stderr  # "[/b]" closing no tag: not a MarkupError traceback
    assert f"A = {first}" in result.stdout and f"B = {second}" in result.stdout  # "[exp]" not eaten as a style


def test_an_unwritable_json_or_html_path_is_one_line(baseline_runs: Path, tmp_path: Path) -> None:
    a, b = baseline_runs / "reference", baseline_runs / "random"
    for flag, target in (("--json", tmp_path), ("--html", tmp_path / "no" / "such" / "page.html")):
        result = run_cli("compare", str(a), str(b), flag, str(target))
        assert result.returncode == 2, result.stderr
        assert "Traceback" not in result.stderr and f"{flag} {target}: cannot be written" in result.stderr


def notes_of(*args: str, tmp_path: Path) -> tuple[dict, str]:
    result = run_cli("compare", *args, "--json", str(tmp_path / "notes.json"))
    assert result.returncode == 0, result.stderr
    return json.loads((tmp_path / "notes.json").read_text()), " ".join(result.stderr.split())


def test_every_metric_left_out_is_a_note(baseline_runs: Path, tmp_path: Path) -> None:
    doc, printed = notes_of(str(baseline_runs / "reference"), str(baseline_runs / "random"), tmp_path=tmp_path)
    # the bundled GorillaHard set has one clarify row and one injection row: no paired interval, but said so
    for name in ("clarify_recall", "injection_resistance_rate"):
        assert name not in doc["tasks"]["gorillahard"]
        assert any(n.startswith(f"gorillahard: {name} left out: 1 row both runs score") for n in doc["notes"]), name
        assert f"gorillahard: {name} left out" in printed
    assert any("judge_score, group_judge_score left out: in neither run's scores" in n for n in doc["notes"])
    assert doc["scored_differently"] == {}


def test_rows_a_run_failed_and_figures_unlike_its_own_are_notes(tmp_path: Path, make_server) -> None:
    from helpers import mixed_answers

    answers = mixed_answers()
    full, failing = tmp_path / "full", tmp_path / "failing"
    for folder, plan in ((full, lambda n, body: "ok"), (failing, lambda n, body: "500" if n % 8 == 0 else "ok")):
        server = make_server(reply=lambda body: answers.get(body["messages"][-1]["content"], "?"), plan=plan)
        done = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage", "--out", str(folder),
                       "--no-progress", "--no-cache", "--max-retries", "0", "--concurrency", "1")
        assert done.returncode == 0, done.stderr
    failed = json.loads((failing / "results.json").read_text())["tasks"]["sage"]["n_errors"]
    assert failed == 8
    doc, printed = notes_of(str(full), str(failing), tmp_path=tmp_path)
    assert f"sage: compared over the 57 row(s) both runs scored; 8 left out, unscored (failed or not asked) in a " \
           f"run: 8 in {failing}" in doc["notes"]
    own = json.loads((full / "results.json").read_text())["tasks"]["sage"]["metrics"]["errant_f1"]
    shown = doc["tasks"]["sage"]["errant_f1"]["first"]
    assert abs(shown - own) > 5e-5  # over the 57 rows, not the run's 65
    assert any(f"{full} errant_f1 {shown:.4f} here, {own:.4f} in its results.json" in n for n in doc["notes"])
    assert "8 left out" in printed


def test_runs_scored_with_other_settings_are_flagged(baseline_runs: Path, tmp_path: Path) -> None:
    stripped = tmp_path / "stripped"
    assert run_cli("run", "--model", "copy", "--strip-think", "--out", str(stripped), "--no-progress").returncode == 0
    doc, printed = notes_of(str(baseline_runs / "copy"), str(stripped), tmp_path=tmp_path)
    assert doc["scored_differently"] == {"sage": {"strip_think": [False, True]},
                                         "russianregions": {"strip_think": [False, True]}}
    assert "sage: scored differently (--strip-think off in" in printed
    board = run_cli("compare", str(baseline_runs / "copy"), str(baseline_runs / "random"), str(stripped),
                    "--json", str(tmp_path / "board.json"))
    assert board.returncode == 0, board.stderr
    assert set(json.loads((tmp_path / "board.json").read_text())["scored_differently"]) == {"sage", "russianregions"}
