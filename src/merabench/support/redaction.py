"""The one redaction: every secret of a run masked in whatever merabench writes or prints.

What merabench writes (samples, results.json, the report, lm-eval logs, exported requests,
submissions, the response cache, server logs) and prints (the terminal) passes through
`redact` at the writing boundary, so a secret that travelled into any text (a server's 401
repeating "Bearer sk-…", a URL in an error message, an answer echoing the key) is masked there.

The secrets are what the run was given: API keys (`--api-key`, `--judge-api-key` and the
environment variables they default to, HF_TOKEN), and from every endpoint URL its user:password
and the values of query parameters whose names look like keys or tokens (`?api_key=…`). They
are registered where they enter (`register_secret`, `register_url`); the registry only grows
(masking a finished run's key in a later one is harmless, forgetting one is a leak), which is
why it is one per process and not an object handed to every writer.

A value shorter than MIN_SECRET_CHARS, or shorter than 12 characters and only letters or only
digits, is a placeholder (`EMPTY`, `dummy`, `changeme`, `123456`: the keys local servers ignore),
not a secret: masking it in free text would cut words out of answers and digits out of numbers
(breaking the JSON written), so it is masked only in the forms a secret takes in transit
(`Bearer x`, `user:x@`, `api_key=x`). A secret is also masked in its reversible encodings: base64
and URL-safe base64 (at each of the three byte alignments a key can take inside a longer blob,
so `Bearer key` encoded whole is caught too).

A key the run sends (`unsendable_key`) must be made of the characters API keys are made of: one
with a line break or a non-ASCII letter cannot go in an HTTP header, and one with a quote, a
colon or a space could match across the syntax of the JSON written, so masking it would cut
the file's structure rather than a value. Such a key is refused before anything is written.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
import threading
from collections.abc import Iterable, Iterator
from functools import lru_cache
from urllib.parse import parse_qsl, quote, unquote, urlsplit, urlunsplit

MASK = "***"
MIN_SECRET_CHARS = 6
#: the shortest base64 run masked as an encoded secret (shorter ones turn up by chance in any blob)
MIN_ENCODED_CHARS = 8
#: what API keys are made of (OpenAI's sk-…, JWTs, hub tokens, base64 secrets)
KEY_CHARACTERS = re.compile(r"[A-Za-z0-9._~+/=-]*")
#: environment variables holding a secret a run may use (the model's and the judge's keys, the hub token)
SECRET_ENV = ("OPENAI_API_KEY", "LM_EVAL_JUDGE_API_KEY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")
#: environment variables holding a URL that may carry credentials
URL_ENV = ("OPENAI_BASE_URL", "LM_EVAL_JUDGE_API_BASE")
#: a query parameter whose name says it holds a credential (broader than a field name: `sig`, `auth`)
SECRET_NAME = re.compile(r"key|token|secret|passw|pwd|auth|credential|signature|sig$|session", re.IGNORECASE)

#: words of a field or variable name that say it holds a credential (OPENAI_API_KEY, HF_TOKEN,
#: "api_key"; not TOKENIZERS_PARALLELISM, max_tokens or PWD)
CREDENTIAL_WORDS = frozenset({"KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "CREDENTIALS",
                              "AUTHORIZATION"})


def names_a_credential(name: str) -> bool:
    return bool(set(re.split(r"[_\W]+", name.upper())) & CREDENTIAL_WORDS)


def register_fields(value: object) -> None:
    """The string values of fields named like credentials, anywhere in a JSON-like value (an
    `--extra-body` carrying `"api_key"` or `"headers": {"Authorization": …}`)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str) and isinstance(key, str) and names_a_credential(key):
                register_secret(item.removeprefix("Bearer ").removeprefix("bearer "))
            else:
                register_fields(item)
    elif isinstance(value, list | tuple):
        for item in value:
            register_fields(item)


_lock = threading.Lock()
_registered: dict[str, str] = {}    # each form to mask -> what stands in its place, in registration order
_version = 0


