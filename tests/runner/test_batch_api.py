"""`run --batch`: a run through the endpoint's Batch API (tests/batchserver.py) gives what a
direct run gives, outlives the process (detached, or killed at the two moments that cost
something), asks again only what failed or expired, and never counts a row twice."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from batchserver import BatchServer
from fakeserver import FakeServer
from helpers import cli_command, mixed_answers, read_jsonl, run_cli

from merabench.tasks import TASKS

ANSWERS = mixed_answers()
ROWS = 128  # the bundled rows of the three tasks


def reply_to(body: dict) -> str:
    return ANSWERS.get(body["messages"][-1]["content"], "?")


@pytest.fixture
def batch_server() -> Iterator:
    started: list[BatchServer] = []

    def make(**kwargs) -> BatchServer:
        server = BatchServer(**{"reply": reply_to, **kwargs}).start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


@pytest.fixture(scope="module")
def direct(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A direct run of the bundled rows of the three tasks, answered as the batch server answers."""
    out = tmp_path_factory.mktemp("direct") / "run"
    with FakeServer(reply=reply_to) as server:
        done = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--out", str(out), "--no-progress",
                       "--no-cache", "--preset", "mera")
    assert done.returncode == 0, done.stderr
    return out


def batch_args(server: BatchServer, out: Path, *extra: str) -> list[str]:
    return ["run", "--model", "openai:m", "--base-url", server.url, "--out", str(out), "--no-progress",
            "--preset", "mera", "--batch", "--batch-poll", "0.2", *extra]


def batch_run(server: BatchServer, out: Path, *extra: str) -> subprocess.CompletedProcess:
    return run_cli(*batch_args(server, out, *extra))


def results(folder: Path) -> dict:
    return json.loads((folder / "results.json").read_text(encoding="utf-8"))


def samples(folder: Path, task: str) -> list[dict]:
    return read_jsonl(folder / f"samples_{task}.jsonl")


def assert_same_as_direct(folder: Path, direct: Path) -> None:
    """Every task's metrics, and each row's answer and metrics, equal the direct run's; every row
    answered, each once in the samples file."""
    first, second = results(direct), results(folder)
    for task in TASKS:
        assert second["tasks"][task]["metrics"] == first["tasks"][task]["metrics"], task
        by_id = {s["id"]: (s["output"], s.get("metrics")) for s in samples(direct, task)}
        lines = samples(folder, task)
        assert Counter(s["id"] for s in lines) == Counter(list(by_id)), task  # each row once: never counted twice
        assert {s["id"]: (s["output"], s.get("metrics")) for s in lines} == by_id, task
        assert all(s["status"] == "ok" for s in lines), task


def record(folder: Path, part: str = "b001") -> dict:
    return json.loads((folder / "batches" / f"{part}.json").read_text(encoding="utf-8"))


def custom_ids(server: BatchServer, batch_id: str) -> set[str]:
    return {line["custom_id"] for line in server.lines_of(batch_id)}


def test_a_batch_run_equals_a_direct_run_and_sends_the_exported_bodies(tmp_path: Path, batch_server,
                                                                       direct: Path) -> None:
    server = batch_server()
    out = tmp_path / "batched"
    done = batch_run(server, out)
    assert done.returncode == 0, done.stderr
    assert_same_as_direct(out, direct)
    assert len(server.batches) == 1 and len(server.files) == 2 and server.direct == []  # the input, the output
    (batch,) = server.batches.values()
    assert batch["metadata"] == {"merabench_run": "batched", "merabench_model": "m", "merabench_part": "b001"}
    assert server.purposes[batch["input_file_id"]] == "batch"

    exported = tmp_path / "requests.jsonl"
    assert run_cli("export-requests", "--model", "openai:m", "--preset", "mera", "--out", str(exported)).returncode == 0
    assert server.lines_of(batch["id"]) == read_jsonl(exported)  # the same custom ids, options tag and bodies
    assert record(out)["state"] == "settled" and not (out / "batches" / "b001.input.jsonl").exists()
    line = samples(out, "sage")[0]
    assert line["endpoint"] == f"{server.url} (batch {batch['id']})" and line["prompt_tokens"] == 11

    again = batch_run(server, out)  # finished: nothing to submit, nothing asked
    assert again.returncode == 0 and len(server.batches) == 1 and "submitting" not in again.stderr


