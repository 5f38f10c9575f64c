"""The `merabench` command: flags -> the pipeline, and printing. User mistakes print one clear
line and exit 2; Ctrl-C exits 130."""

from __future__ import annotations

import functools
import gc
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from merabench.budget import STOPPED_EXIT, Prices, parse_duration, resolve_prices
from merabench.cli_help import CONTROL, COST, DATA, GENERATION, JUDGE, MODEL, OUTPUT, SERVING, PanelledCommand
from merabench.datasource import load_task_data
from merabench.errors import ConfigError, MerabenchError, reading
from merabench.judge_protocol import load_template
from merabench.judging import judge_settings
from merabench.models import GenerationOptions
from merabench.models.presets import PRESETS, resolve
from merabench.pipeline import Evaluation, JudgeRun, RunConfig, ScoreConfig, evaluate, score_predictions
from merabench.pipeline import export_requests as export_pending
from merabench.predictions import load_predictions
from merabench.redaction import redact, redact_url, register_environment, register_secret, register_url
from merabench.report.html import write_report
from merabench.results import summary_table
from merabench.scoring import TaskResult
from merabench.tasks import TASKS, get_task

if TYPE_CHECKING:
    from rich.console import Console

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="Run, score and report the MERA tasks SAGE, RussianRegions and GorillaHard.")


# rich is loaded on the first message, not at start-up (a run's first request does not wait for it)
@functools.cache
def _stderr() -> Console:
    from rich.console import Console

    return Console(stderr=True, soft_wrap=True)  # messages stay one line each, greppable


@functools.cache
def _stdout() -> Console:
    from rich.console import Console

    return Console() if sys.stdout.isatty() else Console(width=160)  # piped output: don't squeeze tables


def escape(text: str) -> str:
    from rich.markup import escape as escape_markup

    return escape_markup(text)


def say(message: str) -> None:
    """A line for the user; text from models, servers and files is never read as markup."""
    _stderr().print(escape(message), highlight=False)


def _extra_body(value: str | None) -> dict[str, Any]:
    if not value:
        return {}
    try:
        body = json.loads(value)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"--extra-body is not valid JSON: {exc.msg}") from None
    if not isinstance(body, dict):
        raise ConfigError("--extra-body must be a JSON object")
    reserved = sorted({"model", "messages"} & set(body))
    if reserved:
        raise ConfigError(f"--extra-body cannot set {', '.join(reserved)}: merabench sends them")
    return body


MAX_TOKENS = 2**31 - 1  # no context is longer; a larger number only fails at the server
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high")


def _request_fields(stop: list[str] | None, drop: list[str] | None, effort: str | None) -> None:
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


def _given(ctx: typer.Context, name: str) -> bool:
    source = ctx.get_parameter_source(name)
    return source is not None and source.name != "DEFAULT"


def _as_recorded(ctx: typer.Context, out_dir: Path, model: str, generation: GenerationOptions,
                 system_prompt: str | None) -> tuple[str, GenerationOptions, str | None, dict[str, Any]]:
    """`export-requests --run DIR`: the model, generation options (its preset applied) and system
    prompt the run recorded, and its tasks and data, wherever the command does not give them; given
    options that differ from the run's are refused (the answers could not be imported into it)."""
    from merabench.jsonio import loads

    with reading(out_dir / "run.json"):
        identity = loads((out_dir / "run.json").read_bytes())
    options = identity.get("options") if isinstance(identity, dict) else None
    if not isinstance(options, dict):
        raise ConfigError(f"{out_dir}/run.json records no options: export with explicit options")
    recorded = GenerationOptions(
        max_tokens=options.get("max_tokens", 4096), temperature=options.get("temperature"), seed=options.get("seed"),
        stop=tuple(options.get("stop", ())), extra_body=options.get("extra_body", {}),
        reasoning_effort=options.get("reasoning_effort"), api_profile=options.get("api_profile", "chat"),
        drop_params=tuple(options.get("drop_params", ())))
    if any(_given(ctx, name) for name in GENERATION_FLAGS) and generation.fingerprint() != recorded.fingerprint():
        changed = sorted(k for k in set(options) | set(generation.fingerprint())
                         if options.get(k) != generation.fingerprint().get(k))
        raise ConfigError(f"the run in {out_dir} was made with other generation options (differing: "
                          f"{', '.join(changed)}); leave those flags out to export with the run's own")
    if not _given(ctx, "model"):
        model = identity.get("model", model)
    if not _given(ctx, "system_prompt"):
        system_prompt = identity.get("system_prompt")
    settings: dict[str, Any] = {}
    results = out_dir / "results.json"
    if results.exists():
        with reading(results):
            document = loads(results.read_bytes())
        settings = document.get("settings", {}) if isinstance(document, dict) else {}
    keep = {"tasks": lambda v: ",".join(v), "data": list, "split": str, "limit": lambda v: v}
    taken = {k: convert(settings[k]) for k, convert in keep.items()
             if k in settings and settings[k] is not None and not _given(ctx, k)}
    if "tasks" not in taken and not _given(ctx, "tasks"):  # a run killed before results.json: its samples
        found = [name for name in TASKS if (out_dir / f"samples_{name}.jsonl").exists()]
        if found:
            taken["tasks"] = ",".join(found)
    return model, recorded, system_prompt, taken