def _forms(value: str) -> list[str]:
    """The ways `value` can appear in what merabench writes: as it is, JSON-escaped (with and
    without ASCII escapes), HTML-escaped, percent-encoded and percent-decoded."""
    forms = {value, json.dumps(value, ensure_ascii=False)[1:-1], json.dumps(value)[1:-1], html.escape(value),
             quote(value, safe=""), unquote(value)}
    return [f for f in forms if f]


def _encoded(value: str) -> list[str]:
    """The base64 and URL-safe base64 text that encodes `value` wherever it sits in a longer
    encoded blob: for each byte alignment, the characters that only the value's bytes decide."""
    raw = value.encode("utf-8", "surrogatepass")
    cores = []
    for shift in range(3):
        encoded = base64.b64encode(bytes(shift) + raw).decode()
        core = encoded[-(-8 * shift // 6):8 * (shift + len(raw)) // 6]
        if len(core) >= MIN_ENCODED_CHARS:
            cores += [core, core.replace("+", "-").replace("/", "_")]
    return cores


def _add(*forms: str, transit: bool = False) -> None:
    """Forms to mask; `transit` forms (`Bearer x`, `api_key=x`, `user:x@`) keep what says what
    they were. Only those: a secret that itself holds `=` or `@` is masked whole."""
    global _version
    with _lock:
        for form in forms:
            for variant in _forms(form) + ([] if transit else _encoded(form)):
                if variant not in _registered:
                    _registered[variant] = _transit_mask(variant) if transit else MASK
                    _version += 1


def _transit_mask(form: str) -> str:
    for prefix in ("Bearer ", "bearer "):
        if form.startswith(prefix):
            return prefix + MASK
    if form.endswith("@"):
        return MASK + "@"
    if "=" in form:
        return form.split("=", 1)[0] + "=" + MASK
    return MASK


def placeholder(value: str) -> bool:
    """Too short or too plain to be a real secret (and masking it anywhere would do harm)."""
    return len(value) < MIN_SECRET_CHARS or (len(value) < 12 and (value.isalpha() or value.isdigit()))


def unsendable_key(value: str | None) -> str | None:
    """Why `value` cannot be used as an API key, or None when it can (an empty or placeholder
    key included: local servers ignore it, and it is masked only as `Bearer x`)."""
    if not value or KEY_CHARACTERS.fullmatch(value):
        return None
    odd = next(ch for ch in value if not KEY_CHARACTERS.fullmatch(ch))
    if odd in "\r\n":
        return "holds a line break, which no HTTP header can carry"
    if not odd.isascii():
        return f"holds {odd!r}, a non-ASCII character, which an HTTP header cannot carry as it is"
    return (f"holds {odd!r}, which no API key holds (only letters, digits and ._~+/=-); "
            "it could not be masked safely in the files written")


def register_secret(value: str | None) -> None:
    """A key or token the run uses: masked wherever it appears (a placeholder only as `Bearer x`)."""
    if not value or not value.strip():
        return
    if not placeholder(value):
        _add(value)
    else:
        _add(f"Bearer {value}", f"bearer {value}", transit=True)


def register_argv(words: list[str]) -> None:
    """The values a command line gives flags named like credentials (`--api-key X`,
    `--hf-token=X`): a served engine's arguments are written in results.json and its log."""
    for i, word in enumerate(words):
        flag, eq, value = word.partition("=")
        if not flag.startswith("-") or not names_a_credential(flag.lstrip("-")):
            continue
        if eq:
            register_secret(value)
        elif i + 1 < len(words) and not words[i + 1].startswith("-"):
            register_secret(words[i + 1])


def url_secrets(url: str) -> tuple[list[str], list[str]]:
    """(secrets anywhere, forms in transit) of a URL: its password and user:password (and the
    Basic credentials made of them), the values of its key-like query parameters."""
    try:
        parts = urlsplit(url)
        user, password = parts.username, parts.password
    except ValueError:
        return [], []
    anywhere: list[str] = []
    transit: list[str] = []  # only for short values: a long one is masked anywhere, its forms in transit with it
    if user or password:
        pair = f"{unquote(user or '')}:{unquote(password or '')}"
        anywhere.append(base64.b64encode(pair.encode()).decode())  # the Basic credentials the client sends
        if password and not placeholder(unquote(password)):
            anywhere.append(unquote(password))
        else:
            transit += [f"{user or ''}:{password or ''}@", pair + "@"]
    for name, value in parse_qsl(parts.query, keep_blank_values=False):
        if SECRET_NAME.search(name) and value:
            if not placeholder(value):
                anywhere.append(value)
            else:
                transit += [f"{name}={quote(value, safe='')}", f"{name}={value}"]
    return anywhere, transit


def register_url(url: str | None) -> None:
    """An endpoint URL the run uses: its credentials and key-like query values are masked."""
    if not url:
        return
    anywhere, transit = url_secrets(url)
    _add(*anywhere)
    _add(*transit, transit=True)


def register_environment() -> None:
    """The secrets in this process's environment (SECRET_ENV, URL_ENV): read where a run starts
    (the CLI, `evaluate`, `score_predictions`) and on the first redaction, not on every one."""
    global _environment_read
    _environment_read = True
    for name in SECRET_ENV:
        register_secret(os.environ.get(name))
    for name in URL_ENV:
        register_url(os.environ.get(name))


_environment_read = False


@lru_cache(maxsize=8)
def _compiled(version: int) -> tuple[tuple[str, ...], re.Pattern[str] | None, dict[str, str]]:
    """(the forms to mask, one pattern of them, what stands in each one's place), for this state
    of the registry."""
    del version  # part of the cache key only
    with _lock:
        forms = tuple(sorted(_registered, key=len, reverse=True))  # the longest first: a key inside a longer form
        masks = dict(_registered)
    return forms, re.compile("|".join(re.escape(f) for f in forms)) if forms else None, masks


def _known() -> tuple[tuple[str, ...], re.Pattern[str] | None, dict[str, str]]:
    if not _environment_read:
        register_environment()
    return _compiled(_version)


def redact(text: str) -> str:
    """`text` with every known secret of the run masked."""
    forms, pattern, masks = _known()
    # a few substring searches (fast) decide; the pattern runs only on text holding a secret
    if pattern is None or not text or not any(f in text for f in forms):
        return text
    return pattern.sub(lambda match: masks.get(match.group(0), MASK), text)


def redact_url(url: str) -> str:
    """A URL as merabench shows it: user:password and key-like query values masked, even before
    the URL is registered (a malformed one is masked as text)."""
    return _shown_url(url, _version)


@lru_cache(maxsize=256)  # a run shows the same few URLs on every request
def _shown_url(url: str, version: int) -> str:
    del version  # part of the cache key only
    register_url(url)
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a bad port raises here, not later
    except ValueError:
        return redact(url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = MASK + "@" + netloc.rsplit("@", 1)[1]
    query = "&".join(f"{name}={MASK}" if SECRET_NAME.search(name) else f"{name}={quote(value, safe='')}"
                     for name, value in parse_qsl(parts.query, keep_blank_values=True))
    return redact(urlunsplit(parts._replace(netloc=netloc, query=query if parts.query else "")))


def longest_secret() -> int:
    """The length of the longest form masked (a stream holds back one character less)."""
    forms, _, _ = _known()
    return len(forms[0]) if forms else 0


class StreamRedactor:
    """Masks a text that comes in pieces (a file written in parts, a server's log): a secret split
    across two pieces is masked too. What follows the last line break of a piece, up to one
    character less than the longest secret, waits for the next piece (no secret holds a line
    break, so whole lines pass at once)."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, piece: str) -> str:
        text = redact(self._held + piece)
        keep = min(max(0, longest_secret() - 1), len(text) - text.rfind("\n") - 1)
        cut = len(text) - keep
        self._held = text[cut:]
        return text[:cut]

    def finish(self) -> str:
        rest, self._held = self._held, ""
        return redact(rest)


def redact_stream(pieces: Iterable[str]) -> Iterator[str]:
    """Masked pieces of a text written in pieces (StreamRedactor)."""
    redactor = StreamRedactor()
    for piece in pieces:
        out = redactor.feed(piece)
        if out:
            yield out
    rest = redactor.finish()
    if rest:
        yield rest
