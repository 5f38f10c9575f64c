"""What `run --batch` is asked to do: its flags (BatchSettings) and what the batch stage needs of
the run (BatchJob). Light on purpose: the CLI builds these without loading the HTTP client."""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from merabench.errors import ConfigError
from merabench.models import RequestPolicy
from merabench.models.base import GenerationOptions
from merabench.runner.work import Asking

Fallback = Literal["batch", "direct"]
DEFAULT_MAX_REQUESTS = 50_000        # the OpenAI Batch API's limits on one input file
DEFAULT_MAX_MB = 200.0


@dataclass(frozen=True)
class BatchSettings:
    """`run --batch`'s flags."""

    poll_s: float = 60.0
    detach: bool = False
    fallback: Fallback = "batch"
    discount: float = 0.5
    max_requests: int = DEFAULT_MAX_REQUESTS
    max_mb: float = DEFAULT_MAX_MB

    def check(self) -> None:
        """One line for a value no Batch API run can use."""
        if not (math.isfinite(self.poll_s) and self.poll_s > 0):
            raise ConfigError(f"--batch-poll must be a number of seconds above 0, got {self.poll_s:g}")
        if not (math.isfinite(self.discount) and 0 < self.discount <= 1):
            raise ConfigError(f"--batch-discount is the batch price's share of the prices given, above 0 and at most "
                              f"1 (0.5: half price), got {self.discount:g}")
        if self.fallback not in ("batch", "direct"):
            raise ConfigError(f"--batch-fallback must be batch or direct, got {self.fallback!r}")
        if self.max_requests < 1 or not (math.isfinite(self.max_mb) and self.max_mb > 0):
            raise ConfigError("--batch-max-requests and --batch-max-mb must be above 0")

    def recorded(self) -> dict[str, object]:
        """What results.json's settings say of it."""
        return {"discount": self.discount, "fallback": self.fallback, "max_requests": self.max_requests,
                "max_mb": self.max_mb}


@dataclass(frozen=True)
class BatchJob:
    """What the stage needs of the run."""

    settings: BatchSettings
    model: str                         # openai:<name>
    options: GenerationOptions
    system_prompt: str | None
    asking: Asking
    out: Path
    base_url: str
    api_key: str | None
    policy: RequestPolicy = RequestPolicy()  # the Batch API's calls: retries, time-out, back-off
    command: tuple[str, ...] = ()     # the CLI's arguments: the line that continues a detached run

    def continue_with(self) -> str:
        if not self.command:
            return "to continue: the same run again without detach (it waits, imports and scores)"
        words = [w for w in self.command if w != "--detach"]
        return (f"to continue: {shlex.join(['merabench', *words])} (it waits for them, imports and scores; "
                "with --detach it imports and scores once they ended)")