def _finite(name: str, value: float | None, *, low: float, low_inclusive: bool = True,
            high: float | None = None) -> None:
    if value is None:
        return
    too_low = value < low if low_inclusive else value <= low
    if math.isnan(value) or math.isinf(value) or too_low or (high is not None and value > high):
        bound = f"{'at least' if low_inclusive else 'more than'} {low:g}" + (f" and at most {high:g}" if high else "")
        raise ConfigError(f"{name} must be a number {bound}, got {value:g}")


def _failing(results: list[TaskResult], threshold: float | None) -> list[str]:
    """Tasks whose error rate exceeds --fail-on-error; without it, tasks where every row failed."""
    failing = []
    for r in results:
        rate = r.n_errors / r.n_rows if r.n_rows else 0.0
        if (threshold is None and r.all_failed) or (threshold is not None and rate > threshold):
            failing.append(f"{r.task}: {r.n_errors}/{r.n_rows} rows failed")
    return failing


def _print(result: Evaluation, prices: Prices | None = None) -> None:
    _stdout().print(summary_table(list(result.tasks.values()), result.wall_time_s, prices))
    for note in result.notes:
        say(f"note: {note}")
    for r in result.tasks.values():
        for note in r.to_json().get("notes", []):
            say(f"note {r.task}: {note}")


JudgeModel = Annotated[str | None, typer.Option(help="LLM judge, openai:<model> (default: $LM_EVAL_JUDGE_MODEL)",
                                                rich_help_panel=JUDGE)]
JudgeUrls = Annotated[list[str], typer.Option(help="judge base URL, as --base-url (ending in /v1); default: "
                                              "$LM_EVAL_JUDGE_API_BASE, the server root as the harness takes it",
                                              rich_help_panel=JUDGE)]
JudgeKey = Annotated[str | None, typer.Option(help="judge API key (default: $LM_EVAL_JUDGE_API_KEY)",
                                              rich_help_panel=JUDGE)]
JudgeConcurrency = Annotated[int, typer.Option(min=1, help="judge requests in flight", rich_help_panel=JUDGE)]
JudgePrompt = Annotated[Path | None, typer.Option(
    help="file of a judge template in the public harness's protocol (default: the template text in "
         "$LM_EVAL_JUDGE_PROMPT, else merabench's own prompt)",
    rich_help_panel=JUDGE)]


def _register(api_key: str | None, judge_api_key: str | None, urls: list[str]) -> None:
    """The secrets given on the command line (and in the environment), masked in everything
    printed or written from now on."""
    register_environment()
    register_secret(api_key)
    register_secret(judge_api_key)
    for url in urls:
        register_url(url)


def _judge(model: str | None, urls: list[str], key: str | None, prompt: Path | None, concurrency: int,
           max_retries: int = 5, timeout: float = 600.0, retry_delay: float = 1.0) -> JudgeRun | None:
    for url in urls:
        check_endpoint(url, "--judge-base-url")
    settings = judge_settings(model, urls, key, load_template(prompt))
    if settings is None:
        return None
    return JudgeRun(settings, concurrency, max_retries, timeout, retry_delay)


def _concurrency(text: str) -> int | Literal["auto"]:
    if text.strip().lower() == "auto":
        return "auto"
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise ConfigError(f"--concurrency must be auto or a whole number >= 1, got {text!r}")
    return value


def _print_version(value: bool) -> None:
    if value:
        from merabench import __version__
        from merabench.results import git_commit

        commit = git_commit()
        sys.stdout.write(f"merabench {__version__}" + (f" (commit {commit[:12]})" if commit else "") + "\n")
        raise typer.Exit()


@app.callback()
def _app_options(version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                                       help="print merabench's version and exit")] = False) -> None:
    """Run, score and report the MERA tasks SAGE, RussianRegions and GorillaHard."""


