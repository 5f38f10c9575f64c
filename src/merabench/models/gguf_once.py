"""transformers reading a GGUF once instead of three times.

Loading a GGUF, transformers builds the gguf package's reader three times over the same file (for
the tokenizer, the config and the weights), and each build maps every metadata string (a
vocabulary and its merges: some 300,000 for a small model, about 2 CPU seconds apiece). Matching
the file's tensors to the model's, it asks gguf for its table of tensor names once per submodule
(397 times for SmolLM2-135M, 5.7 CPU seconds), though the table depends only on the architecture
and the depth. Both are pure reads: for the length of one load, each reader is made once per file
and each table once per architecture and depth. SmolLM2-135M's GGUF then loads in about 9 CPU
seconds instead of 18; nothing that is read changes."""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from collections.abc import Iterator
from typing import Any

# one load at a time replaces the two names: a second load in another thread waits, so that none
# can take the first's stand-ins for the package's own and put them back for good
_REPLACING = threading.RLock()


@contextlib.contextmanager
def gguf_read_once() -> Iterator[None]:
    """While transformers loads a GGUF: one reader per file, one name table per architecture and
    depth. Without the gguf package (or with one that lacks either name) nothing is changed."""
    try:
        import gguf as package
    except ImportError:
        yield
        return
    gguf: Any = package  # its two names are replaced for the load, and put back after
    if not (hasattr(gguf, "GGUFReader") and hasattr(gguf, "get_tensor_name_map")):
        yield
        return
    readers: dict[tuple[Any, ...], Any] = {}
    reader: Any = None  # the package's own, once it is this load's turn

    def shared_reader(path: Any, *args: Any, **kwargs: Any) -> Any:
        key = (os.path.realpath(os.fspath(path)), args, tuple(sorted(kwargs.items())))
        if key not in readers:
            readers[key] = reader(path, *args, **kwargs)
        return readers[key]

    with _REPLACING:
        reader, name_table = gguf.GGUFReader, gguf.get_tensor_name_map
        gguf.GGUFReader = shared_reader
        gguf.get_tensor_name_map = functools.lru_cache(maxsize=None)(name_table)
        try:
            yield
        finally:  # the readers (and their maps of the file) go with the load
            gguf.GGUFReader, gguf.get_tensor_name_map = reader, name_table
            readers.clear()
