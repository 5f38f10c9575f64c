"""`merabench run` and `merabench score`: flags to a RunConfig / ScoreConfig, then the pipeline."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer

from merabench.cli.app import app, say, stderr_console, stdout_console
from merabench.cli.flags import Batch, Budget, Cache, Control, Data, Endpoint, Generation, Judge, Serving
from merabench.cli.help import DATA, OUTPUT, PanelledCommand
from merabench.cli.options import (
    GENERATION_FLAGS,
    check_endpoint,
    check_finite,
    check_request_fields,
    failing_tasks,
    judge_failed_tasks,
    judge_from_flags,
    literal_of,
    option_given,
    parse_concurrency,
    parse_extra_body,
    print_evaluation,
    register_flag_secrets,
)
from merabench.cli.overwrites import refuse_run_overwrites, refuse_score_overwrites
from merabench.errors import ConfigError, RunPaused, one_of, reading
from merabench.formats.predictions import read_predictions
from merabench.models import BackendSettings, GenerationOptions, RequestPolicy
from merabench.models.endpoints import MAX_BACKOFF_S
from merabench.models.presets import resolve
from merabench.models.shaping import ApiProfile
from merabench.pipeline import Evaluation, RunConfig, ScoreConfig, evaluate, score_predictions
from merabench.pipeline import export_requests as export_pending
from merabench.records import CacheScope, ToolMode
from merabench.report.views import explained
from merabench.runner.budget import Limits, parse_duration, resolve_prices
from merabench.runner.cache import CacheSettings
from merabench.runner.work import RepeatSeed
from merabench.support.redaction import register_fields
from merabench.tasks import TASKS, get_task
from merabench.tasks.datasource import load_task_data
from merabench.tasks.wordings import WordingChoice

if TYPE_CHECKING:
    from merabench.models.serving import ServeSpec
    from merabench.runner.batches.job import BatchSettings


def _as_recorded(ctx: typer.Context, out_dir: Path, model: str, generation: GenerationOptions,
                 system_prompt: str | None, tasks: str) -> tuple[str, GenerationOptions, str | None, dict[str, Any]]:
    """`export-requests --run DIR`: the model, generation options (its preset applied) and system
    prompt the run recorded, and its tasks and data, wherever the command does not give them; given
    options that differ from the run's are refused (the answers could not be imported into it)."""
    from merabench.formats.results import read_results
    from merabench.rows.jsonio import loads

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
    if any(option_given(ctx, name) for name in GENERATION_FLAGS) and generation.fingerprint() != recorded.fingerprint():
        changed = sorted(k for k in set(options) | set(generation.fingerprint())
                         if options.get(k) != generation.fingerprint().get(k))
        raise ConfigError(f"the run in {out_dir} was made with other generation options (differing: "
                          f"{', '.join(changed)}); leave those flags out to export with the run's own")
    if not option_given(ctx, "model"):
        model = identity.get("model", model)
    if not option_given(ctx, "system_prompt"):
        system_prompt = identity.get("system_prompt")
    taken = _recorded_tasks(ctx, out_dir, read_results(out_dir, strict=True) or {}, tasks)
    if "tasks" not in taken and not option_given(ctx, "tasks"):  # a run killed before results.json: its samples
        found = [name for name in TASKS if (out_dir / f"samples_{name}.jsonl").exists()]
        if found:
            taken["tasks"] = ",".join(found)
    return model, recorded, system_prompt, taken


