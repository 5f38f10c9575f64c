"""Parallel calls over a feature-flag file: one call per environment the question's condition picks.

A row's flag file is drawn for it: three to five environments and three to six flags with their
state in each, in one of five layouts (flags with their environments in YAML, environments with
their flags in YAML, an .env of FEATURE_<FLAG>__<ENV> keys, a Markdown table, INI sections), the
states in one of several spellings, each flag described in words. The question names the flag
outright or by what it does, and asks to switch it on (off) where it is not yet, or to check its
state in every environment, in all but one, or where the file has it on; or to do so where another
flag the question names is on (off), as a rollout that follows it; so which environments get
a call, and how many, is decided by reading the file. Decoys drawn per row: an old state commented
out above the live one, a look-alike flag (`-v2`, `legacy-`) in other states, a commented example.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from merabench.tasks.gorillahard.generator.corpus import Corpus, CorpusFile, bulk
from merabench.tasks.gorillahard.generator.families.common import (
    Family,
    View,
    build_question,
    expect,
    only,
    problems,
)
from merabench.tasks.gorillahard.generator.model import File, Question, call
from merabench.tasks.gorillahard.generator.wording import surface

ENVS = ("dev", "qa", "staging", "preprod", "production")
# what each flag does, as the file describes it (the accusative is the nominative: "отвечает за …")
FLAGS = {"new-checkout": "новое оформление заказа", "dark-mode": "ночной режим интерфейса",
         "fast-search": "ускоренный поиск по каталогу", "beta-reports": "новый раздел отчётов",
         "smart-cart": "умный подбор товаров в корзине", "one-click-pay": "платёж в один клик",
         "gift-cards": "подарочные сертификаты", "promo-banner": "промо-баннер на главной странице"}
LAYOUTS = ("yaml_flags", "yaml_envs", "env_keys", "md_table", "ini_envs")
STATES = {"yaml": (("true", "false"), ("on", "off"), ("enabled", "disabled")),
          "md": (("вкл", "выкл"), ("on", "off"), ("✅", "❌")),
          "env": (("true", "false"), ("1", "0"), ("on", "off")), "ini": (("on", "off"), ("true", "false"), ("yes", "no"))}
_FMT = {"yaml_flags": "yaml", "yaml_envs": "yaml", "env_keys": "env", "md_table": "md", "ini_envs": "ini"}
_COMMENT = {"yaml": "#", "env": "#", "ini": ";"}


def _key(flag: str) -> str:
    return flag.upper().replace("-", "_")


def described(flag: str) -> str:
    """What a flag does, as the file says it; a look-alike says what it is besides."""
    base = FLAGS[flag.removeprefix("legacy-").removesuffix("-v2")]
    if flag.startswith("legacy-"):
        return f"{base} (старая версия, больше не используется)"
    return f"{base} (черновик новой версии)" if flag.endswith("-v2") else base


@dataclass(frozen=True)
class _Sheet:
    """What every layout writes: the flags' states per environment, the words for on and off, the
    state left commented out above the live one (`old`: flag, env) and the legend's lines."""

    flags: dict[str, dict[str, bool]]
    envs: list[str]
    spell: tuple[str, str]
    old: tuple[str, str] | None
    legend: list[str]

    def state(self, value: bool) -> str:
        return self.spell[0] if value else self.spell[1]


def _yaml_flags(sheet: _Sheet, rng: random.Random) -> list[str]:
    lines = ["# фича-флаги сервиса: состояние в каждом окружении", "flags:"]
    for flag, states in sheet.flags.items():
        lines += [f"  {flag}:", f"    description: {described(flag)}",
                  f"    owner: team-{rng.choice(['cart', 'search', 'growth', 'platform'])}", "    environments:"]
        for env in sheet.envs:
            if sheet.old == (flag, env):
                lines.append(f"      # {env}: {sheet.state(not states[env])}  # до отката")
            lines.append(f"      {env}: {sheet.state(states[env])}")
    return lines


