"""GorillaHard asked through native tool calls (`--tool-mode native`): the same rows, the same
scorer, another protocol. Not the leaderboard's: its figures are compared with a text run's by
`merabench compare`, never submitted (formats/submission.py and export lmeval refuse the run)."""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter
from collections.abc import Sequence

from merabench.models.base import ToolSpec
from merabench.records import Answer, Judgement, ToolMode
from merabench.rows.prompts import HistoryIndex, Message
from merabench.rows.row import Row
from merabench.tasks.base import Aggregate, SampleScore
from merabench.tasks.gorillahard import metrics
from merabench.tasks.gorillahard.native.envelope import envelope_of
from merabench.tasks.gorillahard.native.prompt import native_messages
from merabench.tasks.gorillahard.native.tools import ABSTAIN, CLARIFY, NativeCatalog, native_catalog
from merabench.tasks.gorillahard.task import GorillaHardTask

LONGEST_PLAN = 2  # the card's plans have two steps, as every generated plan does
MAX_REPLIES = LONGEST_PLAN + 2  # a conversation's replies at most: the longest plan, its last word, one more
#: the conversation's shape, part of every request's identity: a change here asks the rows anew
POLICY = f"stub results \"$n\"; clarify and abstain end it; at most {MAX_REPLIES} replies"
VIA_WORDS = {"tool_calls": "tool calls", "clarify tool": "the clarify tool", "abstain tool": "the abstain tool",
             "text": "a text reply (read as an envelope)"}
NOT_COMPARABLE = ("--tool-mode native: the catalog went as OpenAI tools and the answers came as tool calls, mapped "
                  "to the card's envelope; not comparable with the leaderboard (its protocol is text), and "
                  "format_pass_rate / constraint_pass_rate do not apply")


@functools.lru_cache(maxsize=32)
def _catalog(tools_text: str) -> NativeCatalog:
    return native_catalog(tools_text)  # a row's messages and its tool spec read the same catalog


class GorillaHardNativeTask(GorillaHardTask):
    tool_mode = ToolMode.NATIVE

    def messages(self, row: Row, history: HistoryIndex, system_prompt: str | None = None) -> list[Message]:
        sent_as = {catalog_name: sent for sent, catalog_name in _catalog(row.inputs.get("tools", "[]")).names.items()}
        return native_messages(row, history.earlier_turns(row), sent_as, system_prompt)

    def tool_spec(self, row: Row) -> ToolSpec:
        catalog = _catalog(row.inputs.get("tools", "[]"))

        def finish(replies: Sequence) -> tuple[str, str]:
            return envelope_of(replies, catalog.names)

        return ToolSpec(catalog.tools, finish, ends_on=frozenset({CLARIFY, ABSTAIN}), max_replies=MAX_REPLIES,
                        policy=POLICY)

    def score(self, row: Row, answer: str, judgement: Judgement | None = None) -> SampleScore:
        return metrics.score_row(row, answer, native=True)

    def aggregate(self, rows: Sequence[Row], scores: Sequence[SampleScore | None]) -> Aggregate:
        result = super().aggregate(rows, scores)
        return dataclasses.replace(result, notes=(NOT_COMPARABLE, *result.notes))

    def answer_notes(self, answers: Sequence[Answer]) -> list[str]:
        """How the rows were answered: by tool calls, by a meta-tool, in text; in how many requests."""
        exchanges = [a.exchange for a in answers if a.ok and a.exchange is not None]
        if not exchanges:
            return []
        ways = Counter(str(e.get("via")) for e in exchanges)
        requests = sum(e.get("requests", 0) for e in exchanges if isinstance(e.get("requests"), int))
        said = ", ".join(f"{n} by {VIA_WORDS.get(via, via)}" for via, n in ways.most_common())
        notes = [f"answered natively: {said}; {requests:,} request(s) for {len(exchanges):,} row(s)"]
        if set(ways) == {"text"}:
            notes.append("no reply called a tool: check that the server passes the tools to the model (a chat "
                         "template without tool support drops them silently; vLLM needs --enable-auto-tool-choice)")
        return notes
