"""`merabench run` end to end as a user runs it: a subprocess against a real local server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import cli_command, correction_of, read_jsonl, run_cli, sage_rows, write_jsonl

from merabench.rows.prompts import messages_hash


def server_keys(server) -> list[str]:
    return [messages_hash(body["messages"]) for body in server.requests]


def openai_args(server, data: Path, out: Path, *extra: str) -> list[str]:
    return ["run", "--model", "openai:fake", "--base-url", server.url, "--tasks", "sage", "--data", str(data),
            "--out", str(out), "--no-progress", "--retry-delay", "0.01", *extra]


def comparable(records: list[dict]) -> list[tuple]:
    return [(r["id"], r["status"], r["output"], r["messages_hash"], r.get("metrics")) for r in records]


def test_default_run_needs_no_model_and_reaches_1_with_reference(tmp_path: Path) -> None:
    result = run_cli("run", "--out", str(tmp_path / "run"), "--no-progress")
    assert result.returncode == 0, result.stderr
    doc = json.loads((tmp_path / "run" / "results.json").read_text())
    assert set(doc["tasks"]) == {"sage", "russianregions", "gorillahard"}
    headline = {"sage": ["errant_f1", "spell_f1", "punct_f1"], "gorillahard": ["sample_pass_rate", "balance_score"],
                "russianregions": ["exact_match", "group_exact_match", "letter_accuracy"]}
    for name, task in doc["tasks"].items():
        assert task["n_errors"] == 0 and task["n_scored"] == task["n"] > 0, name
        assert all(task["metrics"][m] == 1.0 for m in headline[name]), name
    # the dialogue turn of the bundled GorillaHard set was sent with its history
    gh = read_jsonl(tmp_path / "run" / "samples_gorillahard.jsonl")
    assert all(r["status"] == "ok" for r in gh)


def test_copy_baseline_scores_below_reference(tmp_path: Path) -> None:
    result = run_cli("run", "--model", "copy", "--tasks", "russianregions,gorillahard", "--out", str(tmp_path / "c"),
                     "--no-progress")
    assert result.returncode == 0, result.stderr
    doc = json.loads((tmp_path / "c" / "results.json").read_text())
    assert doc["tasks"]["russianregions"]["metrics"]["exact_match"] == 0.0
    assert doc["tasks"]["gorillahard"]["metrics"]["sample_pass_rate"] == 0.0


def test_kill_9_and_resume_asks_nothing_twice_and_ends_like_an_uninterrupted_run(tmp_path: Path, make_server) -> None:
    rows = sage_rows(60)
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    server = make_server(latency_s=0.05)
    out = tmp_path / "run"
    proc = subprocess.Popen(cli_command(*openai_args(server, data, out, "--concurrency", "4")),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    samples = out / "samples_sage.jsonl"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if samples.exists() and len(samples.read_text().splitlines()) >= 12:
            break
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    on_disk = {r["messages_hash"] for r in read_jsonl(samples) if r.get("status") == "ok"}
    assert 12 <= len(on_disk) < 60, "the kill must land mid-run"
    before = len(server.requests)

    resumed = run_cli(*openai_args(server, data, out, "--concurrency", "4"))
    assert resumed.returncode == 0, resumed.stderr
    asked_again = set(server_keys(server)[before:])
    assert not asked_again & on_disk, "answers already on disk were requested again"
    # only requests in flight at the kill can be repeated
    assert len(server.requests) <= 60 + 4
    final = read_jsonl(samples)
    assert [r["id"] for r in final] == list(range(60)) and all(r["status"] == "ok" for r in final)

    fresh_server = make_server()
    fresh = run_cli(*openai_args(fresh_server, data, tmp_path / "fresh", "--no-cache"))
    assert fresh.returncode == 0, fresh.stderr
    assert comparable(final) == comparable(read_jsonl(tmp_path / "fresh" / "samples_sage.jsonl"))


def test_answers_received_but_not_written_come_from_the_cache(tmp_path: Path, make_server) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(10))
    server = make_server()
    out = tmp_path / "run"
    assert run_cli(*openai_args(server, data, out)).returncode == 0
    assert len(server.requests) == 10
    (out / "samples_sage.jsonl").unlink()  # as if the process died before writing them
    again = run_cli(*openai_args(server, data, out))
    assert again.returncode == 0, again.stderr
    assert len(server.requests) == 10
    final = read_jsonl(out / "samples_sage.jsonl")
    assert all(r["cached"] for r in final) and len(final) == 10


def test_failed_rows_are_recorded_not_scored_and_retried_on_rerun(tmp_path: Path, make_server) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(8))
    poisoned = "(3)"
    server = make_server(plan=lambda n, body: "500" if poisoned in body["messages"][-1]["content"] else "ok")
    out = tmp_path / "run"
    result = run_cli(*openai_args(server, data, out, "--max-retries", "2"))
    assert result.returncode == 0, result.stderr
    records = {r["id"]: r for r in read_jsonl(out / "samples_sage.jsonl")}
    bad = records[3]
    assert bad["status"] == "error" and "HTTP 500" in bad["error"] and "metrics" not in bad
    assert bad["output"] is None
    assert "after 3 attempts" in bad["error"] and bad["attempts"] == 3  # the line says what its message says
    doc = json.loads((out / "results.json").read_text())["tasks"]["sage"]
    assert doc["n_errors"] == 1 and doc["n_scored"] == 7
    assert doc["denominators"]["errant_f1"] == 7

    strict = run_cli(*openai_args(server, data, out, "--max-retries", "0", "--fail-on-error", "0.05"))
    assert strict.returncode == 1 and "--fail-on-error exceeded" in strict.stderr
    asked = server_keys(server)
    assert len(asked) == 10 + 1, "only the failed row is asked again"
    assert asked[-1] == records[3]["messages_hash"]

    server.plan = lambda n, body: "ok"
    healed = run_cli(*openai_args(server, data, out))
    assert healed.returncode == 0
    assert all(r["status"] == "ok" for r in read_jsonl(out / "samples_sage.jsonl"))


def test_api_key_never_reaches_a_file(tmp_path: Path, make_server) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(4))
    server = make_server(plan=lambda n, body: "400" if n == 1 else "ok")
    out = tmp_path / "run"
    secret = "sk-test-4f9a8b7c6d5e"
    result = run_cli(*openai_args(server, data, out, "--cache-path", str(tmp_path / "c.sqlite")),
                     env={"OPENAI_API_KEY": secret})
    assert result.returncode == 0, result.stderr
    assert server.headers[-1]["Authorization"] == f"Bearer {secret}"
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path
    assert secret not in result.stdout + result.stderr


def test_rerun_with_another_model_into_the_same_folder_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert run_cli("run", "--tasks", "sage", "--out", str(out), "--no-progress").returncode == 0
    other = run_cli("run", "--model", "copy", "--tasks", "sage", "--out", str(out), "--no-progress")
    assert other.returncode == 2 and "holds a run with other settings" in other.stderr


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A folder with a short path: messages shorten very long paths, and a parallel worker's
    tmp_path is longer than a test alone gets."""
    with tempfile.TemporaryDirectory(prefix="mb-", dir="/tmp") as name:
        yield Path(name)


