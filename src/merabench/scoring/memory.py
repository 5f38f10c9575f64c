"""Handing freed heap memory back to the system.

glibc's malloc keeps the pages of chunks freed inside its heap (they count in the process's RSS)
until the same process allocates there again, and Python's small objects never do: they live in
pymalloc's own arenas. After a run frees a large block of its data (compacting a GorillaHard
set's inputs frees ~36 MB of contexts and catalogs in the middle of the heap), `malloc_trim`
releases those pages at once. Elsewhere (not glibc) this does nothing.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # here: start-up does not pay for it

    try:
        return ctypes.CDLL("libc.so.6").malloc_trim  # glibc's name; musl has neither
    except (OSError, AttributeError):
        return None


def release_freed_memory() -> bool:
    """True when the C library was asked to return freed pages (glibc)."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