@app.command(cls=PanelledCommand)
def run(
    ctx: typer.Context,
    model: Annotated[str, typer.Option(help="openai:<model>, hf:<path>, or a baseline: reference, copy, random", rich_help_panel=MODEL)] = "reference",
    tasks: Annotated[str, typer.Option(help="comma-separated tasks", rich_help_panel=DATA)] = ",".join(TASKS),
    data: Annotated[list[str], typer.Option(help="bundled | hub | generated[:SEED] | PATH, or TASK=SPEC", rich_help_panel=DATA)] = ["bundled"],  # noqa: B006
    split: Annotated[str, typer.Option(help="split to evaluate", rich_help_panel=DATA)] = "test",
    out_dir: Annotated[Path | None, typer.Option("--out", help="run folder (rerun to resume)", rich_help_panel=CONTROL)] = None,
    base_url: Annotated[list[str], typer.Option(help="endpoint base URL, repeat for replicas", rich_help_panel=MODEL)] = [],  # noqa: B006
    api_key: Annotated[str | None, typer.Option(help="API key (default: $OPENAI_API_KEY)", rich_help_panel=MODEL)] = None,
    concurrency: Annotated[str, typer.Option(help="requests in flight per endpoint: auto (grown while the server's "
                                                  "throughput grows, cut when only its latency does) or a number",
                                             rich_help_panel=CONTROL)] = "auto",
    max_retries: Annotated[int, typer.Option(min=0, help="retries of a failed request (timeouts, 429, 5xx)", rich_help_panel=CONTROL)] = 5,
    timeout: Annotated[float, typer.Option(help="per-request timeout, seconds", rich_help_panel=CONTROL)] = 600.0,
    retry_delay: Annotated[float, typer.Option(help="first retry back-off, seconds", rich_help_panel=CONTROL)] = 1.0,
    preset: Annotated[str | None, typer.Option(help=f"request parameters of a protocol: {', '.join(PRESETS)} "
                                                    "(mera: the leaderboard's); flags below override it", rich_help_panel=GENERATION)] = None,
    max_tokens: Annotated[int | None, typer.Option(min=1, max=MAX_TOKENS, help="longest answer, in tokens [default: 4096, or the preset's]", rich_help_panel=GENERATION)] = None,
    temperature: Annotated[float | None, typer.Option(help="sampling temperature [default: 0]", rich_help_panel=GENERATION)] = None,
    seed: Annotated[int | None, typer.Option(min=-(2**63), max=2**63 - 1, help="sampling seed (also seeds --model random) [default: none, or the preset's]", rich_help_panel=GENERATION)] = None,
    stop: Annotated[list[str] | None, typer.Option(help="stop sequence, repeatable [default: none, or the preset's]", rich_help_panel=GENERATION)] = None,
    extra_body: Annotated[str | None, typer.Option(help="JSON merged into each request body", rich_help_panel=GENERATION)] = None,
    api_profile: Annotated[str, typer.Option(help="request shape: chat (max_tokens, temperature), openai-reasoning "
                                                  "(max_completion_tokens, no temperature or stop unless set), auto "
                                                  "(chat, adapting to parameters the server refuses)", rich_help_panel=MODEL)] = "chat",
    drop_param: Annotated[list[str] | None, typer.Option(help="leave this field out of every request, repeatable", rich_help_panel=MODEL)] = None,
    reasoning_effort: Annotated[str | None, typer.Option(help="reasoning_effort for reasoning models: none, minimal, low, medium, high", rich_help_panel=GENERATION)] = None,
    system_prompt: Annotated[str | None, typer.Option(help="system message before every prompt", rich_help_panel=GENERATION)] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="only the first N rows of each task", rich_help_panel=DATA)] = None,
    cache: Annotated[bool, typer.Option(help="use the response cache", rich_help_panel=CONTROL)] = True,
    cache_path: Annotated[Path | None, typer.Option(help="sqlite response cache [default: $MERABENCH_CACHE or ~/.cache/merabench]", rich_help_panel=CONTROL)] = None,
    cache_scope: Annotated[str, typer.Option(help="endpoint: answers are reused only from the same endpoints; "
                                                  "model: from any endpoint serving the same model name", rich_help_panel=CONTROL)] = "endpoint",
    strip_think: Annotated[bool, typer.Option(help="SAGE, RussianRegions: remove <think> blocks before scoring (an extra; "
                                                   "the leaderboard scores them as text; GorillaHard always removes them)",
                                              rich_help_panel=GENERATION)] = False,
    log_prompts: Annotated[bool, typer.Option(help="keep each request's messages in its samples record", rich_help_panel=OUTPUT)] = False,
    fail_on_error: Annotated[float | None, typer.Option(
        help="exit 1 if a task's error rate exceeds this [default: exit 1 only if every row of a task failed]", rich_help_panel=CONTROL)] = None,
    progress: Annotated[bool, typer.Option(help="live progress bars", rich_help_panel=CONTROL)] = True,
    judge_model: JudgeModel = None,
    judge_base_url: JudgeUrls = [],  # noqa: B006
    judge_api_key: JudgeKey = None,
    judge_concurrency: JudgeConcurrency = 16,
    judge_prompt: JudgePrompt = None,
    price_in: Annotated[float | None, typer.Option(help="price per million prompt tokens: cost in results and report", rich_help_panel=COST)] = None,
    price_out: Annotated[float | None, typer.Option(help="price per million completion tokens (reasoning included)", rich_help_panel=COST)] = None,
    price_file: Annotated[Path | None, typer.Option(help='TOML prices by model: ["gpt-4o-mini"] input = 0.15, output = 0.6', rich_help_panel=COST)] = None,
    max_cost: Annotated[float | None, typer.Option(help="stop sending once fresh answers cost this much (needs prices); "
                                                        "rerun to continue", rich_help_panel=COST)] = None,
    deadline: Annotated[str | None, typer.Option(help="stop sending after this wall time (3600, 90m, 2h); rerun to continue", rich_help_panel=COST)] = None,
    serve: Annotated[str | None, typer.Option(help="start the model's server for the run: vllm or sglang "
                                                   "(--model is then the checkpoint path or hub id)", rich_help_panel=SERVING)] = None,
    serve_cmd: Annotated[str | None, typer.Option(help="the server command instead of --serve, with {port} "
                                                       "(and {model}) filled in", rich_help_panel=SERVING)] = None,
    serve_args: Annotated[str | None, typer.Option(help="arguments passed to the server, e.g. "
                                                        "'--tensor-parallel-size 2 --max-model-len 32768'", rich_help_panel=SERVING)] = None,
    serve_replicas: Annotated[int, typer.Option(min=1, help="servers to start, one GPU set each (at most 64, and "
                                                            "one per GPU present)", rich_help_panel=SERVING)] = 1,
    serve_gpus: Annotated[str | None, typer.Option(help="each replica's CUDA_VISIBLE_DEVICES, ';' between replicas: "
                                                        "'0,1;2,3' [default: replica n gets GPU n]", rich_help_panel=SERVING)] = None,
    serve_timeout: Annotated[float, typer.Option(help="seconds to wait for the server to answer /v1/models", rich_help_panel=SERVING)] = 600.0,
    serve_env: Annotated[list[str] | None, typer.Option(
        help="pass this environment variable to the server although it looks like a credential (HF_TOKEN), "
             "repeatable", rich_help_panel=SERVING)] = None,
    export_requests: Annotated[Path | None, typer.Option(
        help="write the requests still to send as OpenAI Batch input lines to this file, and stop", rich_help_panel=OUTPUT)] = None,
    import_responses: Annotated[Path | None, typer.Option(
        help="answer from a batch output (OpenAI Batch output, or {custom_id, text} lines) instead of an endpoint", rich_help_panel=MODEL)] = None,
    config: Annotated[Path | None, typer.Option(help="a TOML file of these options (the flags' names as keys); "
                                                     "flags given here override it", rich_help_panel=CONTROL)] = None,
    dump_config: Annotated[bool, typer.Option(help="print the effective options as a config file and stop", rich_help_panel=CONTROL)] = False,
) -> None:
    """Evaluate a model (or a baseline) on the tasks; rerun the same command to resume."""
    _register(api_key, judge_api_key, [*base_url, *judge_base_url])
    if dump_config:
        from merabench.config_file import dump

        sys.stdout.write(dump(ctx.params, ctx.command.params))
        return
    _finite("--timeout", timeout, low=0, low_inclusive=False)
    _finite("--retry-delay", retry_delay, low=0)
    _request_fields(stop, drop_param, reasoning_effort)
    for url in base_url:
        check_endpoint(url, "--base-url")
    if export_requests is not None and import_responses is not None:
        raise ConfigError("--export-requests and --import-responses exclude each other: export the requests, "
                          "answer them, then import the answers in a second command")
    _finite("--temperature", temperature, low=0)
    _finite("--fail-on-error", fail_on_error, low=0, high=1)
    _finite("--max-cost", max_cost, low=0, low_inclusive=False)
    prices = resolve_prices(price_in, price_out, price_file, model)
    deadline_s = parse_duration(deadline) if deadline is not None else None
    if cache_scope not in ("endpoint", "model"):
        raise ConfigError(f"--cache-scope must be endpoint or model, got {cache_scope!r}")
    params = resolve(preset, {"max_tokens": max_tokens, "temperature": temperature, "seed": seed,
                              "stop": tuple(stop) if stop else None})
    generation = GenerationOptions(max_tokens=params["max_tokens"], temperature=params["temperature"],
                                   seed=params["seed"], stop=tuple(params["stop"]), extra_body=_extra_body(extra_body),
                                   reasoning_effort=reasoning_effort, api_profile=api_profile,
                                   drop_params=tuple(drop_param or ()))
    if api_profile not in ("chat", "openai-reasoning", "auto"):
        raise ConfigError(f"unknown --api-profile '{api_profile}'; known: chat, openai-reasoning, auto")
    if export_requests is not None and out_dir is not None and (out_dir / "run.json").exists():
        model, generation, system_prompt, recorded = _as_recorded(ctx, out_dir, model, generation, system_prompt)
        tasks, data, split, limit = (recorded.get(k, v) for k, v in
                                     (("tasks", tasks), ("data", data), ("split", split), ("limit", limit)))
    urls = base_url or ([os.environ["OPENAI_BASE_URL"]] if os.environ.get("OPENAI_BASE_URL") else [])
    served = None
    if serve is not None or serve_cmd is not None:
        import shlex

        from merabench.serving import ServeSpec

        _finite("--serve-timeout", serve_timeout, low=0, low_inclusive=False)
        if base_url:
            raise ConfigError("--serve starts its own endpoint: leave out --base-url")
        name = model.removeprefix("openai:")
        served = ServeSpec(engine=serve, model=name, args=tuple(shlex.split(serve_args or "")), command=serve_cmd,
                           replicas=serve_replicas, gpus=tuple(serve_gpus.split(";")) if serve_gpus else (),
                           timeout_s=serve_timeout, env=tuple(serve_env or ()))
        model = f"openai:{name}"  # the base URLs are known once the servers run
    config = RunConfig(
        model=model, tasks=tuple(t.strip() for t in tasks.split(",") if t.strip()), data=tuple(data), split=split,
        out=out_dir, base_urls=tuple(urls), api_key=api_key or os.environ.get("OPENAI_API_KEY"),
        concurrency=_concurrency(concurrency), max_retries=max_retries, timeout_s=timeout, retry_delay_s=retry_delay,
        generation=generation, preset=preset, system_prompt=system_prompt, limit=limit, cache=cache,
        cache_path=cache_path, cache_scope=cache_scope, strip_think=strip_think,  # type: ignore[arg-type]
        log_prompts=log_prompts, prices=prices, max_cost=max_cost, deadline_s=deadline_s,
        import_responses=import_responses, serve=served,
        command=tuple((ctx.obj or {}).get("argv") or ()),
        judge=_judge(judge_model, judge_base_url, judge_api_key, judge_prompt, judge_concurrency, max_retries,
                     timeout, retry_delay))
    if export_requests is not None:
        count = export_pending(config, export_requests)
        say(f"wrote {count} request(s) to {export_requests} (OpenAI Batch input; answer them, then rerun this "
            "command with --import-responses OUTPUT instead of --export-requests)")
        return
    sink = None
    if progress and (sys.stderr.isatty() or os.environ.get("FORCE_TERMINAL")) and _stderr().is_terminal:
        from merabench.progress import RichProgress  # rich's live display: only for a terminal

        sink = RichProgress(_stderr())
    if sink is not None:
        with sink:
            result = evaluate(config, progress=sink, say=say)
    else:
        result = evaluate(config, say=say)
    _print(result, prices)
    say(f"answers and results in {result.out}/ (open report.html)")
    if result.stopped_by:
        stopped = result.document.get("stopped", {})
        say(f"stopped early: {result.stopped_by}; {stopped.get('unasked', 0)} row(s) not asked yet; to continue: "
            f"{stopped.get('continue', 'the same command')} (exit {STOPPED_EXIT})")
        raise typer.Exit(STOPPED_EXIT)
    failing = _failing(list(result.tasks.values()), fail_on_error)
    if failing:
        reason = "--fail-on-error exceeded" if fail_on_error is not None else "every request failed"
        say(f"{reason}: " + "; ".join(failing))
        raise typer.Exit(1)


