"""Freed heap memory goes back to the system when asked (glibc's malloc_trim)."""

from __future__ import annotations

import os

import pytest

from merabench.scoring.memory import _malloc_trim, release_freed_memory


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def test_pages_freed_in_the_middle_of_the_heap_are_returned() -> None:
    if _malloc_trim() is None:
        pytest.skip("not glibc: nothing to ask")
    # 2,000 texts of 40 KB (below malloc's mmap threshold: on the heap), the last one kept so the
    # freed space is in the middle of the heap, which free() alone never hands back
    before = _rss_mb()
    texts = ["журнал " * 5_000 + str(i) for i in range(2_000)]
    pinned = texts.pop()
    del texts  # ~80 MB freed; without the trim RSS stays ~80 MB above `before`
    assert release_freed_memory()
    assert _rss_mb() < before + 20
    assert pinned.endswith("1999")
