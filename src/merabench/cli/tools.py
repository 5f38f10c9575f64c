"""The commands around a run: generate and validate GorillaHard sets, submission, export, report,
compare and tasks."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from merabench.cli.app import app, escape, say, stderr_console, stdout_console
from merabench.cli.options import check_finite, seed_option
from merabench.cli.overwrites import folder_files, given_files, refuse_replacing_inputs
from merabench.errors import ConfigError, check_writable, writing
from merabench.report.html import write_report
from merabench.runner.rundir import check_folder
from merabench.tasks import TASKS, get_task
from merabench.tasks.datasource import load_task_data

if TYPE_CHECKING:
    from merabench.formats.submission import Checked, Written

#: the largest set `generate` makes (about 8.5 times the card's; it is built in memory, ~26 KB a row)
MAX_GENERATED_ROWS = 10_000


def _generator_task(task: str, command: str) -> None:
    if get_task(task).name != "gorillahard":
        does = {"generate": "makes new GorillaHard question sets",
                "validate": "checks a GorillaHard set made by `merabench generate`"}[command]
        raise ConfigError(f"{command} {does}; only gorillahard has a question generator, not {task} "
                          "(other tasks' data is checked as it is read, by run or score --data PATH)")


@app.command()
def generate(
    task: Annotated[str, typer.Argument(help="gorillahard")],
    out_dir: Annotated[Path, typer.Option("--out", help="folder for test.jsonl, shots.jsonl, manifest.json")],
    seed: Annotated[int, seed_option("a new seed gives a new set; the same seed, the same bytes")] = 0,
    rows: Annotated[int, typer.Option(min=1, max=MAX_GENERATED_ROWS,
                                      help="evaluated rows, dialogue turns included")] = 1169,
    dialogues: Annotated[int, typer.Option(min=0, help="dialogues (2-5 turns each) among the rows")] = 30,
    force: Annotated[bool, typer.Option("--force", help="write over a set --out already holds (refused without "
                                                        "it)")] = False,
) -> None:
    """Generate a fresh GorillaHard-style question set."""
    _generator_task(task, "generate")
    from merabench.tasks.gorillahard.generator.build.generate import (
        SetPlan,
        UniquesExhausted,
        existing_set,
        write_set,
    )

    _check_sizes(rows, dialogues)
    check_folder(out_dir)  # before the seconds of drawing the set, not after them
    held = existing_set(out_dir) if out_dir.is_dir() else None
    if held is not None and not force:
        raise ConfigError(f"--out {out_dir} already holds {held}; pass --force to write over it, or give another --out")
    started = time.monotonic()
    try:
        test_path, shots_path = write_set(SetPlan(seed=seed, rows=rows, dialogues=dialogues), out_dir)
    except UniquesExhausted as exc:
        raise ConfigError(f"--rows {rows}: {exc}; give fewer --rows (1,500 or fewer draw on every seed tried)") from None
    say(f"wrote {test_path} and {shots_path} in {time.monotonic() - started:.1f} s; "
        f"check it with: merabench validate {task} {out_dir}")


def _check_sizes(rows: int, dialogues: int) -> None:
    """--rows and --dialogues make a set: its rows hold each dialogue's evaluated turn and at least
    one single-turn row per question maker; else one line with the numbers given and those that work."""
    from merabench.tasks.gorillahard.generator.build.generate import MIN_SINGLES

    singles = rows - dialogues
    if singles >= MIN_SINGLES:
        return
    works = []
    if dialogues + MIN_SINGLES <= MAX_GENERATED_ROWS:
        works.append(f"--rows {dialogues + MIN_SINGLES} or more")
    if rows >= MIN_SINGLES:
        works.append(f"--dialogues {rows - MIN_SINGLES} or fewer")
    if not works:
        works.append(f"--rows {MAX_GENERATED_ROWS} with --dialogues {MAX_GENERATED_ROWS - MIN_SINGLES} or fewer")
    fix = f"give {', or '.join(works)}"
    if dialogues >= rows:
        raise ConfigError(f"--dialogues {dialogues} must be fewer than --rows {rows} (the rows count each dialogue's "
                          f"evaluated turn, beside at least {MIN_SINGLES} single-turn rows): {fix}")
    raise ConfigError(f"--rows {rows} with --dialogues {dialogues} leaves {singles} single-turn rows; a set needs at "
                      f"least {MIN_SINGLES} (one per question maker): {fix}")


@app.command()
def validate(
    task: Annotated[str, typer.Argument(help="gorillahard")],
    folder: Annotated[Path, typer.Argument(help="a folder with test.jsonl and shots.jsonl")],
    audit: Annotated[bool, typer.Option(help="also print the set's variety and the shortcut baselines' scores "
                                             "(against a set of the next seed)")] = False,
    only: Annotated[list[str] | None, typer.Option(
        "--check", help="run only this check, by the name its line shows (spelling, derived_quantities, ...; "
                        "repeatable): a quick second look after an edit")] = None,
) -> None:
    """Prove a GorillaHard set sound: a line per check, exit 1 if any fails."""
    _generator_task(task, "validate")
    from merabench.tasks.gorillahard.generator.checks.validate import CHECK_NAMES
    from merabench.tasks.gorillahard.generator.checks.validate import validate as run_checks

    checks = run_checks(folder, only=only or (), keep_next_seed=audit)  # the audit compares with that set too
    for check in checks:
        mark = "[green]ok  [/green]" if check.ok else ("[red]FAIL[/red]" if check.enforced else "[yellow]warn[/yellow]")
        stdout_console().print(f"{mark} {check.name:<24} {escape(check.detail)}", soft_wrap=True, highlight=False)
    if audit:
        from merabench.tasks.gorillahard.generator.checks.audit import audit_lines

        for line in audit_lines(folder):
            stdout_console().print(f"info {escape(line)}", soft_wrap=True, highlight=False)
    if only:  # a pass of some checks is not a pass of the set
        stderr_console().print(f"{len(checks)} of {len(CHECK_NAMES)} checks run (--check); the set passes only "
                               "when all of them do", highlight=False)
    failed = [c.name for c in checks if not c.ok and c.enforced]
    if failed:
        stderr_console().print(f"[red]{len(failed)} check(s) failed:[/red] {escape(', '.join(failed))}", highlight=False)
        raise typer.Exit(1)


@app.command()
def submission(
    run_dir: Annotated[Path | None, typer.Option("--run", help="a `merabench run` folder to package")] = None,
    out_zip: Annotated[Path, typer.Option("--out", help="the ZIP to write")] = Path("submission.zip"),
    into: Annotated[Path | None, typer.Option(help="the ZIP the official MERA harness packed for the other tasks: "
                                                   "ours are merged into a copy of it (its entries kept as they are)")] = None,
    check: Annotated[Path | None, typer.Option(help="only check this ZIP against the format (and --data's test ids)")] = None,
    data: Annotated[str | None, typer.Option(help="bundled | hub | PATH: check ids against this test split")] = None,
    allow_incomplete: Annotated[bool, typer.Option(help="package a run with missing tasks or rows anyway")] = False,
    allow_unofficial: Annotated[bool, typer.Option(
        help="package a run the leaderboard would not score as its own (bundled or generated rows, --limit, no "
             "--preset mera) anyway; the ZIP's comment says so")] = False,
) -> None:
    """Write a MERA submission ZIP from a run folder (into the harness's ZIP with --into), or check one."""
    from merabench.formats.submission import check_submission, write_submission

    if check is not None and str(check).startswith("-"):
        raise ConfigError("--check takes the ZIP to check: merabench submission --check FILE")
    if check is None:
        if run_dir is None:
            raise ConfigError("--run DIR is needed to write a submission (or --check FILE to check one)")
        refuse_replacing_inputs([(f"--out {out_zip}", out_zip)],
                                given_files(("--into", into)) + folder_files(run_dir, "--run", TASKS))
    expected, unchecked = _test_ids(data, writing=check is None)  # before the ZIP is written: a refusal leaves none
    written = None
    if check is None and run_dir is not None:
        written = write_submission(run_dir, out_zip, allow_incomplete=allow_incomplete,
                                   allow_unofficial=allow_unofficial, into=into)
        _say_written(out_zip, written)
    target = check if check is not None else out_zip
    code = _say_checked(target, check_submission(target, expected), written, allow_incomplete,
                        ids_checked=expected is not None, unchecked=unchecked)
    if code:
        raise typer.Exit(code)


def _test_ids(data: str | None, *, writing: bool) -> tuple[dict[str, set[int]] | None, str | None]:
    """The test ids to check against, by MERA name (None without --data), and why MERA's could not
    be read from the hub (offline, unreachable): a check says what it checked without them; a
    submission to write is refused before it is written."""
    if data is None:
        return None, None
    try:
        return {t.mera_name: {r.id for r in load_task_data(t, data).rows} for t in TASKS.values()}, None
    except ConfigError as exc:
        if data != "hub":
            raise
        if writing:
            raise ConfigError(f"{exc}; nothing was written (leave out --data to write the ZIP without checking its "
                              "row ids, then check it with --data hub where the hub can be reached)") from None
        return None, str(exc).removeprefix("--data hub: ")


def _say_checked(target: Path, checked: Checked, written: Written | None, allow_incomplete: bool, *,
                 ids_checked: bool, unchecked: str | None) -> int:
    """Say what the check found; the exit code: 1 for a problem or a ZIP not for the leaderboard
    (its comment says so), 2 when MERA's test ids could not be read, else 0."""
    problems, allowed = checked.problems, []
    if written is not None and allow_incomplete:  # what --allow-incomplete let through: named below, not an error
        allowed = [p for p in problems if p.endswith(": missing") or "missing (first" in p]
        problems = [p for p in problems if p not in allowed]
    for problem in problems:
        say(f"problem: {problem}")
    not_checked = f"not checked: its row ids against MERA's test set ({unchecked})" if unchecked else ""
    rows = ("and every test row is there" if ids_checked else f"with every task; {not_checked}" if unchecked
            else "with every task; rows were not checked against a test split (--data hub|PATH does that)")
    if not problems:
        say(_verdict(target, written, allowed, rows))
    elif not_checked:
        say(not_checked)
    unofficial = checked.unofficial if written is None else []  # a ZIP just written said it above
    if unofficial:
        say("not for the leaderboard: " + "; ".join(unofficial) + " (its comment says it was packaged with "
            "--allow-unofficial)")
    return 1 if problems or unofficial else 2 if unchecked else 0


def _verdict(target: Path, written: Written | None, allowed: list[str], rows: str) -> str:
    """The line for a ZIP whose format is right: complete or not (`rows`: what was checked of them)."""
    if allowed or (written is not None and written.incomplete):
        return (f"{target}: the format is right, but it is incomplete: "
                f"{_gaps(written.counts if written else {}, written.incomplete if written else [])}; MERA needs "
                "every task and row (`submission --check` fails until they are there)")
    return f"{target}: the format is right, {rows}"


def _say_written(out_zip: Path, written: Any) -> None:
    say(f"wrote {out_zip}: " + ", ".join(f"{name} {n}" for name, n in written.counts.items()))
    merged = written.merged
    if merged is not None:
        said = f"; replaced the harness's {', '.join(merged.replaced)}" if merged.replaced else ""
        logs = (f"; replaced its logs {', '.join(merged.replaced_logs)}" if merged.replaced_logs else "")
        say(f"merged into a copy of the harness's ZIP: its other entries kept as they are{said}{logs}")
    for problem in written.incomplete:
        say(f"incomplete (--allow-incomplete): {problem}")
    for cause in written.unofficial:
        say(f"not for the leaderboard (--allow-unofficial): {cause}")


def _gaps(counts: dict[str, int], incomplete: list[str]) -> str:
    """What an --allow-incomplete submission lacks, by task: `GorillaHard missing; SAGE: rows without an answer`."""
    missing = [t.mera_name for t in TASKS.values() if t.mera_name not in counts]
    short = [name for name in counts if any(p.startswith(f"{name}:") for p in incomplete)]
    parts = ([f"{', '.join(missing)} missing"] if missing else []) + (
        [f"{', '.join(short)}: rows without an answer"] if short else [])
    return "; ".join(parts) or "; ".join(incomplete)


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
    from merabench.formats.lmeval import export_lmeval

    written, left_out = export_lmeval(run_dir, out, allow_incomplete=allow_incomplete)
    for path in written:
        say(f"wrote {path}")
    for problem in left_out:
        say(f"left out (--allow-incomplete): {problem}")


@app.command()
def report(run_dir: Annotated[Path, typer.Argument(help="a run or score folder with results.json")],
           text_run: Annotated[Path | None, typer.Option(
               help="a text-protocol run of the same GorillaHard rows: shown beside a --tool-mode native run's "
                    "rows, each linked to its row there")] = None) -> None:
    """Write (again) the self-contained report.html of a run or score folder."""
    for folder in (run_dir, text_run):
        if folder is not None and not (folder / "results.json").exists():
            raise ConfigError(f"{folder} has no results.json")
    say(f"wrote {write_report(run_dir, text_run=text_run)}")  # a folder's name is text, not markup: runs/[exp]/


@app.command()
def compare(
    runs: Annotated[list[Path], typer.Argument(help="two run or score folders (a paired comparison), or more "
                                                     "(a leaderboard)")],
    json_out: Annotated[Path | None, typer.Option("--json", help="also write the comparison here")] = None,
    html_out: Annotated[Path | None, typer.Option("--html", help="also write the leaderboard as a self-contained "
                                                                 "page here")] = None,
    wanted: Annotated[float | None, typer.Option("--target", help="two runs: the difference to be able to detect "
                                                                  "(0.01): how many rows, or repeats, that would "
                                                                  "take")] = None,
) -> None:
    """Two runs: second minus first per metric, in the metric's own unit, with 95 % paired bootstrap
    intervals (GorillaHard also within each lever and answer kind: a text run against a
    --tool-mode native one). More runs: a leaderboard of their headline metrics. Only rows whose
    content is equal in every run are compared."""
    from merabench.cli.compare_view import print_leaderboard, print_paired
    from merabench.formats.compare import compare_runs, leaderboard, to_json

    if len(runs) < 2:
        raise ConfigError("compare needs at least two run folders")
    refuse_replacing_inputs(given_files(("--json", json_out), ("--html", html_out)),
                            [file for run in runs for file in folder_files(run, "", TASKS)])
    for target, flag in ((html_out, "--html"), (json_out, "--json")):
        if target is not None:
            check_writable(target, flag)
    if wanted is not None:
        check_finite("--target", wanted, low=0, low_inclusive=False)
    if len(runs) == 2:
        result = compare_runs(runs[0], runs[1], wanted)
        print_paired(result)
    else:
        result = leaderboard(runs)
        print_leaderboard(result)
    if html_out is not None:
        from merabench.report.leaderboard import render
        from merabench.support.files import write_atomic

        with writing(html_out, "--html"):  # a folder, a missing parent: one line, not a traceback
            write_atomic(html_out, render(result if len(runs) > 2 else leaderboard(runs)))
        say(f"wrote {html_out}")
    if json_out is not None:
        from merabench.support.files import write_atomic

        with writing(json_out, "--json"):
            write_atomic(json_out, to_json(result) + "\n")  # through the one redaction, like every file


@app.command("tasks")
def list_tasks() -> None:
    """List the tasks with their data sources and metrics."""
    for t in TASKS.values():
        stdout_console().print(f"[bold]{t.name}[/bold] ({t.mera_name}) — {t.description}", soft_wrap=True)
        if t.uses_judge:
            stdout_console().print("  judge:   --judge-model openai:<model> --judge-base-url URL (or LM_EVAL_JUDGE_*)", soft_wrap=True)
        stdout_console().print(f"  data:    bundled (default) | hub: {t.hub_id} (splits test, shots) | "
                  "local: JSONL, JSON list, task JSON, folder with test.jsonl/shots.jsonl", soft_wrap=True)
        for m in t.metrics:
            stdout_console().print(f"  metric:  {m.name}{' (headline)' if m.headline else ''} — {m.description}", soft_wrap=True)
        stdout_console().print()