@app.command(cls=PanelledCommand)
def score(
    task: Annotated[str, typer.Argument(help="the task the predictions answer")],
    predictions: Annotated[Path, typer.Option(help="JSONL {id, output}, MERA submission JSON/ZIP, or lm-eval samples")],
    data: Annotated[str, typer.Option(help="bundled | hub | PATH")] = "bundled",
    split: str = "test",
    out_dir: Annotated[Path, typer.Option("--out", help="folder for results.json and samples")] = Path("scored"),
    strip_think: Annotated[bool, typer.Option(help="SAGE, RussianRegions: remove <think> blocks before scoring (an extra; "
                                                   "the leaderboard scores them as text; GorillaHard always removes them)")] = False,
    judge_model: JudgeModel = None,
    judge_base_url: JudgeUrls = [],  # noqa: B006
    judge_api_key: JudgeKey = None,
    judge_concurrency: JudgeConcurrency = 16,
    judge_prompt: JudgePrompt = None,
    cache: Annotated[bool, typer.Option(help="use the cache for judge replies")] = True,
    cache_path: Annotated[Path | None, typer.Option(help="sqlite cache [default: $MERABENCH_CACHE or ~/.cache/merabench]")] = None,
    explain: Annotated[int | None, typer.Option(help="print why row ID scored as it did")] = None,
) -> None:
    """Score saved answers without any model (an LLM judge is asked only if one is set)."""
    _register(None, judge_api_key, judge_base_url)
    the_task = get_task(task)
    judge = _judge(judge_model, judge_base_url, judge_api_key, judge_prompt, judge_concurrency)
    answers = load_predictions(predictions, the_task.mera_name)
    if explain is not None:
        _explainable(the_task.name, data, split, answers, explain)
    config = ScoreConfig(task=the_task.name, predictions=answers, predictions_source=f"predictions:{predictions}",
                         data=data, split=split, out=out_dir, strip_think=strip_think, cache=cache,
                         cache_path=cache_path, judge=judge)
    result = score_predictions(config, say=say)
    _print(result)
    if explain is not None:
        _explain(the_task.name, data, split, answers, explain, strip_think)


