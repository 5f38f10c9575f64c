"""The `merabench` command's Typer app, its terminal output (consoles, one-line messages) and the
`--version` flag; the commands live in evaluate.py and tools.py beside it."""

from __future__ import annotations

import functools
import os
import re
import sys
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from rich.console import Console


app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="Run, score and report the MERA tasks SAGE, RussianRegions and GorillaHard.")


# rich is loaded on the first message, not at start-up (a run's first request does not wait for it).
# Both consoles print text from users, files, servers and models (a folder, a data spec, a model's
# name): rich's emoji codes are off, so ':smile:' prints as typed, and markup in such text is escaped
# (`escape`, `say`); only merabench's own words carry markup.
@functools.cache
def stderr_console() -> Console:
    from rich.console import Console

    # piped or logged, a message stays one line, greppable; on a terminal it wraps between words
    # to the window's width (the terminal itself would cut "loaded" into "loade" and "d")
    return Console(stderr=True, soft_wrap=not sys.stderr.isatty(), emoji=False)


@functools.cache
def stdout_console() -> Console:
    from rich.console import Console

    # piped output: don't squeeze tables (160 columns, or what $COLUMNS says)
    if sys.stdout.isatty():
        return Console(emoji=False)
    columns = os.environ.get("COLUMNS", "")
    return Console(width=int(columns) if columns.isdigit() and int(columns) >= 40 else 160, emoji=False)


# control characters other than TAB, from a file name or a server's word, are shown as \x1b, never
# sent: a raw ESC could clear the screen or retitle the terminal, a newline split a one-line message
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")


def escape(text: str) -> str:
    from rich.markup import escape as escape_markup

    return escape_markup(_CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text))


def say(message: str) -> None:
    """A line for the user; text from models, servers and files is never read as markup."""
    stderr_console().print(escape(message), highlight=False)


def _print_version(value: bool) -> None:
    if value:
        from merabench import __version__
        from merabench.formats.results import git_commit

        commit = git_commit()
        sys.stdout.write(f"merabench {__version__}" + (f" (commit {commit[:12]})" if commit else "") + "\n")
        raise typer.Exit()


@app.callback()
def _app_options(version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                                       help="print merabench's version and exit")] = False) -> None:
    """Run, score and report the MERA tasks SAGE, RussianRegions and GorillaHard."""
