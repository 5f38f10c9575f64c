"""The records a generated question is made of."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

FORMATS = ("table", "text", "log", "code", "md", "json", "jsonl", "yaml", "toml", "ini", "xml", "docker", "sql",
           "env", "ticket")


@dataclass(frozen=True)
class File:
    path: str
    fmt: str     # one of FORMATS
    text: str

    def lines(self) -> list[str]:
        return self.text.splitlines()


@dataclass(frozen=True)
class Question:
    family: str
    lever: str
    difficulty: str            # T1_medium, T2_hard, T3_expert, T4_wild
    question: str              # Russian; names a file's path only where several are attached
    files: tuple[File, ...]
    reference: dict[str, Any]  # the envelope
    twin: str                  # the outwardly similar, unsuitable tool the catalog must hold
    extra_tools: tuple[str, ...] = ()   # tools the question is about (a policy's tool, an injected one)
    withheld: tuple[str, ...] = ()      # tools the catalog must not hold (a request no tool serves)
    format_trap: bool = False
    cost_pick: bool = False
    injected_tool: str = ""
    facts: dict[str, Any] = field(default_factory=dict)  # what the reference was derived from


def call(tool: str, **args: Any) -> dict[str, Any]:
    return {"tool": tool, "args": args}


def abstain(reason: str) -> dict[str, Any]:
    return {"abstain": True, "reason": reason}


def kind_of(reference: dict[str, Any]) -> str:
    for key, kind in (("abstain", "abstain"), ("clarify", "clarify"), ("plan", "plan"), ("calls", "calls")):
        if key in reference:
            return kind
    return "tool_call"


def reference_tools(reference: dict[str, Any]) -> list[str]:
    if "tool" in reference:
        return [reference["tool"]]
    return [s["tool"] for s in reference.get("plan", []) + reference.get("calls", [])]
