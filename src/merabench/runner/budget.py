"""What a run may spend: money (`--price-in/--price-out` or `--price-file`, `--max-cost`) and wall
time (`--deadline`). When a limit is reached no new request is sent; the requests in flight
finish, every answer so far is saved, and rerunning the same command continues the run.

Cost is an estimate from the token counts the endpoint reports (reasoning tokens are part of the
completion tokens, as OpenAI-compatible servers count them) at prices per million tokens, over the
answers of the run folder that an endpoint was asked for: the ones kept from earlier runs into the
folder and this run's fresh ones, so `--max-cost` caps what the folder's answers cost, the same
figure as the summary table's. Answers from the cache cost nothing. An answer whose counts are
missing or cannot be right is priced by the estimate usage.py makes from the bytes sent and
received, which errs high: the limit is never left blind, and the budget says how much of what it
counts is estimated. Only an answer no request of this run's was sent for (a baseline's, a batch
output's without counts) has neither; it is counted apart, never as free.
"""

from __future__ import annotations

import re
import shlex
import time
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from merabench.errors import STOPPED_EXIT, ConfigError, ServerRefused, reading
from merabench.models.usage import billable_tokens, priced
from merabench.records import Answer
from merabench.rows.inputfile import read_text


class StopCause(StrEnum):
    """What ended a run before its end (results.json's stopped.by)."""

    MAX_COST = "--max-cost"
    DEADLINE = "--deadline"
    SERVER = "the server's refusal"


@dataclass(frozen=True)
class Stop:
    """Why a run stopped early, in words, and the exit code the process ends with (the run resumes)."""

    cause: StopCause
    reason: str
    exit_code: int = STOPPED_EXIT

    @classmethod
    def refused(cls, exc: ServerRefused) -> Stop:
        return cls(StopCause.SERVER, str(exc), exc.exit_code)


@dataclass(frozen=True)
class Prices:
    """Prices per million tokens."""

    input_per_million: float
    output_per_million: float

    def cost(self, prompt_tokens: float | None, completion_tokens: float | None) -> float:
        """Tokens at these prices (a batch answer's counts come weighted by its price share: floats)."""
        return ((prompt_tokens or 0) * self.input_per_million + (completion_tokens or 0) * self.output_per_million) / 1e6

    def bill(self, prompt_tokens: int | None, completion_tokens: int | None,
             estimated: Mapping[str, int] | None) -> float | None:
        """What an answer costs, by its counts or its estimate (usage.billable_tokens); None: neither."""
        tokens = billable_tokens(prompt_tokens, completion_tokens, estimated)
        return None if tokens is None else self.cost(*tokens)

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
        table = tomllib.loads(read_text(path, "--price-file"))
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


#: a key given on the command line is never printed: the command that continues names the variable
#: merabench reads it from instead, so it runs as printed once that variable holds the key
KEY_VARIABLES = {"--api-key": "OPENAI_API_KEY", "--judge-api-key": "LM_EVAL_JUDGE_API_KEY"}


def _shell_word(word: str, before: str) -> str:
    """A word of a printed command, quoted for a shell; a key's value as its variable, expanded."""
    flag, eq, _ = word.partition("=")
    if eq and flag in KEY_VARIABLES:
        return f'{flag}="${KEY_VARIABLES[flag]}"'
    if before in KEY_VARIABLES:
        return f'"${KEY_VARIABLES[before]}"'
    return shlex.quote(word)


@dataclass(frozen=True)
class Limits:
    """What a run may spend: the prices to count with (per million tokens), and the cost and the
    wall time at which it stops sending."""

    prices: Prices | None = None
    max_cost: float | None = None
    deadline_s: float | None = None


