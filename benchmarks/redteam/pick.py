"""The red-team solver's choice of file: the one a question names, else the one of the recipe's
kind or format, and of two that fit, the one the picking sentence means (`redteam_clauses`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from redteam import files as rf
from redteam.clauses import pick_by_content, pick_clause


def named_files(prompt: Any) -> list[str]:
    return [p for p in prompt.files if p in prompt.question or p.rsplit("/", 1)[-1] in prompt.question]


_FORMAT_GROUPS = {"csv": {"csv", "tsv"}, "tsv": {"csv", "tsv"}, "yaml": {"yaml", "yml"}, "yml": {"yaml", "yml"},
                  "md": {"md", "txt"}, "txt": {"md", "txt"}}  # a host list is a text file or a runbook


def choose(prompt: Any, kind: str | None, ext: str | None) -> str | None:
    """The file a value comes from: the one the question names, else of the recipe's kind or
    format; of two that fit, the one the picking sentence means."""
    files = list(prompt.files)
    group = _FORMAT_GROUPS.get(ext or "", {ext})
    same_ext = [p for p in files if ext and rf.extension(p) in group]
    fitting = [p for p in files if kind and rf.file_kind(p) == kind] or same_ext
    named = named_files(prompt)
    clause = pick_clause(prompt)
    picking = [p for p in named if p in clause]
    pool = (picking if len(picking) >= 2 else []) or [p for p in named if p in fitting] or fitting or named or files
    if clause and not named and len(same_ext) > 1:
        pool = same_ext
    if len(pool) > 1:
        pool = pick_by_content(prompt, pool)
    return pool[0] if pool else None


def main_file(prompt: Any, recipe: Mapping[str, Any]) -> str | None:
    for step in recipe["steps"]:
        for spec in step["args"].values():
            if spec["t"] == "path":
                return choose(prompt, spec["kind"], spec["ext"])
    named = named_files(prompt) or (list(prompt.files) if pick_clause(prompt) else [])
    if len(named) > 1:
        named = pick_by_content(prompt, named)
    return named[0] if named else (next(iter(prompt.files)) if len(prompt.files) == 1 else None)
