"""Logs and traces: a service's day, an import job, request traces."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from merabench.tasks.gorillahard.generator.corpus import decoys
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


LOG_LAYOUTS = ("plain", "bracketed", "logfmt")
LOG_DECOYS = (decoys.DUPLICATE, decoys.UNIT, decoys.IN_STRING)
_RECORD = re.compile(r"^(\w+)\s+([\w-]+): (.*)$")
# records that quote a level or an event's words without being one (an alert rule, a retry note)
_QUOTING = [lambda r: f'INFO  alerts: rule "ERROR rate > {r.randint(1, 9)}%" evaluated, no alert',
            lambda r: 'INFO  alerts: rule "connection refused" muted until the night window',
            lambda r: f"INFO  api: upstream db-{r.randint(2, 9)}.internal:5432 answered after a retry",
            lambda r: 'DEBUG config: log level for "WARN" records set to file only']


def render(layout: str, day: str, moment: int, record: str) -> str:
    """A record ("LEVEL logger: message") as a line of the layout, at `moment` seconds of `day`."""
    time = f"{moment // 3600 % 24:02d}:{moment // 60 % 60:02d}:{moment % 60:02d}"
    if layout == "plain":
        return f"{day} {time} {record}"
    parts = _RECORD.match(record)
    if parts is None:
        raise ValueError(f"not a record (LEVEL logger: message): {record!r}")
    level, logger, message = parts.groups()
    if layout == "bracketed":
        return f"[{day}T{time}.{moment * 7 % 1000:03d}Z] [{level}] {logger} - {message}"
    escaped = message.replace("\\", "\\\\").replace('"', '\\"')
    return f'ts={day}T{time}Z level={level} logger={logger} msg="{escaped}"'


_STAMPED = re.compile(r"^(?:(\d{4}-\d\d-\d\d) (\d\d):(\d\d):(\d\d) |\[(\d{4}-\d\d-\d\d)T(\d\d):(\d\d):(\d\d)\.\d+Z\] "
                      r"|ts=(\d{4}-\d\d-\d\d)T(\d\d):(\d\d):(\d\d)Z )")


def restamped(line: str, record: str) -> str | None:
    """Another record at the time of a log line, in the line's layout (None if the line is no
    record of the three layouts): for files edited after they were written."""
    found = _STAMPED.match(line)
    if not found:
        return None
    groups = [g for g in found.groups() if g is not None]
    layout = "plain" if line[:1].isdigit() else "bracketed" if line.startswith("[") else "logfmt"
    hours, minutes, seconds = (int(g) for g in groups[1:])
    return render(layout, groups[0], hours * 3600 + minutes * 60 + seconds, record)


def needle(layout: str, record: str) -> str:
    """What a line of the layout holds of a record, its time stamp left out."""
    return render(layout, "", 0, record).split(" ", 2 if layout == "plain" else 1)[-1]


@dataclass
class _Lines:
    """A log being written: its layout, day and clock, and the lines so far."""

    layout: str
    day: str
    drawn: tuple[str, ...]
    moment: int
    lines: list[str] = field(default_factory=list)
    errors: int = 0  # records of level ERROR (tracebacks and banners have no level)
    restart: int = -1  # the line at which the service restarted and printed its banner again

    def add(self, rng: random.Random, record: str) -> None:
        self.moment += rng.randint(1, 40)
        self.lines.append(render(self.layout, self.day, self.moment, record))
        self.errors += record.startswith("ERROR ")

    def decoys(self, rng: random.Random, banner: str) -> None:
        """Now and then a decoy line among the records: the start banner again after a restart, a
        record of a cron logger with a dd.mm.yyyy date and a decimal comma, a record quoting a
        level or an event's words."""
        if decoys.DUPLICATE in self.drawn and 0 <= self.restart <= len(self.lines):
            self.lines.append(banner)
            self.restart = -1
        if decoys.UNIT in self.drawn and rng.random() < 0.03:
            self.moment += rng.randint(1, 40)
            year, month, day = self.day.split("-")
            self.lines.append(f"{day}.{month}.{year} {self.moment // 3600 % 24:02d}:{self.moment // 60 % 60:02d}:"
                              f"{self.moment % 60:02d} INFO  cron: задание {rng.choice(['cleanup', 'reindex', 'export'])} "
                              f"выполнено за {rng.randint(1, 90)},{rng.randint(0, 9)} с")
        if decoys.IN_STRING in self.drawn and rng.random() < 0.03:
            self.add(rng, rng.choice(_QUOTING)(rng))


