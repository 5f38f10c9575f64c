"""The `merabench` process: the command group (the commands of cli/evaluate.py and cli/tools.py,
and two derived from `run`), `run --config` defaults, redacted terminal streams, and exit codes.
User mistakes print one clear line and exit 2; Ctrl-C exits 130."""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import typer

from merabench.cli import evaluate, tools  # noqa: F401  (importing them registers the commands)
from merabench.cli.app import app, escape, say, stderr_console
from merabench.errors import ConfigError, MerabenchError
from merabench.support.redaction import redact

if TYPE_CHECKING:
    import click


def _click_types(name: str) -> tuple[type[BaseException], ...]:
    """click's exception class `name`: the installed click's and the copy that newer typer vendors."""
    found: list[type[BaseException]] = []
    for module in ("click.exceptions", "typer._click.exceptions"):
        try:
            found.append(getattr(__import__(module, fromlist=[name]), name))
        except (ImportError, AttributeError):
            continue
    return tuple(found)


def _usage_error_types() -> tuple[type[BaseException], ...]:
    return _click_types("ClickException")


def _abort_types() -> tuple[type[BaseException], ...]:
    """Ctrl-C: Python's KeyboardInterrupt and click's Abort."""
    return (KeyboardInterrupt, *_click_types("Abort"))


BATCH_MODEL_HELP = ("openai:<model name>, the name the batch engine serves (required; export-requests --run DIR "
                    "takes the run's)")


#: `run --batch` and its options: the commands of the manual path (export, import) have none of them
RUN_BATCH_FLAGS = ("batch", "batch_poll", "detach", "batch_fallback", "batch_discount", "batch_max_requests",
                   "batch_max_mb")


def _batch_model(values: dict[str, Any], command: str) -> None:
    """The batch commands have no default model (a baseline cannot answer a batch): the one given,
    or the one the run folder named by --run recorded."""
    if values.get("model") is not None:
        return
    run_json = Path(values["out_dir"]) / "run.json" if command == "export-requests" and values.get("out_dir") else None
    if run_json is not None and run_json.is_file():
        from merabench.rows.jsonio import loads

        with contextlib.suppress(OSError, ValueError):
            recorded = loads(run_json.read_bytes())
            if isinstance(recorded, dict) and isinstance(recorded.get("model"), str):
                values["model"] = recorded["model"]
                return
    raise ConfigError(f"{command} needs --model openai:<model name>, the name the batch engine serves")


def _needs_requests_file(values: dict[str, Any]) -> None:
    if values.get("export_requests") is None:
        raise ConfigError("export-requests needs --out FILE (the requests to write)")
    _batch_model(values, "export-requests")


def _needs_batch_output(values: dict[str, Any]) -> None:
    if values.get("import_responses") is None:
        raise ConfigError("import-responses needs the batch output file: import-responses FILE --out RUN_DIR ...")
    _batch_model(values, "import-responses")


@functools.cache
def command_group() -> Any:
    """typer's commands plus `export-requests` and `import-responses`: `run` with its
    --export-requests / --import-responses under friendlier names. The parameters keep their
    names (one set of options, one run identity), so a run resumes with any of the three."""
    from merabench.cli.help import as_argument, derived_command, renamed_option

    # cast: typer types it as the Command it makes; an app of several commands makes a Group
    group = cast("click.Group", typer.main.get_command(app))
    run_command = group.commands["run"]
    option = {p.name: p for p in run_command.params}
    model = renamed_option(option["model"], "--model", help=BATCH_MODEL_HELP, default=None)
    export = derived_command(
        "export-requests", run_command, drop=("import_responses", "dump_config", *RUN_BATCH_FLAGS), check=_needs_requests_file,
        help="Write the requests a run still needs as OpenAI Batch input lines, and stop: `run` with "
             "--export-requests FILE (the same options describe the same run).",
        replace={"model": model,
                 "export_requests": renamed_option(option["export_requests"], "--out",
                                                   help="the file to write the requests to"),
                 "out_dir": renamed_option(option["out_dir"], "--run",
                                           help="a run folder: only the requests it has no answer for")})
    imported = derived_command(
        "import-responses", run_command, drop=("import_responses", "export_requests", "dump_config", *RUN_BATCH_FLAGS),
        check=_needs_batch_output, replace={"model": model},
        help="Answer a run from a batch output (OpenAI Batch output, or {custom_id, text} lines) and score it: "
             "`run` with --import-responses FILE.",
        leading=[as_argument(option["import_responses"], "FILE", "the batch output (JSONL)")])
    commands = dict(group.commands)
    order = ["run", "export-requests", "import-responses"]
    group.commands = {"run": run_command, "export-requests": export,
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
    from merabench.cli.config_file import load_defaults

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
              "--import-responses", "--price-file", "--judge-prompt", "--json", "--html")