def _by_env(sheet: _Sheet, head: list[str], section: Callable[[str], list[str]],
            entry: Callable[[str, str, str, bool], str]) -> list[str]:
    """A file grouped by environment: its head, then per environment a section of one entry a
    flag, the rolled-back entry commented out above its live one."""
    lines = list(head)
    for env in sheet.envs:
        lines += section(env)
        for flag, states in sheet.flags.items():
            if sheet.old == (flag, env):
                lines.append(entry(flag, env, sheet.state(not states[env]), True))
            lines.append(entry(flag, env, sheet.state(states[env]), False))
    return lines


def _yaml_envs(sheet: _Sheet, rng: random.Random) -> list[str]:
    return _by_env(sheet, ["# что включено в каждом окружении", *sheet.legend, "environments:"],
                   lambda env: [f"  {env}:"],
                   lambda flag, env, state, old: f"    {'# ' if old else ''}{flag}: {state}")


def _env_keys(sheet: _Sheet, rng: random.Random) -> list[str]:
    return _by_env(sheet, ["# фича-флаги: FEATURE_<ФЛАГ>__<ОКРУЖЕНИЕ>", *sheet.legend],
                   lambda env: ["", f"# --- {env} ---"],
                   lambda flag, env, state, old: f"{'# ' if old else ''}FEATURE_{_key(flag)}__{env.upper()}={state}")


def _md_table(sheet: _Sheet, rng: random.Random) -> list[str]:
    envs, old = sheet.envs, sheet.old
    lines = ["# Фича-флаги", "", "Состояние флагов по окружениям (правит дежурный после каждого релиза).", "",
             "| флаг | описание | " + " | ".join(envs) + " |", "| --- | --- | " + " | ".join("---" for _ in envs) + " |"]
    for flag, states in sheet.flags.items():
        row = f"| `{flag}` | {sheet.legend[list(sheet.flags).index(flag)].split(' — ', 1)[1]} | " \
              + " | ".join(sheet.state(states[e]) for e in envs) + " |"
        if old and old[0] == flag:
            lines.append("<!-- " + row.replace(sheet.state(states[old[1]]), sheet.state(not states[old[1]]), 1) + " -->")
        lines.append(row)
    return lines


def _ini_envs(sheet: _Sheet, rng: random.Random) -> list[str]:
    return _by_env(sheet, ["; фича-флаги по окружениям", *sheet.legend],
                   lambda env: ["", f"[{env}]"],
                   lambda flag, env, state, old: f"{'; ' if old else ''}{flag} = {state}")


_WRITERS = {"yaml_flags": _yaml_flags, "yaml_envs": _yaml_envs, "env_keys": _env_keys, "md_table": _md_table,
            "ini_envs": _ini_envs}


def _render(layout: str, flags: dict[str, dict[str, bool]], envs: list[str], spell: tuple[str, str],
            old: tuple[str, str] | None, example: bool, rng: random.Random) -> str:
    """The file's text; `old`: (flag, env) whose previous state is left commented out above the live one."""
    fmt = _FMT[layout]
    c = _COMMENT.get(fmt, "")
    legend = [f"{c} {flag if fmt != 'env' else _key(flag)} — {described(flag)}" for flag in flags]
    lines = _WRITERS.get(layout, _ini_envs)(_Sheet(flags, envs, spell, old, legend), rng)
    if example and fmt != "md":
        flag = next(iter(flags))
        lines[1:1] = [f"{c} пример записи (не настоящие значения): {flag} = {spell[0]} в {envs[-1]}"]
    elif example:
        lines += ["", f"Пример: чтобы включить флаг только в {envs[0]}, поставьте «{spell[0]}» в его столбце."]
    text = "\n".join(lines) + "\n"
    prefix = "<!--" if fmt == "md" else c
    notes = bulk.change_notes(rng, prefix, " -->" if fmt == "md" else "")
    return notes + text