def log_file(rng: random.Random, number: int, index: int) -> CorpusFile:
    """A service log in one of three layouts (date, level, logger; bracketed ISO stamps; logfmt),
    each chosen event first appearing at a random record and maybe repeating later, with decoys
    drawn per file: the start banner repeated after a restart, a cron logger's records in another
    date format and locale, records quoting a level or an event's words."""
    n = rng.randint(110, 300)
    service_name = rng.choice(SERVICES).replace("-", "_")
    events = rng.sample(list(LOG_EVENTS), rng.randint(1, 3))
    first = dict(zip(events, rng.sample(range(5, n - 5), len(events)), strict=True))  # by record
    layout = decoys.layout(LOG_LAYOUTS, index)
    drawn = decoys.draw(rng, LOG_DECOYS, index)
    service = rng.choice(SERVICES)
    banner = f"=== {service} 1.{rng.randint(0, 30)}.{rng.randint(0, 9)} started, pid {rng.randint(100, 9999)} ==="
    log = _Lines(layout, f"2026-03-{number % 28 + 1:02d}", drawn, rng.randint(0, 12) * 3600,
                 [banner] if decoys.DUPLICATE in drawn else [], restart=rng.randint(n // 3, 2 * n // 3))
    first_line: dict[str, int] = {}  # by line of the file, tracebacks and decoys counted
    failed_url = None
    for i in range(1, n + 1):
        log.decoys(rng, banner)
        event = next((e for e, line in first.items() if line == i), None)
        if event is None and i > min(first.values()) and rng.random() < 0.06:
            event = rng.choice([e for e in events if first[e] < i] or [None])
        if event:
            log.add(rng, LOG_EVENTS[event][0])
            first_line.setdefault(event, len(log.lines))
            if LOG_EVENTS[event][0].startswith("ERROR") and rng.random() < 0.3:
                # a multi-line record: the traceback lines belong to the entry above and carry no level
                log.lines += ["Traceback (most recent call last):",
                              f"  File \"/app/{service_name}/client.py\", line {rng.randint(20, 400)}, in fetch",
                              "ConnectionError: upstream did not answer"]
        elif failed_url is None and rng.random() < 0.01:
            failed_url = f"https://data.{rng.choice(DOMAINS)}/exports/report-{rng.randint(100, 999)}.csv"
            log.add(rng, f"ERROR api: failed to download {failed_url} (503)")
        else:
            log.add(rng, _noise(rng))
    path = f"{rng.choice(['logs', 'var/log', 'logs/' + service])}/{service}-{number:03d}.log"
    return CorpusFile(File(path, "log", "\n".join(log.lines) + "\n"), "app_log",
                      {"events": events, "first": first_line, "failed_url": failed_url, "service": service,
                       "errors": log.errors, "needles": {e: needle(layout, LOG_EVENTS[e][0]) for e in events},
                       "layout": layout, "decoys": drawn})


TRACE_LAYOUTS = ("flat", "otel", "timed")
TRACE_DECOYS = (decoys.STALE, decoys.UNIT, decoys.IN_STRING)


def events_jsonl(rng: random.Random, number: int, index: int) -> CorpusFile:
    """Request traces, one JSON record a line, in one of three layouts (snake_case with the
    latency in ms; OpenTelemetry-like camelCase; a time stamp and the duration as seconds in a
    string), with decoys drawn per file: a header record naming the previous export's slowest
    trace, a database time in microseconds beside the latency, a note quoting another trace."""
    n = rng.randint(60, 150)
    latencies = distinct(rng, 5, 9000, n)
    layout = decoys.layout(TRACE_LAYOUTS, index)
    drawn = decoys.draw(rng, TRACE_DECOYS, index)
    ids = [f"tr-{number:03d}-{i:04d}" for i in range(n)]
    moment = rng.randint(0, 20 * 3600)
    rows = []
    if decoys.STALE in drawn:  # a header record of the export: no trace
        rows.append(json.dumps({"export": f"requests-{number:03d}", "schema": "traces/v2",
                                "previous_slowest": f"tr-{number - 1:03d}-{rng.randint(0, 99):04d}",
                                "previous_latency_ms": rng.randint(9001, 20000)}, ensure_ascii=False))
    for i, trace in enumerate(ids):
        moment += rng.randint(1, 9)
        route_ = rng.choice(["/orders", "/cart", "/pay"])
        if layout == "flat":
            record: dict[str, object] = {"trace_id": trace, "route": route_, "latency_ms": latencies[i]}
        elif layout == "otel":
            record = {"traceId": trace, "name": f"{rng.choice(['GET', 'POST'])} {route_}", "durationMs": latencies[i],
                      "status": rng.choice(["OK", "OK", "OK", "ERROR"])}
        else:
            record = {"ts": f"2026-04-{number % 28 + 1:02d}T{moment // 3600:02d}:{moment // 60 % 60:02d}:{moment % 60:02d}Z",
                      "trace": trace, "route": route_, "duration": f"{latencies[i] / 1000:.3f}s"}
        if decoys.UNIT in drawn:  # the database's share, in microseconds: larger numbers, not the latency
            record["db_us" if layout != "otel" else "dbTimeUs"] = latencies[i] * rng.randint(100, 900)
        if decoys.IN_STRING in drawn and rng.random() < 0.08:
            record["note"] = f"retry of {rng.choice(ids)} after {rng.randint(9001, 15000)} ms"
        rows.append(json.dumps(record, ensure_ascii=False))
    slowest = max(range(n), key=lambda i: latencies[i])
    return CorpusFile(File(f"traces/requests-{number:03d}.jsonl", "jsonl", "\n".join(rows) + "\n"), "events_jsonl",
                      {"slowest": ids[slowest], "traces": n, "layout": layout, "decoys": drawn})


def fetch_log(rng: random.Random, number: int, index: int) -> CorpusFile:
    """An import job's log, in time order, in one of the three log layouts, in which one download
    failed; decoys drawn per file: the start banner repeated, a cron logger's records in another
    date format and locale, the full link of a download that went through."""
    url = f"https://data.{rng.choice(DOMAINS)}/exports/report-{number:03d}-{rng.randint(10, 99)}.csv"
    total = rng.randint(30, 80)
    failed_at = rng.randint(3, total - 3)
    layout = decoys.layout(LOG_LAYOUTS, index)
    drawn = decoys.draw(rng, LOG_DECOYS, index)
    banner = f"=== import-{number:03d} started, pid {rng.randint(100, 9999)} ==="
    log = _Lines(layout, f"2026-05-{number % 28 + 1:02d}", drawn, rng.randint(6 * 3600, 20 * 3600),
                 [banner] if decoys.DUPLICATE in drawn else [], restart=rng.randint(total // 3, 2 * total // 3))
    for i in range(total):
        log.decoys(rng, banner)
        if i == failed_at:
            log.add(rng, f"ERROR import: failed to download {url} ({rng.choice([502, 503, 504])})")
            continue
        part = f"report-{number:03d}-{rng.randint(10, 99)}.csv"
        fetched = (f"https://data.{rng.choice(DOMAINS)}/exports/{part}" if decoys.IN_STRING in drawn and rng.random() < 0.5
                   else part)
        if fetched == url:  # another file's link, never the one that failed
            fetched = part
        # an import job writes mostly progress (INFO), now and then a checksum (DEBUG) or a slow source
        log.add(rng, rng.choices([
            _noise(rng),
            f"INFO  import: chunk {i + 1}/{total} parsed, {rng.randint(200, 5000)} rows",
            f"INFO  import: downloaded {fetched} ({rng.randint(1, 90)} MB)",
            f"DEBUG import: checksum ok for part {rng.randint(1, 12)}",
            f"WARN  import: slow source, {rng.randint(2, 30)} s for one chunk",
        ], weights=(2, 3, 3, 1, 1))[0])
    return CorpusFile(File(f"logs/import-{number:03d}.log", "log", "\n".join(log.lines) + "\n"), "fetch_log",
                      {"url": url, "layout": layout, "decoys": drawn})
