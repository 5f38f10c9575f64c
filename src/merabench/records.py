"""The frozen records that cross the pipeline's stages.

    Answer      what the model (or a baseline) said for one row, or why it could not: one line of
                samples_<task>.jsonl while a run is under way
    Judgement   what an LLM judge said about one answer (its replies, or why it failed)
    Scored      an answer with the text the scorer saw, its per-row metrics and reasons, and
                the judgement they used: one line of the final samples file

A stage returns new records and never edits old ones, so a judgement cannot outlive the judge
that made it and a rescore cannot inherit the metrics of an earlier one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from typing import Any

#: how versions before Status.UNASKED marked a row never sent: status "error", its error
#: beginning so; read from old samples files (`status_of`), never written
_OLD_NOT_ASKED = "not asked: "


class Status(StrEnum):
    OK = "ok"
    ERROR = "error"      # asked, and it failed
    UNASKED = "unasked"  # never sent: the run stopped at --max-cost or --deadline first; a rerun asks it


class ToolMode(StrEnum):
    """How GorillaHard is asked (`run --tool-mode`)."""

    TEXT = "text"      # the leaderboard's protocol: the catalog in the prompt, one JSON envelope back
    NATIVE = "native"  # the catalog as OpenAI tools, answered by tool calls (tasks/gorillahard/native/)


class CacheScope(StrEnum):
    """Whose answers a run may reuse from the response cache (`run --cache-scope`)."""

    ENDPOINT = "endpoint"  # the same endpoints' only
    MODEL = "model"        # any endpoint's serving the same model name


def status_of(record: Mapping[str, Any]) -> tuple[Status, str | None]:
    """A samples line's status and error, a line of an older version's too (its unasked rows were
    errors whose text began "not asked: "); a status that is none of them is an error."""
    status, error = record.get("status", "ok"), record.get("error")
    error = error if isinstance(error, str) else None
    if status == Status.ERROR and error is not None and error.startswith(_OLD_NOT_ASKED):
        return Status.UNASKED, error[len(_OLD_NOT_ASKED):]
    return (Status(status) if status in set(Status) else Status.ERROR), error


@dataclass(frozen=True, order=True)
class Draw:
    """Which asking of a row an answer is: the k-th repeat (`run --repeats K`, 0-based) under which
    prompt wording (`run --wordings all`: the wording's index; None: the row's own, as MERA
    assigned it). A run asks every row once per draw; BASE is the only draw of a plain run, and
    what the leaderboard's protocol asks."""

    repeat: int = 0
    wording: int | None = None

    @property
    def label(self) -> str:
        """How messages name it: 'repeat 2, wording 3'."""
        parts = [f"repeat {self.repeat}"] + ([f"wording {self.wording}"] if self.wording is not None else [])
        return ", ".join(parts)


BASE = Draw()


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _count(value: Any) -> int | None:
    """A repeat or wording index (0 or more), or None."""
    found = _int(value)
    return found if found is not None and found >= 0 else None


def _share(value: Any) -> float | None:
    """A price share in (0, 1), or None (the full price)."""
    return float(value) if type(value) in (int, float) and 0 < value < 1 else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _token_pair(value: Any) -> dict[str, int] | None:
    """{"prompt", "completion"} counts of tokens (0 or more), or None for anything else."""
    if not isinstance(value, dict):
        return None
    prompt, completion = _count(value.get("prompt")), _count(value.get("completion"))
    return {"prompt": prompt, "completion": completion} if prompt is not None and completion is not None else None


def _float(value: Any, default: float = 0.0) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else default


