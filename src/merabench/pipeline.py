"""The whole evaluation as two functions that the CLI and a user's Python both call.

    evaluate(RunConfig(...))          rows -> requests -> answers -> judgements -> scores -> files
    score_predictions(ScoreConfig())  saved answers -> judgements -> scores -> files

Each writes its folder (samples_<task>.jsonl, results.json, report.html) under the folder's lock
and returns an Evaluation with the task results and the results document.

    from merabench.models import BackendSettings
    from merabench.pipeline import RunConfig, evaluate
    result = evaluate(RunConfig(model="openai:qwen3-8b", endpoint=BackendSettings(("http://127.0.0.1:8000/v1",)),
                                tasks=("sage",), out=Path("runs/qwen")))
    print(result.tasks["sage"].aggregate.metrics["errant_f1"])
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from merabench.errors import ConfigError, DataError, disk_space
from merabench.formats.predictions import PredictionFile, check_made_for, check_shape
from merabench.formats.results import keep_earlier_tasks, results_document, warm_up_summary, write_results
from merabench.judging.stage import JudgeOutcome, JudgeSettings, judge_failure, judge_task, make_judge
from merabench.models import (
    Backend,
    BackendSettings,
    GenerationOptions,
    RequestPolicy,
    make_backend,
)
from merabench.models.concurrency import AUTO_MAX, AUTO_START
from merabench.models.endpoints import UNREACHABLE_AFTER
from merabench.models.sources import is_baseline
from merabench.records import BASE, Answer, CacheScope, Draw, RunSettings, Status, ToolMode
from merabench.report.html import write_report
from merabench.rows.prompts import render_row
from merabench.rows.row import Row, TaskData
from merabench.runner.budget import Budget, Limits, Stop
from merabench.runner.cache import CacheSettings, ResponseCache
from merabench.runner.loop import (
    AnswerSource,
    BackendSource,
    BaselineSource,
    NoProgress,
    ProgressSink,
    Runner,
)
from merabench.runner.rundir import (
    check_folder,
    check_identity,
    check_score_folder,
    locked,
    make_folder,
    same_run,
)
from merabench.runner.samples import samples_path
from merabench.runner.work import PLAIN, Asking, Drawing, RepeatSeed, TaskRun
from merabench.scoring.draws import TaskAnswers, score_draws
from merabench.scoring.memory import release_freed_memory
from merabench.scoring.score import EarlyScores, TaskResult
from merabench.support.redaction import (
    redact_url,
    register_argv,
    register_environment,
    register_fields,
    register_secret,
    register_url,
    unsendable_key,
)
from merabench.tasks import TASKS, get_task, in_tool_mode, parse_task_list
from merabench.tasks.datasource import data_identity, load_for_tasks, load_task_data, recorded_specs
from merabench.tasks.wordings import WordingChoice, task_wordings

if TYPE_CHECKING:
    from merabench.models.serving import ServeSpec
    from merabench.runner.batches.job import BatchSettings
    from merabench.runner.batches.stage import Batching



@dataclass(frozen=True)
class JudgeRun:
    """A judge and how to call it."""

    settings: JudgeSettings
    policy: RequestPolicy = RequestPolicy(concurrency=16)
    cache_scope: CacheScope = CacheScope.ENDPOINT  # the judge's replies: reused as run's --cache-scope says


@dataclass(frozen=True)
class RunConfig:
    model: str = "reference"
    tasks: tuple[str, ...] = tuple(TASKS)
    data: tuple[str, ...] = ("bundled",)
    split: str = "test"
    out: Path | None = None
    endpoint: BackendSettings = BackendSettings()  # the model's endpoints, key and request policy
    generation: GenerationOptions = GenerationOptions()
    preset: str | None = None
    system_prompt: str | None = None
    limit: int | None = None
    cache: CacheSettings = CacheSettings()
    strip_think: bool = False  # SAGE/RussianRegions keep think blocks, as the harness does
    log_prompts: bool = False
    judge: JudgeRun | None = None
    limits: Limits = Limits()             # prices, and the cost and wall time at which the run stops sending
    import_responses: Path | None = None  # answer from a batch job's output instead of an endpoint
    serve: ServeSpec | None = None        # start the model's server for the run (serving.py)
    tool_mode: ToolMode = ToolMode.TEXT   # GorillaHard: NATIVE asks through OpenAI tools (tasks/gorillahard/native/)
    repeats: int = 1                      # each row asked this many times (runner/work.py, scoring/draws.py)
    repeat_seed: RepeatSeed = "offset"    # the k-th repeat sends seed + k ("same": the seed itself)
    wordings: WordingChoice = "assigned"  # "all": each row under every wording its task has (tasks/wordings.py)
    command: tuple[str, ...] = ()         # the CLI's arguments: the command that continues a stopped run
    batch: BatchSettings | None = None    # through the endpoint's Batch API (runner/batches/)

    def out_dir(self) -> Path:
        import re

        return self.out or Path("runs") / re.sub(r"[^A-Za-z0-9._-]+", "_", self.model)

    def asking(self, runs: Sequence[TaskRun]) -> Asking:
        """The draws each row of `runs` is asked in (`--wordings all`: as many wordings as the task
        with the most has)."""
        wordings = max((r.wordings.count for r in runs if r.wordings is not None), default=0)
        return Asking.of(self.repeats, self.repeat_seed, wordings)


@dataclass(frozen=True)
class ScoreConfig:
    task: str
    predictions: Mapping[int, str | None]   # answers by row id (None: the saved request failed)
    predictions_source: str = "predictions"
    data: str = "bundled"
    split: str = "test"
    out: Path = Path("scored")
    strip_think: bool = False  # SAGE/RussianRegions keep think blocks, as the harness does
    cache: CacheSettings = CacheSettings()  # the judge's replies (a score asks no model)
    judge: JudgeRun | None = None
    made: PredictionFile | None = None  # the file's messages hashes and recorded data: were they made for these rows?


@dataclass(frozen=True)
class Evaluation:
    out: Path
    tasks: dict[str, TaskResult]
    document: dict[str, Any]
    wall_time_s: float | None
    notes: tuple[str, ...] = ()
    stopped_by: str | None = None   # --max-cost, --deadline or a refusing server ended the run early, in words
    stop: Stop | None = None         # the same as a record: its cause and the exit code (the run resumes)


def register_secrets(config: RunConfig | ScoreConfig) -> None:
    """The run's keys and endpoint URLs, masked in everything it writes from here on (redaction.py)."""
    register_environment()
    if isinstance(config, RunConfig):
        register_fields(dict(config.generation.extra_body))  # a key sent in the body is a secret too
        if config.serve is not None:  # `--serve-args "--api-key X"`: results.json and the log show the argv
            register_argv(config.serve.argv(port=0))  # the words the server gets, quotes taken off
        for url in config.endpoint.base_urls:
            register_url(url)
        _check_key(config.endpoint.api_key, "the API key (--api-key, $OPENAI_API_KEY)")
        register_secret(config.endpoint.api_key)
    if config.judge is not None:
        _check_key(config.judge.settings.api_key, "the judge's API key (--judge-api-key, $LM_EVAL_JUDGE_API_KEY)")
        register_secret(config.judge.settings.api_key)
        for url in config.judge.settings.base_urls:
            register_url(url)