def _no_empty_paths(args: list[str]) -> None:
    for n, arg in enumerate(args):
        flag, eq, value = arg.partition("=")
        if flag in PATH_FLAGS and ((eq and not value.strip()) or (
                not eq and n + 1 < len(args) and not args[n + 1].strip())):
            raise ConfigError(f"{flag} '' is empty: give a file or folder (. for the current one)")


class Terminated(KeyboardInterrupt):
    """SIGTERM (a job's time-out, `kill`): unwinds as Ctrl-C does, so every temporary file is
    removed, every lock released and every served engine stopped on the way out."""


_TERMINATED: list[int] = []  # SIGTERM came (click may turn the Terminated into its own Abort)


def _terminate(signum: int, frame: object) -> None:
    _TERMINATED.append(signum)
    raise Terminated


def _interrupted() -> None:
    say("interrupted: everything answered so far is saved; rerun the same command to resume")
    code = 128 + signal.SIGTERM if _TERMINATED else 130
    if _local_model_busy():  # a load mid-way: leave now, not when it ends (files are closed by now)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


def _local_model_busy() -> bool:
    """An hf: model still loading (or ending its last token) in its daemon thread: a normal exit
    would run the interpreter's shutdown beside it (torch's C++ frames abort when a daemon thread
    is torn down mid-call), so the process leaves at once instead."""
    hf_local = sys.modules.get("merabench.models.hf_local")
    return hf_local is not None and hf_local.busy()


def main(argv: list[str] | None = None) -> int:
    """One command (`argv`, else sys.argv[1:]) as the `merabench` process runs it, returning its
    exit code instead of exiting: 0, 2 for a user's mistake, 130 after Ctrl-C, 143 after SIGTERM,
    a command's own code. entry() exits with it; tests call it in their own interpreter (the
    streams and the SIGTERM handler are put back as they were)."""
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Redacting(sys.stdout), _Redacting(sys.stderr)
    try:
        previous = signal.signal(signal.SIGTERM, _terminate)
    except ValueError:  # called from another thread than the main one (a test, an embedding app)
        previous = None
    try:
        _main(argv)
    except SystemExit as exc:
        return _exit_code(exc.code)
    finally:
        sys.stdout, sys.stderr = streams
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        # typer's callback keeps the values of the call before for the options a call does not
        # pass (import-responses, which has no --export-requests, would get the last run's): a
        # command group is made afresh for the next call
        command_group.cache_clear()
    return 0


def _exit_code(code: object) -> int:
    """The status `sys.exit(code)` ends a process with: None is 0, text is printed and is 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _old_spellings(args: list[str]) -> list[str]:
    """Earlier versions' spellings that still work: `submission --check --out FILE` (--check
    was a switch checking --out) is `submission --check FILE`."""
    if args[:1] == ["submission"] and "--check" in args:
        at = args.index("--check")
        if args[at + 1:at + 2] == ["--out"] and len(args) > at + 2:
            return [*args[:at + 1], *args[at + 2:]]
    return args


def _main(argv: list[str] | None) -> None:
    try:
        args = _old_spellings(list(sys.argv[1:] if argv is None else argv) or ["--help"])  # bare: the help
        _no_empty_paths(args)
        # without standalone mode click returns (not raises) the code of a typer.Exit
        code = command_group().main(args=args, prog_name="merabench", standalone_mode=False,
                                    default_map=_config_defaults(args), obj={"argv": args})
    except MerabenchError as exc:
        stderr_console().print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        sys.exit(exc.exit_code)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except _abort_types():
        _interrupted()
    except _usage_error_types() as exc:
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        stderr_console().print(f"[red]error:[/red] {escape(' '.join(message.split()))} (see merabench --help)", highlight=False)
        sys.exit(2)
    if code == 130:  # typer turns Ctrl-C into a returned 130
        _interrupted()
    if isinstance(code, int) and code:
        sys.exit(code)


def entry() -> None:
    """The `merabench` process: main(), then an exit that skips the collector's last full pass
    over every object of the run (a tenth of a second after a big run; the OS frees the memory)."""
    try:
        code = main()
    finally:
        gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    entry()
