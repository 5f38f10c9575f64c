"""A server's reply body, read with a ceiling.

A chat answer is kilobytes, and what a server says of itself (llama.cpp's /props and
/apply-template, vLLM's /metrics) less. A body past MAX_REPLY_BYTES comes from a broken or hostile
server: it is stopped there rather than read into memory (300 MB read whole, then parsed, took a
gigabyte). Every reader of a server's body goes through `read_capped`: the chat replies
(models/openai_compat.py) and the probes (models/server_word.py, models/tool_support.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from merabench.errors import BackendError

if TYPE_CHECKING:
    import aiohttp

MAX_REPLY_BYTES = 64 << 20  # a reply body read no further (an answer of max_tokens is far below)
CHUNK_BYTES = 1 << 20


async def read_capped(resp: aiohttp.ClientResponse, url: str) -> bytes:
    """The reply body, read no further than MAX_REPLY_BYTES (BackendError past it): one read when
    the server said a size under the cap (every answer), counted as it comes otherwise."""
    too_big = BackendError(f"the reply from {url} is larger than {MAX_REPLY_BYTES >> 20} MiB (no answer a "
                           "server gives merabench is): not read further", retryable=False)
    if resp.content_length is not None:
        if resp.content_length > MAX_REPLY_BYTES:
            raise too_big
        return await resp.read()
    pieces, size = [], 0
    async for piece in resp.content.iter_chunked(CHUNK_BYTES):
        size += len(piece)
        if size > MAX_REPLY_BYTES:
            raise too_big
        pieces.append(piece)
    return b"".join(pieces)
