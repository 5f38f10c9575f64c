"""Model specs -> backends: `openai:<model>` and `hf:<path or hub id>` (models/sources.py lists every
source `--model` can name; its baselines answer from the task itself and need no backend)."""

from __future__ import annotations

from dataclasses import dataclass, field

from merabench.errors import ConfigError
from merabench.models.base import Backend, Completion, GenerationOptions, Request
from merabench.models.sources import source_of

__all__ = ["Backend", "BackendSettings", "Completion", "GenerationOptions", "Request", "RequestPolicy",
           "make_backend"]


@dataclass(frozen=True)
class RequestPolicy:
    """How a run calls one group of endpoints, the model's or the judge's: how many requests at
    once, how often one is retried, how long each may take and the first back-off."""

    concurrency: int | str = "auto"   # per endpoint: a number, or auto (models/concurrency.py)
    max_retries: int = 5
    timeout_s: float = 600.0
    retry_delay_s: float = 1.0


@dataclass(frozen=True)
class BackendSettings:
    """Where a model is asked and how: its endpoints, its key, the request policy, and when an
    endpoint that stops answering is given up."""

    base_urls: tuple[str, ...] = ()
    api_key: str | None = field(default=None, repr=False)
    policy: RequestPolicy = RequestPolicy()
    unreachable_after: int | None = None  # retries in a row that cannot connect: the endpoint is given up
    hung_after: int | None = None         # retries in a row that time out: the endpoint is given up


def make_backend(spec: str, options: GenerationOptions, settings: BackendSettings) -> Backend:
    kind, _, model = spec.partition(":")
    if kind == "openai" and model:
        from merabench.models.openai_compat import OpenAICompatBackend

        policy = settings.policy
        return OpenAICompatBackend(model, list(settings.base_urls), api_key=settings.api_key, options=options,
                                   concurrency=policy.concurrency, max_retries=policy.max_retries,
                                   timeout_s=policy.timeout_s, retry_base_delay_s=policy.retry_delay_s,
                                   unreachable_after=settings.unreachable_after, hung_after=settings.hung_after)
    if kind == "hf" and model:
        from merabench.models.hf_local import HFLocalBackend
        from merabench.models.hf_source import spelt_model

        return HFLocalBackend(spelt_model(spec).partition(":")[2], options)
    source_of(spec)  # an unknown one: one line naming every source
    raise ConfigError(f"--model {spec}: a baseline, which no backend serves")