@dataclass
class Budget:
    """Counts what fresh completions cost and says when to stop sending."""

    prices: Prices | None = None
    max_cost: float | None = None
    deadline_s: float | None = None
    clock: Callable[[], float] = time.monotonic
    spent: float = 0.0
    stop: Stop | None = None
    earlier: float = 0.0        # the part of `spent` from answers kept from earlier runs into the folder
    without_usage: int = 0      # fresh answers whose token counts were missing or implausible
    estimated: float = 0.0      # the part of `spent` estimated from bytes, for answers without usable counts
    estimated_answers: int = 0  # the folder's answers priced so
    unpriced: int = 0           # the folder's answers with neither counts nor an estimate: not in `spent`
    _started: float = field(default=0.0, init=False)

    def __post_init__(self) -> None:
        if self.max_cost is not None and self.prices is None:
            raise ConfigError("--max-cost needs prices: --price-in and --price-out, or --price-file")
        self._started = self.clock()

    @classmethod
    def within(cls, limits: Limits) -> Budget:
        return cls(limits.prices, limits.max_cost, limits.deadline_s)

    def restart(self) -> None:
        self._started = self.clock()

    def add(self, prompt_tokens: int | None, completion_tokens: int | None,
            estimated: Mapping[str, int] | None = None, share: float = 1.0) -> None:
        """A fresh answer's counts (None: missing or implausible) and, when they cannot price it, its
        estimate (usage.py); `share`: of the prices given, what it was bought at (a batch's discount)."""
        if self.prices is None:
            return
        if not priced(prompt_tokens, completion_tokens):
            self.without_usage += 1
        cost = self.prices.bill(prompt_tokens, completion_tokens, estimated)
        self._count(None if cost is None else cost * share, estimated is not None)

    def add_kept(self, answer: Answer) -> None:
        """An answer kept from an earlier run into the folder: what it cost counts too."""
        if self.prices is None or not answer.ok or answer.cached:
            return
        cost = self.prices.bill(answer.prompt_tokens, answer.completion_tokens, answer.estimated_tokens)
        cost = None if cost is None else cost * (answer.price_share or 1.0)
        self._count(cost, answer.estimated_tokens is not None)
        self.earlier += cost or 0.0

    def _count(self, cost: float | None, estimated: bool) -> None:
        if cost is None:
            self.unpriced += 1
            return
        self.spent += cost
        if estimated:
            self.estimated += cost
            self.estimated_answers += 1

    @property
    def summary(self) -> str | None:
        """Why the run stopped, with the estimate as it ends (the requests in flight at the limit
        finished and count too), or None."""
        if self.stop is None:
            return None
        if self.prices is None:
            return self.stop.reason
        part = (f"; {self.estimated:.4f} of it priced from the bytes sent and received, for answers without usable "
                "token counts" if self.estimated else "")
        return (f"{self.stop.reason} (estimated {self.spent:.4f} spent on the folder's answers, "
                f"{self.spent - self.earlier:.4f} of it in this run{part})")

    @property
    def limit(self) -> StopCause | None:
        """What stopped the run: --max-cost, --deadline, or the server's refusal to serve."""
        return None if self.stop is None else self.stop.cause

    def should_stop(self) -> bool:
        if self.stop is None:
            if self.max_cost is not None and self.spent >= self.max_cost:
                self.stop = Stop(StopCause.MAX_COST, f"--max-cost {self.max_cost:g} reached")
            elif self.deadline_s is not None and self.clock() - self._started >= self.deadline_s:
                self.stop = Stop(StopCause.DEADLINE, f"--deadline {self.deadline_s:g} s reached")
        return self.stop is not None

    def continue_command(self, argv: Sequence[str]) -> str:
        """What continues the run once a limit stopped it: the same command, or, stopped by
        --max-cost (a cap on what the folder's answers cost, reached), the same without it (twice
        it when a config file set it). A --deadline counts per invocation: the same command."""
        if not argv:
            return ("the same run again without --max-cost (or with a higher one)" if self.limit is StopCause.MAX_COST
                    else "the same run again")
        words = list(argv)
        if self.limit is StopCause.MAX_COST:
            kept = [w for n, w in enumerate(words) if not (w == "--max-cost" or w.startswith("--max-cost=")
                                                           or (n and words[n - 1] == "--max-cost"))]
            words = kept if len(kept) < len(words) else [*kept, "--max-cost", f"{2 * (self.max_cost or 0):g}"]
        full = ["merabench", *words]
        return " ".join(_shell_word(word, full[n - 1] if n else "") for n, word in enumerate(full))

    def notes(self) -> list[str]:
        """What the counts did not show, and how the cost saw it."""
        notes = []
        if self.estimated_answers:
            notes.append(f"{self.estimated_answers} answer(s) came without usable token counts: priced from the bytes "
                         f"sent and received, an estimate that errs high ({self.estimated:.4f} of the cost"
                         + ("; --max-cost counts it" if self.max_cost is not None else "") + ")")
        if self.unpriced:
            notes.append(f"{self.unpriced} answer(s) have neither token counts nor a request of this run to price "
                         "them by (a baseline's, or a batch output's without usage): the cost leaves them out")
        return notes