def test_batches_are_split_at_the_limits_and_the_key_is_sent_never_written(tmp_path: Path, batch_server,
                                                                         direct: Path) -> None:
    import jsonschema

    import merabench

    server = batch_server()
    out = tmp_path / "run"
    key = "sk-batch-test-4f9a8b7c6d5e"
    done = batch_run(server, out, "--batch-max-requests", "50", "--api-key", key)
    assert done.returncode == 0, done.stderr
    assert [len(custom_ids(server, b)) for b in server.batches] == [50, 50, 28]
    assert "in 3 batch(es)" in done.stderr
    assert server.authorization == {f"Bearer {key}"}
    assert_same_as_direct(out, direct)
    written = [p for p in out.rglob("*") if p.is_file()]
    assert written and not [p for p in written if key in p.read_text(encoding="utf-8", errors="replace")]
    assert key not in done.stderr + done.stdout
    schema = json.loads((Path(merabench.__file__).parent / "schemas" / "results.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(results(out))
    assert results(out)["settings"]["batch"] == {"discount": 0.5, "fallback": "batch", "max_requests": 50,
                                                 "max_mb": 200.0}

    by_size = batch_server()  # and at the size limit: each file under it
    small = tmp_path / "small"
    assert batch_run(by_size, small, "--tasks", "sage", "--batch-max-mb", "0.01").returncode == 0
    sizes = [len(by_size.files[b["input_file_id"]]) for b in by_size.batches.values()]
    assert len(sizes) > 1 and max(sizes) <= 10_000


def test_a_batch_answer_is_a_direct_answer_in_the_cache(tmp_path: Path, batch_server) -> None:
    server = batch_server()
    assert batch_run(server, tmp_path / "batched", "--tasks", "sage").returncode == 0
    direct_run = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--out", str(tmp_path / "direct"),
                         "--no-progress", "--preset", "mera", "--tasks", "sage")
    assert direct_run.returncode == 0 and server.direct == []  # the cache answered every row

    other = tmp_path / "cached-first"  # and the other way round: cached rows are not submitted
    assert run_cli("run", "--model", "openai:m", "--base-url", server.url, "--out", str(tmp_path / "d2"),
                   "--no-progress", "--preset", "mera", "--tasks", "russianregions").returncode == 0
    done = batch_run(server, other, "--tasks", "russianregions,gorillahard")
    assert done.returncode == 0, done.stderr
    newest = list(server.batches)[-1]
    assert {cid.split("/")[0] for cid in custom_ids(server, newest)} == {"gorillahard"}


def test_detached_then_the_plain_command_creates_exactly_one_batch(tmp_path: Path, batch_server, direct: Path) -> None:
    server = batch_server(hold=True)
    out = tmp_path / "run"
    detached = batch_run(server, out, "--detach")
    assert detached.returncode == 3, detached.stderr
    said = detached.stderr.strip().splitlines()[-1]
    assert said.startswith("--detach: 1 batch(es) of 128 request(s) run on the server (b001 (batch_")
    assert re.search(r"\(b001 \(batch_\d+\) (validating|in_progress)\), answered by ", said)
    assert "to continue: merabench run " in said and "--detach" not in said.split("to continue:")[1].split("(")[0]
    assert record(out)["state"] == "submitted" and not (out / "results.json").exists()

    again = batch_run(server, out, "--detach")  # still running: nothing submitted twice
    assert again.returncode == 3 and len(server.batches) == 1

    server.release()
    command = shlex.split(said.split("to continue: ")[1].split(" (it waits")[0])
    assert command[0] == "merabench"
    done = run_cli(*command[1:])
    assert done.returncode == 0, done.stderr
    assert len(server.batches) == 1
    assert_same_as_direct(out, direct)


def fifth(n: int, custom_id: str, attempt: int) -> int | None:
    """Every fifth line of a batch fails with a 500, the first time its row is in a batch."""
    return 500 if n % 5 == 0 and attempt == 1 else None


def test_with_every_fifth_line_failing_the_follow_up_asks_exactly_those_rows(tmp_path: Path, batch_server,
                                                                            direct: Path) -> None:
    server = batch_server(fail=fifth)
    out = tmp_path / "run"
    first = batch_run(server, out)
    assert first.returncode == 0, first.stderr
    assert "25 of its 128 request(s) failed" in first.stderr
    (first_id,) = server.batches
    failed = {line["custom_id"] for n, line in enumerate(server.lines_of(first_id), start=1) if n % 5 == 0}
    errors = [s for task in TASKS for s in samples(out, task) if s["status"] == "error"]
    assert len(errors) == 25 and all("status 500: fake 500: the server had an error" in s["error"] for s in errors)

    follow_up = batch_run(server, out)
    assert follow_up.returncode == 0, follow_up.stderr
    assert len(server.batches) == 2
    assert custom_ids(server, list(server.batches)[1]) == failed  # exactly those rows, nothing answered again
    assert_same_as_direct(out, direct)


def test_fallback_direct_asks_the_failed_rows_through_the_endpoint_at_once(tmp_path: Path, batch_server,
                                                                          direct: Path) -> None:
    server = batch_server(fail=fifth)
    out = tmp_path / "run"
    done = batch_run(server, out, "--batch-fallback", "direct")
    assert done.returncode == 0, done.stderr
    assert len(server.batches) == 1 and len(server.direct) == 25
    assert "asked directly now" in done.stderr
    assert_same_as_direct(out, direct)


def killed_when(server: BatchServer, phase: str, args: list[str]) -> subprocess.Popen:
    """merabench started, and killed (SIGKILL) when the server sees its create at `phase`: before
    the batch exists (it is then not made), or after (made, its id never answered)."""
    process = subprocess.Popen(cli_command(*args), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def kill(at: str) -> bool | None:
        if at == phase:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(30)
            return phase != "before"
        return None

    server.on_create = kill
    process.wait(120)
    server.on_create = lambda at: None
    assert process.returncode == -signal.SIGKILL
    return process


def test_killed_between_upload_and_create_the_next_run_creates_from_the_same_file(tmp_path: Path, batch_server,
                                                                                 direct: Path) -> None:
    server = batch_server()
    out = tmp_path / "run"
    killed_when(server, "before", batch_args(server, out))
    assert server.batches == {} and len(server.files) == 1
    assert record(out)["state"] == "creating"

    done = batch_run(server, out)
    assert done.returncode == 0, done.stderr
    assert "the last run ended between uploading file-1 and creating its batch" in done.stderr
    assert len(server.batches) == 1 and next(iter(server.batches.values()))["input_file_id"] == "file-1"
    assert_same_as_direct(out, direct)


def test_killed_between_create_and_writing_the_id_the_batch_is_found_not_made_again(tmp_path: Path, batch_server,
                                                                                    direct: Path) -> None:
    server = batch_server()
    out = tmp_path / "run"
    killed_when(server, "after", batch_args(server, out))
    (orphan,) = server.batches
    assert record(out)["state"] == "creating" and record(out)["batch_id"] is None

    done = batch_run(server, out)
    assert done.returncode == 0, done.stderr
    assert f"after creating batch {orphan} from file-1 and before writing its id: found on the server" in done.stderr
    assert list(server.batches) == [orphan] and record(out)["batch_id"] == orphan
    assert_same_as_direct(out, direct)


def test_a_server_that_lists_no_batches_leaves_a_named_orphan_and_no_row_counted_twice(tmp_path: Path, batch_server,
                                                                                      direct: Path) -> None:
    server = batch_server(listing=False)
    out = tmp_path / "run"
    killed_when(server, "after", batch_args(server, out))
    (orphan,) = server.batches

    done = batch_run(server, out)
    assert done.returncode == 0, done.stderr
    assert len(server.batches) == 2  # the orphan ran too, and is billed: the line says so
    line = next(x for x in done.stderr.splitlines() if "orphan" in x)
    assert "the batch of file-1" in line and "does not list batches" in line and "no row counts twice" in line
    assert record(out)["batch_id"] != orphan
    assert_same_as_direct(out, direct)


def test_a_batch_the_server_no_longer_knows_is_one_line_not_a_resubmission(tmp_path: Path, batch_server,
                                                                          direct: Path) -> None:
    server = batch_server(hold=True)
    out = tmp_path / "run"
    assert batch_run(server, out, "--detach").returncode == 3
    (batch_id,) = server.batches
    server.forget(batch_id)
    lost = batch_run(server, out)
    assert lost.returncode == 2, lost.stderr
    (line,) = [x for x in lost.stderr.splitlines() if x.strip()]
    assert f"b001 ({batch_id})" in line and "HTTP 404" in line and "not sent again behind your back" in line
    assert "delete b001.json and b001.ids" in line
    assert len(server.batches) == 1

    for name in ("b001.json", "b001.ids"):  # as the line says: its rows are then asked again
        (out / "batches" / name).unlink()
    server.hold = False
    done = batch_run(server, out)
    assert done.returncode == 0, done.stderr
    assert len(server.batches) == 2
    assert_same_as_direct(out, direct)


@pytest.mark.parametrize(("kind", "said", "reason"), [
    ("expire_after", "ended expired", "could not be executed before the completion window expired"),
    ("cancel_after", "ended cancelled", "ended cancelled without answering it"),
])
def test_an_expired_or_cancelled_batch_keeps_what_it_answered(tmp_path: Path, batch_server, direct: Path,
                                                              kind: str, said: str, reason: str) -> None:
    server = batch_server(**{kind: 100})
    out = tmp_path / "run"
    first = batch_run(server, out)
    assert first.returncode == 1, first.stderr  # the 28 rows left are gorillahard's 27 and one more: all failed
    assert said in first.stderr and "100 of 128 answered" in first.stderr
    errors = [s for task in TASKS for s in samples(out, task) if s["status"] == "error"]
    assert len(errors) == 28 and all(reason in s["error"] for s in errors)

    setattr(server, kind, None)
    follow_up = batch_run(server, out)
    assert follow_up.returncode == 0, follow_up.stderr
    assert len(custom_ids(server, list(server.batches)[1])) == 28
    assert_same_as_direct(out, direct)


def test_a_failed_batch_is_a_line_and_its_rows_are_asked_again(tmp_path: Path, batch_server, direct: Path) -> None:
    server = batch_server(invalid="the model m is not available for batches")
    out = tmp_path / "run"
    first = batch_run(server, out)
    assert first.returncode == 1  # every row of every task failed
    assert "ended failed (invalid_request: the model m is not available for batches (line 1))" in first.stderr
    server.invalid = None
    assert batch_run(server, out).returncode == 0
    assert_same_as_direct(out, direct)


def test_retry_after_is_respected_while_polling(tmp_path: Path, batch_server) -> None:
    server = batch_server(throttle=2, retry_after="0.5")
    done = batch_run(server, tmp_path / "run", "--tasks", "sage", "--limit", "3")
    assert done.returncode == 0, done.stderr
    assert server.throttled == 2
    first, second, third = server.retrievals[:3]
    assert second - first >= 0.5 and third - second >= 0.5


def test_max_cost_counts_a_batch_before_creating_it(tmp_path: Path, batch_server) -> None:
    server = batch_server()
    out = tmp_path / "run"
    prices = ["--price-in", "1", "--price-out", "1"]  # per million: at the batch price 0.5 each
    # sage's 65 prompts of ~400 bytes, and 256 tokens an answer: at most ~0.0006 a row at half price
    stopped = batch_run(server, out, "--tasks", "sage", *prices, "--max-cost", "0.003")
    assert stopped.returncode == 3, stopped.stderr
    assert "--max-cost 0.003 would be passed" in stopped.stderr and "not submitted" in stopped.stderr
    (batch_id,) = server.batches
    sent = len(custom_ids(server, batch_id))
    assert 0 < sent < 65
    document = results(out)
    assert document["stopped"]["by"] == "--max-cost" and document["stopped"]["unasked"] == 65 - sent
    assert document["cost"] <= 0.003
    # the prices as given; each batch answer carries the share it was bought at
    assert document["settings"]["prices"] == {"input_per_million": 1.0, "output_per_million": 1.0}
    assert document["settings"]["batch"]["discount"] == 0.5
    lines = [json.loads(line) for line in (out / "samples_sage.jsonl").read_text().splitlines()]
    assert {line.get("price_share") for line in lines if line["status"] == "ok"} == {0.5}

    nothing = batch_run(server, tmp_path / "other", "--tasks", "sage", *prices, "--max-cost", "0.00001")
    assert nothing.returncode == 3 and len(server.batches) == 1  # not even one request fits: no batch

    rest = run_cli(*shlex.split(document["stopped"]["continue"])[1:])
    assert rest.returncode == 0, rest.stderr
    assert len(custom_ids(server, list(server.batches)[1])) == 65 - sent


def test_repeats_go_in_the_batch_with_their_own_ids(tmp_path: Path, batch_server) -> None:
    server = batch_server()
    out = tmp_path / "run"
    done = batch_run(server, out, "--tasks", "sage", "--limit", "3", "--repeats", "2", "--seed", "7")
    assert done.returncode == 0, done.stderr
    lines = server.lines_of(next(iter(server.batches)))
    assert sorted(line["body"]["seed"] for line in lines) == [7, 7, 7, 8, 8, 8]
    assert sum(line["custom_id"].endswith("/r1") for line in lines) == 3
    assert Counter(s.get("repeat", 0) for s in samples(out, "sage")) == {0: 3, 1: 3}


def test_batch_mistakes_are_one_line(tmp_path: Path) -> None:
    url = ["--base-url", "http://127.0.0.1:9/v1"]
    for args, said in [
        (["--batch"], "batch requests need openai:<model name>"),
        (["--batch", "--model", "openai:m", *url, *url], "needs the one --base-url"),
        (["--detach", "--batch-poll", "5"], "--batch-poll, --detach go(es) with --batch"),
        (["--batch", "--model", "openai:m", *url, "--batch-discount", "0"], "--batch-discount is the batch price"),
        (["--batch", "--model", "openai:m", *url, "--batch-poll", "nan"], "--batch-poll must be"),
        (["--batch", "--model", "openai:m", *url, "--batch-fallback", "retry"], "--batch-fallback must be"),
    ]:
        done = run_cli("run", "--out", str(tmp_path / "x"), "--no-progress", *args)
        lines = [x for x in done.stderr.splitlines() if x.strip()]
        assert done.returncode == 2 and len(lines) == 1 and said in lines[0], (args, done.stderr)
    assert not (tmp_path / "x").exists()


def test_a_direct_run_into_a_folder_with_running_batches_warns(tmp_path: Path, batch_server) -> None:
    server = batch_server(hold=True)
    out = tmp_path / "run"
    assert batch_run(server, out, "--tasks", "sage", "--limit", "2", "--detach").returncode == 3
    plain = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--out", str(out), "--no-progress",
                    "--preset", "mera", "--tasks", "sage", "--limit", "2")
    assert plain.returncode == 0
    assert "has 1 batch(es) not yet imported (b001 (batch_" in plain.stderr and "paying for them twice" in plain.stderr
    server.release()
    assert batch_run(server, out, "--tasks", "sage", "--limit", "2").returncode == 0
    counted = Counter(s["id"] for s in samples(out, "sage"))
    assert len(counted) == 2 and set(counted.values()) == {1}  # the direct answers kept, the batch's not added


def test_an_unreadable_output_file_is_a_line_and_is_downloaded_again(tmp_path: Path, batch_server,
                                                                     direct: Path) -> None:
    server = batch_server(hold=True)
    out = tmp_path / "run"
    assert batch_run(server, out, "--detach").returncode == 3
    server.release()
    while next(iter(server.batches.values()))["status"] != "completed":
        time.sleep(0.05)
    batch = next(iter(server.batches.values()))
    good = server.files[batch["output_file_id"]]
    server.files[batch["output_file_id"]] = good[:len(good) // 2] + b"\n{not json\n"
    broken = batch_run(server, out)
    assert "its files cannot be read" in broken.stderr and "the next run downloads the files again" in broken.stderr
    assert record(out)["state"] == "submitted"

    server.files[batch["output_file_id"]] = good
    done = batch_run(server, out)
    assert done.returncode == 0, done.stderr
    assert len(server.batches) == 1
    assert_same_as_direct(out, direct)


@pytest.fixture(scope="module")
def native_direct(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict]]:
    """GorillaHard's bundled rows asked directly as tool-calling conversations, and the bodies sent."""
    from toolmodel import ToolModel

    from merabench.rows.row import read_bundled

    out = tmp_path_factory.mktemp("native") / "direct"
    with FakeServer(reply=ToolModel(read_bundled("gorillahard")["test"]).reply) as server:
        done = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--out", str(out), "--no-progress",
                       "--no-cache", "--tasks", "gorillahard", "--tool-mode", "native", "--seed", "3")
        assert done.returncode == 0, done.stderr
        return out, list(server.requests)


