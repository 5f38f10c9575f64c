"""`--concurrency auto` against servers that serve few requests at a time (not a test).

    python benchmarks/adaptive_concurrency.py [--case N ...] [--rows N] [--runs N]

The project's test server (tests/fakeserver.py) in its own process, with a slot limit (N served at
a time, the rest queued in arrival order, a request its client abandoned still holding its slot
until done) and a per-token latency (answers of 10-50 words). Every figure is `merabench run`
from process start to exit.

1. a 2-slot server (0.05 s + 0.01 s per token): auto against every fixed concurrency of
   1, 2, 3, 4, 8, 32 (the best of them chosen in hindsight); goal: auto <= 1.15x the best, no
   error rows.
2. a wide server: a generated GorillaHard set (1,169 prompts) at 0.2 s per request, auto against
   `--concurrency 32`; goal <= 1.10x.
3. a server whose capacity halves mid-run (8 slots, then 4), `--timeout` of 4 mean requests'
   service time: goal: no time-outs (no error rows, no abandoned request).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing as mp
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from fakeserver import FakeServer  # noqa: E402
from helpers import sage_rows, write_jsonl  # noqa: E402

from merabench.tasks.gorillahard.generator.build.generate import SetPlan, write_set  # noqa: E402


def varied_reply(body: dict[str, Any]) -> dict[str, Any]:
    """10-50 words, the same for the same prompt (a per-token latency then varies per request)."""
    blob = json.dumps(body["messages"], ensure_ascii=False).encode()
    words = 10 + hashlib.sha256(blob).digest()[0] % 41
    return {"content": " ".join(["слово"] * words), "usage": {"prompt_tokens": 20, "completion_tokens": words}}


def serve(options: dict[str, Any], port_queue: mp.Queue, abandoned: Any) -> None:
    server = FakeServer(latency_s=options["latency_s"], token_latency_s=options.get("token_latency_s", 0.0),
                        slots=options.get("slots"), reply=varied_reply).start()
    server.requests = _Discard()
    server.headers = _Discard()
    port_queue.put(server.port)
    halve_at: float | None = None
    while True:
        time.sleep(0.05)
        abandoned.value = server.abandoned
        if options.get("halve_after_s") and server._count and halve_at is None:
            halve_at = time.monotonic() + options["halve_after_s"]  # counted from the first request
        if halve_at is not None and time.monotonic() >= halve_at:
            server.set_slots(max(1, (server.slots or 2) // 2))
            halve_at = float("inf")


class _Discard(list):
    def append(self, item: object) -> None:
        pass


class Server:
    def __init__(self, **options: Any) -> None:
        queue: mp.Queue = mp.Queue()
        self.abandoned = mp.Value("i", 0)
        self.proc = mp.Process(target=serve, args=(options, queue, self.abandoned), daemon=True)
        self.proc.start()
        self.url = f"http://127.0.0.1:{queue.get(timeout=20)}/v1"

    def stop(self) -> None:
        self.proc.terminate()


def run(url: str, task: str, data: Path, concurrency: str, *extra: str) -> tuple[float, int, dict[str, Any]]:
    """(seconds from process start to exit, error rows, results.json `concurrency`)."""
    with tempfile.TemporaryDirectory() as tmp:
        args = ["run", "--model", "openai:m", "--base-url", url, "--tasks", task, "--data", str(data),
                "--out", f"{tmp}/out", "--no-progress", "--no-cache", "--concurrency", concurrency, *extra]
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "merabench.cli.main", *args], capture_output=True, text=True,
                              check=False)
        wall = time.perf_counter() - started
        if done.returncode not in (0, 1):
            raise SystemExit(f"merabench run failed ({done.returncode}): {done.stderr[-800:]}")
        lines = Path(f"{tmp}/out/samples_{task}.jsonl").read_text(encoding="utf-8").splitlines()
        errors = sum(json.loads(line)["status"] != "ok" for line in lines)
        chosen = json.loads(Path(f"{tmp}/out/results.json").read_text(encoding="utf-8")).get("concurrency", {})
        return wall, errors, chosen


def summary(chosen: dict[str, Any]) -> str:
    entry = next(iter(chosen.values()), {})
    if entry.get("mode") != "auto":
        return ""
    return f"limit {entry['min']}-{entry['max']}, {entry['final']} at the end"


def case_two_slots(rows: int, runs: int) -> None:
    server = Server(latency_s=0.05, token_latency_s=0.01, slots=2)
    with tempfile.TemporaryDirectory() as tmp:
        data = write_jsonl(Path(tmp) / "rows.jsonl", sage_rows(rows))
        best: dict[str, tuple[float, int, dict[str, Any]]] = {}
        for _ in range(runs):  # interleaved: the machine's drift hits every setting alike
            for concurrency in ("auto", "1", "2", "3", "4", "8", "32"):
                got = run(server.url, "sage", data, concurrency)
                if concurrency not in best or got[0] < best[concurrency][0]:
                    best[concurrency] = got
    server.stop()
    fixed = min((w, c) for c, (w, _, _) in best.items() if c != "auto")
    auto_wall, auto_errors, chosen = best["auto"]
    print(f"1. 2-slot server, {rows} SAGE rows, 0.05 s + 0.01 s per token (10-50 tokens), best of {runs}")
    for concurrency, (wall, errors, _) in best.items():
        print(f"   --concurrency {concurrency:>4}  {wall:6.2f} s  {errors} error row(s)")
    print(f"   auto / best fixed ({fixed[1]}): {auto_wall / fixed[0]:.3f}x  (goal <= 1.15, no error rows: "
          f"{auto_errors == 0}); {summary(chosen)}")


def case_wide(runs: int) -> None:
    server = Server(latency_s=0.2)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "gorillahard"
        write_set(SetPlan(seed=0), folder)
        rows = sum(1 for _ in (folder / "test.jsonl").open(encoding="utf-8"))
        walls: dict[str, list[float]] = {"auto": [], "32": []}
        chosen: dict[str, Any] = {}
        for _ in range(runs):
            for concurrency in walls:
                wall, _, got = run(server.url, "gorillahard", folder, concurrency)
                walls[concurrency].append(wall)
                chosen = got if concurrency == "auto" else chosen
    server.stop()
    auto, fixed = min(walls["auto"]), min(walls["32"])
    print(f"2. wide server, {rows} GorillaHard prompts at 0.2 s, best of {runs}")
    print(f"   auto {auto:.2f} s (median {sorted(walls['auto'])[runs // 2]:.2f}), --concurrency 32 {fixed:.2f} s "
          f"(median {sorted(walls['32'])[runs // 2]:.2f}): {auto / fixed:.3f}x  (goal <= 1.10); {summary(chosen)}")


def case_halving(rows: int) -> None:
    server = Server(latency_s=0.05, token_latency_s=0.01, slots=8, halve_after_s=4.0)
    with tempfile.TemporaryDirectory() as tmp:
        data = write_jsonl(Path(tmp) / "rows.jsonl", sage_rows(rows))
        wall, errors, chosen = run(server.url, "sage", data, "auto", "--timeout", "1.4", "--max-retries", "0")
    abandoned = server.abandoned.value
    server.stop()
    print(f"3. capacity halving mid-run (8 slots, 4 after 4 s), {rows} SAGE rows, --timeout 1.4 (4x the mean "
          f"service), no retries")
    print(f"   auto {wall:.2f} s: {errors} error row(s), {abandoned} request(s) abandoned  (goal: none); "
          f"{summary(chosen)}")
    print(f"   trace: {next(iter(chosen.values()), {}).get('trace')}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--case", type=int, action="append", choices=(1, 2, 3))
    parser.add_argument("--rows", type=int, default=120, help="rows of cases 1 and 3")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per setting (best shown)")
    args = parser.parse_args()
    cases = set(args.case or (1, 2, 3))
    if 1 in cases:
        case_two_slots(args.rows, args.runs)
    if 2 in cases:
        case_wide(args.runs)
    if 3 in cases:
        case_halving(args.rows * 3)


if __name__ == "__main__":
    main()
