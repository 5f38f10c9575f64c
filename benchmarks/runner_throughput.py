"""Runner throughput, latency overhead and memory against a local fake server (not a test).

    python benchmarks/runner_throughput.py [--quick] [--case N ...] [--runs N]

1. zero-latency server, 5,000 requests: merabench's requests/s vs a bare aiohttp loop with the
   same concurrency in this process (the ceiling here); goal ratio >= 0.7.
2. server adding 200 ms per request, 2,000 requests at concurrency 100: wall time vs the ideal
   4 s; goal <= 1.15x.
3. peak RSS of a `merabench run` subprocess over 10,000 rows of the three tasks: a generated
   GorillaHard set (1,169 rows), the rest SAGE and RussianRegions (bundled rows repeated under new
   ids, each made distinct), with torch importable and with torch hidden; goal < 150 MB.
4. GorillaHard at scale: a generated default set (1,169 rows, prompts of ~19k characters) against
   a server adding 200 ms, concurrency 32, `merabench run` timed from process start to exit
   against the ideal (rows / concurrency x 0.2 s; goal <= 1.10) and against a bare aiohttp loop
   posting the same bodies; and the time from process start to the server's first request
   (goal < 0.5 s).
The server runs in its own process, so client and server do not share one interpreter lock.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import json
import multiprocessing as mp
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from bare_client import post_all  # noqa: E402
from fakeserver import FakeServer  # noqa: E402
from measure import run_merabench  # noqa: E402

from merabench.models.openai_compat import OpenAICompatBackend  # noqa: E402
from merabench.rows.prompts import HistoryIndex  # noqa: E402
from merabench.rows.row import Row, TaskData  # noqa: E402
from merabench.runner.cache import ResponseCache  # noqa: E402
from merabench.runner.loop import BackendSource, Runner  # noqa: E402
from merabench.runner.work import TaskRun  # noqa: E402
from merabench.tasks import TASKS  # noqa: E402
from merabench.tasks.datasource import load_task_data  # noqa: E402
from merabench.tasks.gorillahard.generator.build.generate import SetPlan, write_set  # noqa: E402


def serve(latency_s: float, port_queue: mp.Queue, first_request: Any) -> None:
    def plan(n: int, body: dict[str, Any]) -> str:  # called on arrival, before the latency
        if not first_request.value:  # wall-clock time, comparable across processes
            first_request.value = time.time()
        return "ok"

    server = FakeServer(latency_s=latency_s, plan=plan, reply=lambda body: "ok").start()
    server.requests = _Discard()  # a long benchmark must not grow the log
    server.headers = _Discard()
    port_queue.put(server.port)
    while True:
        time.sleep(3600)


class _Discard(list):
    def append(self, item: object) -> None:
        pass


class Server:
    """The fake server in its own process; `first_request` is when it was first asked (0 = never)."""

    def __init__(self, latency_s: float) -> None:
        queue: mp.Queue = mp.Queue()
        self.first_request = mp.Value("d", 0.0)
        self.proc = mp.Process(target=serve, args=(latency_s, queue, self.first_request), daemon=True)
        self.proc.start()
        self.url = f"http://127.0.0.1:{queue.get(timeout=20)}/v1"


def rows(n: int) -> tuple[Row, ...]:
    return tuple(Row("Исправь:\n{source}", {"source": f"Превет, как дила? {i}"}, "x", {"id": i}) for i in range(n))


def short_bodies(n: int) -> list[dict[str, Any]]:
    return [{"model": "m", "messages": [{"role": "user", "content": f"Превет, как дила? {i}"}],
             "max_tokens": 4096, "temperature": 0.0} for i in range(n)]


async def bare_loop(url: str, bodies: list[dict[str, Any]], concurrency: int) -> float:
    """The ceiling: fixed workers posting the given bodies, nothing else (in this process)."""
    return await post_all(url, bodies, concurrency)


def merabench_run(url: str, n: int, concurrency: int, *, cache: bool) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        backend = OpenAICompatBackend("m", [url], concurrency=concurrency)
        runner = Runner(BackendSource(backend, backend.cache_scope()), out_dir=Path(tmp), concurrency=concurrency,
                        cache=ResponseCache(Path(tmp) / "c.sqlite") if cache else None)
        run = TaskRun(TASKS["sage"], TaskData("bench", rows(n)))
        started = time.perf_counter()
        asyncio.run(runner.run([run]))
        return time.perf_counter() - started


BUNDLED = Path(__file__).resolve().parents[1] / "src" / "merabench" / "data"
HIDE_TORCH = "import sys; sys.modules['torch'] = None; "  # `import torch` then fails as if not installed


def repeated_rows(task: str, n: int, folder: Path) -> Path:
    """A folder with n rows of a task: its bundled rows repeated under new ids, each row's first
    input made distinct (as in a real set, where only the instruction templates repeat)."""
    lines = (BUNDLED / task / "test.jsonl").read_text(encoding="utf-8").splitlines()
    target = folder / task
    target.mkdir()
    with (target / "test.jsonl").open("w", encoding="utf-8") as out:
        for i in range(n):
            row = json.loads(lines[i % len(lines)])
            row.setdefault("meta", {})["id"] = i
            first = next(iter(row["inputs"]))
            row["inputs"][first] += f" ({i})"
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return target


def keep_first_rows(path: Path, n: int) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:n]), encoding="utf-8")


def peak_rss_mb(url: str, n: int, *, hide_torch: bool) -> float:
    """Peak RSS of one `merabench run` over n rows split across the three tasks (a fresh process)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        # a full GorillaHard set's size (its rows are the long ones), the rest SAGE and RussianRegions
        gorillahard = min(1169, n // 3)
        sizes = {"gorillahard": gorillahard, "sage": (n - gorillahard) // 2}
        sizes["russianregions"] = n - sum(sizes.values())
        data = [f"{task}={repeated_rows(task, size, folder)}" for task, size in sizes.items() if task != "gorillahard"]
        write_set(SetPlan(seed=0), folder / "gorillahard")  # a real generated set, then cut to size
        keep_first_rows(folder / "gorillahard" / "test.jsonl", gorillahard)
        data.append(f"gorillahard={folder / 'gorillahard'}")
        args = ["run", "--model", "openai:m", "--base-url", url, "--tasks", ",".join(TASKS),
                "--out", f"{tmp}/out", "--no-progress", "--cache-path", f"{tmp}/c.sqlite", "--concurrency", "64"]
        for spec in data:
            args += ["--data", spec]
        measured = run_merabench(args, prelude=HIDE_TORCH if hide_torch else "")
        if measured.exit_code not in (0, 1):  # 1: answers "ok" fail whole tasks, which is fine here
            raise SystemExit(f"the {n}-row run failed: {measured.stderr[-500:]}")
        return measured.peak_mb


def gorillahard_bodies(folder: Path) -> list[dict[str, Any]]:
    """The request bodies merabench sends for a GorillaHard set (rendered before any timing)."""
    task = TASKS["gorillahard"]
    data = load_task_data(task, str(folder))
    history = HistoryIndex(data.shots)
    return [{"model": "m", "messages": task.messages(row, history, None), "max_tokens": 4096}
            for row in data.rows]


def gorillahard_at_scale(server: Server, folder: Path, concurrency: int) -> tuple[float, float]:
    """(wall time of `merabench run` from process start to exit, seconds to the first request)."""
    server.first_request.value = 0.0
    args = ["run", "--model", "openai:m", "--base-url", server.url, "--tasks", "gorillahard",
            "--data", str(folder), "--out", str(folder / "out"), "--no-progress", "--no-cache",
            "--concurrency", str(concurrency)]
    started_wall, started = time.time(), time.perf_counter()
    subprocess.run([sys.executable, "-m", "merabench.cli.main", *args], check=False, capture_output=True)
    wall = time.perf_counter() - started
    subprocess.run(["rm", "-rf", str(folder / "out")], check=True)
    return wall, server.first_request.value - started_wall


def case_zero_latency(scale: int) -> None:
    fast = Server(0.0)
    n, conc = 5000 // scale, 64
    asyncio.run(bare_loop(fast.url, short_bodies(200), conc))  # warm up the server
    # interleaved rounds, best of three each: the machine's noise hits both sides alike
    bare = ours = ours_nocache = float("inf")
    for _ in range(3):
        bare = min(bare, asyncio.run(bare_loop(fast.url, short_bodies(n), conc)))
        ours = min(ours, merabench_run(fast.url, n, conc, cache=True))
        ours_nocache = min(ours_nocache, merabench_run(fast.url, n, conc, cache=False))
    fast.proc.terminate()
    print(f"1. zero latency, {n} requests, concurrency {conc}")
    print(f"   bare aiohttp loop        {n / bare:8.0f} req/s")
    print(f"   merabench (cache on)     {n / ours:8.0f} req/s   ratio {bare / ours:.2f}  (goal >= 0.70)")
    print(f"   merabench (no cache)     {n / ours_nocache:8.0f} req/s   ratio {bare / ours_nocache:.2f}")


def case_latency(scale: int) -> None:
    slow = Server(0.2)
    n, conc = 2000 // scale, 100
    ideal = n / conc * 0.2
    wall = merabench_run(slow.url, n, conc, cache=True)
    slow.proc.terminate()
    print(f"2. 200 ms latency, {n} requests, concurrency {conc}")
    print(f"   wall {wall:.2f} s vs ideal {ideal:.2f} s: {wall / ideal:.3f}x  (goal <= 1.15x)")


def case_memory(scale: int) -> None:
    fast = Server(0.0)
    n = 10000 // scale
    with_torch = peak_rss_mb(fast.url, n, hide_torch=False)
    without_torch = peak_rss_mb(fast.url, n, hide_torch=True)
    fast.proc.terminate()
    print(f"3. peak RSS of a {n}-row three-task run: {with_torch:.0f} MB with torch installed, "
          f"{without_torch:.0f} MB with torch hidden  (goal < 150 MB)")


def case_gorillahard(scale: int, runs: int) -> None:
    slow = Server(0.2)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_set(SetPlan(seed=0), folder)
        bodies = gorillahard_bodies(folder)
        if scale > 1:
            keep_first_rows(folder / "test.jsonl", len(bodies) // scale)
            bodies = bodies[: len(bodies) // scale]
        conc = 32
        ideal = len(bodies) / conc * 0.2
        bodies_path = folder / "bodies.jsonl"
        bodies_path.write_text("".join(json.dumps(b, ensure_ascii=False) + "\n" for b in bodies), encoding="utf-8")
        timed, floors = [], []
        for _ in range(runs):  # interleaved: the machine's drift hits both alike
            timed.append(gorillahard_at_scale(slow, folder, conc))
            floors.append(bare_process(slow.url, bodies_path, conc))
        bare = min(asyncio.run(bare_loop(slow.url, bodies, conc)) for _ in range(2))
        wall, first = min(timed)
        median = sorted(w for w, _ in timed)[len(timed) // 2]
        floor, floor_median = min(floors), sorted(floors)[len(floors) // 2]
        size = sum(len(json.dumps(b["messages"], ensure_ascii=False)) for b in bodies) / len(bodies)
        print(f"4. GorillaHard at scale: {len(bodies)} rows (~{size / 1000:.0f}k characters of messages each), "
              f"200 ms latency, concurrency {conc}, best of {runs} (median {median:.2f} s)")
        print(f"   merabench run, process start to exit  {wall:.2f} s: {wall / ideal:.3f}x the ideal "
              f"{ideal:.2f} s  (goal <= 1.10)")
        print(f"   bare aiohttp loop, same bodies         {bare:.2f} s: {bare / ideal:.3f}x the ideal; "
              f"merabench / bare {wall / bare:.3f}")
        print(f"   bare client process, start to exit     {floor:.2f} s: {floor / ideal:.3f}x the ideal (median "
              f"{floor_median:.2f} s; interpreter, aiohttp, reading the bodies, the loop); merabench / it "
              f"{wall / floor:.3f}")
        print(f"   process start to first request         {min(f for _, f in timed):.2f} s best, "
              f"{sorted(f for _, f in timed)[len(timed) // 2]:.2f} s median  (goal < 0.5 s)")
    slow.proc.terminate()


def bare_process(url: str, bodies_path: Path, concurrency: int) -> float:
    """Process start to exit of bare_client.py: interpreter, aiohttp, reading the bodies, posting."""
    started = time.perf_counter()
    subprocess.run([sys.executable, str(Path(__file__).with_name("bare_client.py")), url, str(bodies_path),
                    str(concurrency)], check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="a tenth of the sizes, for a smoke run")
    parser.add_argument("--case", type=int, action="append", choices=(1, 2, 3, 4),
                        help="run only this case (repeatable); all four by default")
    parser.add_argument("--runs", type=int, default=5, help="timed runs of case 4 (best and median shown)")
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    # start-up is measured as a user meets it: with the package byte-compiled (as pip installs it),
    # even where PYTHONDONTWRITEBYTECODE keeps imports from writing the cache themselves
    compileall.compile_dir(str(BUNDLED.parent), quiet=1)
    cases = set(args.case or (1, 2, 3, 4))
    if 1 in cases:
        case_zero_latency(scale)
    if 2 in cases:
        case_latency(scale)
    if 3 in cases:
        case_memory(scale)
    if 4 in cases:
        case_gorillahard(scale, args.runs)


if __name__ == "__main__":
    main()