def native_batch_server(batch_server) -> BatchServer:
    from toolmodel import ToolModel

    from merabench.rows.row import read_bundled

    return batch_server(reply=ToolModel(read_bundled("gorillahard")["test"]).reply)


def native_args(server: BatchServer, out: Path, *extra: str) -> list[str]:
    return ["run", "--model", "openai:m", "--base-url", server.url, "--out", str(out), "--no-progress", "--tasks",
            "gorillahard", "--tool-mode", "native", "--seed", "3", "--batch", "--batch-poll", "0.2", *extra]


def assert_native_same(out: Path, direct: Path) -> None:
    first, second = results(direct)["tasks"]["gorillahard"], results(out)["tasks"]["gorillahard"]
    assert second["metrics"] == first["metrics"] and second["tool_mode"] == "native"
    keep = ("id", "status", "output", "metrics", "tool_exchange")
    by_id = {s["id"]: {k: s.get(k) for k in keep} for s in samples(direct, "gorillahard")}
    lines = samples(out, "gorillahard")
    assert Counter(s["id"] for s in lines) == Counter(list(by_id))
    assert {s["id"]: {k: s.get(k) for k in keep} for s in lines} == by_id


def sent_bodies(server: BatchServer) -> list[str]:
    return sorted(json.dumps(line["body"], sort_keys=True, ensure_ascii=False)
                  for batch_id in server.batches for line in server.lines_of(batch_id))