def _recorded_tasks(ctx: typer.Context, out_dir: Path, document: dict[str, Any], tasks: str) -> dict[str, Any]:
    """The tasks of results.json (those a partial rerun kept from an earlier run included, as the
    report and the submission count them) and the data, split and limit each was run with, where
    the command does not give them; tasks run with another --split or --limit cannot share one
    export and are refused, naming them."""
    from merabench.formats.results import task_settings
    from merabench.tasks.datasource import spec_for

    recorded = [name for name in TASKS if name in (document.get("tasks") or {})]
    chosen = [t.strip() for t in tasks.split(",") if t.strip()] if option_given(ctx, "tasks") else recorded
    chosen = [name for name in chosen if name in recorded]
    if not chosen:
        return {}
    taken: dict[str, Any] = {} if option_given(ctx, "tasks") else {"tasks": ",".join(chosen)}
    settings = {name: task_settings(document, name) for name in chosen}
    if not option_given(ctx, "data"):
        specs = {name: spec_for(list(settings[name].data), name) for name in chosen}
        taken["data"] = ([next(iter(specs.values()))] if len(set(specs.values())) == 1
                         else [f"{name}={spec}" for name, spec in specs.items()])
    for key in ("split", "limit"):
        if option_given(ctx, key):
            continue
        values = {name: getattr(settings[name], key) for name in chosen}
        if len(set(values.values())) > 1:
            shown = ", ".join(f"{name} {value if value is not None else 'unset'}" for name, value in values.items())
            raise ConfigError(f"the tasks in {out_dir} were run with different --{key} ({shown}): export them "
                              f"one at a time (--tasks), or give --{key}")
        if values[chosen[0]] is not None:
            taken[key] = values[chosen[0]]
    return taken


def _spelt_out(ctx: typer.Context, model: str, generation: GenerationOptions, system_prompt: str | None,
               taken: dict[str, Any]) -> list[str]:
    """The flags of what `export-requests --run DIR` took from the run rather than the command line:
    the import's command gives them, so that it answers the same run."""
    from merabench.runner.batchfile import generation_flags

    flags = [] if option_given(ctx, "model") else ["--model", model]
    if not any(option_given(ctx, name) for name in GENERATION_FLAGS):
        flags += generation_flags(generation)
    if system_prompt is not None and not option_given(ctx, "system_prompt"):
        flags += ["--system-prompt", system_prompt]
    for key, value in taken.items():
        for one in (value if isinstance(value, list) else [value]):
            flags += [f"--{key}", str(one)]
    return flags


EVERY_TASK = ",".join(TASKS)  # --tasks' default


