"""Parallel calls over a host inventory: one call per host that meets the question's condition.

A row's inventory is drawn for it: four to seven hosts, each with an environment, a role, a status
and the result of its last check, in one of six layouts (a Markdown table, labelled bullets,
sections per environment; whitespace columns, inventory groups, key=value lines), the values in
one of several spellings. The question asks for the hosts of one environment or one role, those
still in service, or those whose last check failed, in words of its own, or names no value but
how to find it: the environment or role of a host it names (the others that share it), the one
most hosts of the list share; so which hosts get a call, and how many, is decided by reading the
file. Decoys drawn per row: a matching host
commented out, a matching host in an archived list, a matching host listed twice (one call), a
host named in a note that is not in the list.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

from merabench.tasks.gorillahard.generator.corpus import Corpus, bulk
from merabench.tasks.gorillahard.generator.corpus.common import DOMAINS, HOSTNAMES, CorpusFile
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

ATTRIBUTES = ("env", "role", "status", "check")
VALUES = {"env": ("production", "staging", "testing"), "role": ("web", "db", "cache", "queue"),
          "status": ("active", "retired"), "check": ("ok", "failed")}
# how a file spells each value (one spelling per file); one-word spellings for the plain-text layouts
SPELLINGS = {"production": ("production", "prod", "прод"), "staging": ("staging", "stage", "стейдж"),
             "testing": ("testing", "test", "тест"), "web": ("web", "frontend"), "db": ("db", "database"),
             "cache": ("cache", "redis"), "queue": ("queue", "broker"), "active": ("active", "в работе", "in-service"),
             "retired": ("decommissioned", "выведен", "retired"), "ok": ("ok", "прошла", "passed"),
             "failed": ("failed", "не прошла", "fail")}
LABELS = {"env": "окружение", "role": "роль", "status": "статус", "check": "проверка"}
MD_LAYOUTS = ("md_table", "md_bullets", "md_sections")
TEXT_LAYOUTS = ("txt_columns", "txt_groups", "txt_pairs")
DECOYS = ("commented", "archived", "duplicate", "mentioned")
_ARCHIVE_MD = ("## Старый список (до миграции, не проверять)", "## Архив: выведенные хосты, не проверять",
               "## Пример заполнения (не реальные хосты)")
_ARCHIVE_TXT = ("# === ниже архив: список до миграции, эти хосты не проверяем ===",
                "# === всё, что ниже, — старый список, не использовать ===")


def _draw_hosts(rng: random.Random, n: int) -> list[str]:
    names = rng.sample(HOSTNAMES, n)
    return [f"{name}{rng.choice(['', '', '-1', '-2'])}.{rng.choice(DOMAINS)}" for name in names]


def _record(rng: random.Random, host: str) -> dict[str, str]:
    return {"host": host, **{a: rng.choice(VALUES[a]) for a in ATTRIBUTES}}


def matches(record: dict[str, str], where: list[str], also: list[str] | None = None, negated: bool = False) -> bool:
    """Whether a host meets the condition: `where` (or, negated, anything but it) and `also`."""
    attribute, value = where
    if (record.get(attribute) == value) == negated:
        return False
    return also is None or record.get(also[0]) == also[1]


# a second condition a question may add ("… in production and still in service")
_PAIRS = (("env", "status"), ("env", "check"), ("role", "status"), ("role", "check"), ("env", "role"))


def _condition(rng: random.Random, records: list[dict[str, str]]) -> dict[str, Any] | None:
    """A condition two or more of the hosts meet and one or more do not: one attribute's value,
    anything but one environment, or two attributes at once; or a value the question never says,
    only how to find it in the list: the environment or role of a host it names (that host
    itself left out), or the environment or role most hosts of the list share (drawn per row)."""
    kind = rng.choice(("one", "one", "not", "two", "two", "same", "same", "most", "most"))
    options: list[dict[str, Any]] = []
    if kind == "same":
        options = [{"where": [a, r[a]], "anchor": r["host"]} for r in records for a in ("env", "role")]
    elif kind == "most":
        for a in ("env", "role"):
            tally = Counter(r[a] for r in records).most_common()
            if len(tally) > 1 and tally[0][1] > tally[1][1]:  # one value leads: no tie to break
                options.append({"where": [a, tally[0][0]], "most": True})
    elif kind == "not":
        options = [{"where": ["env", v], "negated": True} for v in VALUES["env"]]
    elif kind == "two":
        for first, second in _PAIRS:
            for a in VALUES[first]:
                b = {"status": ["active"], "check": ["failed"]}.get(second, VALUES[second])
                options += [{"where": [first, a], "also": [second, v]} for v in b]
    else:
        options = [{"where": ["env", v]} for v in VALUES["env"]] + [{"where": ["role", v]} for v in VALUES["role"]]
        options += [{"where": ["status", "active"]}, {"where": ["check", "failed"]}]
    rng.shuffle(options)
    for condition in options:
        hits = sum(_meets(r, condition) for r in records)
        if 2 <= hits < len(records):
            return condition
    return None


def asks_status(condition: dict[str, Any]) -> bool:
    return "status" in (condition["where"][0], (condition.get("also") or [None])[0])


def _meets(record: dict[str, str], condition: dict[str, Any]) -> bool:
    if record["host"] == condition.get("anchor"):
        return False  # the host the question names to say which environment or role: not one of "the others"
    return matches(record, condition["where"], condition.get("also"), condition.get("negated", False))


def _spell(rng: random.Random, one_word: bool) -> dict[str, str]:
    """One style of spelling per attribute (a file says prod/stage/test or production/staging/testing)."""
    spell = {}
    for values in VALUES.values():
        styles = [n for n in range(len(SPELLINGS[values[0]]))
                  if all(n < len(SPELLINGS[v]) and (not one_word or " " not in SPELLINGS[v][n]) for v in values)]
        style = rng.choice(styles)
        spell.update({v: SPELLINGS[v][style] for v in values})
    return spell


def _md_line(layout: str, record: dict[str, str], spell: dict[str, str]) -> str:
    if layout == "md_table":
        return "| `{}` | {} |".format(record["host"], " | ".join(spell[record[a]] for a in ATTRIBUTES))
    if layout == "md_bullets":
        return "- `{}` — {}".format(record["host"], "; ".join(f"{LABELS[a]}: {spell[record[a]]}" for a in ATTRIBUTES))
    return "- `{}` ({})".format(record["host"], "; ".join(f"{LABELS[a]}: {spell[record[a]]}" for a in ATTRIBUTES[1:]))


def _md_block(layout: str, records: list[dict[str, str]], spell: dict[str, str]) -> list[str]:
    def line(n: int, record: dict[str, str]) -> str:
        text = _md_line(layout, record, spell)
        return f"<!-- {text} -->" if record.get("commented") else text

    if layout == "md_table":
        head = "| хост | окружение | роль | статус | последняя проверка |"
        return [head, "| --- | --- | --- | --- | --- |"] + [line(n, r) for n, r in enumerate(records)]
    if layout == "md_bullets":
        return [line(n, r) for n, r in enumerate(records)]
    out: list[str] = []
    for env in VALUES["env"]:
        group = [(n, r) for n, r in enumerate(records) if r["env"] == env]
        if group:
            out += ["", f"### {spell[env]}", ""] + [line(n, r) for n, r in group]
    return out[1:]


def _txt_line(layout: str, record: dict[str, str], spell: dict[str, str]) -> str:
    if layout == "txt_columns":
        return f"{record['host']:<24}" + "".join(f"{spell[record[a]]:<16}" for a in ATTRIBUTES).rstrip()
    if layout == "txt_groups":
        return record["host"] + "".join(f" {a}={spell[record[a]]}" for a in ATTRIBUTES[1:])
    return " ".join([f"host={record['host']}"] + [f"{a}={spell[record[a]]}" for a in ATTRIBUTES])


def _txt_block(layout: str, records: list[dict[str, str]], spell: dict[str, str]) -> list[str]:
    def line(n: int, record: dict[str, str]) -> str:
        text = _txt_line(layout, record, spell)
        return f"# {text}" if record.get("commented") else text

    if layout == "txt_columns":
        return ["# " + f"{'host':<22}" + "".join(f"{a:<16}" for a in ATTRIBUTES).rstrip()] + \
            [line(n, r) for n, r in enumerate(records)]
    if layout == "txt_groups":
        out: list[str] = []
        for env in VALUES["env"]:
            group = [(n, r) for n, r in enumerate(records) if r["env"] == env]
            if group:
                out += ["", f"[{spell[env]}]"] + [line(n, r) for n, r in group]
        return out[1:]
    return [line(n, r) for n, r in enumerate(records)]


_NOTES = ("Не путать с `{host}`: это страница провайдера, в наш список он не входит.",
          "Письмо о продлении сертификата для `{host}` пришло по ошибке: этот хост не наш, проверять его не нужно.",
          "Коллеги из соседней команды ведут `{host}` у себя, здесь он только упомянут.")


def inventory(rng: random.Random, base: CorpusFile, layouts: tuple[str, ...]) -> tuple[File, dict[str, Any]] | None:
    """A host inventory for one row (its text, and what the question needs), or None when the
    draw has no condition that splits the hosts."""
    n = rng.randint(4, 7)
    names = _draw_hosts(rng, n + 4)  # the decoys take up to four more
    records = [_record(rng, h) for h in names[:n]]
    condition = _condition(rng, records)
    if condition is None:
        return None
    if not asks_status(condition):
        # "хосты, на которых крутится веб-фронт" leaves a retired web host out as well as in: a
        # question that does not ask by status gets a list with none retired
        for record in records:
            record["status"] = "active"
    layout = rng.choice(layouts)
    markdown = layout.startswith("md")
    spell = _spell(rng, not markdown)
    decoys = rng.sample(DECOYS, rng.randint(1, 3))
    extra = iter(names[n:])
    live = _listed(rng, records, condition, decoys, layout, extra)
    block = (_md_block if markdown else _txt_block)(layout, live, spell)
    archived = [_matching_record(rng, condition, next(extra))
                for _ in range(rng.randint(1, 2))] if "archived" in decoys else []
    mentioned = next(extra) if "mentioned" in decoys else None
    if markdown:
        text = _in_runbook(base.file.text, block, rng, archived, layout, spell, mentioned)
        file = File(f"docs/runbooks/hosts-{rng.randint(100, 999)}.md", "md", text)
    else:
        file = _txt_inventory(rng, layout, block, archived, spell, mentioned)
    return file, {**condition, "hosts": _chosen(live, condition), "layout": layout, "decoys": sorted(decoys),
                  "spell": spell}


def _matching_record(rng: random.Random, condition: dict[str, Any], host: str) -> dict[str, str]:
    """A record for `host` that meets the condition: what a decoy (commented out, archived) holds,
    so that only its being set aside keeps it out of the answer."""
    where = condition["where"]
    record = _record(rng, host)
    if condition.get("negated"):
        record["env"] = rng.choice([v for v in VALUES["env"] if v != where[1]])
    else:
        record[where[0]] = where[1]
    if condition.get("also"):
        record[condition["also"][0]] = condition["also"][1]
    return record


def _listed(rng: random.Random, records: list[dict[str, str]], condition: dict[str, Any], decoys: list[str],
            layout: str, extra: Iterator[str]) -> list[dict[str, str]]:
    """The records as the list holds them: a matching host listed twice, one commented out, and
    grouped by environment where the layout groups."""
    live = list(records)
    if "duplicate" in decoys:
        twin = rng.choice([r for r in records if _meets(r, condition)])
        live.insert(rng.randint(live.index(twin) + 1, len(live)), dict(twin))
    if "commented" in decoys:  # taken out of the list by hand, left in as a comment
        live.insert(rng.randint(0, len(live)), {**_matching_record(rng, condition, next(extra)), "commented": "yes"})
    if layout in ("md_sections", "txt_groups"):  # grouped by environment: the order within groups
        live.sort(key=lambda r: VALUES["env"].index(r["env"]))
    return live


def _txt_inventory(rng: random.Random, layout: str, block: list[str], archived: list[dict[str, str]],
                   spell: dict[str, str], mentioned: str | None) -> File:
    """The list as a plain text file: its header comments, a note naming a host that is not ours,
    the archived hosts under their own heading."""
    lines = ["# хосты для проверки", "# список ведёт дежурная смена; значения — окружение, роль, статус и "
             "результат последней проверки", ""] + block
    if mentioned:
        lines.insert(2, f"# {rng.choice(_NOTES).format(host=mentioned).replace('`', '')}")
    if archived:
        lines += ["", rng.choice(_ARCHIVE_TXT)] + _txt_block(layout, archived, spell)
    text = bulk.change_notes(rng, "#") + "\n".join(lines) + "\n"
    return File(f"ops/inventory-{rng.randint(100, 999)}.txt", "text", text)


def _chosen(live: list[dict[str, str]], condition: dict[str, Any]) -> list[str]:
    """The answer: every listed host that meets the condition, once, in list order."""
    chosen: list[str] = []
    for r in live:
        if not r.get("commented") and _meets(r, condition) and r["host"] not in chosen:
            chosen.append(r["host"])
    return chosen


def _in_runbook(runbook: str, block: list[str], rng: random.Random, archived: list[dict[str, str]], layout: str,
                spell: dict[str, str], mentioned: str | None) -> str:
    """The runbook with its host section replaced by the inventory (and the archive after it)."""
    section = ["## Хосты", "", "Хосты зоны и их состояние (обновляет дежурный после каждой проверки):", ""] + block
    if mentioned:
        section += ["", rng.choice(_NOTES).format(host=mentioned)]
    if archived:
        section += ["", rng.choice(_ARCHIVE_MD), ""] + _md_block(layout, archived, spell)
    body = "\n".join(section) + "\n"
    # the runbook's hosts section under whichever heading its layout gives it («Хосты», «Список хостов», …)
    found = re.search(r"^## [^\n]*[Хх]ост[^\n]*\n.*?(?=^## |\Z)", runbook, re.M | re.S)
    if found:
        return runbook[:found.start()] + body + "\n" + runbook[found.end():]
    return runbook.rstrip("\n") + "\n\n" + body


# --- the question ---------------------------------------------------------------------------

_SOURCES = ("ранбука", "списка", "файла", "инвентаря")
# an environment or a role in words of the question's own; the value itself as the file writes it
# (a question asking for role "queue" of a file that says "broker" names a role the file lacks)
# (each set says each of them in a share of its pool's wordings: `surface`)
_ENV_IN = {"production": ("в проде", "в боевом окружении", "на продакшене", "в продуктиве",
                          "в продакшен-окружении", "на боевых площадках"),
           "staging": ("на стейджинге", "в предрелизном окружении", "на предрелизном стенде",
                       "на площадке, где релиз обкатывают перед выкладкой", "в стейдж-окружении",
                       "в контуре предрелизной обкатки"),
           "testing": ("в тестовом окружении", "на тестовом стенде", "в окружении для тестирования",
                       "на стенде, где гоняют тесты", "в контуре тестирования", "в окружении для тестов")}
_ROLE = {"web": ("на которых крутится веб-фронт", "что отдают пользователям страницы сайта",
                 "на которых работает фронтенд", "которые обслуживают веб-интерфейс"),
         "db": ("на которых живут базы данных", "на которых работает СУБД", "что держат базы данных",
                "которые хранят данные в своих базах"),
         "cache": ("что держат кеш", "на которых крутится кеширующий слой", "которые служат кешем",
                   "где живёт кеш"),
         "queue": ("на которых стоят очереди сообщений", "на которых крутится брокер сообщений",
                   "что держат брокер сообщений", "которые обслуживают очереди")}
_LATIN = re.compile(r"[a-z-]+")


def env_in(rng: random.Random, value: str, spell: dict[str, str]) -> str:
    """"в prod" (the file's spelling, when Latin) or the environment in Russian words."""
    written = [f"в {spell[value]}"] if _LATIN.fullmatch(spell[value]) else []
    return rng.choice(written + surface.share(_ENV_IN[value], f"env:{value}"))


def role_said(rng: random.Random, value: str, spell: dict[str, str]) -> str:
    return rng.choice([f"у которых роль {spell[value]}"] + surface.share(_ROLE[value], f"role:{value}"))


_RELATIVE = {("status", "active"): ("которые ещё не выведены из эксплуатации", "что пока в работе",
                                   "кроме выведенных из эксплуатации", "которые по-прежнему в строю",
                                   "что ещё не списаны", "которые остаются действующими"),
             ("check", "failed"): ("у которых последняя проверка не прошла", "на которых упала последняя проверка",
                                   "что не прошли последнюю проверку", "у которых последняя проверка провалилась",
                                   "у которых последний контроль состояния не пройден",
                                   "что завалили последний контроль состояния")}


DNS_ACTIONS = ("Проверь A-записи {gen}.", "Посмотри A-записи {gen}.", "Какие IP-адреса сейчас у {gen}? Нужны A-записи.",
               "A-записи {gen}?", "Будьте добры, проверьте A-записи {gen}.",
               "Выясни, в какие IPv4-адреса сейчас резолвятся имена {gen}.",
               "Куда сейчас указывают в DNS имена {gen}? Нужны их адреса IPv4.",
               "Посмотри, какие адреса IPv4 отдаёт DNS для {gen}.",
               "Резолвни в адреса IPv4 имена {gen}.", "Какой IPv4-адрес по DNS у каждого из {gen}?",
               "Сверь по DNS адреса IPv4 {gen}.", "Нужны из DNS IPv4-адреса {gen}.")


def condition_phrase(rng: random.Random, where: list[str], spell: dict[str, str]) -> str:
    attribute, value = where
    if attribute == "env":
        # not "что работают": a status "в работе" would make it read as a second condition
        return rng.choice(("которые {}", "что стоят {}", "которые стоят {}")).format(env_in(rng, value, spell))
    if attribute == "role":
        return role_said(rng, value, spell)
    return surface.choose(rng, _RELATIVE[(attribute, value)], f"relative:{attribute}")


_SECOND = {("status", "active"): ("и которые ещё в работе", "и которые пока не выведены из эксплуатации",
                                  "и которые по-прежнему в строю", "и которые ещё не списаны",
                                  "и которые остаются действующими", "и которые пока не сняты с эксплуатации"),
           ("check", "failed"): ("и у которых последняя проверка не прошла", "и которые не прошли последнюю проверку",
                                 "и у которых последняя проверка провалилась",
                                 "и у которых последний контроль состояния не пройден",
                                 "и которые завалили последний контроль состояния",
                                 "и на которых упала последняя проверка")}


def second_phrase(rng: random.Random, also: list[str], spell: dict[str, str]) -> str:
    attribute, value = also
    if attribute == "env":
        return f"и которые стоят {env_in(rng, value, spell)}"
    if attribute == "role":
        return f"и у которых роль {spell[value]}"
    return surface.choose(rng, _SECOND[(attribute, value)], f"second:{attribute}")


# a value found by reading the list: a named host's (the others that share it), or the most common one
_SAME = {"env": ("которые стоят в том же окружении, что и {host} (сам {host} не нужен)",
                 "что живут в одном окружении с {host}, не считая его самого",
                 "которые стоят там же, где {host}, — в его окружении (кроме него самого)",
                 "которые делят окружение с {host} (его самого не считая)",
                 "что разделяют окружение с {host}, кроме него самого",
                 "что стоят в одном окружении с {host}, без него самого"),
         "role": ("у которых та же роль, что у {host} (сам {host} не нужен)",
                  "что выполняют ту же роль, что и {host}, не считая его самого",
                  "у которых роль такая же, как у {host}, кроме него самого",
                  "которые делят с {host} одну роль (его самого не считая)",
                  "что разделяют роль с {host}, кроме него самого",
                  "что выполняют одну роль с {host}, без него самого")}
_MOST = {"env": ("которые стоят в том окружении, где хостов больше всего",
                 "которые относятся к окружению, на которое приходится больше всего хостов списка",
                 "что стоят в окружении, которое в списке преобладает",
                 "которые стоят в окружении, где хостов в списке больше, чем в любом другом"),
         "role": ("у которых самая частая в списке роль",
                  "с той ролью, которая встречается в списке чаще остальных",
                  "с самой распространённой в списке ролью",
                  "у которых роль та, что в списке преобладает")}
# how a question leaves out the hosts of an environment ("кроме тех, что в проде")
_EXCEPT = ("кроме тех, что {}", "за исключением тех, что стоят {}", "не считая тех, что стоят {}",
           "кроме стоящих {}", "за вычетом тех, что {}", "исключая те, что стоят {}")


def hosts_question(rng: random.Random, actions: tuple[str, ...], condition: dict[str, Any], markdown: bool,
                   spell: dict[str, str]) -> str:
    """An action ("Проверь A-записи {gen}", "Пропингуй {acc}") over the hosts of the condition, a
    value it states in Latin letters spelled as the file (`spell`) writes it."""
    source = rng.choice(_SOURCES[:3] if markdown else _SOURCES[1:])  # a runbook is no inventory
    where = condition["where"]
    if condition.get("anchor"):
        relative = surface.choose(rng, _SAME[where[0]], f"same:{where[0]}").format(host=condition["anchor"])
    elif condition.get("most"):
        relative = surface.choose(rng, _MOST[where[0]], f"most:{where[0]}")
    elif condition.get("negated"):
        relative = surface.choose(rng, _EXCEPT, "except").format(env_in(rng, where[1], spell))
    elif condition.get("also"):
        first = rng.choice(("которые {}", "которые стоят {}")).format(env_in(rng, where[1], spell)) \
            if where[0] == "env" else f"у которых роль {spell[where[1]]}"
        relative = f"{first} {second_phrase(rng, condition['also'], spell)}"
    else:
        relative = condition_phrase(rng, where, spell)
    action = surface.choose(rng, actions, f"actions:{actions[0]}")
    joint = " " if relative.startswith("с ") else ", "  # "хостов из списка с той ролью, которая…"
    return action.format(**{case: f"{noun} из {source}{joint}{relative}"
                            for case, noun in (("acc", "хосты"), ("gen", "хостов"), ("dat", "хостам"))})


# --- the validator's reading -----------------------------------------------------------------

_CANONICAL = {s.lower(): v for v, spellings in SPELLINGS.items() for s in spellings}
_HOST = re.compile(r"`?([a-z][\w-]*\.[a-z][\w.-]*\.[a-z]+)`?")
_CUES = {"production": r"production|\bprod\b|проде|боевом|боевых|продакшен|продуктив",
         "staging": r"staging|\bstage\b|стейдж|предрелизн|обкат",
         "testing": r"testing|\btest\b|тестов|тестир|гоняют тесты", "web": r"\bweb\b|frontend|веб|фронтенд|страницы сайта",
         "db": r"\bdb\b|database|баз|субд", "cache": r"cache|redis|кеш", "queue": r"queue|broker|очеред|брокер",
         "active": r"не выведены|в работе|кроме выведенных|в строю|не списаны|действующ|не сняты с эксплуатации",
         "failed": r"проверк|контроль состояния"}
_EXCEPTED = re.compile(r"кроме тех|кроме стоящих|за исключением тех|не считая тех|за вычетом тех|исключая те")


def read_inventory(text: str, written: bool = False) -> list[dict[str, str]]:
    """The live records of an inventory in any of its layouts: no commented line, nothing after an
    archive heading, no host that a sentence only mentions; values brought to one spelling (or,
    `written`, as the file writes them, lower-cased)."""

    def value(cell: str) -> str:
        return cell.strip().lower() if written else _CANONICAL.get(cell.strip().lower(), "")

    records: list[dict[str, str]] = []
    group: str | None = None
    for raw in text.split("\n"):
        line = raw.strip()
        if re.match(r"^(##|# ===)", line) and re.search(r"архив|стар|пример", line.lower()):
            break
        if line.startswith(("<!--", "#")) and not line.startswith("###"):
            continue
        if line.startswith("###") or (line.startswith("[") and line.endswith("]")):
            group = value(line.strip("#[] ")) or None
            continue
        if not line.startswith(("|", "- `", "host=")) and not re.match(r"^[a-z][\w-]*\.[a-z][\w.-]*\s", line):
            continue
        host = _HOST.search(line)
        if host is None:
            continue
        record = {"host": host.group(1)}
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")][1:]
            record.update({a: value(c) for a, c in zip(ATTRIBUTES, cells, strict=False)})
        elif "=" in line:
            record.update({k: value(v) for k, v in re.findall(r"(\w+)=(\S+)", line) if k != "host"})
        elif ":" in line:
            labels = {label: a for a, label in LABELS.items()}
            record.update({labels[k]: value(v)
                           for k, v in re.findall(r"(окружение|роль|статус|проверка): ([^;)]+)", line)})
        else:
            cells = line.split()[1:]
            record.update({a: value(c) for a, c in zip(ATTRIBUTES, cells, strict=False)})
        if group and "env" not in record:
            record["env"] = group
        records.append(record)
    return records


def check_hosts(view: View, tool: str) -> list[str]:
    _, text = only(view)
    d = view.derivation
    where, also, negated = d["where"], d.get("also"), d.get("negated", False)
    records = read_inventory(text)
    q = view.question.lower()
    found = _found_value(q, records)
    if found is not None:  # the value is not said: the question says where in the list to find it
        attribute, value, anchor, said = found
        said = said and where == [attribute, value]
        where = [attribute, value]
    else:
        anchor = None
        said = re.search(_CUES[where[1]], q) is not None and (not also or re.search(_CUES[also[1]], q) is not None)
    wanted: list[str] = []
    for record in records:
        if matches(record, where, also, negated) and record["host"] not in wanted and record["host"] != anchor:
            wanted.append(record["host"])
    # a value the question states in Latin letters ("роль queue", "в prod") is one the file writes
    written = {v for r in read_inventory(text, written=True) for a, v in r.items() if a != "host"}
    unwritten = sorted({w for w in re.findall(r"[a-z][a-z-]*", _HOST.sub(" ", q)) if w in _CANONICAL} - written)
    retired = [r["host"] for r in records if r.get("status") == "retired"]
    return problems((said, f"the question does not say the condition {where} {also or ''}"),
                    (asks_status(d) or not retired,
                     f"{', '.join(retired)} retired, and the question does not ask by status: in or out?"),
                    (not unwritten, f"the question names {', '.join(unwritten)}, which the file does not write"),
                    (not negated or _EXCEPTED.search(q) is not None, "the question does not say the exception"),
                    (len(wanted) >= 2, "fewer than two hosts meet the condition")) + \
        expect(view, {"calls": [call(tool, host=h) for h in wanted]})


def _found_value(q: str, records: list[dict[str, str]]) -> tuple[str, str, str | None, bool] | None:
    """For a question that does not say the environment or role but how to find it: (the
    attribute, its value, the host named to show it or None, whether the list settles it: the
    named host is listed, one value leads without a tie); None for a question that says its value."""
    attribute = "env" if "окружени" in q else "role"
    if re.search(r"больше всего|чаще|самая частая|преоблада|распространённой|больше, чем в любом", q):
        tally = Counter(r.get(attribute, "") for r in {r["host"]: r for r in records}.values()).most_common()
        unique = len(tally) > 1 and tally[0][1] > tally[1][1]
        return attribute, tally[0][0] if tally else "", None, unique
    named = re.search(r"(?:самого|что и|что у|как у|где|с) ([a-z][\w-]*\.[a-z][\w.-]*\.[a-z]+)", q)
    if named is None or not re.search(r"том же|одном|одну|та же|ту же|такая же|там же|делят|разделяют", q):
        return None
    host = named.group(1)
    record = next((r for r in records if r["host"] == host), None)
    return attribute, (record or {}).get(attribute, ""), host, record is not None


def hosts_calls(name: str, count: int, kind: str, tool: str, twin: str, actions: tuple[str, ...]) -> Family:
    """A parallel family: `tool` for each host of the drawn inventory that meets the question's
    condition; `kind` the corpus file it grows from (a runbook or a plain list), `actions` the
    request with {gen} or {acc} where the hosts go."""
    layouts = MD_LAYOUTS if kind == "hosts_md" else TEXT_LAYOUTS

    def make(rng: random.Random, corpus: Corpus) -> Question:
        drawn = None
        while drawn is None:
            drawn = inventory(rng, corpus.pick(kind, rng), layouts)
        file, facts = drawn
        question = hosts_question(rng, actions, facts, kind == "hosts_md", facts["spell"])
        return build_question(name, "parallel", "T4_wild", question, (CorpusFile(file, kind),),
                              {"calls": [call(tool, host=h) for h in facts["hosts"]]}, twin,
                              facts={k: v for k, v in facts.items() if k not in ("hosts", "spell")})

    return Family(name, "parallel", "T4_wild", count, make, lambda view: check_hosts(view, tool))