def test_rerun_with_other_data_into_the_same_folder_is_refused(short_tmp: Path) -> None:
    tmp_path = short_tmp
    first, second = write_jsonl(tmp_path / "a.jsonl", sage_rows(4)), write_jsonl(tmp_path / "b.jsonl", sage_rows(5))
    out = tmp_path / "run"
    assert run_cli("run", "--tasks", "sage", "--data", str(first), "--out", str(out), "--no-progress").returncode == 0
    assert json.loads((out / "run.json").read_text())["data"] == {"sage": {"spec": str(first)}}
    other = run_cli("run", "--tasks", "sage", "--data", str(second), "--out", str(out), "--no-progress")
    assert other.returncode == 2 and len(other.stderr.strip().splitlines()) == 1, other.stderr
    assert f'{out} holds a run with other settings (--data of sage "{first}" in the folder, "{second}" now)' in other.stderr
    # the same file, spelt relatively or for one task, is the same data; a task added keeps the first's
    same = run_cli("run", "--tasks", "sage,russianregions", "--data", "sage=a.jsonl", "--out", str(out),
                   "--no-progress", cwd=tmp_path)
    assert same.returncode == 0, same.stderr
    assert json.loads((out / "run.json").read_text())["data"] == {"sage": {"spec": str(first)},
                                                                 "russianregions": {"spec": "bundled"}}
    alone = run_cli("run", "--tasks", "russianregions", "--out", str(out), "--no-progress")
    assert alone.returncode == 0, alone.stderr
    assert set(json.loads((out / "run.json").read_text())["data"]) == {"sage", "russianregions"}