def _check_key(key: str | None, what: str) -> None:
    """A key that cannot be sent as a header or masked safely stops the run before any file."""
    reason = unsendable_key(key)
    if reason:
        raise ConfigError(f"{what} {reason}")


def answer_source(config: RunConfig) -> AnswerSource:
    if config.tool_mode != ToolMode.TEXT and (config.import_responses is not None or config.model.startswith("hf:")):
        raise ConfigError("--tool-mode native needs a chat endpoint that takes OpenAI tools (an openai: model, or a "
                          "baseline): " + ("a batch job's answers" if config.import_responses else
                                           "an hf: model is asked in the text protocol only"))
    if config.batch is not None:
        from merabench.runner.batches.source import BatchSource

        return BatchSource(_backend_source(config), config.batch.fallback, config.batch.discount)
    if config.import_responses is not None:
        from merabench.runner.batchfile import ImportedSource, served_model

        served_model(config.model)  # the run is the model's: a later `run` with an endpoint resumes it
        return ImportedSource.read(config.import_responses, config.model, config.generation)
    if is_baseline(config.model):
        return BaselineSource(config.model, config.generation.seed)
    return _backend_source(config)


def _backend_source(config: RunConfig) -> BackendSource:
    settings = dataclasses.replace(config.endpoint, unreachable_after=UNREACHABLE_AFTER)  # a server that dies
    backend = make_backend(config.model, config.generation, settings)  # mid-run stops the run (exit 3, it resumes)
    return BackendSource(backend, cache_scope_for(config.cache.scope, backend, config.serve))


