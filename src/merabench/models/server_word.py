"""What an engine says about its own load, where it says it (for `--concurrency auto`).

    llama.cpp       GET /props   -> total_slots: requests it serves at once (asked once, before the run)
    vLLM, SGLang    GET /metrics -> the gauges of requests running and waiting in its queue
                    (vllm:num_requests_running / vllm:num_requests_waiting, sglang:num_running_reqs /
                    sglang:num_queue_reqs), read every POLL_S during the run

All of it is at the server's root (the base URL without its `/v1`), read no further than the
chat replies' cap (models/bodies.py). A server that answers neither is learnt from its answers
alone (models/concurrency.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Callable
from urllib.parse import urlsplit, urlunsplit

import aiohttp

from merabench.errors import BackendError
from merabench.models.bodies import read_capped
from merabench.rows.jsonio import loads

POLL_S = 1.0
MOST_SLOTS = 10**12  # far past any engine: a bigger total_slots (400 digits) is read as this
GAUGES = {"vllm": ("vllm:num_requests_running", "vllm:num_requests_waiting"),
          "sglang": ("sglang:num_running_reqs", "sglang:num_queue_reqs")}


def root_url(base_url: str, path: str) -> str:
    parts = urlsplit(base_url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/").removesuffix("/v1") + path, "", ""))


async def total_slots(session: aiohttp.ClientSession, base_url: str) -> int | None:
    """llama.cpp's `/props` total_slots, or None."""
    try:
        async with session.get(root_url(base_url, "/props")) as resp:
            doc = loads(await read_capped(resp, base_url)) if resp.status == 200 else None
    except (aiohttp.ClientError, TimeoutError, ValueError, BackendError):  # BackendError: a body past the cap
        return None
    slots = doc.get("total_slots") if isinstance(doc, dict) else None
    if not isinstance(slots, int) or isinstance(slots, bool) or slots < 1:
        return None
    return min(slots, MOST_SLOTS)  # a 400-digit count is a broken server, not a wider one


def queue_gauges(text: str) -> tuple[float, float] | None:
    """(running, waiting) from a Prometheus text of vLLM or SGLang (summed over label sets), or
    None when it has neither engine's gauges. A gauge of NaN or Inf (a server's bug) makes its
    sum NaN or Inf, which the reader skips (`usable`) while the server still shows its queue."""
    for running_name, waiting_name in GAUGES.values():
        sums = {running_name: 0.0, waiting_name: 0.0}
        seen = False
        for line in text.splitlines():
            name = line.split("{", 1)[0].split(" ", 1)[0]
            if name in sums:
                with contextlib.suppress(ValueError, IndexError):
                    sums[name] += float(line.rsplit(" ", 1)[1])
                    seen = True
        if seen:
            return sums[running_name], sums[waiting_name]
    return None


async def fetch_metrics(session: aiohttp.ClientSession, base_url: str,
                        timeout: aiohttp.ClientTimeout | None = None) -> str | None:
    """The /metrics text; "" when the server answers without it (not 200), None when it did not
    answer at all."""
    try:
        async with session.get(root_url(base_url, "/metrics"), timeout=timeout) as resp:
            return (await read_capped(resp, base_url)).decode("utf-8", "replace") if resp.status == 200 else ""
    except (aiohttp.ClientError, TimeoutError, BackendError):  # BackendError: a body past the cap
        return None


async def read_gauges(session: aiohttp.ClientSession, base_url: str) -> tuple[float, float] | None:
    text = await fetch_metrics(session, base_url)
    return queue_gauges(text) if text else None


async def watch_gauges(session: aiohttp.ClientSession, base_url: str,
                       tell: Callable[[float, float], None]) -> None:
    """Read the gauges every POLL_S and tell them, until cancelled or the server stops saying:
    a 200 without them. A failed read or a busy server's 503 is skipped, not the end."""
    timeout = aiohttp.ClientTimeout(total=POLL_S * 2)
    while True:
        await asyncio.sleep(POLL_S)
        text = await fetch_metrics(session, base_url, timeout)
        if not text:
            continue
        gauges = queue_gauges(text)
        if gauges is None:
            return
        if usable(gauges):
            tell(*gauges)


def usable(gauges: tuple[float, float]) -> bool:
    return all(math.isfinite(g) for g in gauges)