@dataclass(frozen=True)
class Answer:
    id: int
    status: Status
    output: str | None                    # the raw answer text, exactly as it came
    error: str | None = None              # why there is no answer
    messages_hash: str | None = None      # identity of the request's messages (resume checks it)
    cached: bool = False
    attempts: int = 0
    latency_s: float = 0.0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None
    reasoning: str | None = None          # reasoning the server returned beside the answer (never scored)
    finish_reason: str | None = None      # "length": the answer was cut by the token limit
    endpoint: str | None = None
    messages: tuple[Mapping[str, Any], ...] | None = None   # the full request, with --log-prompts
    usage_note: str | None = None         # token counts the server reported that cannot be right (usage.py)
    #: native tool calling: the replies and how the answer was given (runner/tool_loop.py)
    exchange: Mapping[str, Any] | None = None
    #: {"prompt", "completion"}: what the cost counts when the token counts could not price the
    #: answer, in part estimated from the bytes sent and received (models/usage.py)
    estimated_tokens: Mapping[str, int] | None = None
    #: the share of the prices given it was bought at (a Batch API's discount); None: the full price
    price_share: float | None = None
    #: the asking this answer is (records.Draw): None in a run that asks each row once, under its
    #: own wording, so its samples lines stay as they always were
    repeat: int | None = None
    wording: int | None = None

    @property
    def draw(self) -> Draw:
        return Draw(self.repeat or 0, self.wording)

    def of_draw(self, draw: Draw, drawn: bool) -> Answer:
        """This answer labelled with `draw` (`drawn`: the run asks more than the base draw)."""
        if not drawn:
            return self
        return replace(self, repeat=draw.repeat, wording=draw.wording)

    @property
    def ok(self) -> bool:
        return self.status is Status.OK

    @property
    def unasked(self) -> bool:
        """A row never sent: the run stopped at --max-cost or --deadline first (not a failure)."""
        return self.status is Status.UNASKED

    @classmethod
    def not_asked(cls, row_id: int, why: str) -> Answer:
        return cls(row_id, Status.UNASKED, None, error=why)

    @property
    def truncated(self) -> bool:
        return self.ok and self.finish_reason == "length"

    @classmethod
    def failed(cls, row_id: int, reason: str, messages_hash: str | None = None, latency_s: float = 0.0,
               attempts: int = 0) -> Answer:
        return cls(row_id, Status.ERROR, None, error=reason, messages_hash=messages_hash,
                   latency_s=round(latency_s, 4), attempts=attempts)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id, "status": self.status.value, "output": self.output, "error": self.error,
            "messages_hash": self.messages_hash, "cached": self.cached, "attempts": self.attempts,
            "latency_s": self.latency_s, "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens, "finish_reason": self.finish_reason,
            "endpoint": self.endpoint}
        if self.reasoning_tokens is not None:
            out["reasoning_tokens"] = self.reasoning_tokens
        if self.reasoning is not None:
            out["reasoning"] = self.reasoning
        if self.messages is not None:
            out["messages"] = [dict(m) for m in self.messages]
        if self.usage_note is not None:
            out["usage_note"] = self.usage_note
        if self.exchange is not None:
            out["tool_exchange"] = dict(self.exchange)
        if self.estimated_tokens is not None:
            out["estimated_tokens"] = dict(self.estimated_tokens)
        if self.price_share is not None:
            out["price_share"] = self.price_share
        if self.repeat is not None:
            out["repeat"] = self.repeat
        if self.wording is not None:
            out["wording"] = self.wording
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Answer | None:
        """A record from a samples line (ours, or one written by an older version); None if it has no id."""
        row_id = _int(obj.get("id"))
        if row_id is None:
            return None
        status, error = status_of(obj)
        ok = status is Status.OK and isinstance(obj.get("output"), str)
        messages = obj.get("messages")
        return cls(
            id=row_id, status=Status.OK if ok else (status if status is Status.UNASKED else Status.ERROR),
            output=obj.get("output") if ok else None, error=None if ok else (error or "no answer"), messages_hash=_str(obj.get("messages_hash")),
            cached=bool(obj.get("cached")), attempts=_int(obj.get("attempts")) or 0,
            latency_s=_float(obj.get("latency_s")), prompt_tokens=_int(obj.get("prompt_tokens")),
            completion_tokens=_int(obj.get("completion_tokens")), reasoning_tokens=_int(obj.get("reasoning_tokens")),
            reasoning=_str(obj.get("reasoning")), finish_reason=_str(obj.get("finish_reason")),
            endpoint=_str(obj.get("endpoint")), usage_note=_str(obj.get("usage_note")),
            exchange=obj.get("tool_exchange") if isinstance(obj.get("tool_exchange"), dict) else None,
            estimated_tokens=_token_pair(obj.get("estimated_tokens")),
            repeat=_count(obj.get("repeat")), wording=_count(obj.get("wording")), price_share=_share(obj.get("price_share")),
            messages=tuple(m for m in messages if isinstance(m, dict)) if isinstance(messages, list) else None)


ANSWER_FIELDS = frozenset(f.name for f in fields(Answer))


@dataclass(frozen=True)
class Judgement:
    """The judge's replies to one answer's judge requests (one per reading), the score each reply
    gives under the judge's protocol (None: no number in it), or why a request failed."""

    id: int
    judge: str                               # the judge model
    template: str                            # short hash of the judge prompt template
    replies: tuple[str | None, ...]
    scores: tuple[float | None, ...]
    errors: tuple[str | None, ...]

    def to_json(self) -> dict[str, Any]:
        return {"model": self.judge, "template": self.template, "replies": list(self.replies),
                "scores": list(self.scores), "errors": list(self.errors)}


def _texts(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list | tuple) else ()


def _mapping(value: Any) -> Mapping[str, Any] | None:
    return value if isinstance(value, Mapping) else None