def cache_scope_for(scope: CacheScope, backend: Backend, serve: ServeSpec | None = None) -> dict[str, Any]:
    """What tells a model's (or the judge's) answers apart in the cache besides its name and
    options: with ENDPOINT, its endpoints, or for a served model what it serves (its ports
    change every run); with MODEL, nothing (any server under that name)."""
    if scope == CacheScope.MODEL:
        return {}
    return serve.identity() if serve is not None else backend.cache_scope()


def workers(config: RunConfig) -> int:
    """The runner's workers: the concurrency, or with `auto` as many as the endpoints could take
    (each endpoint's pool holds back what it cannot serve)."""
    if config.endpoint.policy.concurrency != "auto":
        return int(config.endpoint.policy.concurrency)
    if config.model.startswith("openai:") and config.import_responses is None:
        return AUTO_MAX * max(1, len(config.endpoint.base_urls))
    return AUTO_START


def concurrency_notes(chosen: Mapping[str, Any]) -> list[str]:
    """A line per endpoint on what `--concurrency auto` chose (the summary and results.json)."""
    notes = []
    for url, entry in chosen.items():
        if entry.get("mode") != "auto" or entry.get("sent") == 0:  # nothing sent: every answer was at hand
            continue
        slots = f"; it says it serves {entry['server_slots']} at once" if entry.get("server_slots") else ""
        if entry.get("server_said_slots"):
            slots = (f"; it said it serves {entry['server_said_slots']} at once (/props), its first answers showed far "
                     "fewer: its word was dropped and the limit learnt from its answers")
        sent = (f"was sent {entry['sent']:,} request(s), at most {entry['peak']} at once; "
                if isinstance(entry.get("sent"), int) else "")
        limit = (f"its limit moved between {entry['min']} and {entry['max']}, {entry['final']} at the end"
                 if entry["min"] != entry["max"] else f"its limit stayed at {entry['max']}")
        notes.append(f"--concurrency auto: {url} {sent}{limit}{slots} (results.json `concurrency` has the trace)")
    return notes


def run_settings(config: RunConfig, tasks: Sequence[str]) -> RunSettings:
    """The effective settings of a run, as results.json records them (no key, no URL credentials)."""
    return RunSettings(
        tasks=tuple(tasks), data=tuple(recorded_specs(config.data)), split=config.split, preset=config.preset,
        generation=config.generation.recorded(), system_prompt=config.system_prompt,
        concurrency=config.endpoint.policy.concurrency,
        strip_think=config.strip_think, tool_mode=config.tool_mode,
        endpoints=tuple(redact_url(u) for u in config.endpoint.base_urls), cache_scope=config.cache.scope,
        limit=config.limit, prices=config.limits.prices.to_json() if config.limits.prices else None,
        max_cost=config.limits.max_cost, deadline_s=config.limits.deadline_s,
        serve=config.serve.identity()["served"] | {"replicas": config.serve.replicas} if config.serve else None,
        repeats=config.repeats, repeat_seed=config.repeat_seed, wordings=config.wordings,
        batch=config.batch.recorded() if config.batch is not None else None)


def _judged(run: TaskRun) -> bool:
    return run.task.uses_judge and run.data.has_references


def _new_judge(judge: JudgeRun) -> Backend:
    return make_judge(judge.settings, judge.policy)


