"""--serve-cmd lifecycles with the project's own test server standing in for vLLM/SGLang: ready,
dies at start, never ready, Ctrl-C and SIGTERM mid-run, replicas; never a process left behind."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

from engines import alive, engine, engine_pids, gone
from helpers import cli_command, read_jsonl, run_cli, sage_rows, write_jsonl


def test_a_served_run_starts_uses_and_stops_the_server(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(6))
    args = ["run", "--model", "my-checkpoint", "--serve-cmd", engine(tmp_path), "--tasks", "sage", "--data", str(data),
            "--no-progress"]
    done = run_cli(*args, "--out", str(tmp_path / "run"))
    assert done.returncode == 0, done.stdout + done.stderr
    pids = engine_pids(tmp_path)
    assert len(pids) == 1 and gone(pids)
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    assert results["model"] == "openai:my-checkpoint"
    assert results["settings"]["serve"]["model"] == "my-checkpoint"
    assert results["settings"]["endpoints"][0].startswith("http://127.0.0.1:")
    assert "listening" in (tmp_path / "run" / "serve-0.log").read_text(encoding="utf-8")
    assert all(s["status"] == "ok" for s in read_jsonl(tmp_path / "run" / "samples_sage.jsonl"))

    # another folder, another port: the cache knows the model by what it serves
    done = run_cli(*args, "--out", str(tmp_path / "again"))
    assert done.returncode == 0
    assert all(s["cached"] for s in read_jsonl(tmp_path / "again" / "samples_sage.jsonl"))
    assert gone(engine_pids(tmp_path))


def test_a_server_that_dies_at_start_is_one_line_with_its_log(tmp_path: Path) -> None:
    started = time.monotonic()
    done = run_cli("run", "--model", "m", "--serve-cmd", engine(tmp_path, "--die-at-start"), "--tasks", "sage",
                   "--out", str(tmp_path / "run"), "--no-progress")
    message = (done.stdout + done.stderr).strip().splitlines()
    assert done.returncode == 2, message
    assert "exited with code 3 before it was ready" in message[-1] and "CUDA out of memory" in message[-1]
    assert time.monotonic() - started < 30
    assert gone(engine_pids(tmp_path))


def test_a_server_that_never_becomes_ready_is_stopped(tmp_path: Path) -> None:
    done = run_cli("run", "--model", "m", "--serve-cmd", engine(tmp_path, "--never-ready"), "--serve-timeout", "5",
                   "--tasks", "sage", "--out", str(tmp_path / "run"), "--no-progress")
    message = (done.stdout + done.stderr).strip()
    assert done.returncode == 2, message
    assert "did not answer" in message and "within 5 s" in message and "listening" in message
    pids = engine_pids(tmp_path)
    assert pids and gone(pids)


def interrupted_run(tmp_path: Path, sig: int) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(60))
    run = tmp_path / "run"
    process = subprocess.Popen(cli_command("run", "--model", "m", "--serve-cmd", engine(tmp_path, "--latency", "0.3"),
                                           "--tasks", "sage", "--data", str(data), "--out", str(run),
                                           "--concurrency", "2", "--no-progress"),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    samples = run / "samples_sage.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (samples.exists() and samples.read_text(encoding="utf-8").strip()):
        time.sleep(0.1)
    pids = engine_pids(tmp_path)
    assert pids and alive(pids[0])
    process.send_signal(sig)
    process.communicate(timeout=60)
    assert process.returncode == 130
    assert gone(pids)
    answered = [s for s in read_jsonl(samples) if s["status"] == "ok"]
    assert 0 < len(answered) < 60


def test_ctrl_c_mid_run_leaves_no_server_behind(tmp_path: Path) -> None:
    interrupted_run(tmp_path, signal.SIGINT)


def test_sigterm_mid_run_leaves_no_server_behind(tmp_path: Path) -> None:
    interrupted_run(tmp_path, signal.SIGTERM)


def test_replicas_each_get_a_server_and_a_gpu_set(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(8))
    done = run_cli("run", "--model", "m", "--serve-cmd", engine(tmp_path), "--serve-replicas", "2",
                   "--serve-gpus", "0,1;2,3", "--tasks", "sage", "--data", str(data), "--out", str(tmp_path / "run"),
                   "--no-progress", "--no-cache")
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    assert len(results["settings"]["endpoints"]) == 2
    endpoints = {s["endpoint"] for s in read_jsonl(tmp_path / "run" / "samples_sage.jsonl")}
    assert len(endpoints) == 2  # the least-busy pool used both
    pids = engine_pids(tmp_path)
    assert len(pids) == 2 and gone(pids)


def test_serve_mistakes_are_one_line(tmp_path: Path) -> None:
    cases = [
        (["--serve", "tgi"], "unknown --serve 'tgi'"),
        (["--serve", "vllm", "--serve-cmd", "x {port}"], "not both"),
        (["--serve-cmd", "python server.py"], "must contain {port}"),
        (["--serve-cmd", "x {port}", "--serve-replicas", "2", "--serve-gpus", "0"], "1 GPU set(s) for 2"),
        (["--serve-cmd", "x {port}", "--base-url", "http://127.0.0.1:1/v1"], "leave out --base-url"),
        (["--serve-cmd", "/no/such/engine {port}"], "could not start the server"),
    ]
    for extra, fragment in cases:
        done = run_cli("run", "--model", "m", "--tasks", "sage", "--out", str(tmp_path / "o"), "--no-progress", *extra)
        message = (done.stdout + done.stderr).strip()
        assert done.returncode == 2, (extra, message)
        assert fragment in message and len(message.splitlines()) == 1, (extra, message)


def test_engine_commands_and_identity() -> None:
    from merabench.models.serving import ServeSpec

    vllm = ServeSpec("vllm", "Qwen/Qwen3-8B", args=("--tensor-parallel-size", "2", "--data-parallel-size", "4"))
    assert vllm.argv(8011) == ["vllm", "serve", "Qwen/Qwen3-8B", "--host", "127.0.0.1", "--port", "8011",
                               "--tensor-parallel-size", "2", "--data-parallel-size", "4"]
    sglang = ServeSpec("sglang", "/ckpt/step-900", args=("--dp", "2"))
    assert sglang.argv(9000)[:4] == ["python", "-m", "sglang.launch_server", "--model-path"]
    assert sglang.argv(9000)[-2:] == ["--dp", "2"]
    # the cache knows a served model by what it serves, not by its port
    assert vllm.identity() == ServeSpec("vllm", "Qwen/Qwen3-8B", args=vllm.args, replicas=3).identity()
    assert vllm.identity() != ServeSpec("vllm", "Qwen/Qwen3-8B").identity()
    assert ServeSpec("vllm", "m", replicas=2).environment(1)["CUDA_VISIBLE_DEVICES"] == "1"
