"""`merabench tasks` and `merabench score`, and how user mistakes are reported."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
import typer
from helpers import read_jsonl, run_cli, sage_rows, write_jsonl

import merabench


def test_tasks_lists_sources_metrics_and_scorer_status() -> None:
    result = run_cli("tasks")
    assert result.returncode == 0
    for fragment in ("sage", "russianregions", "gorillahard", "MERA-evaluation/SAGE", "bundled"):
        assert fragment in result.stdout


def predictions_files(tmp_path: Path, answers: dict[int, str]) -> dict[str, Path]:
    jsonl = write_jsonl(tmp_path / "preds.jsonl", [{"id": i, "output": a} for i, a in answers.items()])
    submission = {"data": {"test": [{"outputs": a, "meta": {"id": i}} for i, a in answers.items()]}}
    sub_json = tmp_path / "SAGE.json"
    sub_json.write_text(json.dumps(submission, ensure_ascii=False), encoding="utf-8")
    sub_zip = tmp_path / "submission.zip"
    with zipfile.ZipFile(sub_zip, "w") as zf:
        zf.writestr("SAGE.json", json.dumps(submission, ensure_ascii=False))
    lm_eval = write_jsonl(tmp_path / "samples_sage_2026.jsonl", [
        {"doc_id": n, "doc": {"meta": {"id": i}}, "resps": [[a]], "filtered_resps": [a]}
        for n, (i, a) in enumerate(answers.items())])
    return {"jsonl": jsonl, "submission_json": sub_json, "zip": sub_zip, "lm_eval": lm_eval}


@pytest.mark.parametrize("form", ["jsonl", "submission_json", "zip", "lm_eval"])
def test_score_reads_every_prediction_form(tmp_path: Path, form: str) -> None:
    rows = sage_rows(4)
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    answers = {0: rows[0]["outputs"], 1: rows[1]["inputs"]["source"], 2: rows[2]["outputs"], 3: "  " + rows[3]["outputs"]}
    path = predictions_files(tmp_path, answers)[form]
    result = run_cli("score", "sage", "--data", str(data), "--predictions", str(path), "--out", str(tmp_path / "s"))
    assert result.returncode == 0, result.stderr
    doc = json.loads((tmp_path / "s" / "results.json").read_text())
    assert doc["n"] == 4 and doc["denominators"]["errant_f1"] == 4
    samples = read_jsonl(tmp_path / "s" / "samples_sage.jsonl")
    # row 1 answered with its uncorrected source misses both the spelling and the comma
    assert [s["metrics"]["errant_f1"] for s in samples] == [1.0, 0.0, 1.0, 1.0]
    assert doc["metrics"]["errant_f1"] == 0.75


def test_score_counts_missing_predictions_as_errors(tmp_path: Path) -> None:
    rows = sage_rows(3)
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    preds = write_jsonl(tmp_path / "p.jsonl", [{"id": 0, "output": rows[0]["outputs"]}, {"id": 99, "output": "x"}])
    result = run_cli("score", "sage", "--data", str(data), "--predictions", str(preds), "--out", str(tmp_path / "s"))
    assert result.returncode == 0
    assert "2 row(s) have no prediction" in result.stderr and "not in the data" in result.stderr
    task = json.loads((tmp_path / "s" / "results.json").read_text())["tasks"]["sage"]
    assert task["n_errors"] == 2 and task["denominators"]["errant_f1"] == 1


def test_score_keeps_think_blocks_as_the_harness_does_unless_strip_think(tmp_path: Path) -> None:
    rows = sage_rows(1)
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    preds = write_jsonl(tmp_path / "p.jsonl", [{"id": 0, "output": "<THINK>…</think>" + rows[0]["outputs"]}])
    default = run_cli("score", "sage", "--data", str(data), "--predictions", str(preds), "--out", str(tmp_path / "a"))
    stripped = run_cli("score", "sage", "--data", str(data), "--predictions", str(preds), "--out",
                       str(tmp_path / "b"), "--strip-think")
    assert default.returncode == stripped.returncode == 0
    kept_doc = json.loads((tmp_path / "a" / "results.json").read_text())
    assert kept_doc["metrics"]["errant_f1"] < 1.0 and kept_doc["settings"]["strip_think"] is False
    assert "1 answer(s) carry <think> blocks" in default.stderr and "--strip-think would remove" in default.stderr
    strip_doc = json.loads((tmp_path / "b" / "results.json").read_text())
    assert strip_doc["metrics"]["errant_f1"] == 1.0 and strip_doc["settings"]["strip_think"] is True
    assert strip_doc["tasks"]["sage"]["think"] == {"answers_with_think": 1, "strip_think": True}


def test_public_test_rows_without_references_are_not_scored(tmp_path: Path) -> None:
    rows = [dict(r, outputs="") for r in sage_rows(2)]
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    result = run_cli("run", "--model", "copy", "--tasks", "sage", "--data", str(data), "--out", str(tmp_path / "r"),
                     "--no-progress")
    assert result.returncode == 0, result.stderr
    task = json.loads((tmp_path / "r" / "results.json").read_text())["tasks"]["sage"]
    assert task["metrics"] == {} and "no reference answers" in " ".join(task["notes"])


def test_a_gorillahard_set_without_references_gets_its_format_metrics(tmp_path: Path) -> None:
    """As the public scorer emits them on the public test split: format checks need no reference."""
    bundled = Path(merabench.__file__).parent / "data" / "gorillahard" / "test.jsonl"
    rows = [dict(r, outputs="") for r in read_jsonl(bundled) if int(r["meta"].get("n_turns", 1)) == 1][:6]
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    answers = ['{"tool": "x", "args": {}}', 'Вот: {"tool": "x", "args": {}}', "не знаю"] * 2
    predictions = write_jsonl(tmp_path / "p.jsonl", [{"id": r["meta"]["id"], "output": a}
                                                     for r, a in zip(rows, answers, strict=True)])
    result = run_cli("score", "gorillahard", "--data", str(data), "--predictions", str(predictions),
                     "--out", str(tmp_path / "s"))
    assert result.returncode == 0, result.stderr
    task = json.loads((tmp_path / "s" / "results.json").read_text())["tasks"]["gorillahard"]
    assert set(task["metrics"]) == {"format_pass_rate", "constraint_pass_rate"}
    assert task["metrics"]["format_pass_rate"] == pytest.approx(1 / 3) and task["n_scored"] == 6


@pytest.mark.parametrize(("args", "fragment"), [
    (["run", "--tasks", "sage,nope"], "unknown task 'nope'"),
    (["run", "--model", "gpt-4o"], "unknown model 'gpt-4o'"),
    (["run", "--model", "openai:m", "--tasks", "sage"], "needs --base-url"),
    (["run", "--extra-body", "{oops"], "--extra-body is not valid JSON"),
])
def test_user_mistakes_are_one_clear_line_and_exit_2(tmp_path: Path, args: list[str], fragment: str) -> None:
    result = run_cli(*args, "--out", str(tmp_path / "r"), env={"OPENAI_BASE_URL": ""})
    assert result.returncode == 2, result.stderr
    assert fragment in result.stderr and "Traceback" not in result.stderr


def test_malformed_data_file_names_file_line_and_field(tmp_path: Path) -> None:
    rows = sage_rows(3)
    rows[1]["inputs"]["source"] = ["не", "строка"]
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    result = run_cli("run", "--tasks", "sage", "--data", str(data), "--out", str(tmp_path / "r"))
    assert result.returncode == 2
    assert f"{data}:2" in result.stderr and "inputs.source" in result.stderr and "Traceback" not in result.stderr


def test_presets_set_the_request_and_flags_override_them(tmp_path: Path, make_server) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(2))
    server = make_server()
    base = ("run", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage", "--data", str(data),
            "--no-progress", "--no-cache")
    assert run_cli(*base, "--preset", "mera", "--out", str(tmp_path / "a")).returncode == 0
    body = server.requests[-1]
    assert (body["max_tokens"], body["temperature"], body["seed"], body["stop"]) == (256, 0.0, 1234, ["\n\n"])
    generation = json.loads((tmp_path / "a" / "results.json").read_text())["settings"]
    assert generation["preset"] == "mera" and generation["generation"]["stop"] == ["\n\n"]
    result = run_cli(*base, "--preset", "mera-reasoning", "--max-tokens", "1000", "--stop", "###",
                     "--out", str(tmp_path / "b"))
    assert result.returncode == 0, result.stderr
    body = server.requests[-1]
    assert (body["max_tokens"], body["seed"], body["stop"]) == (1000, 1234, ["###"])
    result = run_cli(*base, "--preset", "mera-reasoning", "--out", str(tmp_path / "e"))
    assert result.returncode == 0, result.stderr
    body = server.requests[-1]  # the harness's reasoning setting, its stops in its order
    assert (body["max_tokens"], body["temperature"], body["seed"], body["stop"]) == (
        32768, 0.0, 1234, ["<|im_end|>", "<|eot_id|>", "</s>"])
    assert run_cli(*base, "--out", str(tmp_path / "c")).returncode == 0
    body = server.requests[-1]
    assert body["max_tokens"] == 4096 and "stop" not in body and "seed" not in body
    unknown = run_cli(*base, "--preset", "lmeval", "--out", str(tmp_path / "d"))
    assert unknown.returncode == 2 and "unknown --preset 'lmeval'" in unknown.stderr


def test_names_a_user_chose_are_printed_as_typed(tmp_path: Path) -> None:
    """A folder named ':smile:' or '[bold]x' stays itself in tables and messages (rich's emoji
    codes and markup are off for what users, files and models wrote)."""
    folders = [":smile:a", "[bold]b", ":thumbs_up:c"]
    for folder in folders:
        done = run_cli("run", "--tasks", "sage", "--limit", "3", "--no-progress", "--out", folder, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert f"answers and results in {folder}/" in done.stderr
    paired = run_cli("compare", *folders[:2], cwd=tmp_path)
    assert paired.returncode == 0, paired.stderr
    assert "A = :smile:a\nB = [bold]b\n" in paired.stdout
    board = run_cli("compare", *folders, cwd=tmp_path)
    assert board.returncode == 0, board.stderr
    for folder in (":smile:a", "[bold]b", ":thumbs_up:c"):
        assert f"  {folder} = " in board.stdout and f" {folder} " in board.stdout


def test_option_given_tells_a_set_option_from_its_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """What `export-requests --run` relies on to keep a run's recorded options: an option set on the
    command line, through its environment variable or in a --config file (click's default_map)
    counts as given; one left at its default does not."""
    from typer.main import get_command

    from merabench.cli.options import option_given

    seen: dict[str, bool] = {}
    app = typer.Typer()

    @app.command()
    def probe(ctx: typer.Context, seed: int = 0, stop: str = typer.Option("", envvar="PROBE_STOP")) -> None:
        seen.update(seed=option_given(ctx, "seed"), stop=option_given(ctx, "stop"))

    command = get_command(app)
    command.main(args=[], standalone_mode=False)
    assert seen == {"seed": False, "stop": False}
    command.main(args=["--seed", "0"], standalone_mode=False)  # the default's value, typed: given
    assert seen == {"seed": True, "stop": False}
    command.main(args=[], standalone_mode=False, default_map={"seed": 7})
    assert seen == {"seed": True, "stop": False}
    monkeypatch.setenv("PROBE_STOP", "\n")
    command.main(args=[], standalone_mode=False)
    assert seen == {"seed": False, "stop": True}