def checked_judge(judge: JudgeRun | None, runs: Sequence[TaskRun]) -> tuple[JudgeRun | None, list[str]]:
    """The judge's endpoints checked before anything is asked or written, by the preflight the
    model's endpoints get, when a task of the run will ask the judge: none reachable fails at
    once naming them (not after the model's answers, each judge call failing after its
    retries); ones that refuse connections while others accept are left out, and a note says so."""
    if judge is None or not any(_judged(run) for run in runs):
        return judge, []
    backend = _new_judge(judge)
    try:
        notes = asyncio.run(backend.preflight())
    except ConfigError as exc:
        raise ConfigError(f"the judge {judge.settings.model} (--judge-base-url): {exc}") from None
    reachable = getattr(backend, "urls", judge.settings.base_urls)
    if list(reachable) != list(judge.settings.base_urls):
        judge = dataclasses.replace(judge, settings=dataclasses.replace(judge.settings, base_urls=list(reachable)))
    return judge, [f"judge {judge.settings.model}: {note}" for note in notes]


def _judge_all(runs: Sequence[TaskRun], answers: Mapping[str, TaskAnswers], judge: JudgeRun | None,
               cache: ResponseCache | None, strip: bool, say: Callable[[str], None], asking: Asking = PLAIN
               ) -> dict[str, dict[Draw, JudgeOutcome]]:
    """What judging gave, per task that asks the judge and per draw (each draw's own answers)."""
    judged: dict[str, dict[Draw, JudgeOutcome]] = {}
    if judge is None:
        return judged
    for run in runs:
        if not _judged(run):
            continue
        for draw in asking.draws:
            backend = _new_judge(judge)
            outcome = judged.setdefault(run.task.name, {})[draw] = asyncio.run(judge_task(
                run.task, Drawing(run, draw).rows, answers[run.task.name].get(draw, {}), judge.settings, backend, cache,
                strip=strip, concurrency=int(judge.policy.concurrency), scope=cache_scope_for(judge.cache_scope, backend)))
            which = run.task.name + (f" ({draw.label})" if asking.drawn else "")
            say(f"judge {judge.settings.model}: {outcome.sent_line()} for {which}")
            if outcome.stopped is not None:
                say(f"judge {judge.settings.model}: given up for {which}, no more judge requests sent: "
                    f"{outcome.stopped}")
    return judged


def _drawn_rows(run: TaskRun, draw: Draw) -> Sequence[Row]:
    """The rows as `draw` asks them (another wording's)."""
    return Drawing(run, draw).rows


def _finish(runs: Sequence[TaskRun], answers: Mapping[str, TaskAnswers], out: Path, *, strip: bool,
            judge: JudgeRun | None, cache: ResponseCache | None, say: Callable[[str], None],
            early: EarlyScores | None = None, asking: Asking = PLAIN) -> list[TaskResult]:
    """Judge (tasks with a judged metric, when a judge is set), score, and write the final samples."""
    judged = _judge_all(runs, answers, judge, cache, strip, say, asking)
    results = []
    for run in runs:
        outcomes = judged.get(run.task.name, {})
        result = score_draws(run.task, run.data.rows, answers[run.task.name], asking.draws,
                             {draw: outcome.judgements for draw, outcome in outcomes.items()},
                             source=run.data.source, strip=strip, samples=samples_path(out, run.task.name),
                             early=early.scores.get(run.task.name) if early else None,
                             data_sha256=early.data_sha256(run.task.name) if early else None,
                             rows_of=functools.partial(_drawn_rows, run))
        if run.data.note:  # what the rows are (the public SAGE pairs), said beside the scores
            result = dataclasses.replace(result, notes=(*result.notes, run.data.note))
        failed = next((f for outcome in outcomes.values() if (f := judge_failure(outcome)) is not None), None)
        if failed is not None:  # the headline judge metrics are missing or partial: said, and the CLI exits 1
            result = dataclasses.replace(result, judge_failed=failed.reason, judge_headline=failed.headline(run.task.name),
                                         notes=(*result.notes, failed.headline()))
        results.append(result)
    return results


