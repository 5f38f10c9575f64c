"""lm-eval-style logs, the MERA submission with its public logs, and the schemas of every file a
run writes."""

from __future__ import annotations

import glob
import io
import json
import os
import re
import zipfile
from datetime import datetime
from pathlib import Path

import jsonschema
import pytest
from helpers import ROOT, mixed_answers, read_jsonl, run_cli

from merabench.tasks import TASKS

SCHEMAS = ROOT / "src" / "merabench" / "schemas"
PACKER_STAMP = "%Y-%m-%dT%H-%M-%S.%f"


def schema(name: str) -> jsonschema.protocols.Validator:
    document = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(document)
    return jsonschema.Draft202012Validator(document)


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """All three bundled tasks answered by a local server with mixed answers (mixed_answers)."""
    from fakeserver import FakeServer

    answers = mixed_answers()
    server = FakeServer(reply=lambda body: answers.get(body["messages"][-1]["content"], "?")).start()
    try:
        out = tmp_path_factory.mktemp("mixed") / "run"
        done = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--out", str(out), "--no-progress",
                       "--no-cache")
        assert done.returncode in (0, 1), done.stderr
    finally:
        server.stop()
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    for task in TASKS:  # the answers are neither all right nor all wrong
        headline = results["tasks"][task]["metrics"][next(m.name for m in TASKS[task].metrics if m.headline)]
        assert 0 < headline < 1, (task, headline)
    return out


def packer_answers(folder: Path, task: str) -> dict[int, str]:
    """What MERA's packer reads, re-implemented from its description: the newest
    samples_<task>_<stamp>.json* by the stamp in its name, `doc.meta.id` and `filtered_resps`."""
    files = glob.glob(os.path.join(folder, f"samples_{task}_*.json*"))
    assert files, f"no samples file for {task}"

    def stamp(path: str) -> datetime:
        return datetime.strptime(os.path.basename(path).split(".json")[0].split("_")[-1], PACKER_STAMP)

    newest = sorted(files, key=stamp, reverse=True)[0]
    answers = {}
    for line in read_jsonl(Path(newest)):
        answer = line["filtered_resps"]
        answers[int(line["doc"]["meta"]["id"])] = answer[0] if isinstance(answer, list) else answer
    return answers


