"""The `merabench` console script's entry point: as little as can be before the command's own
modules load, so that a Ctrl-C in the fraction of a second they take to import ends the process
with the usual line and exit 130, not a traceback from the middle of an import."""

from __future__ import annotations

import sys


def entry() -> None:
    try:
        from merabench.cli.main import entry as command
    except BaseException as exc:
        if not _is_interrupt(exc):
            raise
        sys.stderr.write("interrupted before anything was read or written\n")
        sys.exit(130)
    command()


def _is_interrupt(exc: BaseException | None) -> bool:
    """Ctrl-C during an import: a KeyboardInterrupt, or one that Python wrapped on its way out of a
    class body (a descriptor's __set_name__, a dataclass field's among them, turns whatever it
    raises into a RuntimeError whose cause is the interrupt)."""
    while exc is not None:
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc = exc.__cause__
    return False