def _judge_document(judge: JudgeRun | None, runs: Sequence[TaskRun]) -> dict[str, Any] | None:
    if judge is None:
        return None
    judged = [r.task for r in runs if r.task.uses_judge]
    return judge.settings.describe(judged[0]) if judged else {"model": judge.settings.model}


def _limited(datasets: dict[str, TaskData], limit: int | None) -> dict[str, TaskData]:
    if limit is None:
        return datasets
    return {k: dataclasses.replace(v, rows=v.rows[:limit]) for k, v in datasets.items()}


def check_prompts(run: TaskRun) -> None:
    """Every row of a run renders: a placeholder without its input is a malformed row, stopping
    the run before any request (a dialogue turn without its history is recorded as an error).
    Whether a row renders depends only on its instruction and the names of its inputs, so one
    row of each such shape is rendered (a generated set: a handful of renders, not 1,169)."""
    rendered: set[tuple[str, frozenset[str]]] = set()
    for row in run.data.rows:
        shape = (row.instruction, frozenset(row.inputs))
        if shape in rendered:
            continue
        try:
            render_row(row)
        except DataError as exc:
            raise DataError(exc.reason, file=run.data.source, row_id=row.id, field=exc.field) from None
        rendered.add(shape)


def planned_runs(config: RunConfig) -> list[TaskRun]:
    """The tasks and rows a run covers, every prompt checked before anything is sent."""
    task_list = in_tool_mode(parse_task_list(",".join(config.tasks)), config.tool_mode)
    loaded = load_for_tasks(task_list, config.data, config.split)
    wordings = {t.name: task_wordings(t, (*loaded[t.name].rows, *loaded[t.name].shots))  # before --limit: stable
                for t in task_list} if config.wordings == "all" else {}
    datasets = _limited(loaded, config.limit)
    runs = [TaskRun(t, datasets[t.name], wordings.get(t.name)) for t in task_list]
    for run in runs:
        check_prompts(run)
    return runs


def export_requests(config: RunConfig, path: Path) -> int:
    """Write the requests the run would still send (none already answered in its --out folder,
    when it exists) as OpenAI Batch input lines; returns how many."""
    from merabench.runner.batchfile import request_lines, served_model, write_requests

    register_secrets(config)
    model = served_model(config.model)
    if config.tool_mode != ToolMode.TEXT:
        raise ConfigError("--tool-mode native cannot go through a batch job of exported requests: each row is a "
                          "conversation, a request per tool-calling step built from the replies before it; `run "
                          "--batch` sends it in waves, or run it against an endpoint")
    runs = planned_runs(config)
    out = config.out_dir()
    if out.exists():  # the answers are imported into the folder: refused now, not after a paid batch
        same_run(out, run_identity(config, runs, config.model),
                 remedy="the answers to these requests could not be imported into it: leave out the flags that "
                        "differ (export-requests --run takes the run's own), or export for another folder")
    return write_requests(path, request_lines(runs, model, config.generation, config.system_prompt,
                                              out if out.exists() else None, config.asking(runs)))


def run_identity(config: RunConfig, runs: Sequence[TaskRun], model: str) -> dict[str, Any]:
    """What a run folder's run.json records of the run (runner/rundir.py compares it with the
    folder's own): the model, the settings that shape its answers and each task's data. How a
    repeat's seed is chosen only from a run with repeats (its repeats are answers of that choice;
    their number is not recorded: more repeats into the folder add to it, as a larger --limit)."""
    identity = {"model": model, "options": config.generation.fingerprint(), "tool_mode": config.tool_mode,
                "system_prompt": config.system_prompt, "split": config.split,
                "data": data_identity([r.task for r in runs], config.data,
                                      {r.task.name: r.data.revision for r in runs})}
    if config.repeats > 1:
        identity["repeat_seed"] = config.repeat_seed
    if config.wordings != "assigned":
        identity["wordings"] = config.wordings
    return identity


