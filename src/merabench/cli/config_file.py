"""`merabench run --config run.toml`: a run described by a file.

Keys are the flags' names, with `-` or `_` (`max-tokens` or `max_tokens`, `out` for `--out`, `cache =
false` for `--no-cache`). A list may be written as on the command line or as a TOML list:
`tasks = "sage,russianregions"` and `tasks = ["sage", "russianregions"]` are the same, and so are
`data = "bundled"` and `data = ["bundled"]`. The file gives defaults; every flag on the command
line overrides it (a repeatable flag replaces the file's list, it does not add to it).
`--dump-config` prints the effective values in the same form.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from merabench.errors import ConfigError, reading
from merabench.rows.inputfile import read_text

#: flags that describe the invocation, not the run: never read from or written to a config file
NOT_IN_FILE = {"config", "dump_config", "help", "api_key", "judge_api_key"}


def _key(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def flag_keys(params: list[Any]) -> dict[str, Any]:
    """{file key: click parameter} for a command's options ("--out" -> "out", "--no-cache" -> "cache")."""
    keys = {}
    for param in params:
        if not getattr(param, "opts", None) or param.name in NOT_IN_FILE:
            continue
        for opt in param.opts:
            if opt.startswith("--"):
                keys[_key(opt)] = param
    return keys


def _value(key: str, param: Any, value: Any) -> Any:
    """A file value as the option takes it: lists joined or wrapped as the flag expects."""
    if isinstance(value, dict):
        raise ConfigError(f"config key '{key}' must be a value or a list, not a table")
    is_flag = bool(getattr(param, "is_flag", False))
    if isinstance(value, bool) != is_flag:  # `concurrency = true` is no number; `cache = 1` no switch
        wanted = "true or false" if is_flag else "a value as its flag takes, not true/false"
        raise ConfigError(f"config key '{key}' must be {wanted}, got {_toml_value(value)}")
    kind = getattr(param.type, "name", "")
    whole = any(c.__name__ == "IntParamType" for c in type(param.type).__mro__)  # typer ships its own click
    if isinstance(value, float) and whole:  # click would cut 2.7 to 2
        raise ConfigError(f"config key '{key}' must be a whole number, got {_toml_value(value)}")
    if kind == "path" and isinstance(value, list) and not getattr(param, "multiple", False):
        raise ConfigError(f"config key '{key}' takes one path, not a list")
    if kind == "path" and isinstance(value, str) and not value.strip():  # "" would mean the current folder
        raise ConfigError(f"config key '{key}' is empty: give a file or folder (. for the current one)")
    if getattr(param, "multiple", False):
        items = value if isinstance(value, list) else [value]
        return [str(v) for v in items]
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return value


def load_defaults(path: Path, params: list[Any]) -> dict[str, Any]:
    """The file's values by parameter name, for click's default_map."""
    with reading(path, "--config"):  # a missing file, bad UTF-8 or bad TOML: one line naming the file
        document = tomllib.loads(read_text(path, "--config"))
    known = flag_keys(params)
    defaults: dict[str, Any] = {}
    for raw_key, value in document.items():
        key = _key(raw_key)
        if key in NOT_IN_FILE:
            raise ConfigError(f"{path}: '{raw_key}' cannot be set in a config file"
                              + (" (keys stay in the environment)" if "key" in key else ""))
        param = known.get(key)
        if param is None:
            close = difflib.get_close_matches(key, known, n=1)
            raise ConfigError(f"{path}: unknown key '{raw_key}'" + (f"; did you mean '{close[0]}'?" if close else ""))
        defaults[param.name] = _value(raw_key, param, value)
    return defaults


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return '"' + _TOML_ESCAPES.sub(lambda m: _TOML_SHORT.get(m.group(), f"\\u{ord(m.group()):04x}"), str(value)) + '"'


# what a TOML basic string must escape: the quote, the backslash and every control character
# (DEL included): a system prompt holding them still loads back as it was dumped
_TOML_ESCAPES = re.compile(r'["\\\x00-\x1f\x7f]')
_TOML_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def dump(values: Mapping[str, Any], params: list[Any]) -> str:
    """The effective values as a config file (unset options left out; TOML has no null)."""
    lines = []
    for param in params:  # in the command's order, as --help lists them
        name = param.name
        value = values.get(name)
        if not getattr(param, "opts", None) or name in NOT_IN_FILE or value is None or (
                isinstance(value, list | tuple) and not value):
            continue
        flag = next(o for o in param.opts if o.startswith("--"))
        lines.append(f"{_key(flag).replace('_', '-')} = {_toml_value(list(value) if isinstance(value, tuple) else value)}")
    return "\n".join(lines) + "\n"