def _explainable(task_name: str, data: str, split: str, answers: dict[int, str | None], row_id: int) -> None:
    """--explain's row exists and has an answer: checked before any scoring."""
    if not any(r.id == row_id for r in load_task_data(get_task(task_name), data, split).rows):
        raise ConfigError(f"--explain {row_id}: no row with that id in {data}")
    if answers.get(row_id) is None:
        raise ConfigError(f"--explain {row_id}: the predictions have no answer for that row")


def _explain(task_name: str, data: str, split: str, answers: dict[int, str | None], row_id: int, strip: bool) -> None:
    task = get_task(task_name)
    row = next(r for r in load_task_data(task, data, split).rows if r.id == row_id)
    _stdout().print(f"\n[bold]row {row_id}[/bold]")
    _stdout().print(task.explain(row, task.scored_answer(answers[row_id] or "", strip_think=strip)), markup=False,
              highlight=False)


#: the largest set `generate` makes (about 8.5 times the card's; it is built in memory, ~26 KB a row)
MAX_GENERATED_ROWS = 10_000


def _generator_task(task: str) -> None:
    if get_task(task).name != "gorillahard":
        raise ConfigError(f"only gorillahard has a question generator, not {task}")


@app.command()
def generate(
    task: Annotated[str, typer.Argument(help="gorillahard")],
    out_dir: Annotated[Path, typer.Option("--out", help="folder for test.jsonl, shots.jsonl, manifest.json")],
    seed: Annotated[int, typer.Option(help="a new seed gives a new set; the same seed, the same bytes")] = 0,
    rows: Annotated[int, typer.Option(min=1, max=MAX_GENERATED_ROWS,
                                      help="evaluated rows, dialogue turns included")] = 1169,
    dialogues: Annotated[int, typer.Option(min=0, help="two-turn dialogues among the rows")] = 30,
) -> None:
    """Generate a fresh GorillaHard-style question set."""
    _generator_task(task)
    from merabench.tasks.gorillahard.generator.build import SetPlan, write_set

    if dialogues >= rows:
        raise ConfigError("--dialogues must be fewer than --rows")
    started = time.monotonic()
    try:
        test_path, shots_path = write_set(SetPlan(seed=seed, rows=rows, dialogues=dialogues), out_dir)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    _stderr().print(f"wrote {test_path} and {shots_path} in {time.monotonic() - started:.1f} s; "
                  f"check it with: merabench validate {task} {out_dir}")


