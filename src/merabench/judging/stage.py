"""The judging stage: LLM-judge requests for tasks with a judged metric, between answers and scores.

For each answered row the task names its judge requests (one per distinct reading of the answer),
in its own prompt or in the public harness's protocol when a template is given. Each goes
through the judge's backend (same concurrency, retries and back-off as the model) unless the
cache has its reply, keyed by the judge model, its endpoints (as the model's answers are, unless
`--cache-scope model`: another server under the same name, say a llama.cpp server that answers
to any name, is another judge) and the full judge prompt (so by the template too).
The stage returns a new Judgement per row: the replies, their scores, or the errors. Judgements
come only from a judge configured for this invocation: nothing is read back from samples files.

A judge that dies after the preflight is given up quickly: once UNREACHABLE_AFTER retries
in a row find it refusing or dropping connections (429/5xx are retried as always), HUNG_AFTER
retries in a row time out (a hung judge: each costs a whole --timeout), or its server asks to
wait past the back-off ceiling, no more judge requests are sent; the calls left are
marked not sent with that reason, the replies already in are kept, and the task's judge metrics
are marked incomplete (the CLI exits 1; the same command judges the rest, the rest from the cache).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from merabench.errors import BackendError, ConfigError, ServerRefused
from merabench.models import Backend, BackendSettings, GenerationOptions, Request, RequestPolicy, make_backend
from merabench.models.endpoints import HUNG_AFTER, UNREACHABLE_AFTER
from merabench.records import Answer, Judgement, commonest_error
from merabench.rows.prompts import messages_digest
from merabench.rows.row import Row
from merabench.runner.aio import run_pool
from merabench.runner.cache import ResponseCache, request_key
from merabench.tasks.base import Task
from merabench.tasks.judge_protocol import MAX_TOKENS, HarnessTemplate, harness_score

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


def make_judge(settings: JudgeSettings, policy: RequestPolicy) -> Backend:
    options = OWN_OPTIONS if settings.template is None else HARNESS_OPTIONS
    return make_backend(settings.model, options, BackendSettings(
        base_urls=tuple(settings.base_urls), api_key=settings.api_key, policy=policy,
        unreachable_after=UNREACHABLE_AFTER, hung_after=HUNG_AFTER))


@dataclass(frozen=True)
class JudgeOutcome:
    """What judging a task gave: a Judgement per answered row with a reference, the requests
    the judge replied to or held until their time-out (retries included), and, when the judge was
    given up mid-run, why and how many calls were never sent."""

    judgements: dict[int, Judgement]
    sent: int
    stopped: str | None = None
    not_sent: int = 0
    unconnected: int = 0  # attempts that found no connection (refused, reset, closed before any reply)

    def sent_line(self) -> str:
        """'N request(s) sent', and the attempts that found no connection when there were some."""
        missed = (f" ({self.unconnected} more attempt(s) found no connection: refused, reset or closed before "
                  "any reply)") if self.unconnected else ""
        return f"{self.sent} request(s) sent{missed}"


@dataclass(frozen=True)
class JudgeFailure:
    """Why a task lacks (some of) its judge scores; `judged` of `rows` rows have every reply."""

    reason: str
    judged: int
    rows: int

    def headline(self, task: str | None = None) -> str:
        """'judge metrics missing: [task: ]why', or 'judge metrics incomplete: ...' when some rows are judged."""
        named = f"{task}: " if task else ""
        if not self.judged:
            return f"judge metrics missing: {named}{self.reason}"
        return (f"judge metrics incomplete: {named}{self.judged} of {self.rows} row(s) judged, "
                f"{self.rows - self.judged} not: {self.reason}")


async def judge_task(task: Task, rows: Sequence[Row], answers: Mapping[int, Answer], settings: JudgeSettings,
                     judge: Backend, cache: ResponseCache | None, *, strip: bool, concurrency: int,
                     scope: dict[str, Any] | None = None) -> JudgeOutcome:
    template = settings.template
    score = harness_score if template is not None else task.judge_value
    sha = template.sha if template is not None else task.judge_template_sha()
    requests: dict[int, list] = {}
    for row in rows:
        answer = answers.get(row.id)
        if answer is None or not answer.ok or not row.outputs.strip():
            continue
        requests[row.id] = task.judge_prompts(row, task.scored_answer(answer.output or "", strip_think=strip), template)
    replies: dict[int, list[str | None]] = {row_id: [None] * len(prompts) for row_id, prompts in requests.items()}
    errors: dict[int, list[str | None]] = {row_id: [None] * len(prompts) for row_id, prompts in requests.items()}
    jobs = [(row_id, i, messages) for row_id, prompts in requests.items() for i, messages in enumerate(prompts)]
    options = judge.options.fingerprint()
    calls = not_sent = 0
    stopped: str | None = None  # why the judge was given up: nothing more is sent to it

    def given_up(row_id: int, index: int) -> None:
        nonlocal not_sent
        errors[row_id][index] = f"not sent: the judge was given up ({stopped})"
        not_sent += 1

    async def ask(job: tuple) -> None:
        nonlocal calls, stopped
        row_id, index, messages = job
        key = request_key(judge.name, options, messages_digest(messages), scope)
        reply = cache.get_judgement(key) if cache is not None else None
        if reply is None:
            if stopped is not None:
                given_up(row_id, index)
                return
            calls += 1
            try:
                reply = (await judge.generate(Request(messages))).text
            except ServerRefused as exc:  # every judge endpoint given up: dead, hung, or asks to wait too long
                stopped = stopped or str(exc)
                given_up(row_id, index)
                return
            except BackendError as exc:
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
    sent, unconnected = judge.requests_delivered() or (calls, 0)
    return JudgeOutcome(judgements, sent, stopped, not_sent, unconnected)


def judge_failure(outcome: JudgeOutcome) -> JudgeFailure | None:
    """Why a task lacks judge scores: calls were made and none was answered (with the commonest
    error), or the judge was given up mid-run after answering some; None otherwise."""
    judgements = outcome.judgements
    calls = sum(len(j.replies) for j in judgements.values())
    answered = sum(r is not None for j in judgements.values() for r in j.replies)
    if not calls or (answered and outcome.stopped is None):
        return None
    judged = sum(all(r is not None for r in j.replies) for j in judgements.values())
    if not answered:
        error, count = commonest_error(e for j in judgements.values() for e in j.errors) or ("no reply", calls)
        return JudgeFailure(f"the judge answered none of its {calls} call(s); the commonest error ({count} of them): "
                            f"{error}", judged, len(judgements))
    return JudgeFailure(f"the judge was given up after answering {answered} of its {calls} call(s): {outcome.stopped}; "
                        f"{outcome.not_sent} call(s) were not sent, and {len(judgements) - judged} of "
                        f"{len(judgements)} row(s) lack a judge reply (the judge metrics cover only the rows judged "
                        "before)", judged, len(judgements))
