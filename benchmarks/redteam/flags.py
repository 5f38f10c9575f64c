"""The red-team solver's reading of a feature-flag file in any layout (a YAML tree by flag or by
environment, INI sections, a Markdown table, FEATURE_<FLAG>__<ENV> keys): each flag's state in
each environment, and the environments a request means ("где он включён", "кроме production")."""

from __future__ import annotations

import re
from typing import Any

from redteam import files as rf

ENVS = ("dev", "qa", "test", "testing", "staging", "stage", "preprod", "production", "prod")
_ON = {"true", "on", "enabled", "yes", "1", "вкл", "включён", "включен"}
_OFF = {"false", "off", "disabled", "no", "0", "выкл", "выключен"}


def _norm(name: str) -> str:
    return name.strip().strip("`'\"").lower().replace("_", "-")


def states(text: str) -> dict[str, dict[str, bool]]:
    """flag -> environment -> on, from the file's live lines (comments of every kind dropped)."""
    found: dict[str, dict[str, bool]] = {}
    lines = rf.live_lines(re.sub(r"<!--.*?-->", "", text, flags=re.S))
    stack: list[tuple[int, str]] = []   # (indent, key) of the YAML parents / the INI section
    header: list[str] = []

    def put(names: list[str], value: str) -> None:
        state = value.strip().strip("`'\"").lower()
        if state not in _ON | _OFF:
            return
        envs = [n for n in names if n in ENVS]
        flags = [n for n in names if n not in ENVS and n not in ("environments", "flags", "envs")]
        if envs and flags:
            found.setdefault(flags[-1], {})[envs[-1]] = state in _ON
    for line in lines:
        if line.lstrip().startswith("|"):
            cells = [_norm(c) for c in line.strip().strip("|").split("|")]
            if all(set(c) <= set("-: ") for c in cells):
                continue
            if not header or not any(c in _ON | _OFF for c in cells):
                header = cells
                continue
            for name, cell in zip(header[1:], cells[1:], strict=False):
                put([cells[0], name], cell)
            continue
        section = re.match(r"^\s*\[([^\]]+)\]\s*$", line)
        if section:
            stack = [(-1, _norm(section.group(1)))]
            continue
        keyed = re.match(r"^(\s*)([\w.-]+)\s*[:=]\s*(.*?)\s*(?:#.*)?$", line)
        if not keyed:
            continue
        indent, key, value = len(keyed.group(1)), _norm(keyed.group(2)), keyed.group(3)
        while stack and stack[-1][0] >= indent and stack[-1][0] >= 0:
            stack.pop()
        if not value:
            stack.append((indent, key))
            continue
        if key.startswith("feature-") and "--" in key:  # FEATURE_<FLAG>__<ENV>
            flag, _, env = key[len("feature-"):].rpartition("--")
            put([flag, env], value)
            continue
        put([name for _, name in stack] + [key], value)
    return found


def flag_of(prompt: Any, table: dict[str, dict[str, bool]], other: str | None = None) -> str | None:
    """The flag a question means: the one it quotes (not the other flag its condition names), else
    the one whose description it says."""
    quoted = [q.lower() for q in re.findall(r"«([^»]*)»", prompt.question)]
    for name in quoted:
        if name in table and name != other:
            return name
    asked = {w[:5] for w in re.findall(r"[а-яё]{4,}", prompt.question.lower())}
    best, score = None, 0
    for text in prompt.files.values():
        for m in re.finditer(r"([\w-]+)\s*(?:—|-|:)\s*(?:description:\s*)?([а-яё][^\n(]*)", text):
            flag, said = _norm(m.group(1)), {w[:5] for w in re.findall(r"[а-яё]{4,}", m.group(2).lower())}
            if flag in table and flag != other and len(said & asked) > score and "старая версия" not in m.group(0):
                best, score = flag, len(said & asked)
    return best


_QUOTED = re.compile(r"«([^»]+)»")


def environments(prompt: Any) -> tuple[str, list[str]] | None:
    """The flag and the environments the request means, read over the flag file."""
    table: dict[str, dict[str, bool]] = {}
    for text in prompt.files.values():
        for flag, envs in states(text).items():
            table.setdefault(flag, {}).update(envs)
    q = prompt.question.lower()
    other = _other_flag(q, table)
    flag = flag_of(prompt, table, other[0] if other else None) if table else None
    if flag is None:
        return None
    envs = list(table[flag])
    if other:  # "где флаг «X» уже включён", "вслед за «X»: … где «X» уже выключен, а он ещё включён"
        name, on, own = other
        envs = [e for e in envs if table[name].get(e) == on and (own is None or table[flag][e] == own)]
        return (flag, envs) if envs else None
    named_out = [e for e in envs if re.search(rf"кроме {e}\b|{e} не нуж|без {e}\b|{e} пропусти", q)]
    # (v19's seed 23 adds: "где он сейчас отключён", "неактивен", "сейчас работает", "активен", "пройдись по окружениям")
    if re.search(r"(?:где|в которых)[^.,;]*?(?:не включ|выключен|отключен|отключён|неактив)", q):
        envs = [e for e in envs if not table[flag][e]]
    elif re.search(r"(?:где|в которых)[^.,;]*?(?:включ|работает|активен)", q):
        envs = [e for e in envs if table[flag][e]]
    elif not (named_out or re.search(r"кажд|всех|все |везде|по всем|пройдись по окружениям", q)):
        return None
    envs = [e for e in envs if e not in named_out]
    return (flag, envs) if envs else None


def _other_flag(q: str, table: dict[str, dict[str, bool]]) -> tuple[str, bool, bool | None] | None:
    """A second flag the request's environments depend on: its name, the state it must be in, and
    the state the asked flag must be in there (None when the request does not say)."""
    clause = re.search(r"где[^.;«]*«([^»]+)»([^.,;]*)(?:,\s*а он([^.;]*))?", q)
    if not clause or clause.group(1) not in table:
        return None
    if len(set(_QUOTED.findall(q))) < 2 and "отвечающ" not in q:
        return None  # "там, где флаг «X» пока выключен, включи его": X is the flag asked, not another
    said = q[clause.start():clause.end(2)]
    on = not re.search(r"выключ|не включ|отключ|погаш", said)
    own = clause.group(3)
    return clause.group(1), on, (None if own is None else not re.search(r"не включ|выключ|отключ", own))