def test_export_is_read_by_the_mera_packer_and_rescores_to_the_same_metrics(mixed_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "lmeval"
    done = run_cli("export", "lmeval", str(mixed_run), "--out", str(out))
    assert done.returncode == 0, done.stderr
    results_files = list(out.glob("results_*.json"))
    assert len(results_files) == 1
    run_results = json.loads((mixed_run / "results.json").read_text(encoding="utf-8"))
    for task in TASKS:
        samples = read_jsonl(mixed_run / f"samples_{task}.jsonl")
        scored = {s["id"]: s.get("answer", s["output"]) for s in samples}
        assert packer_answers(out, task) == scored  # every answer, as it was scored

        exported = next(out.glob(f"samples_{task}_*.jsonl"))
        rescored = tmp_path / f"rescored_{task}"
        done = run_cli("score", task, "--predictions", str(exported), "--out", str(rescored))
        assert done.returncode in (0, 1), done.stderr
        again = json.loads((rescored / "results.json").read_text(encoding="utf-8"))
        assert again["tasks"][task]["metrics"] == run_results["tasks"][task]["metrics"]

        line = read_jsonl(exported)[0]
        assert {"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics",
                "doc_hash", "prompt_hash", "target_hash"} <= set(line)
        messages = json.loads(line["arguments"]["gen_args_0"]["arg_0"])  # the full prompt, re-rendered
        assert messages[-1]["role"] == "user" and line["doc"]["inputs"] and line["target"] == line["doc"]["outputs"]
        assert all(name in line for name in line["metrics"])


def test_exported_results_follow_lm_eval_layout(mixed_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "lmeval"
    assert run_cli("export", "lmeval", str(mixed_run), "--out", str(out)).returncode == 0
    doc = json.loads(next(out.glob("results_*.json")).read_text(encoding="utf-8"))
    run_results = json.loads((mixed_run / "results.json").read_text(encoding="utf-8"))
    assert doc["results"]["gorillahard"]["alias"] == "gorillahard"
    for task, result in run_results["tasks"].items():
        flt = "scoring" if task == "gorillahard" else "none"  # the public task files' filter names
        for metric, value in result["metrics"].items():
            assert doc["results"][task][f"{metric},{flt}"] == value
            stderr = doc["results"][task][f"{metric}_stderr,{flt}"]
            assert stderr == "N/A" or (isinstance(stderr, float) and stderr >= 0)
        assert doc["n-samples"][task] == {"original": result["n"], "effective": result["n_scored"]}
        assert doc["task_hashes"][task] == result["data_sha256"]
    assert doc["higher_is_better"]["gorillahard"]["false_abstention_rate"] is False
    assert doc["higher_is_better"]["russianregions"]["format_error_rate"] is False
    assert doc["higher_is_better"]["sage"]["errant_f1"] is True
    assert doc["configs"]["sage"]["generation_kwargs"]["max_gen_toks"] == 4096
    assert doc["configs"]["sage"]["dataset_path"] == TASKS["sage"].hub_id


def test_submission_carries_public_logs_and_checks(mixed_run: Path, tmp_path: Path) -> None:
    zip_path = tmp_path / "sub.zip"
    done = run_cli("submission", "--allow-unofficial", "--run", str(mixed_run), "--out", str(zip_path))
    assert done.returncode == 0, done.stderr + done.stdout
    with zipfile.ZipFile(zip_path) as zf:
        assert {"SAGE.json", "RussianRegions.json", "GorillaHard.json", "logs_public.zip"} <= set(zf.namelist())
        logs = zipfile.ZipFile(io.BytesIO(zf.read("logs_public.zip")))
        names = logs.namelist()
    assert sum(n.startswith("results_") for n in names) == 1
    assert {n.split("_")[1] for n in names if n.startswith("samples_")} == set(TASKS)
    checked = run_cli("submission", "--check", "--out", str(zip_path))
    assert "the format is right" in checked.stderr and "problem" not in checked.stderr, checked.stderr
    assert checked.returncode == 1 and "not for the leaderboard" in checked.stderr  # --allow-unofficial's comment


def mera_packer_zip(path: Path, run_dir: Path, *, broken_logs: bool = False) -> Path:
    """A submission laid out as MERA's packer lays it out: task JSONs (ours and another MERA
    task's) with pretty-printed non-ASCII JSON, and logs_public.zip holding lm-eval files."""
    export = path.parent / "export"
    assert run_cli("export", "lmeval", str(run_dir), "--out", str(export)).returncode == 0
    logs = io.BytesIO()
    with zipfile.ZipFile(logs, "w") as lz:
        for file in sorted(export.iterdir()):
            text = file.read_text(encoding="utf-8")
            if broken_logs and file.name.startswith("samples_sage"):
                text = '{"doc_id": 0, "resps": [["x"]]}\n' + text
            lz.writestr(file.name, text)
    with zipfile.ZipFile(path, "w") as zf:
        for task in TASKS.values():
            items = [{"outputs": s.get("answer", s["output"]), "meta": {"id": s["id"]}}
                     for s in read_jsonl(run_dir / f"samples_{task.name}.jsonl")]
            zf.writestr(f"{task.mera_name}.json", json.dumps({"data": {"test": items}}, ensure_ascii=False, indent=4))
        zf.writestr("Humor.json", json.dumps({"data": {"test": [{"outputs": "1", "meta": {"id": 0}}]}}))
        zf.writestr("logs_public.zip", logs.getvalue())
    return path


def test_check_accepts_a_zip_made_as_mera_packs_it_and_names_broken_logs(mixed_run: Path, tmp_path: Path) -> None:
    (tmp_path / "good").mkdir()
    good = mera_packer_zip(tmp_path / "good" / "sub.zip", mixed_run)
    done = run_cli("submission", "--check", "--out", str(good))
    assert done.returncode == 0, done.stdout + done.stderr

    (tmp_path / "bad").mkdir()
    bad = mera_packer_zip(tmp_path / "bad" / "sub.zip", mixed_run, broken_logs=True)
    done = run_cli("submission", "--check", "--out", str(bad))
    assert done.returncode == 1
    assert "logs_public.zip!samples_sage" in done.stdout + done.stderr


def test_every_file_a_run_writes_matches_the_shipped_schemas(mixed_run: Path, tmp_path: Path, make_server) -> None:
    results_schema, line_schema = schema("results.schema.json"), schema("samples-line.schema.json")
    server = make_server(reply=lambda body: {"content": "<think>думаю</think>Привет, как дела?\n",
                                             "reasoning_content": "сначала прочитаю текст",
                                             "usage": {"prompt_tokens": 30, "completion_tokens": 12,
                                                       "completion_tokens_details": {"reasoning_tokens": 5}}})
    served = tmp_path / "served"
    done = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage,gorillahard",
                   "--limit", "4", "--log-prompts", "--out", str(served), "--no-progress")
    assert done.returncode in (0, 1), done.stderr
    scored = tmp_path / "scored"
    assert run_cli("score", "sage", "--predictions", str(served / "samples_sage.jsonl"), "--data", "bundled",
                   "--out", str(scored)).returncode in (0, 1)
    checked = 0
    for folder in (mixed_run, served, scored):
        results_schema.validate(json.loads((folder / "results.json").read_text(encoding="utf-8")))
        for samples in folder.glob("samples_*.jsonl"):
            for line in read_jsonl(samples):
                line_schema.validate(line)
                checked += 1
    assert checked > 100
    first = read_jsonl(served / "samples_sage.jsonl")[0]
    assert first["messages"] and first["reasoning"] == "сначала прочитаю текст" and first["reasoning_tokens"] == 5


def test_schemas_reject_what_they_should(mixed_run: Path) -> None:
    results_schema, line_schema = schema("results.schema.json"), schema("samples-line.schema.json")
    doc = json.loads((mixed_run / "results.json").read_text(encoding="utf-8"))
    doc["tasks"]["sage"]["metric_info"]["errant_f1"]["higher_is_better"] = "yes"
    with pytest.raises(jsonschema.ValidationError):
        results_schema.validate(doc)
    with pytest.raises(jsonschema.ValidationError):
        line_schema.validate({"id": "7", "status": "ok", "output": "x", "error": None})


def test_the_report_shows_a_logged_prompt(tmp_path: Path, make_server) -> None:
    server = make_server(reply=lambda body: "не знаю <b>")
    out = tmp_path / "run"
    done = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage", "--limit", "3",
                   "--log-prompts", "--out", str(out), "--no-progress", "--no-cache")
    assert done.returncode in (0, 1), done.stderr
    html = (out / "report.html").read_text(encoding="utf-8")
    rows = json.loads(re.search(r'id="report-details">(.*?)</script>', html, re.S).group(1))
    assert rows and all(r["p"].startswith("[user]") for r in rows)  # the row opens to its prompt
    assert all(r["o"] == "не знаю <b>" for r in rows) and "не знаю <b>" not in html  # the answer stays escaped