@dataclass(frozen=True)
class RunSettings:
    """results.json's `settings`: what a run ran with (or a `merabench score`, which records only
    tasks, data, split, strip_think and judge: it has no generation). One field a key, every key
    in the results schema; `to_json` writes it and `from_json` reads it back, an older file's
    missing or mistyped keys as their defaults. Nested parts (generation, prices, serve, batch,
    judge) stay the mappings their own records write."""

    tasks: tuple[str, ...] = ()
    data: tuple[str, ...] = ()
    split: str = "test"
    preset: str | None = None
    generation: Mapping[str, Any] | None = None
    system_prompt: str | None = None
    concurrency: int | str | None = None
    strip_think: bool = False
    tool_mode: ToolMode = ToolMode.TEXT
    endpoints: tuple[str, ...] = ()
    cache_scope: CacheScope = CacheScope.ENDPOINT
    limit: int | None = None
    prices: Mapping[str, Any] | None = None
    max_cost: float | None = None
    deadline_s: float | None = None
    serve: Mapping[str, Any] | None = None
    repeats: int = 1
    repeat_seed: str = "offset"
    wordings: str = "assigned"
    batch: Mapping[str, Any] | None = None
    judge: Mapping[str, Any] | None = None
    stopped_by: str | None = None  # what stopped the run early (--max-cost, --deadline, a server), in words
    adaptations: Any = None        # what --api-profile auto changed, as the runner recorded it

    def to_json(self) -> dict[str, Any]:
        """The `settings` object, keys in field order: a score's without the run's own keys; the
        repeats, wordings, batch, stop and adaptations only where the run had them."""
        doc: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in _RUN_ONLY and self.generation is None:
                continue
            if f.name in _WHEN_SET and value == f.default or f.name in _WITH_REPEATS and self.repeats == 1:
                continue
            doc[f.name] = list(value) if isinstance(value, tuple) else str(value) if isinstance(value, StrEnum) else value
        return doc

    @classmethod
    def from_json(cls, doc: Any) -> RunSettings:
        """The settings of a results.json (anything that is not an object: the defaults)."""
        doc = doc if isinstance(doc, Mapping) else {}
        number = _int(doc.get("limit"))
        concurrency = doc.get("concurrency")
        return cls(
            tasks=_texts(doc.get("tasks")), data=_texts(doc.get("data")), split=_str(doc.get("split")) or "test",
            preset=_str(doc.get("preset")), generation=_mapping(doc.get("generation")),
            system_prompt=_str(doc.get("system_prompt")),
            concurrency=concurrency if isinstance(concurrency, int | str) and not isinstance(concurrency, bool) else None,
            strip_think=doc.get("strip_think") is True,
            tool_mode=ToolMode.NATIVE if doc.get("tool_mode") == ToolMode.NATIVE else ToolMode.TEXT,
            endpoints=_texts(doc.get("endpoints")),
            cache_scope=CacheScope.MODEL if doc.get("cache_scope") == CacheScope.MODEL else CacheScope.ENDPOINT,
            limit=number, prices=_mapping(doc.get("prices")), max_cost=_number(doc.get("max_cost")),
            deadline_s=_number(doc.get("deadline_s")), serve=_mapping(doc.get("serve")),
            repeats=_count(doc.get("repeats")) or 1, repeat_seed=_str(doc.get("repeat_seed")) or "offset",
            wordings=_str(doc.get("wordings")) or "assigned", batch=_mapping(doc.get("batch")),
            judge=_mapping(doc.get("judge")), stopped_by=_str(doc.get("stopped_by")),
            adaptations=doc.get("adaptations"))


#: RunSettings keys a run records and a score does not
_RUN_ONLY = frozenset({"preset", "generation", "system_prompt", "concurrency", "tool_mode", "endpoints", "cache_scope",
                       "limit", "prices", "max_cost", "deadline_s", "serve", "repeats", "repeat_seed", "wordings",
                       "batch", "stopped_by", "adaptations"})
#: written only when not their default; repeats and repeat_seed only when a run asks rows more than once
_WHEN_SET = frozenset({"wordings", "batch", "stopped_by", "adaptations"})
_WITH_REPEATS = frozenset({"repeats", "repeat_seed"})


def _number(value: Any) -> float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def commonest_error(errors: Iterable[str | None]) -> tuple[str, int] | None:
    """The error said most often (the first said, among equals) and how often; None: none."""
    counts = Counter(e for e in errors if e)
    return counts.most_common(1)[0] if counts else None


@dataclass(frozen=True)
class Scored:
    answer: Answer
    metrics: Mapping[str, float] = field(default_factory=dict)
    details: Mapping[str, Any] = field(default_factory=dict)
    scored_text: str | None = None           # what the scorer saw, when it differs from the raw output
    judgement: Judgement | None = None

    @property
    def id(self) -> int:
        return self.answer.id

    def to_json(self) -> dict[str, Any]:
        out = self.answer.to_json()
        if self.scored_text is not None:
            out["answer"] = self.scored_text
        if self.judgement is not None:
            out["judge"] = self.judgement.to_json()
        if self.answer.ok and (self.metrics or self.details):
            out["metrics"] = dict(self.metrics)
            if self.details:
                out["details"] = dict(self.details)
        return out
