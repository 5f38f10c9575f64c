"""The yardstick for a whole-process run (not a test): a Python process that imports aiohttp,
reads request bodies from a JSONL file and posts them with fixed workers - nothing else. Timed from
process start to exit, it is the floor any Python client of this machine starts from.

    python benchmarks/bare_client.py URL BODIES.jsonl CONCURRENCY
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp
import orjson


async def post_all(url: str, bodies: list[dict[str, Any]], concurrency: int) -> float:
    """Fixed workers posting the given bodies to URL/chat/completions; the seconds it took."""
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        queue = iter(bodies)

        async def worker() -> None:
            for body in queue:
                async with session.post(f"{url}/chat/completions", data=orjson.dumps(body),
                                        headers={"Content-Type": "application/json"}) as resp:
                    orjson.loads(await resp.read())

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - started


def main() -> None:
    url, path, concurrency = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    bodies = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
    asyncio.run(post_all(url, bodies, concurrency))


if __name__ == "__main__":
    main()
