"""The sqlite response cache: resume after a crash, and free re-runs of other tasks.

Keyed by a hash of the model spec, the generation settings, the cache scope (by default the
endpoints that served the model, so another checkpoint served under the same name at another
address never gets these answers; `--cache-scope model` shares answers across endpoints) and the
full message list. Only successful answers are stored. WAL mode lets another run share the file.
Judge replies live in their own table, keyed by the judge model, its prompt template and the
judge request.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import orjson

from merabench.errors import ConfigError
from merabench.models.base import Completion
from merabench.records import CacheScope
from merabench.support.paths import default_cache_path
from merabench.support.redaction import redact


@dataclass(frozen=True)
class CacheSettings:
    """Whether a run keeps and reuses answers (and judge replies), in which file, and whose."""

    enabled: bool = True
    path: Path | None = None  # None: default_cache_path()
    scope: CacheScope = CacheScope.ENDPOINT


_COMPLETION_FIELDS = tuple(f.name for f in fields(Completion) if f.name not in ("endpoint", "attempts"))


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


def request_key(model: str, options: dict[str, Any], messages_digest: str, scope: dict[str, Any] | None = None) -> str:
    """The cache key from the model, GenerationOptions.fingerprint(), the scope and prompts.messages_digest."""
    blob = orjson.dumps({"model": model, "options": options, "scope": scope or {}, "messages": messages_digest},
                        option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(blob).hexdigest()


def _completion(blob: str) -> Completion | None:
    try:
        data = json.loads(blob)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("text"), str):
        return None
    return Completion(**{k: v for k, v in data.items() if k in _COMPLETION_FIELDS})


class ResponseCache:
    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")  # survives a killed process; WAL keeps it consistent
            self._db.execute("PRAGMA busy_timeout=10000")
            self._db.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise ConfigError(f"cannot use the response cache {self.path}: {exc} "
                              "(--cache-path elsewhere, or --no-cache)") from None

    def get(self, key: str) -> Completion | None:
        return self.get_many([key]).get(key)

    def get_many(self, keys: Sequence[str]) -> dict[str, Completion]:
        found: dict[str, Completion] = {}
        for start in range(0, len(keys), 500):  # stay under sqlite's bound-parameter limit
            chunk = keys[start:start + 500]
            marks = ",".join("?" * len(chunk))
            for key, blob in self._db.execute(
                    f"SELECT key, completion FROM responses WHERE key IN ({marks})", chunk):
                completion = _completion(blob)
                if completion is not None:
                    found[key] = completion
        return found

    def put_many(self, entries: Sequence[tuple[str, str, Completion]]) -> None:
        """Store answers in one transaction (a commit per answer would cap a fast endpoint). The
        JSON is ASCII-escaped: a lone surrogate in an answer must not stop the write."""
        now = time.time()
        # getattr, not dataclasses.asdict: asdict deep-copies every field, a fifth of a fast run's time
        rows = [(key, redact(model), now, redact(json.dumps({k: getattr(c, k) for k in _COMPLETION_FIELDS})))
                for key, model, c in entries]
        with self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO responses (key, model, created, completion) VALUES (?, ?, ?, ?)", rows)

    def get_judgement(self, key: str) -> str | None:
        row = self._db.execute("SELECT reply FROM judgements WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            reply = json.loads(row[0])
        except ValueError:  # written by an older version, as plain text
            return row[0]
        return reply if isinstance(reply, str) else row[0]

    def put_judgement(self, key: str, judge: str, reply: str) -> None:
        with self._db:
            self._db.execute("INSERT OR REPLACE INTO judgements (key, judge, created, reply) VALUES (?, ?, ?, ?)",
                             (key, redact(judge), time.time(), redact(json.dumps(reply))))

    def close(self) -> None:
        self._db.close()