def test_native_tool_calls_go_in_waves_and_equal_a_direct_run(tmp_path: Path, batch_server, native_direct) -> None:
    direct, bodies = native_direct
    server = native_batch_server(batch_server)
    out = tmp_path / "run"
    done = run_cli(*native_args(server, out))
    assert done.returncode == 0, done.stderr
    assert_native_same(out, direct)
    sizes = [len(custom_ids(server, b)) for b in server.batches]
    assert sizes[0] == 27 and len(sizes) == 3 and sizes[0] > sizes[1] > sizes[2] > 0  # a wave per step
    assert "the next step of a tool-calling conversation" in done.stderr
    # every request a direct conversation sent, and no other, went into a batch: same bodies, tools and seed
    assert sent_bodies(server) == sorted(json.dumps(b, sort_keys=True, ensure_ascii=False) for b in bodies)
    assert all(line["body"]["tool_choice"] == "auto" for b in server.batches for line in server.lines_of(b))


def test_each_wave_resumes_as_a_batch_does(tmp_path: Path, batch_server, native_direct) -> None:
    direct, _ = native_direct
    server = native_batch_server(batch_server)
    out = tmp_path / "run"
    codes = []
    while not codes or codes[-1] == 3:  # a cron job: the detached command until the run is scored
        codes.append(run_cli(*native_args(server, out, "--detach")).returncode)
        assert len(codes) < 40
        time.sleep(0.1)
    assert codes[-1] == 0 and len(server.batches) == 3
    assert_native_same(out, direct)