@app.command(cls=PanelledCommand)
def run(
    ctx: typer.Context,
    model: Endpoint.Model = "reference",
    tasks: Data.Tasks = EVERY_TASK,
    data: Data.Specs = ["bundled"],  # noqa: B006
    split: Data.Split = "test",
    out_dir: Control.OutDir = None,
    base_url: Endpoint.BaseUrl = [],  # noqa: B006
    api_key: Endpoint.ApiKey = None,
    concurrency: Endpoint.Concurrency = "auto",
    max_retries: Endpoint.MaxRetries = 5,
    timeout: Endpoint.Timeout = 600.0,
    retry_delay: Endpoint.RetryDelay = 1.0,
    preset: Generation.Preset = None,
    max_tokens: Generation.MaxTokens = None,
    temperature: Generation.Temperature = None,
    seed: Generation.Seed = None,
    stop: Generation.Stop = None,
    extra_body: Generation.ExtraBody = None,
    api_profile: Endpoint.Profile = ApiProfile.CHAT.value,
    drop_param: Endpoint.DropParam = None,
    reasoning_effort: Generation.ReasoningEffort = None,
    system_prompt: Generation.SystemPrompt = None,
    tool_mode: Generation.ToolUse = ToolMode.TEXT.value,
    limit: Data.Limit = None,
    repeats: Generation.Repeats = 1,
    repeat_seed: Generation.RepeatSeed = "offset",
    wordings: Generation.Wordings = "assigned",
    cache: Cache.Use = True,
    cache_path: Cache.File = None,
    cache_scope: Cache.Scope = CacheScope.ENDPOINT.value,
    strip_think: Generation.StripThink = False,
    log_prompts: Control.LogPrompts = False,
    fail_on_error: Control.FailOnError = None,
    progress: Control.Progress = True,
    judge_model: Judge.Model = None,
    judge_base_url: Judge.BaseUrl = [],  # noqa: B006
    judge_api_key: Judge.ApiKey = None,
    judge_concurrency: Judge.Concurrency = 16,
    judge_prompt: Judge.Prompt = None,
    price_in: Budget.PriceIn = None,
    price_out: Budget.PriceOut = None,
    price_file: Budget.PriceFile = None,
    max_cost: Budget.MaxCost = None,
    deadline: Budget.Deadline = None,
    serve: Serving.Engine = None,
    serve_cmd: Serving.Cmd = None,
    serve_args: Serving.Args = None,
    serve_replicas: Serving.Replicas = 1,
    serve_gpus: Serving.Gpus = None,
    serve_timeout: Serving.Timeout = 600.0,
    serve_env: Serving.Env = None,
    batch: Batch.Use = False,
    batch_poll: Batch.Poll = 60.0,
    detach: Batch.Detach = False,
    batch_fallback: Batch.Fallback = "batch",
    batch_discount: Batch.Discount = 0.5,
    batch_max_requests: Batch.MaxRequests = 50_000,
    batch_max_mb: Batch.MaxMb = 200.0,
    export_requests: Control.ExportRequests = None,
    import_responses: Endpoint.ImportResponses = None,
    config: Control.Config = None,
    dump_config: Control.DumpConfig = False,
) -> None:
    """Evaluate a model (or a baseline) on the tasks; rerun the same command to resume."""
    register_flag_secrets(api_key, judge_api_key, [*base_url, *judge_base_url])
    if dump_config:
        from merabench.cli.config_file import dump

        if extra_body:
            with contextlib.suppress(ValueError):  # not JSON: the run refuses it; the dump shows it as given
                register_fields(json.loads(extra_body))

        sys.stdout.write(dump(ctx.params, ctx.command.params))
        return
    _check_request_flags(timeout, retry_delay, stop, drop_param, reasoning_effort, base_url,
                         export_requests, import_responses)
    check_finite("--temperature", temperature, low=0)
    check_finite("--fail-on-error", fail_on_error, low=0, high=1)
    check_finite("--max-cost", max_cost, low=0, low_inclusive=False)
    prices = resolve_prices(price_in, price_out, price_file, model)
    deadline_s = parse_duration(deadline) if deadline is not None else None
    scope = one_of(CacheScope, cache_scope, "--cache-scope")
    mode = one_of(ToolMode, tool_mode, "--tool-mode")
    generation = _generation_options(preset, max_tokens, temperature, seed, stop, extra_body, reasoning_effort,
                                     api_profile, drop_param)
    recorded_flags: list[str] = []
    if export_requests is not None and out_dir is not None and (out_dir / "run.json").exists():
        model, generation, system_prompt, recorded = _as_recorded(ctx, out_dir, model, generation,
                                                                  system_prompt, tasks)
        tasks, data = recorded.get("tasks", tasks), recorded.get("data", data)
        split, limit = recorded.get("split", split), recorded.get("limit", limit)
        recorded_flags = _spelt_out(ctx, model, generation, system_prompt, recorded)
    urls = base_url or ([os.environ["OPENAI_BASE_URL"]] if os.environ.get("OPENAI_BASE_URL") else [])
    served = None
    if serve is not None or serve_cmd is not None:
        served = _serve_spec(model, base_url, serve, serve_cmd, serve_args, serve_replicas, serve_gpus,
                             serve_timeout, serve_env)
        model = f"openai:{served.model}"  # the base URLs are known once the servers run
    policy = RequestPolicy(parse_concurrency(concurrency), max_retries, timeout, retry_delay)
    run_config = RunConfig(  # not `config`: that is the --config file's path
        model=model, tasks=tuple(t.strip() for t in tasks.split(",") if t.strip()), data=tuple(data), split=split,
        out=out_dir, endpoint=BackendSettings(tuple(urls), api_key or os.environ.get("OPENAI_API_KEY"), policy),
        generation=generation, preset=preset, system_prompt=system_prompt, limit=limit,
        cache=CacheSettings(cache, cache_path, scope), strip_think=strip_think,
        log_prompts=log_prompts, limits=Limits(prices, max_cost, deadline_s),
        import_responses=import_responses, serve=served, tool_mode=mode, repeats=repeats,
        repeat_seed=_repeat_seed(repeat_seed), wordings=_wordings(wordings),
        command=tuple((ctx.obj or {}).get("argv") or ()),
        batch=_batch_settings(ctx, batch, batch_poll, detach, batch_fallback, batch_discount, batch_max_requests,
                              batch_max_mb),
        judge=judge_from_flags(judge_model, judge_base_url, judge_api_key, judge_prompt,
                               RequestPolicy(judge_concurrency, max_retries, timeout, retry_delay), scope))
    refuse_run_overwrites(ctx.command.name, ctx.params, run_config, export_requests)
    if export_requests is not None:
        _export(ctx, run_config, export_requests, recorded_flags)
        return
    result = _evaluate_showing_progress(run_config, progress)
    print_evaluation(result, prices)
    say(f"answers and results in {result.out}/ (open report.html)")
    _exit_as_run_went(result, fail_on_error)