def _draw(rng: random.Random, want: str) -> tuple[File, dict[str, Any]] | None:
    envs = sorted(rng.sample(ENVS, rng.randint(3, 5)), key=ENVS.index)
    names = rng.sample(sorted(FLAGS), rng.randint(3, 6))
    asked = names[0]
    flags = {name: {e: rng.random() < 0.5 for e in envs} for name in names}
    decoys = rng.sample(("old", "lookalike", "example"), rng.randint(1, 2))
    if "lookalike" in decoys:
        twin = rng.choice((f"{asked}-v2", f"legacy-{asked}"))
        flags[twin] = {e: not flags[asked][e] for e in envs}
    order = list(flags)
    rng.shuffle(order)
    flags = {name: flags[name] for name in order}
    states = flags[asked]
    others = [f for f in names if f != asked]
    if rng.random() < 0.45:  # the environments another flag's state picks (a rollout that follows it)
        other = rng.choice(others)
        theirs = flags[other]
        if want == "on":
            chosen, plain = [e for e in envs if not states[e] and theirs[e]], [e for e in envs if not states[e]]
        elif want == "off":
            chosen, plain = [e for e in envs if states[e] and not theirs[e]], [e for e in envs if states[e]]
        else:
            chosen, plain = [e for e in envs if theirs[e]], list(envs)
        if len(chosen) < 2 or len(chosen) == len(plain):
            return None  # two calls or more, and the other flag's state leaves out an environment
        condition = f"with:{other}"
    elif want == "on":
        chosen = [e for e in envs if not states[e]]
        condition = "off"
    elif want == "off":
        chosen = [e for e in envs if states[e]]
        condition = "on"
    else:
        condition = rng.choice(("all", "except", "on"))
        chosen = [e for e in envs if states[e]] if condition == "on" else list(envs)
        if condition == "except":
            chosen.remove(rng.choice(chosen))
    if len(chosen) < 2 or (condition in ("on", "off") and len(chosen) == len(envs)):
        return None  # two calls or more, and a condition that leaves some environment out
    layout = rng.choice(LAYOUTS)
    fmt = _FMT[layout]
    spell = rng.choice(STATES[fmt])
    old = (asked, rng.choice(envs)) if "old" in decoys else None
    text = _render(layout, flags, envs, spell, old, "example" in decoys, rng)
    folder = rng.choice(["config", "deploy", "ops", "settings"])
    name = {"yaml": "feature-flags.yaml", "env": "flags.env", "md": "FLAGS.md", "ini": "flags.ini"}[fmt]
    path = f"{folder}/{rng.randint(100, 999)}/{name}"
    excluded = [e for e in envs if e not in chosen][0] if condition == "except" else None
    return File(path, fmt, text), {"flag": asked, "envs": chosen, "condition": condition, "excluded": excluded,
                                   "layout": layout, "decoys": sorted(decoys)}


# --- the question ---------------------------------------------------------------------------

_ENABLE = ("Включи {flag} во всех окружениях, где он ещё выключен.", "Включи {flag} везде, где он сейчас выключен.",
           "Там, где {flag} пока выключен, включи его.", "{Flag} надо включить во всех окружениях, где он ещё не включён.",
           "включи {flag} там, где он выключен", "Будьте добры, включите {flag} в тех окружениях, где он пока выключен.",
           "Активируй {flag} в окружениях, в которых он сейчас неактивен.",
           "В окружениях, где {flag} сейчас отключён, его нужно включить.",
           "Пройдись по окружениям файла и включи {flag} там, где он пока не включён.",
           "Доведи {flag} до включённого состояния в каждом окружении, где он сейчас отключён.",
           "Там, где {flag} ещё неактивен, активируй его.", "Включите, пожалуйста, {flag} в окружениях, где он пока отключён.",
           "{Flag} должен быть включён везде: включи его там, где он сейчас неактивен.",
           "Нужно, чтобы {flag} работал во всех окружениях файла: включи его там, где он отключён.",
           "Переведи {flag} во включённое состояние там, где он сейчас отключён.",
           "Окружения, где {flag} сейчас отключён, — включи его в них.")