def evaluate(config: RunConfig, *, progress: ProgressSink | None = None,
             say: Callable[[str], None] = lambda message: None) -> Evaluation:
    """Evaluate a model (or a baseline) on the tasks; a second call with the same config resumes.
    The wall time it reports runs from this call to its end: loading the rows, starting a served
    model, loading a local one, answering, scoring, writing."""
    started = time.monotonic()
    register_secrets(config)
    if config.batch is not None:
        config = _batch_checked(config, config.batch)
    runs = planned_runs(config)
    if config.serve is not None and config.tool_mode != ToolMode.TEXT:
        config = dataclasses.replace(config, serve=_serving_tools(config.serve, say))
    with disk_space(config.out_dir()):
        if config.serve is None:
            return _evaluate(config, runs, progress=progress, say=say, started=started)
        from merabench.models.serving import serving

        with serving(config.serve, config.out_dir(), say) as urls:  # stopped however the run ends
            endpoint = dataclasses.replace(config.endpoint, base_urls=tuple(urls))
            return _evaluate(dataclasses.replace(config, endpoint=endpoint), runs, progress=progress, say=say,
                             started=started)


def _batch_checked(config: RunConfig, batch: BatchSettings) -> RunConfig:
    """A `--batch` run that can go through a Batch API, its prices the batch price; else one line."""
    from merabench.runner.batchfile import served_model

    served_model(config.model)
    if config.import_responses is not None or config.serve is not None:
        raise ConfigError("--batch sends to an endpoint's Batch API: leave out " +
                          ("--import-responses" if config.import_responses is not None else "--serve"))
    if len(config.endpoint.base_urls) != 1:
        raise ConfigError("--batch needs the one --base-url whose Batch API answers (/files and /batches under it), "
                          f"got {len(config.endpoint.base_urls)}")
    batch.check()
    return config  # each answer carries the share it was bought at: a batch's is priced at the discount


@dataclass(frozen=True)
class _NoBatches:
    """A run without --batch: the budget stops it, and there is no batch to settle."""

    should_stop: Callable[[], bool]

    def settle(self, answers: Mapping[str, TaskAnswers]) -> None:
        pass


def _batches(config: RunConfig, source: AnswerSource, runs: Sequence[TaskRun], cache: ResponseCache | None,
             budget: Budget, say: Callable[[str], None]) -> Batching | _NoBatches:
    """`--batch`: the run's batches submitted and followed until they end (runner/batches/stage.py);
    without it, a warning when the folder has batches still running (their rows would be paid twice)."""
    if config.batch is None:
        from merabench.runner.batches.ledger import warn_running

        warn_running(config.out_dir(), say)
        return _NoBatches(budget.should_stop)
    from merabench.runner.batches.job import BatchJob
    from merabench.runner.batches.source import BatchSource
    from merabench.runner.batches.stage import start_batches

    if not isinstance(source, BatchSource):  # answer_source makes one for every --batch run
        raise TypeError(f"a --batch run is answered by its batches, not by {type(source).__name__}")

    job = BatchJob(config.batch, config.model, config.generation, config.system_prompt, config.asking(runs),
                   config.out_dir(), config.endpoint.base_urls[0], config.endpoint.api_key, config.endpoint.policy,
                   config.command)
    return start_batches(job, source, runs, cache, budget, say)


async def _check_tools_reach_model(config: RunConfig) -> None:
    """Native tool calls where the model would never see the tools (models/tool_support.py): one
    line before any file."""
    from merabench.models.tool_support import dropped_line, template_drops_tools

    headers = {"Authorization": f"Bearer {config.endpoint.api_key}"} if config.endpoint.api_key else {}
    for url in config.endpoint.base_urls:
        if await template_drops_tools(url, headers):
            raise ConfigError(dropped_line(redact_url(url)))


def _serving_tools(serve: ServeSpec, say: Callable[[str], None]) -> ServeSpec:
    """The served engine with the flags native tool calls need (models/tool_support.py)."""
    from merabench.models.tool_support import serving_flags

    added, line = serving_flags(serve.engine, serve.model, serve.args)
    if line:
        say(line)
    return dataclasses.replace(serve, args=(*serve.args, *added))


