"""The judging stage: LLM-judge requests for tasks with a judged metric, between answers and scores.

For each answered row the task names its judge requests (one per distinct reading of the answer),
in its own prompt or in the public harness's protocol when a template is given. Each goes
through the judge's backend (same concurrency, retries and back-off as the model) unless the
cache has its reply, keyed by the judge model and the full judge prompt (so by the template too).
The stage returns a new Judgement per row: the replies, their scores, or the errors. Judgements
come only from a judge configured for this invocation: nothing is read back from samples files.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from merabench.aio import run_pool
from merabench.cache import ResponseCache, request_key
from merabench.errors import BackendError, ConfigError, ServerRefused
from merabench.judge_protocol import MAX_TOKENS, HarnessTemplate, harness_score
from merabench.models import Backend, BackendSettings, GenerationOptions, Request, make_backend
from merabench.prompts import messages_digest
from merabench.records import Answer, Judgement, commonest_error
from merabench.rows import Row
from merabench.tasks.base import Task

OWN_OPTIONS = GenerationOptions(max_tokens=1024, temperature=0.0)
HARNESS_OPTIONS = GenerationOptions(max_tokens=MAX_TOKENS, temperature=0.0)


@dataclass(frozen=True)
class JudgeSettings:
    model: str
    base_urls: list[str]
    api_key: str | None
    template: HarnessTemplate | None = None   # None: the task's own prompt

    def describe(self, task: Task) -> dict[str, str]:
        """What results.json records about the judge (never the key)."""
        if self.template is None:
            return {"model": self.model, "prompt": "merabench", "template_sha256": task.judge_template_sha()}
        return {"model": self.model, "prompt": f"harness ({self.template.origin})", "template_sha256": self.template.sha}


def _harness_base(url: str) -> str:
    """LM_EVAL_JUDGE_API_BASE is the server root (the harness appends /v1/chat/completions)."""
    url = url.rstrip("/")
    return url if url.endswith("/v1") else f"{url}/v1"


def judge_settings(model: str | None, base_urls: Sequence[str], api_key: str | None,
                   template: HarnessTemplate | None = None) -> JudgeSettings | None:
    """From the flags, else from the public harness's LM_EVAL_JUDGE_* variables; None: no judge."""
    model = model or os.environ.get("LM_EVAL_JUDGE_MODEL") or None
    if not model:
        return None
    if ":" not in model:  # the harness's variable holds a bare model name
        model = f"openai:{model}"
    if not model.startswith("openai:"):
        raise ConfigError(f"the judge must be an openai:<model> endpoint, got '{model}'")
    urls = list(base_urls)
    if not urls and os.environ.get("LM_EVAL_JUDGE_API_BASE"):
        urls = [_harness_base(os.environ["LM_EVAL_JUDGE_API_BASE"])]
    if not urls:
        raise ConfigError("a judge model needs --judge-base-url (or LM_EVAL_JUDGE_API_BASE)")
    return JudgeSettings(model, urls, api_key or os.environ.get("LM_EVAL_JUDGE_API_KEY"), template)


def make_judge(settings: JudgeSettings, *, concurrency: int, max_retries: int, timeout_s: float,
               retry_base_delay_s: float) -> Backend:
    options = OWN_OPTIONS if settings.template is None else HARNESS_OPTIONS
    return make_backend(settings.model, options, BackendSettings(
        base_urls=settings.base_urls, api_key=settings.api_key, concurrency=concurrency,
        max_retries=max_retries, timeout_s=timeout_s, retry_base_delay_s=retry_base_delay_s))


async def judge_task(task: Task, rows: Sequence[Row], answers: Mapping[int, Answer], settings: JudgeSettings,
                     judge: Backend, cache: ResponseCache | None, *, strip: bool, concurrency: int
                     ) -> tuple[dict[int, Judgement], int]:
    """(a Judgement per answered row with a reference, how many requests were sent)."""
    template = settings.template
    score = harness_score if template is not None else task.judge_value
    sha = template.sha if template is not None else task.judge_template_sha()
    requests: dict[int, list] = {}
    for row in rows:
        answer = answers.get(row.id)
        if answer is None or not answer.ok or not row.outputs.strip():
            continue
        requests[row.id] = task.judge_prompts(row, task.scored_answer(answer.output or "", strip_think=strip), template)
    replies = {row_id: [None] * len(prompts) for row_id, prompts in requests.items()}
    errors = {row_id: [None] * len(prompts) for row_id, prompts in requests.items()}
    jobs = [(row_id, i, messages) for row_id, prompts in requests.items() for i, messages in enumerate(prompts)]
    options = judge.options.fingerprint()
    sent = 0

    async def ask(job: tuple) -> None:
        nonlocal sent
        row_id, index, messages = job
        key = request_key(judge.name, options, messages_digest(messages))
        reply = cache.get_judgement(key) if cache is not None else None
        if reply is None:
            sent += 1
            try:
                reply = (await judge.generate(Request(messages))).text
            except (BackendError, ServerRefused) as exc:  # refused: the judge's server asked to wait too long
                errors[row_id][index] = str(exc)
                return
            if cache is not None:
                cache.put_judgement(key, judge.name, reply)
        replies[row_id][index] = reply

    try:
        await run_pool(jobs, ask, concurrency)
    finally:
        await judge.aclose()
    judgements = {row_id: Judgement(row_id, settings.model, sha, tuple(replies[row_id]),
                                    tuple(None if r is None else score(r) for r in replies[row_id]),
                                    tuple(errors[row_id]))
                  for row_id in requests}
    return judgements, sent


def judge_failure(judgements: Mapping[int, Judgement]) -> str | None:
    """Why a task has no judge scores at all: calls were made and none was answered (the judge
    stopped answering during the run), with the commonest error; None when any reply came."""
    calls = sum(len(j.replies) for j in judgements.values())
    if not calls or any(r is not None for j in judgements.values() for r in j.replies):
        return None
    error, count = commonest_error(e for j in judgements.values() for e in j.errors) or ("no reply", calls)
    return f"the judge answered none of its {calls} call(s); the commonest error ({count} of them): {error}"
