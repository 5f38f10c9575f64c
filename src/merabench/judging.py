"""The judging stage: LLM-judge requests for tasks with a judged metric, between answers and scores.

For each answered row the task names its judge requests (one per distinct reading of the
answer); each goes through the judge's backend (same concurrency, retries and back-off as the
model) unless the cache has its reply, keyed by the judge model and the full prompt, so a rescore
costs nothing. The replies, and the errors of requests that failed for good, are kept in the
row's record under `judge`; turning them into numbers is the task's pure scorer's job.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from merabench.aio import run_pool
from merabench.cache import ResponseCache, request_key
from merabench.errors import BackendError, ConfigError
from merabench.models import Backend, BackendSettings, GenerationOptions, ModelRequest, make_backend
from merabench.prompts import messages_digest
from merabench.rows import Row
from merabench.samples import Record
from merabench.scoring import scored_text
from merabench.tasks.base import Task

JUDGE_OPTIONS = GenerationOptions(max_tokens=1024, temperature=0.0)


@dataclass(frozen=True)
class JudgeSettings:
    model: str
    base_urls: list[str]
    api_key: str | None


def judge_settings(model: str | None, base_urls: Sequence[str], api_key: str | None) -> JudgeSettings | None:
    """From the flags, else from the public harness's LM_EVAL_JUDGE_* variables; None: no judge."""
    model = model or os.environ.get("LM_EVAL_JUDGE_MODEL") or None
    if not model:
        return None
    if ":" not in model:  # the harness's variable holds a bare model name
        model = f"openai:{model}"
    urls = list(base_urls) or [u for u in [os.environ.get("LM_EVAL_JUDGE_API_BASE")] if u]
    if not model.startswith("openai:"):
        raise ConfigError(f"the judge must be an openai:<model> endpoint, got '{model}'")
    if not urls:
        raise ConfigError("a judge model needs --judge-base-url (or LM_EVAL_JUDGE_API_BASE)")
    return JudgeSettings(model, urls, api_key or os.environ.get("LM_EVAL_JUDGE_API_KEY"))


def make_judge(settings: JudgeSettings, *, concurrency: int, max_retries: int, timeout_s: float,
               retry_base_delay_s: float) -> Backend:
    return make_backend(settings.model, JUDGE_OPTIONS, BackendSettings(
        base_urls=settings.base_urls, api_key=settings.api_key, concurrency=concurrency,
        max_retries=max_retries, timeout_s=timeout_s, retry_base_delay_s=retry_base_delay_s))


async def judge_task(task: Task, rows: Sequence[Row], records: Mapping[int, Record], judge: Backend,
                     cache: ResponseCache | None, *, strip: bool, concurrency: int) -> int:
    """Add `record["judge"]` to every answered row of `task`; return how many requests were sent."""
    jobs = []
    for row in rows:
        record = records.get(row.id)
        if not record or record.get("status") != "ok" or not row.outputs.strip():
            continue
        prompts = task.judge_prompts(row, scored_text(task, record, strip=strip))
        verdict: Record = {"model": judge.name, "replies": [None] * len(prompts), "errors": [None] * len(prompts)}
        record["judge"] = verdict
        jobs.extend((row, verdict, i, messages) for i, messages in enumerate(prompts))
    sent = 0
    options = judge.options.fingerprint()

    async def ask(job: tuple) -> None:
        nonlocal sent
        row, verdict, index, messages = job
        key = request_key(judge.name, options, messages_digest(messages))
        reply = cache.get_judgement(key) if cache is not None else None
        if reply is None:
            sent += 1
            try:
                reply = (await judge.generate(ModelRequest(task, row, messages))).text
            except BackendError as exc:
                verdict["errors"][index] = str(exc)
                return
            if cache is not None:
                cache.put_judgement(key, judge.name, reply)
        verdict["replies"][index] = reply

    try:
        await run_pool(jobs, ask, concurrency)
    finally:
        await judge.aclose()
    return sent