def _batch_settings(ctx: typer.Context, batch: bool, poll: float, detach: bool, fallback: str, discount: float,
                    max_requests: int, max_mb: float) -> BatchSettings | None:
    """`--batch` and its options (runner/batches/), or None; its options without it are one line."""
    if not batch:
        given = [f"--{name.replace('_', '-')}" for name in ("batch_poll", "detach", "batch_fallback", "batch_discount",
                                                            "batch_max_requests", "batch_max_mb")
                 if option_given(ctx, name)]
        if given:
            raise ConfigError(f"{', '.join(given)} go(es) with --batch (a run through the endpoint's Batch API)")
        return None
    from merabench.runner.batches.job import BatchSettings, Fallback

    # cast: settings.check() just below refuses any other fallback, in its turn among the flags
    settings = BatchSettings(poll_s=poll, detach=detach, fallback=cast(Fallback, fallback), discount=discount,
                             max_requests=max_requests, max_mb=max_mb)
    settings.check()
    return settings


def _wordings(value: str) -> WordingChoice:
    return literal_of("--wordings", value, ("assigned", "all"))


def _repeat_seed(value: str) -> RepeatSeed:
    return literal_of("--repeat-seed", value, ("offset", "same"))


def _check_request_flags(timeout: float, retry_delay: float, stop: list[str] | None, drop_param: list[str] | None,
                         reasoning_effort: str | None, base_url: list[str], export_requests: Path | None,
                         import_responses: Path | None) -> None:
    """Refuse request flags no endpoint could be asked with, before anything is read or sent."""
    check_finite("--timeout", timeout, low=0, low_inclusive=False)
    check_finite("--retry-delay", retry_delay, low=0, high=MAX_BACKOFF_S)  # 1e300 would wait for ever
    check_request_fields(stop, drop_param, reasoning_effort)
    for url in base_url:
        check_endpoint(url, "--base-url")
    if export_requests is not None and import_responses is not None:
        raise ConfigError("--export-requests and --import-responses exclude each other: export the requests, "
                          "answer them, then import the answers in a second command")


