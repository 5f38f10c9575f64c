"""`--concurrency auto` against a real llama.cpp server with a real small model (not a test, not in CI).

    python benchmarks/llamacpp_concurrency.py --server-bin /tmp/llama.cpp/build/bin/llama-server \
        --model /path/to/SmolLM2-135M-Instruct.Q4_1.gguf [--parallel 2] [--ctx 16384] \
        [--settings auto,1,2,4,32] [--runs 2] [--timeout 30] [--tasks russianregions,sage] [--limit 12]

Starts `llama-server` on 127.0.0.1 (a free port, `--parallel` slots, `-c` tokens shared by them),
prints what it says of itself (`/props` total_slots and per-slot context, `/v1/models`), then
runs `merabench run --preset mera --no-cache` once per setting per round, the settings
interleaved in every round so that the machine's drift hits them alike. For each run: wall time
from process start to exit, error rows, requests sent (the rows' `attempts` summed), what auto
chose (results.json `concurrency`), and whether every answer equals the first run's. How to build
the server: benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class RunFigures:
    setting: str
    wall_s: float
    errors: int
    requests: int
    answers: dict[tuple[str, int], str]
    chosen: dict[str, Any]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as resp:  # noqa: S310 (our own 127.0.0.1 server)
        return json.loads(resp.read())


def start_server(args: argparse.Namespace, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    command = [args.server_bin, "-m", args.model, "--host", "127.0.0.1", "--port", str(port),
               "--parallel", str(args.parallel), "-c", str(args.ctx), *args.server_arg]
    print("server:", " ".join(command))
    proc = subprocess.Popen(command, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    root = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"llama-server exited ({proc.returncode}): {log.read_text(errors='replace')[-1500:]}")
        try:
            get_json(f"{root}/v1/models")
            return proc, root
        except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
            time.sleep(0.5)
    proc.terminate()
    raise SystemExit("llama-server was not ready in 180 s")


def describe_server(root: str) -> None:
    props = get_json(f"{root}/props")
    settings = props.get("default_generation_settings", {})
    models = get_json(f"{root}/v1/models")
    print(f"/props: total_slots {props.get('total_slots')}, n_ctx per slot {settings.get('n_ctx')}, "
          f"build {props.get('build_info', '?')}")
    print(f"/v1/models: {[m.get('id') for m in models.get('data', [])]}")


def run_once(args: argparse.Namespace, url: str, setting: str) -> RunFigures:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        command = [sys.executable, "-m", "merabench.cli.main", "run", "--model", "openai:smollm2", "--base-url", url,
                   "--preset", "mera", "--tasks", args.tasks, "--limit", str(args.limit), "--no-cache",
                   "--no-progress", "--timeout", str(args.timeout), "--concurrency", setting, "--out", str(out)]
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        if done.returncode not in (0, 1):
            raise SystemExit(f"merabench run failed ({done.returncode}): {done.stderr[-1500:]}")
        answers: dict[tuple[str, int], str] = {}
        errors = requests = 0
        for task in args.tasks.split(","):
            for line in (out / f"samples_{task}.jsonl").read_text(encoding="utf-8").splitlines():
                record = json.loads(line)
                errors += record["status"] != "ok"
                requests += int(record.get("attempts") or 0)
                if record["status"] == "ok":
                    answers[(task, record["id"])] = record["output"]
        chosen = json.loads((out / "results.json").read_text(encoding="utf-8")).get("concurrency", {})
        return RunFigures(setting, wall, errors, requests, answers, chosen)


def chosen_summary(chosen: dict[str, Any]) -> str:
    entry = next(iter(chosen.values()), {})
    if entry.get("mode") != "auto":
        return f"fixed {entry.get('limit')}, server_slots {entry.get('server_slots')}"
    trace = " ".join(f"{t:.0f}s:{n}" for t, n in entry.get("trace", []))
    return (f"auto, server_slots {entry.get('server_slots')}, limit {entry.get('min')}-{entry.get('max')}, "
            f"final {entry.get('final')}; trace {trace}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server-bin", required=True, help="the llama-server binary")
    parser.add_argument("--model", required=True, help="the GGUF file")
    parser.add_argument("--parallel", type=int, default=2, help="llama-server --parallel (slots)")
    parser.add_argument("--ctx", type=int, default=16384, help="llama-server -c (tokens, shared by the slots)")
    parser.add_argument("--server-arg", action="append", default=[], help="one more llama-server argument")
    parser.add_argument("--settings", default="auto,1,2,4,32", help="--concurrency values, comma-separated")
    parser.add_argument("--runs", type=int, default=2, help="rounds (every setting once per round)")
    parser.add_argument("--timeout", type=float, default=30.0, help="merabench --timeout")
    parser.add_argument("--tasks", default="russianregions,sage")
    parser.add_argument("--limit", type=int, default=12)
    args = parser.parse_args()
    if not Path(args.server_bin).is_file() or not Path(args.model).is_file():
        raise SystemExit("--server-bin and --model must name existing files")

    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "llama-server.log"
        proc, root = start_server(args, log)
        try:
            describe_server(root)
            figures: list[RunFigures] = []
            for round_no in range(args.runs):
                for setting in args.settings.split(","):
                    got = run_once(args, f"{root}/v1", setting)
                    figures.append(got)
                    print(f"round {round_no + 1}  --concurrency {setting:>4}  {got.wall_s:7.2f} s  "
                          f"{got.errors} error row(s)  {got.requests} request(s)  {chosen_summary(got.chosen)}",
                          flush=True)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    reference = next((f for f in figures if f.errors == 0), figures[0])
    print(f"\nanswers against the first error-free run (--concurrency {reference.setting}):")
    for got in figures:
        shared = reference.answers.keys() & got.answers.keys()
        differing = sum(reference.answers[key] != got.answers[key] for key in shared)
        print(f"  --concurrency {got.setting:>4}: {len(shared)} rows compared, {differing} differ")
    print("\nwall time per setting (min-max over rounds):")
    for setting in args.settings.split(","):
        walls = [f.wall_s for f in figures if f.setting == setting]
        errors = [f.errors for f in figures if f.setting == setting]
        print(f"  --concurrency {setting:>4}: {min(walls):.1f}-{max(walls):.1f} s, error rows {errors}")


if __name__ == "__main__":
    main()
