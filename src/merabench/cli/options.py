"""Checks and helpers for the options `run` and `score` share: request fields, endpoints, the
judge flags, numeric bounds, the result table."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Literal, TypeVar

import typer

from merabench.cli.app import escape, say, stdout_console
from merabench.errors import ConfigError, json_problem
from merabench.formats.results import summary_lines, summary_table
from merabench.judging.stage import judge_settings
from merabench.models import RequestPolicy
from merabench.models.base import SEED_MAX, SEED_MIN
from merabench.pipeline import Evaluation, JudgeRun
from merabench.records import CacheScope
from merabench.runner.budget import Prices
from merabench.scoring.score import TaskResult
from merabench.support.redaction import redact_url, register_environment, register_secret, register_url
from merabench.tasks.judge_protocol import load_template


def parse_extra_body(value: str | None) -> dict[str, Any]:
    if not value:
        return {}
    try:
        body = json.loads(value)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"--extra-body is not valid JSON: {json_problem(exc)} at column {exc.colno}") from None
    if not isinstance(body, dict):
        raise ConfigError("--extra-body must be a JSON object")
    reserved = sorted({"model", "messages"} & set(body))
    if reserved:
        raise ConfigError(f"--extra-body cannot set {', '.join(reserved)}: merabench sends them")
    return body


MAX_TOKENS = 2**31 - 1  # no context is longer; a larger number only fails at the server


def seed_option(help: str, **panel: Any) -> Any:
    """The --seed of `run` and of `generate`: one range, checked (and refused) the same way."""
    return typer.Option(min=SEED_MIN, max=SEED_MAX, help=help, **panel)

REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high")


def check_request_fields(stop: list[str] | None, drop: list[str] | None, effort: str | None) -> None:
    """Request fields a user sets or drops can be sent: a stop sequence is text, the request keeps
    its model and messages, the reasoning effort is one the APIs know."""
    if stop and any(not s for s in stop):
        raise ConfigError("--stop '' is empty: a stop sequence needs at least one character")
    kept = sorted({"model", "messages"} & set(drop or ()))
    if kept:
        raise ConfigError(f"--drop-param {kept[0]}: every request needs its {kept[0]}")
    if effort is not None and effort not in REASONING_EFFORTS:
        raise ConfigError(f"--reasoning-effort must be one of {', '.join(REASONING_EFFORTS)}, got {effort!r}")


def check_endpoint(url: str, flag: str) -> None:
    """An http(s) URL with a host and a port in 1-65535, checked at the flag (a bad port otherwise
    surfaces only at the first request, as a traceback)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ConfigError(f"{flag} {redact_url(url)}: not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{flag} {redact_url(url)}: not an http(s) URL with a host")
    if port == 0:
        raise ConfigError(f"{flag} {redact_url(url)}: port 0 is no port to connect to")


GENERATION_FLAGS = ("preset", "max_tokens", "temperature", "seed", "stop", "extra_body", "reasoning_effort",
                    "api_profile", "drop_param")


def option_given(ctx: typer.Context, name: str) -> bool:
    """Whether the user set the option `name` (a parameter's name: "max_tokens"), on the command
    line, through its environment variable or in a --config file, rather than leaving its default."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name != "DEFAULT"


Choice = TypeVar("Choice", bound=str)


def literal_of(flag: str, value: str, allowed: tuple[Choice, ...]) -> Choice:
    """`value` as the one of `allowed` it is (typed as the config's Literal), or one line on what the flag takes."""
    for choice in allowed:
        if value == choice:
            return choice
    raise ConfigError(f"{flag} must be {' or '.join(allowed)}, got {value!r}")


def check_finite(name: str, value: float | None, *, low: float, low_inclusive: bool = True,
                 high: float | None = None) -> None:
    if value is None:
        return
    too_low = value < low if low_inclusive else value <= low
    if math.isnan(value) or math.isinf(value) or too_low or (high is not None and value > high):
        bound = f"{'at least' if low_inclusive else 'more than'} {low:g}" + (f" and at most {high:g}" if high else "")
        raise ConfigError(f"{name} must be a number {bound}, got {value:g}")


def failing_tasks(results: list[TaskResult], threshold: float | None) -> list[str]:
    """Tasks whose error rate exceeds --fail-on-error; without it, tasks where every row failed."""
    failing = []
    for r in results:
        rate = r.n_errors / r.n_rows if r.n_rows else 0.0
        if (threshold is None and r.all_failed) or (threshold is not None and rate > threshold):
            failing.append(f"{r.task}: {r.n_errors}/{r.n_rows} rows failed")
    return failing


def judge_failed_tasks(results: list[TaskResult]) -> list[str]:
    """A line per task whose judge answered none of its calls or was given up mid-run: its judge
    metrics are missing or cover only some rows (exit 1)."""
    return [r.judge_headline or f"judge metrics missing: {r.task}: {r.judge_failed}" for r in results if r.judge_failed]


def print_evaluation(result: Evaluation, prices: Prices | None = None) -> None:
    """The summary: a table, or, on a terminal too narrow for it, the same figures as lines."""
    from rich.measure import Measurement

    console, tasks = stdout_console(), list(result.tasks.values())
    table = summary_table(tasks, result.wall_time_s, prices)
    if Measurement.get(console, console.options.update_width(10_000), table).maximum <= console.width:
        console.print(table)
    else:
        for line in summary_lines(tasks, result.wall_time_s, prices):
            console.print(escape(line), highlight=False)
    for note in result.notes:
        say(f"note: {note}")
    for r in result.tasks.values():
        for note in r.to_json().get("notes", []):
            say(f"note {r.task}: {note}")


def register_flag_secrets(api_key: str | None, judge_api_key: str | None, urls: list[str]) -> None:
    """The secrets given on the command line (and in the environment), masked in everything
    printed or written from now on."""
    register_environment()
    register_secret(api_key)
    register_secret(judge_api_key)
    for url in urls:
        register_url(url)


def judge_from_flags(model: str | None, urls: list[str], key: str | None, prompt: Path | None, policy: RequestPolicy,
                     cache_scope: CacheScope = CacheScope.ENDPOINT) -> JudgeRun | None:
    """The judge of `run`/`score`; `cache_scope` is run's --cache-scope, which holds for the
    judge's replies too."""
    for url in urls:
        check_endpoint(url, "--judge-base-url")
    settings = judge_settings(model, urls, key, load_template(prompt))
    if settings is None:
        return None
    return JudgeRun(settings, policy, cache_scope)


def parse_concurrency(text: str) -> int | Literal["auto"]:
    if text.strip().lower() == "auto":
        return "auto"
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_CONCURRENCY:
        raise ConfigError(f"--concurrency must be auto or a whole number from 1 to {MAX_CONCURRENCY:,}, got {text!r}")
    return value


#: requests in flight at most (every one holds a task and a connection: 10^7 took 5 GB and never started)
MAX_CONCURRENCY = 10_000
