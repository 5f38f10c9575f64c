"""A tool-calling conversation (`--tool-mode native`) rebuilt from the replies its batches gave.

A native row is a conversation: a reply with tool calls is answered with stub results and the
model is asked again (runner/tool_loop.py). Through a Batch API it goes in waves: every row's
first request in one batch, then the second requests of the rows still in the loop in the next,
and so on. Nothing of a conversation is kept but the batches' files, so a wave resumes as any
batch does: `replay` walks the conversation again with `tool_loop.converse`, the loop a direct run
uses, handing it the reply a batch gave to each request it makes (found by that request's hash,
the one in the line's custom id). At the first request no batch answered it stops and returns
that request: the row's line in the next wave. A dialogue needs no waves: its history is the
reference, written into the first request.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import cast

from merabench.errors import BackendError
from merabench.models.base import Backend, Completion, Request
from merabench.rows.prompts import request_digest
from merabench.runner.tool_loop import converse
from merabench.runner.work import WorkItem

#: by a request's hash (a custom id's third part): the reply a batch gave, or why it gave none
Replies = Mapping[str, Completion | str]


@dataclass(frozen=True)
class NextStep:
    """The request a conversation makes next, as a work item: the history so far, and its hash."""

    item: WorkItem
    step: int


class _Unanswered(Exception):
    def __init__(self, request: Request, step: int) -> None:
        super().__init__(step)
        self.request, self.step = request, step


class _Recorded:
    """The Backend `converse` talks to: the batches' replies, by the hash of each request."""

    def __init__(self, item: WorkItem, replies: Replies) -> None:
        self.item, self.replies, self.step = item, replies, 0

    async def generate(self, request: Request) -> Completion:
        self.step += 1
        found = self.replies.get(step_item(self.item, request).messages_hash)
        if found is None:
            raise _Unanswered(request, self.step)
        if isinstance(found, str):
            raise BackendError(found if self.step == 1 else f"step {self.step} of the conversation: {found}",
                               retryable=False)
        return found


def step_item(item: WorkItem, request: Request) -> WorkItem:
    """A step's request as a work item: its messages and their hash (the first step's is the row's)."""
    spec = item.tools
    if spec is None or tuple(request.messages) == tuple(item.messages):
        return item
    messages = tuple(request.messages)
    return replace(item, messages=messages, digest=request_digest(messages, spec.tools, spec.policy))


def replay(item: WorkItem, replies: Replies) -> Completion | NextStep:
    """The row's conversation as one Completion, or the request it makes next; a BackendError
    when a batch failed one of its requests (the row fails, as a direct one would)."""
    if item.tools is None:
        raise ValueError("replay is for native tool-calling rows")
    conversation = converse(cast(Backend, _Recorded(item, replies)), item.messages, item.tools, lambda: True,
                            item.seed_offset)
    try:
        conversation.send(None)  # the recorded replies never wait: the conversation ends in one step
    except StopIteration as done:
        return cast(Completion, done.value)
    except _Unanswered as missing:
        return NextStep(step_item(item, missing.request), missing.step)
    conversation.close()
    raise RuntimeError("a replayed conversation waited for something")


def finished(item: WorkItem, replies: Replies) -> bool:
    """Whether the batches hold all of the row's conversation (or a failure that ends it)."""
    try:
        return not isinstance(replay(item, replies), NextStep)
    except BackendError:
        return True

