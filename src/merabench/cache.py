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

from merabench.models.base import Completion, GenerationOptions
from merabench.prompts import Message



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


def request_key(model: str, options: GenerationOptions, messages: Sequence[Message]) -> str:
    blob = json.dumps({"model": model, "options": options.fingerprint(), "messages": list(messages)},
                      ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # survives a killed process; WAL keeps it consistent
        self._db.execute("PRAGMA busy_timeout=10000")
        self._db.executescript(_SCHEMA)

    def get(self, key: str) -> Completion | None:
        row = self._db.execute("SELECT completion FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        data: dict[str, Any] = json.loads(row[0])
        return Completion(**data)

    def put(self, key: str, model: str, completion: Completion) -> None:
        data = {"text": completion.text, "prompt_tokens": completion.prompt_tokens,
                "completion_tokens": completion.completion_tokens, "finish_reason": completion.finish_reason,
                "latency_s": completion.latency_s}
        self._db.execute("INSERT OR REPLACE INTO responses (key, model, created, completion) VALUES (?, ?, ?, ?)",
                         (key, model, time.time(), json.dumps(data, ensure_ascii=False)))

    def get_judgement(self, key: str) -> str | None:
        row = self._db.execute("SELECT reply FROM judgements WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def put_judgement(self, key: str, judge: str, reply: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO judgements (key, judge, created, reply) VALUES (?, ?, ?, ?)",
                         (key, judge, time.time(), reply))

    def close(self) -> None:
        self._db.close()