def _generation_options(preset: str | None, max_tokens: int | None, temperature: float | None, seed: int | None,
                        stop: list[str] | None, extra_body: str | None, reasoning_effort: str | None,
                        api_profile: str, drop_param: list[str] | None) -> GenerationOptions:
    """The request parameters: the preset's, with the flags given overriding them."""
    params = resolve(preset, {"max_tokens": max_tokens, "temperature": temperature, "seed": seed,
                              "stop": tuple(stop) if stop else None})
    generation = GenerationOptions(max_tokens=params["max_tokens"], temperature=params["temperature"],
                                   seed=params["seed"], stop=tuple(params["stop"]), extra_body=parse_extra_body(extra_body),
                                   reasoning_effort=reasoning_effort, api_profile=api_profile,
                                   drop_params=tuple(drop_param or ()))
    one_of(ApiProfile, api_profile, "--api-profile")
    return generation


def _serve_spec(model: str, base_url: list[str], serve: str | None, serve_cmd: str | None, serve_args: str | None,
                serve_replicas: int, serve_gpus: str | None, serve_timeout: float,
                serve_env: list[str] | None) -> ServeSpec:
    """The servers `--serve` / `--serve-cmd` start for the run, the model named without its openai: prefix."""
    import shlex

    from merabench.models.serving import ServeSpec

    check_finite("--serve-timeout", serve_timeout, low=0, low_inclusive=False)
    if base_url:
        raise ConfigError("--serve starts its own endpoint: leave out --base-url")
    name = model.removeprefix("openai:")
    try:
        args = tuple(shlex.split(serve_args or ""))
    except ValueError as exc:  # an unclosed quotation
        raise ConfigError(f"--serve-args cannot be split into words: {exc}") from None
    return ServeSpec(engine=serve, model=name, args=args, command=serve_cmd,
                     replicas=serve_replicas, gpus=tuple(serve_gpus.split(";")) if serve_gpus else (),
                     timeout_s=serve_timeout, env=tuple(serve_env or ()))


def _export(ctx: typer.Context, config: RunConfig, export_requests: Path, recorded_flags: list[str]) -> None:
    """--export-requests: write the requests still to send, and say the command that imports their answers."""
    from merabench.runner.batchfile import import_command

    count = export_pending(config, export_requests)
    command = import_command((ctx.obj or {}).get("argv") or ["run"], config.out_dir(), recorded_flags)
    say(f"wrote {count} request(s) to {export_requests} (OpenAI Batch input); answer them, then import the "
        f"batch's output file in place of OUTPUT.jsonl with: {command}")


def _evaluate_showing_progress(config: RunConfig, progress: bool) -> Evaluation:
    """The run, with live progress bars when --progress is on and stderr is a terminal; a run
    paused with nothing lost (batches still running under --detach, a Batch API that kept
    refusing) says what continues it, as a line, not an error, and exits 3."""
    try:
        if progress and (sys.stderr.isatty() or os.environ.get("FORCE_TERMINAL")) and stderr_console().is_terminal:
            from merabench.cli.progress import RichProgress  # rich's live display: only for a terminal

            with RichProgress(stderr_console()) as sink:
                return evaluate(config, progress=sink, say=say)
        return evaluate(config, say=say)
    except RunPaused as exc:
        say(str(exc))
        raise typer.Exit(exc.exit_code) from None


def _exit_as_run_went(result: Evaluation, fail_on_error: float | None) -> None:
    """Say what kept the run from a clean end and exit with its code: the stop's own for a run stopped
    early (rerun to continue: errors.STOPPED_EXIT), 1 for tasks failing --fail-on-error or lacking their judge's metrics."""
    judge_failed = _said_judge_failed(result)
    if result.stop is not None:
        stopped = result.document.get("stopped", {})
        say(f"stopped early: {result.stopped_by}; {stopped.get('unasked', 0)} row(s) not asked yet; to continue: "
            f"{stopped.get('continue', 'the same command')} (exit {result.stop.exit_code})")
        raise typer.Exit(result.stop.exit_code)
    failing = failing_tasks(list(result.tasks.values()), fail_on_error)
    if failing:
        reason = "--fail-on-error exceeded" if fail_on_error is not None else "every request failed"
        say(f"{reason}: " + "; ".join(failing))
        raise typer.Exit(1)
    if judge_failed:
        raise typer.Exit(1)