def test_a_rerun_with_another_split_is_refused_and_a_larger_limit_extends_the_run(tmp_path: Path) -> None:
    """--split picks other rows under the same ids: refused, naming the flag. --limit takes the
    first N of the same rows: a larger one into the folder is a resume that asks only the new rows."""
    rows = sage_rows(6)
    data = tmp_path / "sage.json"
    data.write_text(json.dumps({"data": {"test": rows[:4], "shots": rows[4:]}}, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "run"
    args = ("run", "--tasks", "sage", "--data", str(data), "--out", str(out), "--no-progress")
    assert run_cli(*args, "--limit", "2").returncode == 0
    other = run_cli(*args, "--split", "shots")
    assert other.returncode == 2, other.stderr
    assert f'{out} holds a run with other settings (--split "test" in the folder, "shots" now)' in other.stderr
    extended = run_cli(*args, "--limit", "4")
    assert extended.returncode == 0, extended.stderr
    samples = read_jsonl(out / "samples_sage.jsonl")
    assert [s["id"] for s in samples] == [0, 1, 2, 3]  # the first two kept, two more asked


def test_the_hub_commit_of_the_rows_is_part_of_the_folders_identity(tmp_path: Path) -> None:
    """Rows read from the hub at another commit are other data: refused, naming --data; a run that
    could not learn the commit (offline) is compared on its spec alone, and the commit stays."""
    from merabench.errors import ConfigError
    from merabench.runner.rundir import check_identity
    from merabench.tasks import get_task
    from merabench.tasks.datasource import data_identity

    task = get_task("russianregions")

    def identity(revision: str | None) -> dict:
        return {"model": "openai:m", "split": "test", "data": data_identity([task], ["hub"], {task.name: revision})}

    check_identity(tmp_path, identity("aaa111"))
    assert json.loads((tmp_path / "run.json").read_text())["data"] == {task.name: {"spec": "hub", "revision": "aaa111"}}
    with pytest.raises(ConfigError) as refused:
        check_identity(tmp_path, identity("bbb222"))
    assert ('(--data of russianregions "hub" (revision aaa111) in the folder, "hub" (revision bbb222) now '
            "(the hub dataset changed since))") in str(refused.value)
    check_identity(tmp_path, identity(None))  # offline: the commit is not known
    assert json.loads((tmp_path / "run.json").read_text())["data"][task.name]["revision"] == "aaa111"


@pytest.fixture(scope="module")
def _generated_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("generated-home") / "cache.sqlite"


@pytest.fixture
def generated_home(_generated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder the tests of `--data generated` share: the reference answers (a baseline uses
    no response cache), so what they share is the generated set of seed 0, made by the first."""
    monkeypatch.setenv("MERABENCH_CACHE", str(_generated_home))
    return _generated_home


def test_results_json_records_the_data_in_the_spelling_run_json_gives_it(tmp_path: Path, generated_home: Path) -> None:
    """A relative path absolute, `generated` as `generated:0`, `TASK=` kept: in results.json as in
    run.json (results.json kept what was typed), so `export lmeval` run from another working
    directory loads the same file again (it wrote an empty doc, target and prompt)."""
    from merabench.tasks.gorillahard.generator.build.generate import GENERATOR

    data = write_jsonl(tmp_path / "a.jsonl", sage_rows(4))
    out = tmp_path / "run"
    done = run_cli("run", "--tasks", "sage,gorillahard", "--limit", "3", "--data", "sage=a.jsonl", "--data",
                   "generated", "--out", str(out), "--no-progress", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads((out / "results.json").read_text())["settings"]["data"] == [f"sage={data}", "generated:0"]
    assert json.loads((out / "run.json").read_text())["data"] == {
        "sage": {"spec": str(data)}, "gorillahard": {"spec": "generated:0", "generator": GENERATOR}}
    exported = run_cli("export", "lmeval", str(out), "--out", str(tmp_path / "lm"))  # from the tests' directory
    assert exported.returncode == 0, exported.stderr
    logged = read_jsonl(next((tmp_path / "lm").glob("samples_sage_*.jsonl")))
    assert [line["target"] for line in logged] == [row["outputs"] for row in sage_rows(3)]


def test_generated_data_is_recorded_with_its_generator_and_an_older_run_file_resumes(tmp_path: Path,
                                                                                      generated_home: Path) -> None:
    from merabench.tasks.gorillahard.generator.build.generate import GENERATOR

    out = tmp_path / "run"
    args = ("run", "--tasks", "gorillahard", "--limit", "3", "--out", str(out), "--no-progress")
    assert run_cli(*args, "--data", "generated").returncode == 0
    run_file = out / "run.json"
    recorded = json.loads(run_file.read_text())
    assert recorded["data"] == {"gorillahard": {"spec": "generated:0", "generator": GENERATOR}}
    assert run_cli(*args, "--data", "generated:0").returncode == 0  # one set, two spellings
    other_seed = run_cli(*args, "--data", "generated:1")
    assert other_seed.returncode == 2, other_seed.stderr
    assert f'(--data of gorillahard "generated:0" ({GENERATOR}) in the folder, "generated:1" ({GENERATOR}) now)' \
        in other_seed.stderr

    older_generator = dict(recorded, data={"gorillahard": {"spec": "generated:0", "generator": "merabench.gorillahard/v1"}})
    run_file.write_text(json.dumps(older_generator), encoding="utf-8")
    refused = run_cli(*args, "--data", "generated")
    assert refused.returncode == 2, refused.stderr
    assert f'"generated:0" (merabench.gorillahard/v1) in the folder, "generated:0" ({GENERATOR}) now' in refused.stderr

    before_data = {k: v for k, v in recorded.items() if k != "data"}  # what run.json held before it named data
    run_file.write_text(json.dumps(before_data), encoding="utf-8")
    resumed = run_cli(*args, "--data", "generated")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(run_file.read_text()) == recorded


def test_think_blocks_are_scored_as_text_by_default_and_stripped_on_request(tmp_path: Path, make_server) -> None:
    """SAGE scores the harness's text (think blocks kept); --strip-think removes them, the raw answer stays."""
    rows = sage_rows(2)
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    server = make_server(reply=lambda body: "<think>хм, запятая?</think>\n" + correction_of(body["messages"][-1]["content"]))
    kept, stripped = tmp_path / "kept", tmp_path / "stripped"
    assert run_cli(*openai_args(server, data, kept)).returncode == 0
    assert run_cli(*openai_args(server, data, stripped, "--strip-think")).returncode == 0
    as_text = read_jsonl(kept / "samples_sage.jsonl")[0]
    assert as_text["output"].startswith("<think>") and as_text["metrics"]["errant_f1"] < 1.0
    record = read_jsonl(stripped / "samples_sage.jsonl")[0]
    assert record["output"].startswith("<think>") and record["answer"] == "Привет, как дела? (0)"
    assert record["metrics"]["errant_f1"] == 1.0


def test_ctrl_c_exits_130_keeps_answers_and_the_rerun_finishes(tmp_path: Path, make_server) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(40))
    server = make_server(latency_s=0.05)
    out = tmp_path / "run"
    proc = subprocess.Popen(cli_command(*openai_args(server, data, out, "--concurrency", "2")),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    samples = out / "samples_sage.jsonl"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (samples.exists() and len(samples.read_text().splitlines()) >= 6):
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "rerun the same command to resume" in stderr and "Traceback" not in stderr
    kept = {r["messages_hash"] for r in read_jsonl(samples) if r["status"] == "ok"}
    assert len(kept) >= 6
    before = len(server.requests)
    assert run_cli(*openai_args(server, data, out)).returncode == 0
    assert not set(server_keys(server)[before:]) & kept
    assert len(read_jsonl(samples)) == 40