@app.command()
def validate(
    task: Annotated[str, typer.Argument(help="gorillahard")],
    folder: Annotated[Path, typer.Argument(help="a folder with test.jsonl and shots.jsonl")],
    audit: Annotated[bool, typer.Option(help="also print the set's variety and the shortcut baselines' scores "
                                             "(against a set of the next seed)")] = False,
) -> None:
    """Prove a GorillaHard set sound: a line per check, exit 1 if any fails."""
    _generator_task(task)
    from merabench.tasks.gorillahard.generator.validate import validate as run_checks

    checks = run_checks(folder)
    for check in checks:
        mark = "[green]ok  [/green]" if check.ok else ("[red]FAIL[/red]" if check.enforced else "[yellow]warn[/yellow]")
        _stdout().print(f"{mark} {check.name:<24} {escape(check.detail)}", soft_wrap=True, highlight=False)
    if audit:
        from merabench.tasks.gorillahard.generator.audit import audit_lines

        for line in audit_lines(folder):
            _stdout().print(f"info {escape(line)}", soft_wrap=True, highlight=False)
    failed = [c.name for c in checks if not c.ok and c.enforced]
    if failed:
        _stderr().print(f"[red]{len(failed)} check(s) failed:[/red] {', '.join(failed)}")
        raise typer.Exit(1)


@app.command()
def submission(
    run_dir: Annotated[Path | None, typer.Option("--run", help="a `merabench run` folder to package")] = None,
    out_zip: Annotated[Path, typer.Option("--out", help="the ZIP to write, or to check with --check")] = Path(
        "submission.zip"),
    check: Annotated[bool, typer.Option(help="only check --out against the format (and --data's test ids)")] = False,
    data: Annotated[str | None, typer.Option(help="bundled | hub | PATH: check ids against this test split")] = None,
    allow_incomplete: Annotated[bool, typer.Option(help="package a run with missing tasks or rows anyway")] = False,
) -> None:
    """Write a MERA submission ZIP from a run folder, or check one."""
    from merabench.submission import check_submission, write_submission

    if not check:
        if run_dir is None:
            raise ConfigError("--run DIR is needed to write a submission (or pass --check)")
        counts, incomplete = write_submission(run_dir, out_zip, allow_incomplete=allow_incomplete)
        say(f"wrote {out_zip}: " + ", ".join(f"{name} {n}" for name, n in counts.items()))
        for problem in incomplete:
            say(f"incomplete (--allow-incomplete): {problem}")
    expected = None
    if data is not None:
        expected = {t.mera_name: {r.id for r in load_task_data(t, data).rows} for t in TASKS.values()}
    found = check_submission(out_zip, expected)
    if not check and allow_incomplete:
        found = [p for p in found if not p.endswith(": missing") and "missing (first" not in p]
    for problem in found:
        say(f"problem: {problem}")
    if found:
        raise typer.Exit(1)
    say(f"{out_zip}: the format is right, " + ("and every test row is there" if expected else
        "with every task; rows were not checked against a test split (--data hub|PATH does that)"))


@app.command()
def export(
    kind: Annotated[str, typer.Argument(help="the format: lmeval (lm-evaluation-harness 0.4 logs)")],
    run_dir: Annotated[Path, typer.Argument(help="a run or score folder with results.json")],
    out: Annotated[Path, typer.Option(help="the folder to write results_<stamp>.json and samples_<task>_<stamp>.jsonl")],
    allow_incomplete: Annotated[bool, typer.Option(help="export a run with failed or unasked rows, leaving them out")] = False,
) -> None:
    """Write a finished run's logs in another tool's format (lmeval: what lm-eval and MERA's packer read)."""
    if kind != "lmeval":
        raise ConfigError(f"unknown export format '{kind}'; known: lmeval")
    from merabench.lmeval import export_lmeval

    written, left_out = export_lmeval(run_dir, out, allow_incomplete=allow_incomplete)
    for path in written:
        say(f"wrote {path}")
    for problem in left_out:
        say(f"left out (--allow-incomplete): {problem}")


@app.command()
def report(run_dir: Annotated[Path, typer.Argument(help="a run or score folder with results.json")]) -> None:
    """Write (again) the self-contained report.html of a run or score folder."""
    if not (run_dir / "results.json").exists():
        raise ConfigError(f"{run_dir} has no results.json")
    _stderr().print(f"wrote {write_report(run_dir)}")


