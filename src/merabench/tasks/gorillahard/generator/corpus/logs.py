"""Logs and traces: a service's day, an import job, request traces."""

from __future__ import annotations

import random
from collections.abc import Callable

from merabench.tasks.gorillahard.generator.corpus.common import (
    DOMAINS,
    SERVICES,
    CorpusFile,
    distinct,
    http_method,
    route,
)
from merabench.tasks.gorillahard.generator.model import File

# event: (its log line, its name in the genitive, the gender of that name's head noun)
LOG_EVENTS = {
    "db": ("ERROR db: connection refused (host=pg-main:5432)", "ошибки подключения к базе данных", "femn"),
    "timeout": ("ERROR api: upstream timeout", "таймаута при обращении к внешнему сервису", "masc"),
    "disk": ("WARN  fs: disk usage above 90%", "предупреждения о заполнении диска", "neut"),
    "oom": ("ERROR worker: out of memory, job killed", "нехватки памяти", "femn"),
}


# (weight, record): the ordinary records of a service's day
_RECORDS: list[tuple[int, Callable[[random.Random], str]]] = [
    (30, lambda r: f"INFO  api: {http_method(r)} {route(r)} {r.choice([200] * 8 + [201, 204, 304, 404])} "
                   f"{r.randint(3, 480)} ms"),
    (8, lambda r: "INFO  api: GET /health 200"),
    (6, lambda r: f"WARN  api: slow request {http_method(r)} {route(r)} {r.randint(1200, 4800)} ms"),
    (8, lambda r: f"INFO  worker: job {r.randint(10000, 99999)} done in {r.randint(2, 300) / 10:.1f} s"),
    (4, lambda r: f"DEBUG worker: job {r.randint(10000, 99999)} queued ({r.randint(0, 40)} ahead)"),
    (4, lambda r: f"INFO  cache: hit ratio 0.{r.randint(71, 99)}"),
    (3, lambda r: f"INFO  db: pool {r.randint(1, 10)}/{r.choice([10, 20, 30])} connections in use"),
    (5, lambda r: f"INFO  auth: token refreshed for user u{r.randint(1000, 99999)}"),
    (6, lambda r: f"DEBUG api: request id {r.getrandbits(32):08x} assigned"),
    (3, lambda r: f"DEBUG runtime: gc pause {r.randint(1, 60)} ms"),
    (2, lambda r: f"WARN  http: {route(r)} answered 429, retry {r.randint(1, 3)} in {r.choice([1, 2, 5])} s"),
    (3, lambda r: f"info  api: GET /metrics 200 {r.randint(1, 9)} ms"),
]


def _noise(rng: random.Random) -> str:
    """One ordinary record of a service's day, varied as real ones are (routes, codes, durations,
    ids); never one of the events questions ask about, nor a failed download. Mostly INFO; some
    DEBUG and WARN; now and then a lower-case "info" (a record from another logger's format)."""
    return rng.choices([make for _, make in _RECORDS], weights=[w for w, _ in _RECORDS])[0](rng)


def log_file(rng: random.Random, number: int, index: int) -> CorpusFile:
    """A service log; each chosen event first appears at a random line and may repeat later."""
    n = rng.randint(110, 300)
    service_name = rng.choice(SERVICES).replace("-", "_")
    events = rng.sample(list(LOG_EVENTS), rng.randint(1, 3))
    first = dict(zip(events, rng.sample(range(5, n - 5), len(events)), strict=True))  # by record
    first_line: dict[str, int] = {}  # by line of the file, tracebacks counted
    failed_url = None
    lines = []
    hour, minute, second = rng.randint(0, 12), 0, 0
    for i in range(1, n + 1):
        second += rng.randint(1, 40)
        minute, second = minute + second // 60, second % 60
        hour, minute = hour + minute // 60, minute % 60
        stamp = f"2026-03-{number % 28 + 1:02d} {hour % 24:02d}:{minute:02d}:{second:02d}"
        event = next((e for e, line in first.items() if line == i), None)
        if event is None and i > min(first.values()) and rng.random() < 0.06:
            event = rng.choice([e for e in events if first[e] < i] or [None])
        if event:
            lines.append(f"{stamp} {LOG_EVENTS[event][0]}")
            first_line.setdefault(event, len(lines))
            if LOG_EVENTS[event][0].startswith("ERROR") and rng.random() < 0.3:
                # a multi-line record: the traceback lines belong to the entry above and carry no level
                lines += ["Traceback (most recent call last):",
                          f"  File \"/app/{service_name}/client.py\", line {rng.randint(20, 400)}, in fetch",
                          "ConnectionError: upstream did not answer"]
        elif failed_url is None and rng.random() < 0.01:
            failed_url = f"https://data.{rng.choice(DOMAINS)}/exports/report-{rng.randint(100, 999)}.csv"
            lines.append(f"{stamp} ERROR api: failed to download {failed_url} (503)")
        else:
            lines.append(f"{stamp} {_noise(rng)}")
    service = rng.choice(SERVICES)
    path = f"{rng.choice(['logs', 'var/log', 'logs/' + service])}/{service}-{number:03d}.log"
    errors = sum(line[20:].startswith("ERROR") for line in lines)  # records of level ERROR (tracebacks have none)
    return CorpusFile(File(path, "log", "\n".join(lines) + "\n"), "app_log",
                      {"events": events, "first": first_line, "failed_url": failed_url, "service": service,
                       "errors": errors})


def events_jsonl(rng: random.Random, number: int, index: int) -> CorpusFile:
    n = rng.randint(60, 150)
    latencies = distinct(rng, 5, 9000, n)
    rows = [f'{{"trace_id": "tr-{number:03d}-{i:04d}", "route": "{rng.choice(["/orders", "/cart", "/pay"])}", '
            f'"latency_ms": {latencies[i]}}}' for i in range(n)]
    slowest = max(range(n), key=lambda i: latencies[i])
    return CorpusFile(File(f"traces/requests-{number:03d}.jsonl", "jsonl", "\n".join(rows) + "\n"), "events_jsonl",
                      {"slowest": f"tr-{number:03d}-{slowest:04d}", "traces": n})


def fetch_log(rng: random.Random, number: int, index: int) -> CorpusFile:
    """An import job's log, in time order, in which one download failed."""
    url = f"https://data.{rng.choice(DOMAINS)}/exports/report-{number:03d}-{rng.randint(10, 99)}.csv"
    day = f"2026-05-{number % 28 + 1:02d}"
    total = rng.randint(30, 80)
    failed_at = rng.randint(3, total - 3)
    moment = rng.randint(6 * 3600, 20 * 3600)  # seconds since midnight, growing line by line
    lines = []
    for i in range(total):
        moment += rng.randint(1, 40)
        stamp = f"{day} {moment // 3600:02d}:{moment // 60 % 60:02d}:{moment % 60:02d}"
        if i == failed_at:
            lines.append(f"{stamp} ERROR import: failed to download {url} ({rng.choice([502, 503, 504])})")
            continue
        lines.append(f"{stamp} " + rng.choice([
            _noise(rng),
            f"INFO  import: chunk {i + 1}/{total} parsed, {rng.randint(200, 5000)} rows",
            f"INFO  import: downloaded report-{number:03d}-{rng.randint(10, 99)}.csv ({rng.randint(1, 90)} MB)",
            f"DEBUG import: checksum ok for part {rng.randint(1, 12)}",
            f"WARN  import: slow source, {rng.randint(2, 30)} s for one chunk",
        ]))
    return CorpusFile(File(f"logs/import-{number:03d}.log", "log", "\n".join(lines) + "\n"), "fetch_log", {"url": url})
