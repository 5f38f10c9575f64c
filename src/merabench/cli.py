"""The `merabench` command. User mistakes print one clear line and exit 2; Ctrl-C exits 130."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from merabench.cache import ResponseCache
from merabench.datasource import load_for_tasks, load_task_data
from merabench.errors import ConfigError, MerabenchError
from merabench.judging import JudgeSettings, judge_settings, judge_task, make_judge
from merabench.models import BackendSettings, GenerationOptions, make_backend
from merabench.predictions import load_predictions
from merabench.report.html import write_report
from merabench.results import results_document, summary_table, write_results
from merabench.runner import Runner, TaskRun, check_run_identity
from merabench.samples import Record, samples_path, write_final
from merabench.scoring import TaskResult, score_task, scored_text
from merabench.tasks import TASKS, get_task, parse_task_list

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="Run, score and report the MERA tasks SAGE, RussianRegions and GorillaHard.")
console = Console(stderr=True, soft_wrap=True)  # messages stay one line each, greppable
out = Console() if sys.stdout.isatty() else Console(width=160)  # piped output: don't squeeze tables


def _default_out(model: str) -> Path:
    return Path("runs") / re.sub(r"[^A-Za-z0-9._-]+", "_", model)


def _extra_body(value: str | None) -> dict[str, Any]:
    if not value:
        return {}
    try:
        body = json.loads(value)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"--extra-body is not valid JSON: {exc.msg}") from None
    if not isinstance(body, dict):
        raise ConfigError("--extra-body must be a JSON object")
    return body


def _fail_threshold(results: list[TaskResult], threshold: float | None) -> list[str]:
    if threshold is None:
        return []
    failing = []
    for r in results:
        rate = r.n_errors / r.n_rows if r.n_rows else 0.0
        if rate > threshold:
            failing.append(f"{r.task}: {r.n_errors}/{r.n_rows} rows failed ({rate:.1%} > {threshold:.1%})")
    return failing


JudgeModel = Annotated[str | None, typer.Option(help="LLM judge, openai:<model> (default: $LM_EVAL_JUDGE_MODEL)")]
JudgeUrls = Annotated[list[str], typer.Option(help="judge base URL (default: $LM_EVAL_JUDGE_API_BASE)")]
JudgeKey = Annotated[str | None, typer.Option(help="judge API key (default: $LM_EVAL_JUDGE_API_KEY)")]
JudgeConcurrency = Annotated[int, typer.Option(min=1, help="judge requests in flight")]


def _finish(runs: list[TaskRun], records: dict[str, dict[int, Record]], out_path: Path, *, strip: bool,
            judge: JudgeSettings | None, cache: ResponseCache | None, judge_concurrency: int,
            max_retries: int = 5, timeout: float = 600.0, retry_delay: float = 1.0) -> list[TaskResult]:
    """Judge (where a task has a judged metric and a judge is set), score, and write the samples."""
    results = []
    for r in runs:
        task_records = records[r.task.name]
        if judge is not None and r.task.uses_judge and r.data.has_references:
            backend = make_judge(judge, concurrency=judge_concurrency, max_retries=max_retries,
                                 timeout_s=timeout, retry_base_delay_s=retry_delay)
            sent = asyncio.run(judge_task(r.task, r.data.rows, task_records, backend, cache, strip=strip,
                                          concurrency=judge_concurrency))
            console.print(f"judge {judge.model}: {sent} request(s) sent for {r.task.name}")
        final, result = score_task(r.task, r.data.rows, task_records, source=r.data.source, strip=strip)
        write_final(samples_path(out_path, r.task.name), final)
        results.append(result)
    return results


def _print_notes(results: list[TaskResult]) -> None:
    for r in results:
        for note in r.to_json().get("notes", []):
            console.print(f"[yellow]note[/yellow] {r.task}: {note}")


@app.command()
def run(
    model: Annotated[str, typer.Option(help="openai:<model>, hf:<path>, or a baseline: reference, copy, random")] = "reference",
    tasks: Annotated[str, typer.Option(help="comma-separated tasks")] = ",".join(TASKS),
    data: Annotated[list[str], typer.Option(help="bundled | hub | generated[:SEED] | PATH, or TASK=SPEC")] = ["bundled"],  # noqa: B006
    split: Annotated[str, typer.Option(help="split to evaluate")] = "test",
    out_dir: Annotated[Path | None, typer.Option("--out", help="run folder (rerun to resume)")] = None,
    base_url: Annotated[list[str], typer.Option(help="endpoint base URL, repeat for replicas")] = [],  # noqa: B006
    api_key: Annotated[str | None, typer.Option(help="API key (default: $OPENAI_API_KEY)")] = None,
    concurrency: Annotated[int, typer.Option(min=1)] = 32,
    max_retries: Annotated[int, typer.Option(min=0)] = 5,
    timeout: Annotated[float, typer.Option(help="per-request timeout, seconds")] = 600.0,
    retry_delay: Annotated[float, typer.Option(help="first retry back-off, seconds")] = 1.0,
    max_tokens: Annotated[int, typer.Option(min=1)] = 4096,
    temperature: float = 0.0,
    seed: int | None = None,
    stop: Annotated[list[str], typer.Option(help="stop sequence, repeatable")] = [],  # noqa: B006
    extra_body: Annotated[str | None, typer.Option(help="JSON merged into each request body")] = None,
    system_prompt: Annotated[str | None, typer.Option(help="system message before every prompt")] = None,
    limit: Annotated[int | None, typer.Option(help="only the first N rows of each task")] = None,
    cache: Annotated[bool, typer.Option(help="use the response cache")] = True,
    cache_path: Annotated[Path | None, typer.Option(help="sqlite response cache [default: $MERABENCH_CACHE or ~/.cache/merabench]")] = None,
    strip_think: Annotated[bool, typer.Option(help="remove <think> blocks before scoring")] = True,
    fail_on_error: Annotated[float | None, typer.Option(help="exit 1 if a task's error rate exceeds this")] = None,
    progress: Annotated[bool, typer.Option(help="live progress bars")] = True,
    judge_model: JudgeModel = None,
    judge_base_url: JudgeUrls = [],  # noqa: B006
    judge_api_key: JudgeKey = None,
    judge_concurrency: JudgeConcurrency = 16,
) -> None:
    """Evaluate a model (or a baseline) on the tasks; rerun the same command to resume."""
    task_list = parse_task_list(tasks)
    datasets = load_for_tasks(task_list, data, split)
    if limit is not None:
        datasets = {k: dataclasses.replace(v, rows=v.rows[:limit]) for k, v in datasets.items()}
    options = GenerationOptions(max_tokens=max_tokens, temperature=temperature, seed=seed, stop=tuple(stop),
                                extra_body=_extra_body(extra_body))
    urls = base_url or ([os.environ["OPENAI_BASE_URL"]] if os.environ.get("OPENAI_BASE_URL") else [])
    settings = BackendSettings(base_urls=urls, api_key=api_key or os.environ.get("OPENAI_API_KEY"),
                               concurrency=concurrency, max_retries=max_retries, timeout_s=timeout,
                               retry_base_delay_s=retry_delay)
    backend = make_backend(model, options, settings)
    judge = judge_settings(judge_model, judge_base_url, judge_api_key)
    out_path = out_dir or _default_out(model)
    identity = {"model": backend.name, "options": options.fingerprint(), "system_prompt": system_prompt}
    check_run_identity(out_path, identity)
    response_cache = ResponseCache(cache_path) if cache else None

    runs = [TaskRun(t, datasets[t.name]) for t in task_list]
    started = time.monotonic()
    show = progress and console.is_terminal
    from merabench.progress import RichProgress

    sink = RichProgress(console) if show else None
    runner = Runner(backend, out_dir=out_path, concurrency=concurrency,
                    cache=response_cache if backend.cacheable else None,
                    system_prompt=system_prompt, progress=sink)
    if sink is not None:
        with sink:
            records = asyncio.run(runner.run(runs))
    else:
        records = asyncio.run(runner.run(runs))

    results = _finish(runs, records, out_path, strip=strip_think, judge=judge, cache=response_cache,
                      judge_concurrency=judge_concurrency, max_retries=max_retries, timeout=timeout,
                      retry_delay=retry_delay)
    wall = time.monotonic() - started
    doc_settings = {"tasks": [t.name for t in task_list], "data": list(data), "split": split,
                    "concurrency": concurrency, "strip_think": strip_think, "options": options.fingerprint(),
                    "endpoints": len(urls), "judge": judge.model if judge else None}
    write_results(out_path, results_document(results, model=backend.name, wall_time_s=wall, settings=doc_settings))
    write_report(out_path)
    out.print(summary_table(results, wall))
    _print_notes(results)
    console.print(f"answers and results in {out_path}/ (open report.html)")
    failing = _fail_threshold(results, fail_on_error)
    if failing:
        console.print("[red]--fail-on-error exceeded:[/red] " + "; ".join(failing))
        raise typer.Exit(1)


@app.command()
def score(
    task: Annotated[str, typer.Argument(help="the task the predictions answer")],
    predictions: Annotated[Path, typer.Option(help="JSONL {id, output}, MERA submission JSON/ZIP, or lm-eval samples")],
    data: Annotated[str, typer.Option(help="bundled | hub | PATH")] = "bundled",
    split: str = "test",
    out_dir: Annotated[Path, typer.Option("--out", help="folder for results.json and samples")] = Path("scored"),
    strip_think: Annotated[bool, typer.Option(help="remove <think> blocks before scoring, as run does "
                                                    "(GorillaHard always removes them)")] = True,
    judge_model: JudgeModel = None,
    judge_base_url: JudgeUrls = [],  # noqa: B006
    judge_api_key: JudgeKey = None,
    judge_concurrency: JudgeConcurrency = 16,
    cache: Annotated[bool, typer.Option(help="use the cache for judge replies")] = True,
    cache_path: Annotated[Path | None, typer.Option(help="sqlite cache [default: $MERABENCH_CACHE or ~/.cache/merabench]")] = None,
    explain: Annotated[int | None, typer.Option(help="print why row ID scored as it did")] = None,
) -> None:
    """Score saved answers without any model (an LLM judge is asked only if one is set)."""
    the_task = get_task(task)
    judge = judge_settings(judge_model, judge_base_url, judge_api_key)
    task_data = load_task_data(the_task, data, split)
    answers = load_predictions(predictions, the_task.mera_name)
    known = {r.id for r in task_data.rows}
    stray = sorted(set(answers) - known)
    if stray:
        console.print(f"[yellow]warning[/yellow]: {len(stray)} prediction id(s) not in the data, ignored "
                      f"(first: {stray[:5]})")
    records = {}
    for row_id, text in answers.items():
        if row_id in known:
            records[row_id] = ({"id": row_id, "status": "ok", "output": text} if text is not None
                               else {"id": row_id, "status": "error", "output": None, "error": "request failed"})
    missing = len(known) - len(records)
    if missing:
        console.print(f"[yellow]warning[/yellow]: {missing} row(s) have no prediction; counted as errors")
    out_dir.mkdir(parents=True, exist_ok=True)
    response_cache = ResponseCache(cache_path) if cache and judge else None
    results = _finish([TaskRun(the_task, task_data)], {the_task.name: records}, out_dir, strip=strip_think,
                      judge=judge, cache=response_cache, judge_concurrency=judge_concurrency)
    write_results(out_dir, results_document(results, model=f"predictions:{predictions}", wall_time_s=None,
                                            settings={"judge": judge.model if judge else None}))
    write_report(out_dir)
    out.print(summary_table(results, None))
    _print_notes(results)
    if explain is not None:
        row = next((r for r in task_data.rows if r.id == explain), None)
        if row is None:
            raise ConfigError(f"--explain {explain}: no row with that id in {task_data.source}")
        record = records.get(explain)
        if not record or record.get("status") != "ok":
            raise ConfigError(f"--explain {explain}: the predictions have no answer for that row")
        out.print(f"\n[bold]row {explain}[/bold]")
        out.print(the_task.explain(row, scored_text(the_task, record, strip=strip_think)), markup=False, highlight=False)


def _generator_task(task: str) -> None:
    if get_task(task).name != "gorillahard":
        raise ConfigError(f"only gorillahard has a question generator, not {task}")


@app.command()
def generate(
    task: Annotated[str, typer.Argument(help="gorillahard")],
    out_dir: Annotated[Path, typer.Option("--out", help="folder for test.jsonl, shots.jsonl, manifest.json")],
    seed: Annotated[int, typer.Option(help="a new seed gives a new set; the same seed, the same bytes")] = 0,
    rows: Annotated[int, typer.Option(help="evaluated rows, dialogue turns included")] = 1169,
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
    console.print(f"wrote {test_path} and {shots_path} in {time.monotonic() - started:.1f} s; "
                  f"check it with: merabench validate {task} {out_dir}")


@app.command()
def validate(
    task: Annotated[str, typer.Argument(help="gorillahard")],
    folder: Annotated[Path, typer.Argument(help="a folder with test.jsonl and shots.jsonl")],
) -> None:
    """Prove a GorillaHard set sound: a line per check, exit 1 if any fails."""
    _generator_task(task)
    from merabench.tasks.gorillahard.generator.validate import validate as run_checks

    checks = run_checks(folder)
    for check in checks:
        mark = "[green]ok  [/green]" if check.ok else "[red]FAIL[/red]"
        out.print(f"{mark} {check.name:<24} {check.detail}", soft_wrap=True, highlight=False)
    failed = [c.name for c in checks if not c.ok]
    if failed:
        console.print(f"[red]{len(failed)} check(s) failed:[/red] {', '.join(failed)}")
        raise typer.Exit(1)


@app.command()
def submission(
    run_dir: Annotated[Path | None, typer.Option("--run", help="a `merabench run` folder to package")] = None,
    out_zip: Annotated[Path, typer.Option("--out", help="the ZIP to write, or to check with --check")] = Path(
        "submission.zip"),
    check: Annotated[bool, typer.Option(help="only check --out against the format (and --data's test ids)")] = False,
    data: Annotated[str | None, typer.Option(help="bundled | hub | PATH: check ids against this test split")] = None,
) -> None:
    """Write a MERA submission ZIP from a run folder, or check one."""
    from merabench.submission import check_submission, write_submission

    if not check:
        if run_dir is None:
            raise ConfigError("--run DIR is needed to write a submission (or pass --check)")
        counts = write_submission(run_dir, out_zip)
        console.print(f"wrote {out_zip}: " + ", ".join(f"{name} {n}" for name, n in counts.items()))
    expected = None
    if data is not None:
        expected = {t.mera_name: {r.id for r in load_task_data(t, data).rows} for t in TASKS.values()}
    found = check_submission(out_zip, expected)
    for problem in found:
        console.print(f"[red]problem[/red] {problem}", highlight=False)
    if found:
        raise typer.Exit(1)
    console.print(f"{out_zip}: the format is right" + (" and every test row is there" if expected else ""))


@app.command()
def report(run_dir: Annotated[Path, typer.Argument(help="a run or score folder with results.json")]) -> None:
    """Write (again) the self-contained report.html of a run or score folder."""
    if not (run_dir / "results.json").exists():
        raise ConfigError(f"{run_dir} has no results.json")
    console.print(f"wrote {write_report(run_dir)}")


@app.command()
def compare(
    first: Annotated[Path, typer.Argument(help="a run or score folder")],
    second: Annotated[Path, typer.Argument(help="another one, scored on the same rows")],
    json_out: Annotated[Path | None, typer.Option("--json", help="also write the comparison here")] = None,
) -> None:
    """Paired comparison of two runs: second minus first, with 95 % bootstrap intervals."""
    from rich.table import Table

    from merabench.compare import compare_runs, headline_first, to_json

    result = compare_runs(first, second)
    table = Table(title=f"{second} minus {first}", title_justify="left")
    for column in ("task", "metric", "difference", "95 % interval", "rows", "second better", "first better"):
        table.add_column(column, justify="left" if column in ("task", "metric") else "right")
    for task, metrics in result.items():
        for n, name in enumerate(headline_first(task, metrics)):
            m = metrics[name]
            significant = m["low"] > 0 or m["high"] < 0
            table.add_row(task if n == 0 else "", name, f"{m['difference']:+.4f}" + (" *" if significant else ""),
                          f"{m['low']:+.4f} … {m['high']:+.4f}", str(m["n"]), str(m["second_better"]),
                          str(m["first_better"]))
    out.print(table)
    out.print("* the interval excludes 0")
    if json_out is not None:
        json_out.write_text(to_json(result) + "\n", encoding="utf-8")


@app.command("tasks")
def list_tasks() -> None:
    """List the tasks with their data sources and metrics."""
    for t in TASKS.values():
        out.print(f"[bold]{t.name}[/bold] ({t.mera_name}) — {t.description}", soft_wrap=True)
        if t.uses_judge:
            out.print("  judge:   --judge-model openai:<model> --judge-base-url URL (or LM_EVAL_JUDGE_*)", soft_wrap=True)
        out.print(f"  data:    bundled (default) | hub: {t.hub_id} (splits test, shots) | "
                  "local: JSONL, JSON list, task JSON, folder with test.jsonl/shots.jsonl", soft_wrap=True)
        for m in t.metrics:
            out.print(f"  metric:  {m.name}{' (headline)' if m.headline else ''} — {m.description}", soft_wrap=True)
        out.print()


def main() -> None:
    try:
        # without standalone mode click returns (not raises) the code of a typer.Exit
        code = app(standalone_mode=False)
    except MerabenchError as exc:
        console.print(f"[red]error:[/red] {exc}", highlight=False)
        sys.exit(exc.exit_code)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except Exception as exc:  # click usage errors come through here in non-standalone mode
        import click

        if isinstance(exc, click.exceptions.ClickException):
            exc.show()
            sys.exit(exc.exit_code)
        if isinstance(exc, click.exceptions.Abort):
            console.print("\ninterrupted: rerun the same command to resume")
            sys.exit(130)
        raise
    if code == 130:  # typer turns Ctrl-C into a returned 130
        console.print("\ninterrupted: everything answered so far is saved; rerun the same command to resume")
    if isinstance(code, int) and code:
        sys.exit(code)


if __name__ == "__main__":
    main()
