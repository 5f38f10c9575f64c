"""What a run may spend: money (`--price-in/--price-out` or `--price-file`, `--max-cost`) and wall
time (`--deadline`). When a limit is reached no new request is sent; the requests in flight
finish, every answer so far is saved, and rerunning the same command continues the run.

Cost is an estimate from the token counts the endpoint reports (reasoning tokens are part of the
completion tokens, as OpenAI-compatible servers count them) at prices per million tokens. Answers
from the cache cost nothing and are not counted against `--max-cost`.
"""

from __future__ import annotations

import re
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from merabench.errors import ConfigError, reading

#: the exit code of a run stopped by --max-cost or --deadline: not a failure, not finished either
STOPPED_EXIT = 3


@dataclass(frozen=True)
class Prices:
    """Prices per million tokens."""

    input_per_million: float
    output_per_million: float

    def cost(self, prompt_tokens: int | None, completion_tokens: int | None) -> float:
        return ((prompt_tokens or 0) * self.input_per_million + (completion_tokens or 0) * self.output_per_million) / 1e6

    def to_json(self) -> dict[str, float]:
        return {"input_per_million": self.input_per_million, "output_per_million": self.output_per_million}


def _price(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0 or value == float("inf"):
        raise ConfigError(f"{what} must be a price per million tokens (a number >= 0), got {value!r}")
    return float(value)


def prices_from_file(path: Path, model: str) -> Prices:
    """The prices of `model` from a TOML file of `["model name"]` tables with `input` and `output`
    (per million tokens); the name may be the full spec (`openai:gpt-4o-mini`) or without its
    backend prefix."""
    with reading(path, "--price-file"):  # a missing file, bad UTF-8 or bad TOML: one line naming the file
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    bare = model.split(":", 1)[1] if ":" in model else model
    entry = table.get(model, table.get(bare))
    if not isinstance(entry, dict):
        known = ", ".join(sorted(k for k, v in table.items() if isinstance(v, dict))) or "none"
        raise ConfigError(f"{path} has no prices for '{bare}' (has: {known})")
    return Prices(_price(entry.get("input"), f"{path} [{bare}] input"), _price(entry.get("output"), f"{path} [{bare}] output"))


def resolve_prices(price_in: float | None, price_out: float | None, price_file: Path | None, model: str) -> Prices | None:
    if price_file is not None:
        if price_in is not None or price_out is not None:
            raise ConfigError("--price-file and --price-in/--price-out are alternatives: give one")
        return prices_from_file(price_file, model)
    if price_in is None and price_out is None:
        return None
    if price_in is None or price_out is None:
        raise ConfigError("--price-in and --price-out go together (per million tokens)")
    return Prices(_price(price_in, "--price-in"), _price(price_out, "--price-out"))


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|min|h)?\s*$")


def parse_duration(text: str) -> float:
    """Seconds from "3600", "90s", "45m" or "2h"."""
    match = _DURATION.match(text)
    if not match or float(match.group(1)) <= 0:
        raise ConfigError(f"--deadline must be a duration such as 3600, 90m or 2h, got {text!r}")
    return float(match.group(1)) * {None: 1, "s": 1, "m": 60, "min": 60, "h": 3600}[match.group(2)]


@dataclass
class Budget:
    """Counts what fresh completions cost and says when to stop sending."""

    prices: Prices | None = None
    max_cost: float | None = None
    deadline_s: float | None = None
    clock: Callable[[], float] = time.monotonic
    spent: float = 0.0
    stopped_by: str | None = None
    _started: float = field(default=0.0, init=False)

    def __post_init__(self) -> None:
        if self.max_cost is not None and self.prices is None:
            raise ConfigError("--max-cost needs prices: --price-in and --price-out, or --price-file")
        self._started = self.clock()

    def restart(self) -> None:
        self._started = self.clock()

    def add(self, prompt_tokens: int | None, completion_tokens: int | None) -> None:
        if self.prices is not None:
            self.spent += self.prices.cost(prompt_tokens, completion_tokens)

    def should_stop(self) -> bool:
        if self.stopped_by is None:
            if self.max_cost is not None and self.spent >= self.max_cost:
                self.stopped_by = f"--max-cost {self.max_cost:g} reached (estimated {self.spent:.4f} spent)"
            elif self.deadline_s is not None and self.clock() - self._started >= self.deadline_s:
                self.stopped_by = f"--deadline {self.deadline_s:g} s reached"
        return self.stopped_by is not None
