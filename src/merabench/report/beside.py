"""Beside a native tool-calling run's rows, the same rows' answers from a text-protocol run
(`merabench report NATIVE_RUN --text-run TEXT_RUN`): each row shows the text-mode answer, whether
it passed, and a link to that row in the text run's report."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from merabench.errors import ConfigError
from merabench.formats.results import load_results
from merabench.records import ToolMode
from merabench.runner.samples import read_records, samples_path

TASK = "gorillahard"


def _task_result(doc: dict[str, Any], folder: Path) -> dict[str, Any]:
    result = (doc.get("tasks") or {}).get(TASK)
    if not isinstance(result, dict):
        raise ConfigError(f"{folder}: has no {TASK} results")
    return result


def text_answers(native_run: Path, text_run: Path) -> dict[int, dict[str, Any]]:
    """{row id: {"o": text-mode answer, "v": its sample_pass_rate, "href": its row in the text
    run's report}}; one line when the folders are not a native and a text run of the same rows."""
    native = _task_result(load_results(native_run), native_run)
    text = _task_result(load_results(text_run), text_run)
    if native.get("tool_mode") != ToolMode.NATIVE or text.get("tool_mode", ToolMode.TEXT) != ToolMode.TEXT:
        raise ConfigError(f"--text-run pairs a --tool-mode native run with a text one: {native_run} is "
                          f"{native.get('tool_mode', 'text')}, {text_run} is {text.get('tool_mode', 'text')}")
    if native.get("data_sha256") != text.get("data_sha256"):
        raise ConfigError(f"{text_run} answered other {TASK} rows than {native_run} (their data hashes differ)")
    link = Path(os.path.relpath(text_run, native_run)) / "report.html"
    out = {}
    for row_id, record in read_records(samples_path(text_run, TASK)).items():
        metrics = given if isinstance(given := record.get("metrics"), dict) else {}
        out[row_id] = {"o": record.get("output") if isinstance(record.get("output"), str) else None,
                       "v": metrics.get("sample_pass_rate"), "href": f"{link.as_posix()}#row={TASK}/{row_id}"}
    return out


def exchange_text(exchange: Any) -> str | None:
    """A native conversation as the report shows it: how it was answered, then each reply."""
    if not isinstance(exchange, dict) or not isinstance(exchange.get("replies"), list):
        return None
    lines = [f"answered by: {exchange.get('via')} · {exchange.get('requests', len(exchange['replies']))} request(s)"]
    for n, reply in enumerate(exchange["replies"], start=1):
        if not isinstance(reply, dict):
            continue
        calls = [c for c in reply.get("tool_calls") or () if isinstance(c, dict)]
        said = "; ".join(f"{c.get('name')}({_arguments(c.get('arguments'))})" for c in calls)
        text = reply.get("content") or ""
        lines.append(f"reply {n}: " + (said + (f" · text: {text}" if text.strip() else "") if calls else f"text: {text}"))
    return "\n".join(lines)


def _arguments(arguments: Any) -> str:
    import json

    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
