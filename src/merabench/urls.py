"""Endpoint URLs: credentials in a URL are used, never written down."""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import urlsplit, urlunsplit


@lru_cache(maxsize=256)  # a run asks for the same few URLs on every request
def redact(url: str) -> str:
    """The URL with any user and password replaced by `***`."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if not (parts.username or parts.password):
        return url
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit(parts._replace(netloc=f"***@{host}"))
