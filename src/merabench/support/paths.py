"""Where merabench keeps what outlives a run: the response cache, and beside it the generated
GorillaHard sets that `--data generated[:SEED]` makes once."""

from __future__ import annotations

import os
from pathlib import Path


def default_cache_path() -> Path:
    """$MERABENCH_CACHE, else ~/.cache/merabench/responses.sqlite (read at call time)."""
    env = os.environ.get("MERABENCH_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "merabench" / "responses.sqlite"