def test_a_failed_step_fails_its_row_and_the_follow_up_asks_it_from_the_start(tmp_path: Path, batch_server,
                                                                             native_direct) -> None:
    direct, _ = native_direct
    server = native_batch_server(batch_server)
    server.fail = lambda n, custom_id, attempt: 500 if n == 1 and attempt == 1 and len(server.batches) == 2 else None
    out = tmp_path / "run"
    first = run_cli(*native_args(server, out))
    assert first.returncode == 0, first.stderr
    errors = [s for s in samples(out, "gorillahard") if s["status"] == "error"]
    assert len(errors) == 1 and errors[0]["error"].startswith("step 2 of the conversation: the batch request failed")
    follow_up = run_cli(*native_args(server, out))
    assert follow_up.returncode == 0, follow_up.stderr
    assert_native_same(out, direct)


def test_each_answer_is_priced_as_it_was_bought(tmp_path: Path, batch_server) -> None:
    """The outside user's case: the cost followed the last command's --batch, not how each answer
    was bought (a batch run's folder rerun without --batch doubled its cost; rows asked directly
    by --batch-fallback direct were priced at half). Now a batch answer costs the discount of the
    prices given, a direct one all of it, whatever the command that scores them."""
    server = batch_server()
    out = tmp_path / "run"
    prices = ["--tasks", "sage", "--limit", "6", "--price-in", "1000", "--price-out", "1000"]
    assert batch_run(server, out, *prices).returncode == 0
    batch_cost = results(out)["tasks"]["sage"]["tokens"]["cost"]

    def plain(folder: Path, *extra: str) -> subprocess.CompletedProcess:
        args = [a for a in batch_args(server, folder, *prices, *extra) if a not in ("--batch", "--batch-poll", "0.2")]
        return run_cli(*args)

    assert plain(out).returncode == 0  # rescored without --batch: nothing asked, the same answers
    assert results(out)["tasks"]["sage"]["tokens"]["cost"] == batch_cost
    direct = tmp_path / "direct"
    assert plain(direct, "--no-cache").returncode == 0
    assert abs(results(direct)["tasks"]["sage"]["tokens"]["cost"] - 2 * batch_cost) < 1e-9