@app.command()
def compare(
    runs: Annotated[list[Path], typer.Argument(help="two run or score folders (a paired comparison), or more "
                                                     "(a leaderboard)")],
    json_out: Annotated[Path | None, typer.Option("--json", help="also write the comparison here")] = None,
    html_out: Annotated[Path | None, typer.Option("--html", help="also write the leaderboard as a self-contained "
                                                                 "page here")] = None,
) -> None:
    """Two runs: second minus first per metric, in the metric's own unit, with 95 % paired bootstrap
    intervals. More runs: a leaderboard of their headline metrics. Only rows whose content is equal
    in every run are compared."""
    from merabench.compare import compare_runs, leaderboard, to_json

    if len(runs) < 2:
        raise ConfigError("compare needs at least two run folders")
    if len(runs) == 2:
        result = compare_runs(runs[0], runs[1])
        _print_paired(result)
    else:
        result = leaderboard(runs)
        _print_leaderboard(result)
    if html_out is not None:
        from merabench.report.leaderboard import render
        from merabench.samples import write_atomic

        write_atomic(html_out, render(result if len(runs) > 2 else leaderboard(runs)))
        say(f"wrote {html_out}")
    if json_out is not None:
        from merabench.samples import write_atomic

        write_atomic(json_out, to_json(result) + "\n")  # through the one redaction, like every file


def _print_paired(result: dict[str, Any]) -> None:
    from rich.table import Table

    from merabench.compare import headline_first

    table = Table(title=f"{result['second']} minus {result['first']}", title_justify="left")
    for column in ("task", "metric", "unit", "first", "second", "difference", "95 % interval", "units",
                   "second better", "first better"):
        table.add_column(column, justify="left" if column in ("task", "metric", "unit") else "right")
    for task, metrics in result["tasks"].items():
        for n, name in enumerate(headline_first(task, metrics)):
            m = metrics[name]
            significant = m["low"] > 0 or m["high"] < 0
            table.add_row(task if n == 0 else "", name, m["unit"], f"{m['first']:.4f}", f"{m['second']:.4f}",
                          f"{m['difference']:+.4f}" + (" *" if significant else ""),
                          f"{m['low']:+.4f} … {m['high']:+.4f}", str(m["n"]),
                          "" if m["second_better"] is None else str(m["second_better"]),
                          "" if m["first_better"] is None else str(m["first_better"]))
    _stdout().print(table)
    _stdout().print("* the interval excludes 0")
    for note in result["notes"]:
        say(f"note: {note}")


def _print_leaderboard(result: dict[str, Any]) -> None:
    from rich.table import Table

    from merabench.report.leaderboard import cell_text, versus_best

    for name, task in result["tasks"].items():
        metrics = [m.name for m in TASKS[name].metrics if any(m.name in r["metrics"] for r in task["runs"])]
        table = Table(title=f"{name}: {task['rows']} rows shared by every run, ranked by {task['ranked_by']}",
                      title_justify="left")
        for column in ("rank", "run", "model", "data", *metrics):
            table.add_column(column, justify="left" if column in ("run", "model", "data") else "right")
        for run in task["runs"]:
            cells = [f"{cell_text(c)}\n{versus_best(c)}" if (c := run["metrics"].get(m)) else "—" for m in metrics]
            table.add_row(str(run.get("rank", "")), escape(run["folder"]), escape(run["model"]), escape(run["data"]),
                          *(escape(c) for c in cells))
        _stdout().print(table)
    _stdout().print("each value with its 95 % interval; under it the paired difference from the best run "
                    "(*: its interval excludes 0)")
    for note in result["notes"]:
        say(f"note: {note}")


@app.command("tasks")
def list_tasks() -> None:
    """List the tasks with their data sources and metrics."""
    for t in TASKS.values():
        _stdout().print(f"[bold]{t.name}[/bold] ({t.mera_name}) — {t.description}", soft_wrap=True)
        if t.uses_judge:
            _stdout().print("  judge:   --judge-model openai:<model> --judge-base-url URL (or LM_EVAL_JUDGE_*)", soft_wrap=True)
        _stdout().print(f"  data:    bundled (default) | hub: {t.hub_id} (splits test, shots) | "
                  "local: JSONL, JSON list, task JSON, folder with test.jsonl/shots.jsonl", soft_wrap=True)
        for m in t.metrics:
            _stdout().print(f"  metric:  {m.name}{' (headline)' if m.headline else ''} — {m.description}", soft_wrap=True)
        _stdout().print()


def _usage_error_types() -> tuple[type[BaseException], ...]:
    """click's exception classes: the installed click's and the copy that newer typer vendors."""
    found: list[type[BaseException]] = []
    for module in ("click.exceptions", "typer._click.exceptions"):
        try:
            mod = __import__(module, fromlist=["ClickException"])
        except ImportError:
            continue
        found.append(mod.ClickException)
    return tuple(found)


def _abort_types() -> tuple[type[BaseException], ...]:
    found: list[type[BaseException]] = []
    for module in ("click.exceptions", "typer._click.exceptions"):
        try:
            found.append(__import__(module, fromlist=["Abort"]).Abort)
        except (ImportError, AttributeError):
            continue
    return tuple(found)