def _evaluate(config: RunConfig, runs: list[TaskRun], *, progress: ProgressSink | None,
              say: Callable[[str], None], started: float) -> Evaluation:
    source = answer_source(config)
    if isinstance(source, BackendSource):
        source.backend.speak_through(say)  # a local model says when it loads
    budget = Budget.within(config.limits)  # --max-cost without prices: before any file
    preflight_notes = asyncio.run(source.preflight())  # an unreachable endpoint fails before any file is made
    if config.tool_mode != ToolMode.TEXT and isinstance(source, BackendSource):
        asyncio.run(_check_tools_reach_model(config))
    judge, judge_notes = checked_judge(config.judge, runs)  # and so does an unreachable judge
    preflight_notes += judge_notes
    needs_cache = config.cache.enabled and (not is_baseline(config.model) or config.judge is not None)
    out = config.out_dir()
    check_folder(out)  # an --out that cannot be the run's folder stops before the cache is made
    cache = ResponseCache(config.cache.path) if needs_cache else None
    with locked(out):
        check_identity(out, run_identity(config, runs, source.name))
        batching = _batches(config, source, runs, cache, budget, say)  # submitted and followed until they end
        early = EarlyScores([(r.task, r.data.rows) for r in runs], strip=config.strip_think,
                            judged=[r.task.name for r in runs if r.task.uses_judge] if config.judge else ())
        budget.restart()  # the deadline counts from the first request, not from the checks
        runner = Runner(source, out_dir=out, concurrency=workers(config), cache=cache,
                        system_prompt=config.system_prompt, log_prompts=config.log_prompts, say=say,
                        asking=config.asking(runs),
                        notes=list(preflight_notes), on_answer=early.add, on_idle=lambda: early.warm_up(also=warm_up_summary),
                        should_stop=batching.should_stop,
                        on_completion=lambda c: budget.add(c.prompt_tokens, c.completion_tokens, c.estimated_tokens,
                                                           c.price_share),
                        on_kept=budget.add_kept, progress=progress or NoProgress())
        try:
            answers = asyncio.run(runner.run(runs))
        except BaseException:  # interrupted: exit only once the warm-up is out of native code
            early.settle()
            raise
        batching.settle(answers)  # before rows left unasked get their records
        release_freed_memory()  # the requests' buffers: scoring's small objects would never reuse them
        if runner.refused is not None and budget.stop is None:  # every endpoint refused to serve
            budget.stop = Stop.refused(runner.refused)
        stopped = _stopped(budget, runs, answers, config.asking(runs), config.command)
        runner.notes += budget.notes()
        stop_note = (f"stopped early: {budget.summary}; {stopped['unasked']} row(s) not asked yet (never sent, "
                     f"not failed); to continue: {stopped['continue']}") if stopped else None
        if stop_note is not None:
            runner.notes.append(stop_note)
        runner.notes += concurrency_notes(runner.facts.get("concurrency", {}))
        results = _finish(runs, answers, out, strip=config.strip_think, judge=judge, cache=cache, say=say,
                          asking=config.asking(runs), early=early)
        wall = time.monotonic() - started
        document = _run_document(config, runs, results, runner, budget, stopped, wall)
        write_results(out, keep_earlier_tasks(out, document))
        write_report(out, {r.task.name: r.data.rows for r in runs})
    # the terminal's last line says the stop, with its exit code (cli/evaluate.py): not a note above it too
    shown = tuple(n for n in runner.notes if n != stop_note)
    return Evaluation(out, {r.task: r for r in results}, document, wall, shown, budget.summary, budget.stop)


def _run_document(config: RunConfig, runs: Sequence[TaskRun], results: list[TaskResult], runner: Runner,
                  budget: Budget, stopped: dict[str, Any] | None, wall: float) -> dict[str, Any]:
    """results.json of a run: the task results, the settings it ran with, and how it ended."""
    settings = dataclasses.replace(run_settings(config, [r.task.name for r in runs]),
                                   judge=_judge_document(config.judge, runs),
                                   stopped_by=budget.summary,
                                   adaptations=runner.facts.get("adaptations"))
    document = results_document(results, model=runner.source.name, wall_time_s=wall, settings=settings.to_json(),
                                notes=runner.notes, prices=config.limits.prices)
    if stopped:
        document["stopped"] = stopped
    if "concurrency" in runner.facts:
        document["concurrency"] = runner.facts["concurrency"]
    return document