def _said_judge_failed(result: Evaluation) -> bool:
    """Say which tasks lack their judge metrics because the judge answered nothing; the answers
    are kept, so the same command asks the judge again."""
    failed = judge_failed_tasks(list(result.tasks.values()))
    if failed:
        say("; ".join(failed) + " (the answers are kept: once the judge answers, the same command judges them "
            "again)")
    return bool(failed)


@app.command(cls=PanelledCommand)
def score(
    task: Annotated[str, typer.Argument(help="the task the predictions answer")],
    predictions: Annotated[Path, typer.Option(help="{id, output} records as JSONL or a JSON list, a merabench "
                                                   "samples file, a MERA submission JSON/ZIP, or lm-eval "
                                                   "samples_*.jsonl; - reads standard input", rich_help_panel=DATA)],
    data: Annotated[str, typer.Option(help="bundled | hub | PATH", rich_help_panel=DATA)] = "bundled",
    split: Data.Split = "test",
    out_dir: Annotated[Path, typer.Option("--out", help="folder for results.json and samples",
                                          rich_help_panel=OUTPUT)] = Path("scored"),
    strip_think: Generation.StripThink = False,
    judge_model: Judge.Model = None,
    judge_base_url: Judge.BaseUrl = [],  # noqa: B006
    judge_api_key: Judge.ApiKey = None,
    judge_concurrency: Judge.Concurrency = 16,
    judge_prompt: Judge.Prompt = None,
    cache: Cache.Use = True,
    cache_path: Cache.File = None,
    explain: Annotated[int | None, typer.Option(help="print why row ID scored as it did", rich_help_panel=OUTPUT)] = None,
) -> None:
    """Score saved answers without any model (an LLM judge is asked only if one is set)."""
    register_flag_secrets(None, judge_api_key, judge_base_url)
    the_task = get_task(task)
    refuse_score_overwrites(the_task.name, predictions, data, judge_prompt, out_dir)
    judge = judge_from_flags(judge_model, judge_base_url, judge_api_key, judge_prompt,
                             RequestPolicy(concurrency=judge_concurrency))
    found = read_predictions(predictions, the_task.mera_name)
    answers = found.answers
    if explain is not None:
        _explainable(the_task.name, data, split, answers, explain)
    config = ScoreConfig(task=the_task.name, predictions=answers, predictions_source=f"predictions:{predictions}",
                         data=data, split=split, out=out_dir, strip_think=strip_think,
                         cache=CacheSettings(cache, cache_path), judge=judge, made=found)
    result = score_predictions(config, say=say)
    print_evaluation(result)
    say(f"scores in {result.out}/ (results.json, samples_{the_task.name}.jsonl; open report.html)")
    if explain is not None:
        _explain(the_task.name, data, split, answers, explain, strip_think)
    if _said_judge_failed(result):
        raise typer.Exit(1)


def _explainable(task_name: str, data: str, split: str, answers: dict[int, str | None], row_id: int) -> None:
    """--explain's row exists and has an answer: checked before any scoring."""
    if not any(r.id == row_id for r in load_task_data(get_task(task_name), data, split).rows):
        raise ConfigError(f"--explain {row_id}: no row with that id in {data}")
    if answers.get(row_id) is None:
        raise ConfigError(f"--explain {row_id}: the predictions have no answer for that row")


def _explain(task_name: str, data: str, split: str, answers: dict[int, str | None], row_id: int, strip: bool) -> None:
    task = get_task(task_name)
    row = next(r for r in load_task_data(task, data, split).rows if r.id == row_id)
    stdout_console().print(f"\n[bold]row {row_id}[/bold]")
    stdout_console().print(explained(task, row, task.scored_answer(answers[row_id] or "", strip_think=strip)), markup=False,
              highlight=False)