def _needs_requests_file(values: dict[str, Any]) -> None:
    if values.get("export_requests") is None:
        raise ConfigError("export-requests needs --out FILE (the requests to write)")


def _needs_batch_output(values: dict[str, Any]) -> None:
    if values.get("import_responses") is None:
        raise ConfigError("import-responses needs the batch output file: import-responses FILE --out RUN_DIR ...")


@functools.cache
def command_group() -> Any:
    """typer's commands plus `export-requests` and `import-responses`: `run` with its
    --export-requests / --import-responses under friendlier names. The parameters keep their
    names (one set of options, one run identity), so a run resumes with any of the three."""
    from merabench.cli_help import as_argument, derived_command, renamed_option

    group = typer.main.get_command(app)
    run_command = group.commands["run"]  # type: ignore[attr-defined]
    option = {p.name: p for p in run_command.params}
    export = derived_command(
        "export-requests", run_command, drop=("import_responses", "dump_config"), check=_needs_requests_file,
        help="Write the requests a run still needs as OpenAI Batch input lines, and stop: `run` with "
             "--export-requests FILE (the same options describe the same run).",
        replace={"export_requests": renamed_option(option["export_requests"], "--out",
                                                   help="the file to write the requests to"),
                 "out_dir": renamed_option(option["out_dir"], "--run",
                                           help="a run folder: only the requests it has no answer for")})
    imported = derived_command(
        "import-responses", run_command, drop=("import_responses", "export_requests", "dump_config"),
        check=_needs_batch_output,
        help="Answer a run from a batch output (OpenAI Batch output, or {custom_id, text} lines) and score it: "
             "`run` with --import-responses FILE.",
        leading=[as_argument(option["import_responses"], "FILE", "the batch output (JSONL)")])
    commands = dict(group.commands)  # type: ignore[attr-defined]
    order = ["run", "export-requests", "import-responses"]
    group.commands = {"run": run_command, "export-requests": export,  # type: ignore[attr-defined]
                      "import-responses": imported, **{k: v for k, v in commands.items() if k not in order}}
    return group


def _config_defaults(argv: list[str]) -> dict[str, Any]:
    """click's default_map from `run --config FILE` (the file's values become the defaults, so
    every flag on the command line overrides them). The batch commands read it by run's flags."""
    if not argv or argv[0] not in ("run", "export-requests", "import-responses"):
        return {}
    path = None
    for n, arg in enumerate(argv):
        if arg == "--config" and n + 1 < len(argv):
            path = argv[n + 1]
        elif arg.startswith("--config="):
            path = arg.split("=", 1)[1]
    if path is None:
        return {}
    from merabench.config_file import load_defaults

    return {argv[0]: load_defaults(Path(path), command_group().commands["run"].params)}


class _Redacting:
    """A terminal stream whose every write is masked (redaction.py): messages, tables, progress,
    and anything else that prints, a traceback included."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(redact(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


#: options that name a file or folder: an empty value would silently mean the current folder
PATH_FLAGS = ("--out", "--run", "--data", "--predictions", "--cache-path", "--config", "--export-requests",
              "--import-responses", "--price-file", "--judge-prompt", "--json")


def _no_empty_paths(args: list[str]) -> None:
    for n, arg in enumerate(args):
        flag, eq, value = arg.partition("=")
        if flag in PATH_FLAGS and ((eq and not value.strip()) or (
                not eq and n + 1 < len(args) and not args[n + 1].strip())):
            raise ConfigError(f"{flag} '' is empty: give a file or folder (. for the current one)")


def main(argv: list[str] | None = None) -> None:
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Redacting(sys.stdout), _Redacting(sys.stderr)
    try:
        _main(argv)
    finally:
        sys.stdout, sys.stderr = streams


def _main(argv: list[str] | None) -> None:
    try:
        args = list(sys.argv[1:] if argv is None else argv) or ["--help"]  # bare `merabench`: the help
        _no_empty_paths(args)
        # without standalone mode click returns (not raises) the code of a typer.Exit
        code = command_group().main(args=args, prog_name="merabench", standalone_mode=False,
                                    default_map=_config_defaults(args), obj={"argv": args})
    except MerabenchError as exc:
        _stderr().print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        sys.exit(exc.exit_code)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        say("interrupted: everything answered so far is saved; rerun the same command to resume")
        sys.exit(130)
    except _abort_types():
        say("interrupted: everything answered so far is saved; rerun the same command to resume")
        sys.exit(130)
    except _usage_error_types() as exc:
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        _stderr().print(f"[red]error:[/red] {escape(' '.join(message.split()))} (see merabench --help)", highlight=False)
        sys.exit(2)
    if code == 130:  # typer turns Ctrl-C into a returned 130
        say("interrupted: everything answered so far is saved; rerun the same command to resume")
    if isinstance(code, int) and code:
        sys.exit(code)


def entry() -> None:
    """The `merabench` process: main(), then an exit that skips the collector's last full pass
    over every object of the run (a tenth of a second after a big run; the OS frees the memory)."""
    try:
        main()
    finally:
        gc.freeze()


if __name__ == "__main__":
    entry()