def test_the_hub_revision_is_named_when_the_hub_answers(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import types

    import huggingface_hub

    from merabench.rows.row import hub_revision

    monkeypatch.setattr(huggingface_hub.HfApi, "dataset_info",
                        lambda self, repo_id, token=None: types.SimpleNamespace(sha="0f3c9a1"))
    assert hub_revision("MERA-evaluation/SAGE") == "0f3c9a1"
    assert hub_revision(str(tmp_path)) is None  # a local folder standing in for the hub

    def offline(self, repo_id, token=None):
        raise OSError("no network")

    monkeypatch.setattr(huggingface_hub.HfApi, "dataset_info", offline)
    assert hub_revision("MERA-evaluation/SAGE") is None


def test_export_writes_only_answered_rows_and_refuses_an_incomplete_run(tmp_path: Path, make_server) -> None:
    from helpers import sage_rows, write_jsonl

    rows = sage_rows(6)
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    fails = {r["inputs"]["source"] for r in rows[:2]}  # two rows' requests fail: error rows, never answered
    server = make_server(reply=lambda body: "Ответ.",
                         plan=lambda n, body: "500" if any(t in body["messages"][-1]["content"] for t in fails)
                         else "ok")
    run = tmp_path / "run"
    done = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage", "--data", str(data),
                   "--out", str(run), "--no-progress", "--no-cache", "--max-retries", "0")
    assert done.returncode == 0, done.stderr
    refused = run_cli("export", "lmeval", str(run), "--out", str(tmp_path / "a"))
    assert refused.returncode == 2 and "sage: 2 row(s) have no answer" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and not (tmp_path / "a").exists()

    allowed = run_cli("export", "lmeval", str(run), "--out", str(tmp_path / "b"), "--allow-incomplete")
    assert allowed.returncode == 0, allowed.stderr
    assert "left out (--allow-incomplete): sage: 2 row(s) have no answer" in allowed.stderr
    lines = read_jsonl(next((tmp_path / "b").glob("samples_sage_*.jsonl")))
    answered = {r["id"] for r in read_jsonl(run / "samples_sage.jsonl") if r["status"] == "ok"}
    assert {line["doc"]["meta"]["id"] for line in lines} == answered and len(answered) == 4
    assert all(line["resps"] == [["Ответ."]] for line in lines)  # never an empty answer for a failed row
    rescored = run_cli("score", "sage", "--data", str(data), "--out", str(tmp_path / "s"),
                       "--predictions", str(next((tmp_path / "b").glob("samples_sage_*.jsonl"))))
    doc = json.loads((tmp_path / "s" / "results.json").read_text(encoding="utf-8"))
    assert rescored.returncode == 0 and (doc["tasks"]["sage"]["n_scored"], doc["tasks"]["sage"]["n_errors"]) == (4, 2)

    zipped = run_cli("submission", "--allow-unofficial", "--run", str(run), "--out", str(tmp_path / "sub.zip"), "--allow-incomplete")
    assert zipped.returncode == 0, zipped.stderr
    with zipfile.ZipFile(tmp_path / "sub.zip") as zf:
        logs = zipfile.ZipFile(io.BytesIO(zf.read("logs_public.zip")))
        sample_file = next(n for n in logs.namelist() if n.startswith("samples_sage"))
        assert len(logs.read(sample_file).decode().splitlines()) == 4