_DISABLE = ("Выключи {flag} во всех окружениях, где он сейчас включён.", "Погаси {flag} везде, где он включён.",
            "Там, где {flag} включён, выключи его.", "{Flag} нужно отключить во всех окружениях, где он включён.",
            "выруби {flag} там, где он включён", "Пожалуйста, отключите {flag} в тех окружениях, где он сейчас включён.",
            "Деактивируй {flag} в окружениях, в которых он сейчас активен.",
            "В окружениях, где {flag} сейчас работает, его нужно выключить.",
            "Пройдись по окружениям файла и выключи {flag} там, где он пока включён.",
            "Отключи {flag} во всех окружениях, где он сейчас активен.",
            "Там, где {flag} ещё активен, деактивируй его.", "Отключите, пожалуйста, {flag} в окружениях, где он пока работает.",
            "{Flag} больше не нужен: выключи его там, где он сейчас активен.",
            "Нужно, чтобы {flag} нигде не работал: отключи его там, где он ещё включён.",
            "Погасите {flag} в тех окружениях, в которых он ещё активен.",
            "Окружения, где {flag} сейчас включён, — выключи его в них.")
_STATE = {"all": ("Проверь состояние {flag_gen} в каждом окружении из файла.",
                  "В каком состоянии {flag} во всех окружениях из файла?",
                  "Посмотри, включён ли {flag} в каждом из окружений файла.", "состояние {flag_gen} во всех окружениях",
                  "Пройдись по окружениям из файла и проверь, включён ли в них {flag}.",
                  "Как сейчас обстоит дело с {flag_ins} в окружениях из файла? Проверь по каждому.",
                  "Проверь, в каком состоянии {flag} в окружениях, перечисленных в файле.",
                  "Сверь состояние {flag_gen} по окружениям, которые перечислены в файле, — по каждому из них.",
                  "Узнай по каждому окружению из файла, включён там {flag} или нет.",
                  "Нужно состояние {flag_gen} в каждом окружении, какое есть в файле."),
          "except": ("Проверь состояние {flag_gen} во всех окружениях, кроме {env}.",
                     "Посмотри, в каком состоянии {flag} везде, кроме {env}.",
                     "состояние {flag_gen} по всем окружениям, {env} не нужен",
                     "Проверь состояние {flag_gen} во всех окружениях, за исключением {env}.",
                     "Посмотри, в каком состоянии {flag} в окружениях из файла; {env} пропусти.",
                     "Сверь состояние {flag_gen} в окружениях из файла, минуя {env}.",
                     "Проверь, включён ли {flag} в окружениях из файла, но {env} оставь в стороне.",
                     "Проверь состояние {flag_gen} везде, только не в {env}.",
                     "Проверь состояние {flag_gen} в окружениях из файла; {env} не трогай."),
          "on": ("Проверь фактическое состояние {flag_gen} в тех окружениях, где по файлу он включён.",
                 "Посмотри, включён ли {flag} на самом деле там, где по файлу он включён.",
                 "Сверь с жизнью: проверь состояние {flag_gen} там, где в файле он включён.",
                 "Файл говорит, что {flag} кое-где включён; проверь его настоящее состояние в этих окружениях.",
                 "Проверь состояние {flag_gen} в окружениях, где он по файлу активен.",
                 "Там, где файл отмечает {flag_acc} включённым, проверь, так ли это на деле.",
                 "Узнай настоящее состояние {flag_gen} в тех окружениях, в которых файл считает его включённым.",
                 "Проверь, действительно ли {flag} работает там, где по файлу он активен.",
                 "В окружениях, где {flag} по файлу включён, проверь его фактическое состояние.")}


