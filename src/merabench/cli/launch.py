"""The `merabench` console script's entry point: as little as can be before the command's own
modules load, so that a Ctrl-C in the fraction of a second they take to import ends the process
with the usual line and exit 130, not a traceback from the middle of an import."""

from __future__ import annotations

import sys


def entry() -> None:
    try:
        from merabench.cli.main import entry as command
    except KeyboardInterrupt:
        sys.stderr.write("interrupted before anything was read or written\n")
        sys.exit(130)
    command()
