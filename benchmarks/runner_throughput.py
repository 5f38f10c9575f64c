"""Runner throughput, latency overhead and memory against a local fake server (not a test).

    python benchmarks/runner_throughput.py [--quick]

1. zero-latency server, 5,000 requests: merabench's requests/s vs a bare aiohttp loop with the
   same concurrency in this process (the ceiling here); goal ratio >= 0.7.
2. server adding 200 ms per request, 2,000 requests at concurrency 100: wall time vs the ideal
   4 s; goal <= 1.15x.
3. peak RSS of a `merabench run` subprocess over 10,000 rows; goal < 300 MB.
The server runs in its own process, so client and server do not share one interpreter lock.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from fakeserver import FakeServer  # noqa: E402

from merabench.cache import ResponseCache  # noqa: E402
from merabench.models.openai_compat import OpenAICompatBackend  # noqa: E402
from merabench.rows import Row, TaskData  # noqa: E402
from merabench.runner import BackendSource, Runner, TaskRun  # noqa: E402
from merabench.tasks import TASKS  # noqa: E402


def serve(latency_s: float, port_queue: mp.Queue) -> None:
    server = FakeServer(latency_s=latency_s, reply=lambda body: "ok").start()
    server.requests = _Discard()  # a long benchmark must not grow the log
    server.headers = _Discard()
    port_queue.put(server.port)
    while True:
        time.sleep(3600)


class _Discard(list):
    def append(self, item: object) -> None:
        pass


def start_server(latency_s: float) -> tuple[mp.Process, str]:
    queue: mp.Queue = mp.Queue()
    proc = mp.Process(target=serve, args=(latency_s, queue), daemon=True)
    proc.start()
    return proc, f"http://127.0.0.1:{queue.get(timeout=20)}/v1"


def rows(n: int) -> tuple[Row, ...]:
    return tuple(Row("Исправь:\n{source}", {"source": f"Превет, как дила? {i}"}, "x", {"id": i}) for i in range(n))


async def bare_loop(url: str, n: int, concurrency: int) -> float:
    """The ceiling: fixed workers posting the same body shape, nothing else."""
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        counter = iter(range(n))

        async def worker() -> None:
            for i in counter:
                body = {"model": "m", "messages": [{"role": "user", "content": f"Превет, как дила? {i}"}],
                        "max_tokens": 4096, "temperature": 0.0}
                async with session.post(f"{url}/chat/completions", json=body) as resp:
                    json.loads(await resp.read())

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - started


def merabench_run(url: str, n: int, concurrency: int, *, cache: bool) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        backend = OpenAICompatBackend("m", [url], concurrency=concurrency)
        runner = Runner(BackendSource(backend, backend.cache_scope()), out_dir=Path(tmp), concurrency=concurrency,
                        cache=ResponseCache(Path(tmp) / "c.sqlite") if cache else None)
        run = TaskRun(TASKS["sage"], TaskData("bench", rows(n)))
        started = time.perf_counter()
        asyncio.run(runner.run([run]))
        return time.perf_counter() - started


def peak_rss_mb(url: str, n: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "rows.jsonl"
        data.write_text("".join(json.dumps(r.to_dict(), ensure_ascii=False) + "\n" for r in rows(n)))
        subprocess.run([sys.executable, "-m", "merabench.cli", "run", "--model", "openai:m", "--base-url", url,
                        "--tasks", "sage", "--data", str(data), "--out", f"{tmp}/out", "--no-progress",
                        "--cache-path", f"{tmp}/c.sqlite", "--concurrency", "64"],
                       check=True, capture_output=True)
        return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="a tenth of the sizes, for a smoke run")
    args = parser.parse_args()
    scale = 10 if args.quick else 1

    fast, fast_url = start_server(0.0)
    n, conc = 5000 // scale, 64
    asyncio.run(bare_loop(fast_url, 200, conc))  # warm up the server
    # interleaved rounds, best of three each: the machine's noise hits both sides alike
    bare = ours = ours_nocache = float("inf")
    for _ in range(3):
        bare = min(bare, asyncio.run(bare_loop(fast_url, n, conc)))
        ours = min(ours, merabench_run(fast_url, n, conc, cache=True))
        ours_nocache = min(ours_nocache, merabench_run(fast_url, n, conc, cache=False))
    print(f"1. zero latency, {n} requests, concurrency {conc}")
    print(f"   bare aiohttp loop        {n / bare:8.0f} req/s")
    print(f"   merabench (cache on)     {n / ours:8.0f} req/s   ratio {bare / ours:.2f}  (goal >= 0.70)")
    print(f"   merabench (no cache)     {n / ours_nocache:8.0f} req/s   ratio {bare / ours_nocache:.2f}")

    slow, slow_url = start_server(0.2)
    n2, conc2 = 2000 // scale, 100
    ideal = n2 / conc2 * 0.2
    wall = merabench_run(slow_url, n2, conc2, cache=True)
    print(f"2. 200 ms latency, {n2} requests, concurrency {conc2}")
    print(f"   wall {wall:.2f} s vs ideal {ideal:.2f} s: {wall / ideal:.3f}x  (goal <= 1.15x)")

    n3 = 10000 // scale
    rss = peak_rss_mb(fast_url, n3)
    print(f"3. peak RSS of a {n3}-row run: {rss:.0f} MB  (goal < 300 MB)")
    for proc in (fast, slow):
        proc.terminate()


if __name__ == "__main__":
    main()