# the environments another flag («{other}», always named outright) picks: where it is on (off)
_WITH = {"on": ("Включи {flag} в тех окружениях, где флаг «{other}» уже включён, а он сам ещё не включён.",
                "Там, где включён «{other}», а {flag} пока выключен, включи и его.",
                "{Flag} включаем вслед за «{other}»: включи его везде, где «{other}» уже включён, а он ещё выключен."),
         "off": ("Выключи {flag} в тех окружениях, где флаг «{other}» уже выключен, а он сам ещё включён.",
                 "Там, где «{other}» выключен, а {flag} ещё включён, выключи и его.",
                 "{Flag} гасим вслед за «{other}»: выключи его везде, где «{other}» уже выключен, а он ещё включён."),
         "state": ("Проверь состояние {flag_gen} в тех окружениях, где по файлу включён флаг «{other}».",
                   "Посмотри, в каком состоянии {flag} там, где в файле включён «{other}».",
                   "состояние {flag_gen} в окружениях, где по файлу включён «{other}»")}


def flag_phrase(rng: random.Random, flag: str, lookalike: bool) -> tuple[str, str]:
    """The flag named outright or by what it does (not beside a look-alike that does the same):
    (nominative, genitive); the templates never end on it."""
    named = [(f"флаг «{flag}»", f"флага «{flag}»"), (f"фича-флаг «{flag}»", f"фича-флага «{flag}»")]
    by_deed = [(f"флаг, отвечающий за {FLAGS[flag]},", f"флага, отвечающего за {FLAGS[flag]},")]
    return rng.choice(named if lookalike else named + by_deed * 2)


def flags_question(rng: random.Random, want: str, facts: dict[str, Any]) -> str:
    other = facts["condition"].removeprefix("with:") if facts["condition"].startswith("with:") else None
    if other:
        templates: tuple[str, ...] = _WITH[want]
    else:
        templates = {"on": _ENABLE, "off": _DISABLE}.get(want) or _STATE[facts["condition"]]
    nominative, genitive = flag_phrase(rng, facts["flag"], "lookalike" in facts["decoys"])
    key = f"flags:{want}:{'with' if other else facts['condition']}"
    instrumental = genitive.replace("флага", "флагом", 1).replace("отвечающего", "отвечающим", 1)
    return surface.choose(rng, templates, key).format(flag=nominative, Flag=nominative[0].upper() + nominative[1:],
                                                      flag_gen=genitive, flag_ins=instrumental, flag_acc=nominative,
                                                      env=facts["excluded"], other=other)


# --- the validator's reading -----------------------------------------------------------------

_ON = {"true", "on", "enabled", "вкл", "✅", "1", "yes"}


def read_flag(text: str, flag: str) -> dict[str, bool]:
    """The flag's live state per environment, in file order, in whichever layout the file has."""
    live = [ln for ln in text.split("\n") if ln.strip() and not ln.strip().startswith(("#", ";", "<!--"))]
    found: dict[str, bool] = {}
    key = flag.upper().replace("-", "_")
    if any(ln.startswith("flags:") for ln in live):
        inside = False
        for ln in live:
            if re.match(r"^  \S", ln):
                inside = ln.strip() == f"{flag}:"
            elif inside and (m := re.match(r"^      (\w+):\s*(\S+)", ln)):
                found[m.group(1)] = m.group(2).lower() in _ON
    elif any(ln.startswith("environments:") for ln in live):
        env = None
        for ln in live:
            if m := re.match(r"^  (\w+):\s*$", ln):
                env = m.group(1)
            elif env and (m := re.match(rf"^    {re.escape(flag)}:\s*(\S+)", ln)):
                found[env] = m.group(1).lower() in _ON
    elif any(ln.startswith("FEATURE_") for ln in live):
        for ln in live:
            if m := re.match(rf"^FEATURE_{key}__(\w+)=(\S+)", ln):
                found[m.group(1).lower()] = m.group(2).lower() in _ON
    elif any(ln.startswith("|") for ln in live):
        rows = [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in live if ln.startswith("|")]
        envs = rows[0][2:]
        for cells in rows[2:]:
            if cells[0].strip("`") == flag:
                found = {e: v.lower() in _ON for e, v in zip(envs, cells[2:], strict=False)}
    else:
        env = None
        for ln in live:
            if m := re.match(r"^\[(\w+)\]", ln):
                env = m.group(1)
            elif env and (m := re.match(rf"^{re.escape(flag)}\s*=\s*(\S+)", ln)):
                found[env] = m.group(1).lower() in _ON
    return found


