"""The sqlite response cache: resume after a crash, and free re-runs of other tasks.

Keyed by a hash of the model spec, the endpoint-independent generation settings and the full
message list, so the same request to another replica or with another API key is a hit. Only
successful answers are stored. WAL mode lets a reader (another run) share the file.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from merabench.models.base import Completion


def default_cache_path() -> Path:
    """$MERABENCH_CACHE, else ~/.cache/merabench/responses.sqlite (read at call time)."""
    env = os.environ.get("MERABENCH_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "merabench" / "responses.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    created REAL NOT NULL,
    completion TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS judgements (
    key TEXT PRIMARY KEY,
    judge TEXT NOT NULL,
    created REAL NOT NULL,
    reply TEXT NOT NULL
);
"""


def request_key(model: str, options: dict[str, Any], messages_digest: str) -> str:
    """The cache key from GenerationOptions.fingerprint() and prompts.messages_digest."""
    blob = orjson.dumps({"model": model, "options": options, "messages": messages_digest},
                        option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(blob).hexdigest()


class ResponseCache:
    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # survives a killed process; WAL keeps it consistent
        self._db.execute("PRAGMA busy_timeout=10000")
        self._db.executescript(_SCHEMA)

    def get(self, key: str) -> Completion | None:
        return self.get_many([key]).get(key)

    def get_many(self, keys: Sequence[str]) -> dict[str, Completion]:
        found: dict[str, Completion] = {}
        for start in range(0, len(keys), 500):  # stay under sqlite's bound-parameter limit
            chunk = keys[start:start + 500]
            marks = ",".join("?" * len(chunk))
            for key, blob in self._db.execute(
                    f"SELECT key, completion FROM responses WHERE key IN ({marks})", chunk):
                data: dict[str, Any] = json.loads(blob)
                found[key] = Completion(**data)
        return found

    def put_many(self, entries: Sequence[tuple[str, str, Completion]]) -> None:
        """Store answers in one transaction (a commit per answer would cap a fast endpoint)."""
        now = time.time()
        rows = [(key, model, now, json.dumps(
            {"text": c.text, "prompt_tokens": c.prompt_tokens, "completion_tokens": c.completion_tokens,
             "finish_reason": c.finish_reason, "latency_s": c.latency_s}, ensure_ascii=False))
            for key, model, c in entries]
        with self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO responses (key, model, created, completion) VALUES (?, ?, ?, ?)", rows)

    def get_judgement(self, key: str) -> str | None:
        row = self._db.execute("SELECT reply FROM judgements WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def put_judgement(self, key: str, judge: str, reply: str) -> None:
        with self._db:
            self._db.execute("INSERT OR REPLACE INTO judgements (key, judge, created, reply) VALUES (?, ?, ?, ?)",
                             (key, judge, time.time(), reply))

    def close(self) -> None:
        self._db.close()