def _stopped(budget: Budget, runs: Sequence[TaskRun], answers: dict[str, dict[Draw, dict[int, Answer]]], asking: Asking,
             command: Sequence[str]) -> dict[str, Any] | None:
    """When a limit stopped the run: every row with no answer yet gets a 'not asked' record (a
    row left unasked by an earlier stopped run included, it is unasked still), and what
    results.json says of the stop."""
    if budget.stop is None:
        return None
    unasked = 0
    for run in runs:
        for draw in asking.draws:
            got = answers[run.task.name].setdefault(draw, {})
            for row in run.data.rows:
                answer = got.get(row.id)
                if answer is None or answer.unasked:
                    never = Answer.not_asked(row.id, f"the run stopped at {budget.stop.cause.value} first")
                    got[row.id] = never.of_draw(draw, asking.drawn)
                    unasked += 1
    stopped: dict[str, Any] = {"by": budget.stop.cause.value, "reason": budget.summary, "unasked": unasked,
                               "continue": budget.continue_command(command)}
    if budget.prices is not None:
        stopped["spent"] = round(budget.spent, 6)
    if budget.without_usage:
        stopped["without_usage"] = budget.without_usage
    return stopped


def score_predictions(config: ScoreConfig, *, say: Callable[[str], None] = lambda message: None) -> Evaluation:
    """Score saved answers without any model (an LLM judge is asked only if one is set)."""
    register_secrets(config)
    task = get_task(config.task)
    if config.made is not None and config.made.tool_mode != ToolMode.TEXT:  # a native run's own samples file
        task = in_tool_mode([task], config.made.tool_mode)[0]
        say(f"scored as --tool-mode {config.made.tool_mode}, as the run beside the answers asked: format metrics "
            "do not apply")
    check_folder(config.out)  # before any warning about the answers: a mistake is one line
    check_score_folder(config.out, config.predictions_source, task.name)
    data = load_task_data(task, config.data, config.split)
    known = {r.id for r in data.rows}
    file = config.predictions_source.removeprefix("predictions:")
    if not config.predictions:
        raise DataError("holds no answers", file=file)
    check_shape(task, config.predictions, file=file)
    if config.made is not None:
        check_made_for(task, data, config.made, config.data, file=file)
    if not known & set(config.predictions):
        first = sorted(config.predictions)[:3]
        raise DataError(f"no answer matches a row of {data.source} (answer ids {first}..., row ids "
                        f"{sorted(known)[:3]}...): are these answers to another task or data set?",
                        file=file)
    stray = sorted(set(config.predictions) - known)
    if stray:
        say(f"warning: {len(stray)} prediction id(s) not in the data, ignored (first: {stray[:5]})")
    answers = {row_id: (Answer(row_id, Status.OK, text) if text is not None
                        else Answer.failed(row_id, "the saved request failed"))
               for row_id, text in config.predictions.items() if row_id in known}
    missing = len(known) - len(answers)
    if missing:
        say(f"warning: {missing} row(s) have no prediction; counted as errors")
    run = TaskRun(task, data)
    judge, judge_notes = checked_judge(config.judge, [run])  # before the folder is made
    make_folder(config.out)
    with disk_space(config.out), locked(config.out):
        cache = ResponseCache(config.cache.path) if config.cache.enabled and judge else None
        results = _finish([run], {task.name: {BASE: answers}}, config.out, strip=config.strip_think, judge=judge,
                          cache=cache, say=say)
        settings = RunSettings(tasks=(task.name,), data=tuple(recorded_specs([config.data])), split=config.split,
                               strip_think=config.strip_think, judge=_judge_document(judge, [run]))
        document = results_document(results, model=config.predictions_source, wall_time_s=None,
                                    settings=settings.to_json(),
                                    notes=judge_notes)
        write_results(config.out, document)
        write_report(config.out, {task.name: data.rows})
    return Evaluation(config.out, {r.task: r for r in results}, document, None)