def check_flags(view: View, tool: str, want: str | None) -> list[str]:
    _, text = only(view)
    d = view.derivation
    flag, q = d["flag"], view.question
    states = read_flag(text, flag)
    lines = text.split("\n")
    by_deed = re.search(r"отвечающ\w+ за (.+?),", q)
    # a flag's description: on its line (a legend, a table row) or the line under it (a YAML block)
    near = [c for n, ln in enumerate(lines) if re.search(rf"(?<![\w-])(?:{re.escape(flag)}|{_key(flag)})(?![\w-])", ln)
            for c in lines[n:n + 2]]
    named = f"«{flag}»" in q or bool(by_deed and any(
        re.search(rf"(?:— |description: |\| ){re.escape(by_deed.group(1))}(?: \||\s*$)", c) for c in near))
    others = [name for name in re.findall(r"«([^»]+)»", q) if name != flag]  # another flag whose state picks
    theirs = read_flag(text, others[0]) if others else {}
    if others:
        keep = {"on": lambda e: not states[e] and theirs.get(e), "off": lambda e: states[e] and theirs.get(e) is False}
        envs = [e for e in states if keep.get(want or "", lambda e: theirs.get(e))(e)]
        said = r"включ" if want != "off" else r"выключ"
        return problems((named, "the question names the flag neither outright nor by what the file says it does"),
                        (bool(states) and set(theirs) == set(states), "the files hold no states of both flags"),
                        (d["condition"] == f"with:{others[0]}", "the question names another flag than the condition's"),
                        (re.search(said, q) is not None, "the question does not say the other flag's state"),
                        (len(envs) >= 2, "fewer than two environments meet the condition")) + \
            expect(view, {"calls": [call(tool, flag=flag, environment=e) for e in envs]})
    if want == "on":
        envs = [e for e, on in states.items() if not on]
    elif want == "off" or d["condition"] == "on":
        envs = [e for e, on in states.items() if on]
    else:
        envs = [e for e in states if e != d.get("excluded")]
    said = {"on": r"выключ|не включ|отключ|неактив", "off": r"включ|активен|работает"}.get(want, "") if want else \
        {"on": r"включ|активен"}.get(d["condition"], "")
    return problems((named, "the question names the flag neither outright nor by what the file says it does"),
                    (bool(states), "the file holds no state of the flag"),
                    (not said or re.search(said, q) is not None, "the question does not say the condition"),
                    (d.get("excluded") is None or d["excluded"] in q, "the excluded environment is not in the question"),
                    (len(envs) >= 2, "fewer than two environments meet the condition")) + \
        expect(view, {"calls": [call(tool, flag=flag, environment=e) for e in envs]})


def flag_calls(name: str, count: int, tool: str, twin: str, want: str | None) -> Family:
    """A parallel family: `tool` for the named flag in each environment the condition picks
    (`want`: "on" to enable where off, "off" to disable where on, None to read its state)."""
    def make(rng: random.Random, corpus: Corpus) -> Question:
        drawn = None
        while drawn is None:
            drawn = _draw(rng, want or "state")
        file, facts = drawn
        return build_question(name, "parallel", "T4_wild", flags_question(rng, want or "state", facts),
                              (CorpusFile(file, "flags"),),
                              {"calls": [call(tool, flag=facts["flag"], environment=e) for e in facts["envs"]]}, twin,
                              facts={k: v for k, v in facts.items() if k != "envs"})

    return Family(name, "parallel", "T4_wild", count, make, lambda view: check_flags(view, tool, want))
