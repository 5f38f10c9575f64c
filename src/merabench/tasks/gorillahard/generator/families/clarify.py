"""Clarifications and their near misses, from four kinds of ambiguity, each kind from mechanisms
drawn per row:

- two_fit: two attached files both fit the request (two logs of one day, two tables that both
  hold the column, two values files of one service in two namespaces);
- held_twice: one file holds the asked thing twice (revenue in roubles and in dollars, response
  time at p50 and at p95);
- unstated: the environment or the date range is not said and the file makes it matter (a flag
  file with staging and production sections, a month "before this one" over a year of sales);
- vague_operation: the request could be two operations or two targets (reboot now or in the
  maintenance window when the catalog has both; "more replicas" without how many).

A mechanism makes both rows: the clarification, and the near miss that differs from it by the one
fact that removes the ambiguity (the question states it, only one file holds it, the file fixes
it, or the catalog has only one of the operations), so a question's wording alone never tells the
two apart. Its `readings` are the validator's: every call the written row allows, worked out from
the question, the files and the catalog alone. A clarification needs two or more readings that
differ; a near miss exactly one, its reference.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from merabench.tasks.gorillahard.generator.corpus import TABLE_SCHEMAS, Corpus, CorpusFile
from merabench.tasks.gorillahard.generator.families import formats
from merabench.tasks.gorillahard.generator.families.common import (
    STATS,
    Family,
    View,
    build_question,
    lines_with,
    problems,
    setting,
    split_table,
)
from merabench.tasks.gorillahard.generator.model import Question, call
from merabench.tasks.gorillahard.generator.wording.numerals import count

KINDS = ("two_fit", "held_twice", "unstated", "vague_operation")
CLARIFY_FAMILY, NEAR_MISS_FAMILY = "clarify_file", "near_miss_clarify"


class Unavailable(Exception):
    """This corpus has no files for the mechanism (another of its kind is drawn)."""


@dataclass(frozen=True)
class Mechanism:
    name: str
    kind: str
    make: Callable[[random.Random, Corpus, bool], Question]  # ambiguous: the clarification, else its near miss
    readings: Callable[[View], list[dict[str, Any]]]
    asides: bool = True  # "Срочно." before a reboot would say when: such mechanisms take none


def _row(mechanism: str, ambiguous: bool, question: str, files: tuple[CorpusFile, ...], answer: dict[str, Any] | str,
         twin: str, tools: tuple[str, ...] = (), withheld: tuple[str, ...] = (), **facts: Any) -> Question:
    """A clarification (`answer` is what it asks back) or a near miss (`answer` is its call)."""
    kind = MECHANISMS[mechanism].kind
    if ambiguous:
        return build_question(CLARIFY_FAMILY, "clarify", "T3_expert", question, files, {"clarify": answer}, twin,
                              extra_tools=tools, withheld=withheld,
                              facts={"kind": kind, "mechanism": mechanism, **facts})
    if isinstance(answer, str):
        raise TypeError(f"{mechanism}: a near miss answers with a call, not {answer!r}")
    return build_question(NEAR_MISS_FAMILY, "near_miss", "T4_wild", question, files, answer, twin,
                          extra_tools=tools, withheld=withheld, facts={"kind": kind, "mechanism": mechanism, **facts})


def _request(view: View) -> tuple[str, dict[str, Any]]:
    """The operation a row records and its arguments but the ambiguous one; each value must be
    said in the question."""
    request = view.derivation["request"]
    missing = [str(v) for v in request["args"].values() if str(v) not in view.question]
    if missing:
        raise ValueError(f"the question does not say {missing}")
    return request["tool"], dict(request["args"])


# --- two_fit: two logs of one day ---------------------------------------------------------------

_STAMP = re.compile(r"^(?:\[|ts=)?(\d{4}-\d\d-\d\d)[ T]\d\d:\d\d:\d\d", re.M)  # a record's day in any log layout
_DATE_SAID = re.compile(r"(?<![\d.-])(?:(\d{4})-(\d\d)-(\d\d)|(\d\d)\.(\d\d)(?:\.(\d{4}))?|(\d{1,2})-е число)(?![\d-])")
LOG_PHRASES = ("slow request", "gc pause", "answered 429", "token refreshed", "connections in use", "hit ratio")


def log_days(text: str) -> set[str]:
    return set(_STAMP.findall(text))


def said_dates(question: str) -> list[tuple[str | None, str, str | None]]:
    """(month or None, day, year or None) of every date the question writes (2026-03-14, 14.03,
    14.03.2026, "14-е число")."""
    found: list[tuple[str | None, str, str | None]] = []
    for m in _DATE_SAID.finditer(question):
        if m.group(1):
            found.append((m.group(2), m.group(3), m.group(1)))
        elif m.group(7):
            found.append((None, f"{int(m.group(7)):02d}", None))
        else:
            found.append((m.group(5), m.group(4), m.group(6)))
    return found


def _written_date(rng: random.Random, day: str) -> str:
    """A day as people write it; "14-е число" leaves the month to the logs (all of one month)."""
    year, month, date = day.split("-")
    return rng.choice((day, f"{date}.{month}", f"{date}.{month}.{year}", f"{int(date)}-е число"))


def _log_request(rng: random.Random, logs: list[CorpusFile], date: str) -> tuple[str, dict[str, Any], str, str]:
    """(tool, args, question, twin) of a request every log in `logs` can serve."""
    choice = rng.randrange(3)
    # a level every log holds, its word on no other line (a count by the word is the level's records)
    levels = [lv for lv in ("ERROR", "WARN")
              if all(lines_with(f.file.text, f" {lv} ") and formats.level_word_exact(f.file.text, lv) for f in logs)]
    phrases = [p for p in LOG_PHRASES if all(p in f.file.text for f in logs)]
    if choice == 0 and levels:
        level = rng.choice(levels)
        return "logs.count", {"pattern": level}, rng.choice((
            f"Сколько записей {level} в журнале за {date}?", f"Посчитай строки с {level} в логе за {date}.",
            f"сколько {level} было в логах за {date}?",
            f"Подскажите, сколько строк уровня {level} в журнале сервиса за {date}.")), "logs.grep"
    if choice == 1 and phrases:
        phrase = rng.choice(phrases)
        return "logs.grep", {"pattern": phrase}, rng.choice((
            f"Найди в журнале за {date} строки с «{phrase}».", f"Покажи записи лога за {date}, где есть «{phrase}».",
            f"выбери из журнала за {date} всё с «{phrase}»")), "logs.count"
    n = rng.choice((20, 30, 50, 100))
    return "logs.tail", {"n": n}, rng.choice((
        f"Покажи последние {n} строк журнала за {date}.", f"Выведи хвост лога за {date}: последние {n} строк.",
        f"Мне бы последние {n} строк из журнала за {date}, пожалуйста.")), "logs.head"


def make_logs_same_day(rng: random.Random, corpus: Corpus, ambiguous: bool) -> Question:
    logs = corpus.by_kind["app_log"]
    by_day: dict[str, list[CorpusFile]] = {}
    for log in logs:
        for day in log_days(log.file.text):
            by_day.setdefault(day, []).append(log)
    if ambiguous:
        shared = sorted(day for day, held in by_day.items() if len(held) >= 2)
        if not shared:
            raise Unavailable("no two logs of one day")
        day = rng.choice(shared)
        pair = rng.sample(by_day[day], 2)
        target: CorpusFile | None = None  # none: the clarification asks which
    else:
        target = rng.choice(logs)
        day = rng.choice(sorted(log_days(target.file.text)))
        # the other log has no day of that number in any month: every way of writing the date decides
        others = [f for f in logs if all(d[8:] != day[8:] for d in log_days(f.file.text))]
        if not others:
            raise Unavailable("every log holds that day")
        pair = [target, rng.choice(others)]
        rng.shuffle(pair)
    date = _written_date(rng, day)
    tool, args, question, twin = _log_request(rng, pair if target is None else [target], date)
    request = {"tool": tool, "args": args}
    if target is None:  # ambiguous
        first, second = (f.facts["service"] for f in pair)
        services = f"сервисов {first} и {second}" if first != second else f"сервиса {first}"
        answer = rng.choice((f"За {date} приложены два журнала {services}. Какой из них нужен?",
                             f"Журналов за {date} два ({services}) — по какому из них?"))
        return _row("logs_same_day", True, question, tuple(pair), answer, twin, (tool,), request=request)
    return _row("logs_same_day", False, question, tuple(pair), call(tool, path=target.file.path, **args),
                twin, request=request, which=date)


def readings_logs_same_day(view: View) -> list[dict[str, Any]]:
    tool, args = _request(view)
    dates = said_dates(view.question)
    if len(dates) != 1:
        raise ValueError(f"the question says {len(dates)} dates")
    month, day, year = dates[0]
    fitting = [path for path, text in view.files.items()
               if any(d[8:] == day and (month is None or d[5:7] == month) and (year is None or d[:4] == year)
                      for d in log_days(text))]
    return [call(tool, path=path, **args) for path in fitting]


# --- two_fit: two tables that both hold the column ----------------------------------------------

_TABLE_STATS = ("median", "max", "min")  # a mean is the answer of many other rows already
TABLE_QUESTIONS = ("Посчитай {stat} по столбцу «{label}».", "Найди {stat} столбца «{label}» в выгрузке.",
                   "посчитай по столбцу «{label}» {stat}, пожалуйста",
                   "Будьте добры, посчитайте {stat} для столбца «{label}».")
_LABELS = {c.description: c.name for _, columns in TABLE_SCHEMAS.values() for c in columns}


def make_tables_same_column(rng: random.Random, corpus: Corpus, ambiguous: bool) -> Question:
    tables = corpus.by_kind["table"]
    first = rng.choice(tables)
    schema = first.facts["schema"]
    same = [t for t in tables if t.facts["schema"] == schema and t is not first]
    other = [t for t in tables if t.facts["schema"] != schema]
    second = rng.choice(same if ambiguous else other)
    column = rng.choice(first.facts["numeric"])
    stat = rng.choice(_TABLE_STATS)
    question = rng.choice(TABLE_QUESTIONS).format(stat=STATS[stat], label=column.description)
    pair = [first, second]
    rng.shuffle(pair)
    twin = f"table.{rng.choice([s for s in ('mean', *_TABLE_STATS) if s != stat])}"
    request = {"tool": f"table.{stat}", "args": {}}
    facts = {"request": request, "stat": STATS[stat], "label": column.description}
    if ambiguous:
        answer = rng.choice((f"Столбец «{column.description}» ({column.name}) есть в обеих приложенных таблицах. "
                             "По какой из них считать?",
                             f"{column.name} есть в обеих таблицах — какую взять?"))
        return _row("tables_same_column", True, question, tuple(pair), answer, twin, (f"table.{stat}",), **facts)
    return _row("tables_same_column", False, question, tuple(pair),
                call(f"table.{stat}", path=first.file.path, column=column.name), twin,
                which=f"«{column.description}»", **facts)


def readings_tables_same_column(view: View) -> list[dict[str, Any]]:
    tool, _ = _request(view)
    label = view.derivation["label"]
    if f"«{label}»" not in view.question or view.derivation["stat"] not in view.question:
        raise ValueError("the question does not say the recorded column and statistic")
    column = _LABELS[label]
    return [call(tool, path=path, column=column) for path, text in view.files.items()
            if column in split_table(text)[0]]


# --- two_fit: two values files of one service ---------------------------------------------------

def _service_request(rng: random.Random, service: str, counts: list[int],
                     scale: bool) -> tuple[str, dict[str, Any], str, str]:
    """(tool, args but the namespace, question, twin) of a request about a deployment (`scale`:
    a new replica count among them, which differs from each of `counts`)."""
    # k8s.scale only where the answer is a clarification: it answers 40 other rows already (no
    # tool may answer over 4 % of the call rows)
    tool = rng.choice(("k8s.restart", "k8s.status", "k8s.rollback", "k8s.logs") + (("k8s.scale",) if scale else ()))
    if tool == "k8s.scale":
        n = rng.choice([r for r in range(2, 21) if r not in counts])
        return tool, {"deployment": service, "replicas": n}, rng.choice((
            f"Выставь для {service} {count(n, 'реплика', 'accs')}.", f"Масштабируй {service} до {count(n, 'реплика', 'gent')}.",
            f"Для {service} нужно {count(n, 'реплика', 'nomn')}, поправь, пожалуйста.")), "k8s.restart"
    asks = {"k8s.restart": (f"Перезапусти {service}.", f"Перезапустите, пожалуйста, все экземпляры {service}.",
                            f"Сервис {service} завис — перезапусти его"),
            "k8s.status": (f"В каком состоянии развёртывание {service}?", f"Покажи статус деплоя {service}.",
                           f"глянь, как там {service} в кластере"),
            "k8s.rollback": (f"Откати {service} на предыдущую версию.", f"верни {service} на прошлый релиз",
                             f"После выкладки {service} сломался — откатите его, пожалуйста."),
            "k8s.logs": (f"Покажи журнал pod'ов {service}.", f"Выведи логи {service} из кластера.",
                         f"Что пишет {service} в логи? Покажи, пожалуйста.")}[tool]
    twin = {"k8s.restart": "k8s.rollback", "k8s.status": "k8s.logs", "k8s.rollback": "k8s.restart",
            "k8s.logs": "k8s.status"}[tool]
    return tool, {"deployment": service}, rng.choice(asks), twin


def make_values_same_service(rng: random.Random, corpus: Corpus, ambiguous: bool) -> Question:
    values = corpus.by_kind["deploy_yaml"]
    by_service: dict[str, list[CorpusFile]] = {}
    for f in values:
        by_service.setdefault(f.facts["deployment"], []).append(f)
    if ambiguous:
        options = [(s, a, b) for s, held in sorted(by_service.items()) for a in held for b in held
                   if a.facts["namespace"] < b.facts["namespace"]]
        if not options:
            raise Unavailable("no service in two namespaces")
        service, first, second = rng.choice(options)
        pair = [first, second]
    else:
        first = rng.choice(values)
        service = first.facts["deployment"]
        pair = [first, rng.choice([f for f in values if f.facts["deployment"] != service])]
    rng.shuffle(pair)
    tool, args, question, twin = _service_request(rng, service, [f.facts["replicas"] for f in pair], ambiguous)
    request = {"tool": tool, "args": args}
    if ambiguous:
        a, b = (f.facts["namespace"] for f in pair)
        answer = rng.choice((f"{service} описан в двух файлах: в пространстве имён {a} и в {b}. О каком речь?",
                             f"{service} есть и в {a}, и в {b} — какое пространство имён?"))
        return _row("values_same_service", True, question, tuple(pair), answer, twin, (tool,), request=request)
    return _row("values_same_service", False, question, tuple(pair),
                call(tool, namespace=first.facts["namespace"], **args), twin, request=request, which=service)


def readings_values_same_service(view: View) -> list[dict[str, Any]]:
    tool, args = _request(view)
    return [call(tool, namespace=setting(text, "namespace"), **args) for text in view.files.values()
            if setting(text, "deployment") == args["deployment"]]


# --- held_twice: a figure in two columns --------------------------------------------------------

@dataclass(frozen=True)
class Figure:
    """How a user names a report's figure: the noun (accusative, nominative), its gender, the
    statistics that make sense of it, and per column how a question says which one it means
    (the phrasings, and the pattern a reader finds them by)."""

    accs: str
    nomn: str
    gender: str
    stats: tuple[str, ...]
    said: Any  # {column: (phrasings, pattern)}
    noun: str  # the pattern a reader finds the noun by


FIGURES = {
    "revenue": Figure("выручку", "выручка", "femn", ("sum", "max", "min", "median"),
                      {"revenue_rub": (("в рублях",), "рубл"), "revenue_usd": (("в долларах",), "доллар")}, r"выручк"),
    "latency": Figure("время ответа", "время ответа", "neut", ("max", "min"),
                      {"latency_p50_ms": (("по p50", "на 50-м перцентиле"), r"p50|50-м"),
                       "latency_p95_ms": (("по p95", "на 95-м перцентиле"), r"p95|95-м")}, r"время ответа"),
    "shipments": Figure("вес отправлений", "вес отправлений", "masc", ("sum", "max", "min", "median"),
                        {"weight_gross_kg": (("брутто",), "брутто"), "weight_net_kg": (("нетто",), "нетто")}, r"\bвес\b"),
    "prices": Figure("цену", "цена", "femn", ("max", "min", "median"),
                     {"price_rub": (("без НДС",), r"без НДС"), "price_vat_rub": (("с НДС",), r"(?<!\w)с НДС")},
                     r"\bцен[уа]\b"),
    "climate": Figure("температуру", "температура", "femn", ("max", "min", "median"),
                      {"temp_air_c": (("воздуха",), r"воздуха"), "temp_feels_c": (("по ощущениям",), r"ощущени")},
                      r"температур"),
}
_STEMS = {"sum": "суммарн", "max": "максимальн", "min": "минимальн", "median": "медианн"}
_ENDINGS = {("femn", "accs"): "ую", ("femn", "nomn"): "ая", ("neut", "accs"): "ое", ("neut", "nomn"): "ое",
            ("masc", "accs"): "ый", ("masc", "nomn"): "ый"}
_WHICH = {"femn": "Какая", "neut": "Какое", "masc": "Какой"}
_NEEDED = {"femn": "нужна", "neut": "нужно", "masc": "нужен"}


def _figure_question(rng: random.Random, figure: Figure, stat: str, qualifier: str) -> str:
    q = f" {qualifier}" if qualifier else ""
    accs = f"{_STEMS[stat]}{_ENDINGS[figure.gender, 'accs']} {figure.accs}{q}"
    nomn = f"{_STEMS[stat]}{_ENDINGS[figure.gender, 'nomn']} {figure.nomn}{q}"
    return rng.choice((f"Посчитай {accs} по таблице.", f"{_WHICH[figure.gender]} {nomn} в отчёте?",
                       f"{_NEEDED[figure.gender]} {nomn}, глянь по выгрузке",
                       f"Подскажите, пожалуйста, {accs} по этому отчёту.",
                       f"Будьте добры, найдите {accs} по этим данным."))


def make_twin_columns(rng: random.Random, corpus: Corpus, ambiguous: bool) -> Question:
    tables = corpus.by_kind["twin_table"]
    both = [t for t in tables if len(t.facts["held"]) == 2]
    said = not ambiguous and rng.random() < 0.5  # the question says which, or the file holds one
    table = rng.choice(both if ambiguous or said else [t for t in tables if len(t.facts["held"]) == 1])
    figure, held = FIGURES[table.facts["schema"]], table.facts["held"]
    stat = rng.choice(figure.stats)
    column = rng.choice(held)
    qualifier = rng.choice(figure.said[column][0]) if said else ""
    question = _figure_question(rng, figure, stat, qualifier)
    twin = f"table.{rng.choice([s for s in ('mean', 'median', 'max', 'min', 'sum') if s != stat])}"
    request = {"tool": f"table.{stat}", "args": {}}
    if ambiguous:
        a, b = held
        answer = rng.choice((f"В таблице два подходящих столбца: {a} и {b}. По какому считать?",
                             f"Считать по {a} или по {b}?"))
        return _row("twin_columns", True, question, (table,), answer, twin, (f"table.{stat}",), request=request)
    return _row("twin_columns", False, question, (table,), call(f"table.{stat}", path=table.file.path, column=column),
                twin, request=request)


def readings_twin_columns(view: View) -> list[dict[str, Any]]:
    tool, _ = _request(view)
    (path, text), = view.files.items()
    header = split_table(text)[0]
    named = [f for f in FIGURES.values() if re.search(f.noun, view.question, re.IGNORECASE)]
    if len(named) != 1:
        raise ValueError(f"the question names {len(named)} figures")
    columns = [c for c in header if c in named[0].said]
    qualified = [c for c in columns if re.search(named[0].said[c][1], view.question)]
    return [call(tool, path=path, column=c) for c in (qualified or columns)]


# --- unstated: a flag file with a section per environment --------------------------------------

def flag_sections(text: str) -> dict[str, dict[str, bool]]:
    """{environment: {flag: enabled}} of a flag file, read line by line."""
    sections: dict[str, dict[str, bool]] = {}
    env = flag = None
    for line in text.splitlines():
        if m := re.match(r"^  ([a-z]+):\s*$", line):
            env = m.group(1)
            sections[env] = {}
        elif env and (m := re.match(r"^    ([a-z0-9-]+):\s*$", line)):
            flag = m.group(1)
        elif env and flag and (m := re.match(r"^      enabled:\s*(true|false)\s*$", line)):
            sections[env][flag] = m.group(1) == "true"
    return sections


_FLAG_OPS = {"flags.enable": False, "flags.disable": True, "flags.rollout": False}  # the state each op changes


def _flag_question(rng: random.Random, tool: str, flag: str, env: str, percent: int) -> str:
    where = f" в {env}" if env else ""
    if tool == "flags.enable":
        return rng.choice((f"Включи флаг {flag}{where}.", f"включи {flag}{where}",
                           f"Пожалуйста, включите фича-флаг {flag}{where}.", f"Флаг {flag} пора включить{where} — сделай."))
    if tool == "flags.disable":
        return rng.choice((f"Выключи флаг {flag}{where}.", f"выруби {flag}{where}",
                           f"Пожалуйста, отключите фича-флаг {flag}{where}.", f"Флаг {flag} надо погасить{where}."))
    return rng.choice((f"Включи флаг {flag}{where} для {percent} % пользователей.",
                       f"Раскатай {flag}{where} на {percent} % пользователей.",
                       f"Пожалуйста, откройте {flag}{where} для {percent} % аудитории."))


def make_flag_envs(rng: random.Random, corpus: Corpus, ambiguous: bool) -> Question:
    files = corpus.by_kind["flags_yaml"]
    said = not ambiguous and rng.random() < 0.5  # the question names the environment, or the file has one
    tool = rng.choice(sorted(_FLAG_OPS))
    state = _FLAG_OPS[tool]
    options = []
    for f in files:
        states = f.facts["states"]
        if (len(states) == 2) != (ambiguous or said):
            continue
        shared = sorted(set.intersection(*(set(s) for s in states.values())))
        # a clarification's flag waits for the change in both environments; a near miss's in the one it names
        options += [(f, flag) for flag in shared
                    if (any if said else all)(s[flag] == state for s in states.values())]
    if not options:
        raise Unavailable("no flag file fits")
    file, flag = rng.choice(options)
    states = file.facts["states"]
    env = rng.choice([e for e, s in sorted(states.items()) if s[flag] == state]) if said else ""
    percent = rng.choice((5, 10, 20, 25, 50))
    question = _flag_question(rng, tool, flag, env, percent)
    args: dict[str, Any] = {"flag": flag, **({"percent": percent} if tool == "flags.rollout" else {})}
    twin = {"flags.enable": "flags.disable", "flags.disable": "flags.enable", "flags.rollout": "flags.enable"}[tool]
    request = {"tool": tool, "args": args}
    if ambiguous:
        verb = "выключить" if tool == "flags.disable" else "включить"
        answer = rng.choice((f"Флаг {flag} есть и в staging, и в production. В каком окружении его {verb}?",
                             f"{verb.capitalize()} {flag} в staging или в production?"))
        return _row("flag_envs", True, question, (file,), answer, twin, (tool,), request=request)
    target = env or next(iter(states))
    return _row("flag_envs", False, question, (file,), call(tool, environment=target, **args), twin, request=request)


def readings_flag_envs(view: View) -> list[dict[str, Any]]:
    tool, args = _request(view)
    (_, text), = view.files.items()
    sections = flag_sections(text)
    named = [env for env in sections if re.search(rf"\b{env}\b", view.question)]
    envs = [env for env in (named or sections) if args["flag"] in sections[env]]
    if any(sections[env][args["flag"]] != _FLAG_OPS[tool] for env in envs):
        raise ValueError("the request would leave a flag as it is")
    return [call(tool, environment=env, **args) for env in envs]


# --- unstated: a month relative to a date not given ---------------------------------------------

MONTHS = ("январь", "февраль", "март", "апрель", "май", "июнь", "июль", "август", "сентябрь", "октябрь", "ноябрь",
          "декабрь")
_MONTH_WORD = re.compile(r"\b(" + "|".join(MONTHS) + r")\b", re.IGNORECASE)
RELATIVE = {"за прошлый месяц": 1, "за позапрошлый месяц": 2, "за этот месяц": 0, "за текущий месяц": 0,
            "за предыдущий месяц": 1, "за минувший месяц": 1}
LATEST = ("за последний месяц выгрузки", "за самый поздний месяц в этих данных")
_MONTH_ASKS = ("Покажи продажи {when}.", "Выбери из выгрузки строки {when}.", "отфильтруй продажи {when}",
               "Нужны все продажи {when} — отбери их из таблицы.")


def table_months(text: str) -> list[str]:
    header, rows = split_table(text)
    return sorted({r[header.index("month")] for r in rows})


def make_relative_month(rng: random.Random, corpus: Corpus, ambiguous: bool) -> Question:
    table = rng.choice([t for t in corpus.by_kind["table"] if t.facts["schema"] == "sales"])
    months = table_months(table.file.text)
    ask = rng.choice(_MONTH_ASKS)
    twin = rng.choice(("table.group_count", "table.unique"))
    request = {"tool": "table.filter_eq", "args": {}}
    if ambiguous:
        question = ask.format(when=rng.choice(sorted(RELATIVE)))
        answer = rng.choice(("Какой месяц считать? Сегодняшняя дата не названа, а в выгрузке их несколько.",
                             f"Уточни месяц: в таблице есть данные с {months[0]} по {months[-1]}, а от какой даты "
                             "отсчитывать, не сказано."))
        return _row("relative_month", True, question, (table,), answer, twin, ("table.filter_eq",), request=request)
    how = rng.choice(("anchored", "absolute", "latest"))
    if how == "latest":
        value, question = months[-1], ask.format(when=rng.choice(LATEST))
    else:
        value = rng.choice(months)
        number = int(value[5:])
        if how == "absolute":
            question = ask.format(when=f"за {MONTHS[number - 1]}")
        else:
            options = [(when, back) for when, back in RELATIVE.items() if number + back <= 12]
            when, back = rng.choice(options)
            now = MONTHS[number + back - 1]
            body = ask.format(when=when)
            question = f"Сейчас {now}. {body[0].upper()}{body[1:]}"
    return _row("relative_month", False, question, (table,),
                call("table.filter_eq", path=table.file.path, column="month", value=value), twin, request=request)


def readings_relative_month(view: View) -> list[dict[str, Any]]:
    tool, args = _request(view)
    (path, text), = view.files.items()
    months = table_months(text)
    q = view.question.lower()
    said = [MONTHS.index(m.lower()) + 1 for m in _MONTH_WORD.findall(q)]
    back = next((b for when, b in sorted(RELATIVE.items(), key=lambda kv: -len(kv[0])) if when in q), None)
    if any(latest in q for latest in LATEST):
        values = months[-1:]
    elif back is None:
        values = [v for v in months if said and int(v[5:]) == said[0]]
    elif said:  # "сейчас май" anchors the relative month
        values = [v for v in months if int(v[5:]) == said[0] - back]
    else:
        values = months
    return [call(tool, path=path, column="month", value=v, **args) for v in values]


# --- vague_operation: reboot now or in the window -----------------------------------------------

NOW = ("прямо сейчас", "немедленно")
WINDOW = ("в ближайшее окно обслуживания", "в окно обслуживания")
REBOOTS = ("server.restart", "server.reboot_scheduled")
_EXTREMES = {"max": ("сервер с самой высокой загрузкой процессора", "самый загруженный по процессору сервер"),
             "min": ("сервер с самой низкой загрузкой процессора", "наименее загруженный по процессору сервер")}


def _busiest(text: str, extreme: str) -> str:
    header, rows = split_table(text)
    cpu, host = header.index("cpu_pct"), header.index("host")
    pick = max if extreme == "max" else min
    return pick(rows, key=lambda r: int(r[cpu]))[host]


def make_reboot_timing(rng: random.Random, corpus: Corpus, ambiguous: bool) -> Question:
    table = rng.choice([t for t in corpus.by_kind["table"] if t.facts["schema"] == "servers"])
    extreme = rng.choice(sorted(_EXTREMES))
    which = rng.choice(_EXTREMES[extreme])
    how = "" if ambiguous else rng.choice(("catalog", "now", "window"))
    when = {"now": rng.choice(NOW), "window": rng.choice(WINDOW)}.get(how, "")
    w = f" {when}" if when else ""
    question = rng.choice((f"Перезагрузи {which}{w}.", f"Нужно перезагрузить{w} {which} — займись, пожалуйста.",
                           f"{which[0].upper()}{which[1:]} пора перезагрузить{w}.", f"перезагрузи{w} {which}"))
    host = _busiest(table.file.text, extreme)
    if ambiguous:
        answer = rng.choice((f"Перезагрузить {host} сразу (простой до пяти минут) или в ближайшее окно обслуживания?",
                             f"{host} перезагрузить сейчас или дождаться окна обслуживания?"))
        return _row("reboot_timing", True, question, (table,), answer, "server.drain", REBOOTS, extreme=extreme)
    tool = "server.reboot_scheduled" if how == "window" else "server.restart"
    withheld = ("server.reboot_scheduled",) if how == "catalog" else ()
    tools = () if how == "catalog" else REBOOTS
    return _row("reboot_timing", False, question, (table,), call(tool, host=host), "server.drain", tools, withheld,
                extreme=extreme)


def readings_reboot_timing(view: View) -> list[dict[str, Any]]:
    (_, text), = view.files.items()
    asked = view.question.lower()
    extreme = next((e for e, said in _EXTREMES.items() if any(s in asked for s in said)), None)
    if extreme is None:
        raise ValueError("the question does not say which server")
    host = _busiest(text, extreme)
    tools = [t for t in REBOOTS if t in view.tools]
    if any(w in view.question for w in NOW):
        tools = [t for t in tools if t == "server.restart"]
    elif any(w in view.question for w in WINDOW):
        tools = [t for t in tools if t == "server.reboot_scheduled"]
    return [call(t, host=host) for t in tools]


# --- vague_operation: more replicas, not saying how many ----------------------------------------

# (what is changed, the tool): how a request says it, up and down
SETTINGS = {
    "replicas": (("Увеличь число реплик сервиса из этого файла{how}.", "подними число реплик сервиса из values{how}",
                  "Сервису из файла не хватает мощности — увеличьте, пожалуйста, число реплик{how}."),
                 ("Уменьши число реплик сервиса из этого файла{how}.", "сократи число реплик сервиса из values{how}",
                  "Нагрузка спала — уменьшите, пожалуйста, число реплик сервиса из файла{how}.")),
    "retries": (("Увеличь число повторов клиента сервиса из этого файла{how}.", "подними ретраи клиента сервиса из values{how}",
                 "Клиент сервиса из файла часто сдаётся — увеличьте, пожалуйста, число повторов{how}."),
                ("Уменьши число повторов клиента сервиса из этого файла{how}.", "сократи ретраи клиента сервиса из values{how}",
                 "Повторы клиента забивают очередь — уменьшите, пожалуйста, их число у сервиса из файла{how}.")),
}
_CEILING = {"replicas": 20, "retries": 10}


# how many, in words as a request says them ("на две", "до восьми")
BY_WORDS = {"replicas": {1: "одну", 2: "две", 3: "три"}, "retries": {1: "один", 2: "два", 3: "три"}}
UP_TO_WORDS = {2: "двух", 3: "трёх", 4: "четырёх", 5: "пяти", 6: "шести", 7: "семи", 8: "восьми", 9: "девяти",
               10: "десяти"}
_WORD_NUMBERS = {word: n for words in (*BY_WORDS.values(), UP_TO_WORDS) for n, word in words.items()}
_AMOUNT = r"(\d+|" + "|".join(sorted(_WORD_NUMBERS, key=len, reverse=True)) + ")"


def _amount(said: str) -> int:
    return int(said) if said.isdigit() else _WORD_NUMBERS[said]


def _target(current: int, up: bool, how: str) -> list[int]:
    """The values a request allows: one when it says how many, else each of a few."""
    if m := re.search(rf"\bдо {_AMOUNT}\b", how):
        return [_amount(m.group(1))]
    if m := re.search(rf"\bна {_AMOUNT}\b", how):
        return [current + _amount(m.group(1)) if up else current - _amount(m.group(1))]
    if "вдвое" in how:
        return [current * 2] if up else [current // 2] if current % 2 == 0 else []
    return [current + 1, current + 2] if up else [current - 1, current - 2]


def _setting_call(what: str, facts: dict[str, Any], value: int) -> dict[str, Any]:
    if what == "replicas":
        return call("k8s.scale", namespace=facts["namespace"], deployment=facts["deployment"], replicas=value)
    return call("config.set_retries", service=facts["deployment"], retries=value)


def make_scale_unstated(rng: random.Random, corpus: Corpus, ambiguous: bool) -> Question:
    # replicas only where the answer is a clarification: k8s.scale answers 40 other rows already
    what = rng.choice(("replicas", "retries")) if ambiguous else "retries"
    up = rng.random() < 0.5
    low = 1 if up else 3  # a clarification's "fewer" has two readings still above zero
    values = rng.choice([f for f in corpus.by_kind["deploy_yaml"] if low <= f.facts[what] <= _CEILING[what] - 2])
    f = values.facts
    current, ceiling = f[what], _CEILING[what]
    how = ""
    if not ambiguous:
        options = [" вдвое"] if (up and 2 * current <= ceiling) or (not up and current % 2 == 0) else []
        options += [f" на {rng.choice((str(k), BY_WORDS[what][k]))}" for k in (1, 2, 3)
                    if 1 <= current + (k if up else -k) <= ceiling]
        options += [f" до {rng.choice((str(n), UP_TO_WORDS.get(n, str(n))))}" for n in range(1, ceiling + 1)
                    if (n > current if up else n < current)][:4]
        how = rng.choice(options)
    question = rng.choice(SETTINGS[what][0 if up else 1]).format(how=how)
    tool = "k8s.scale" if what == "replicas" else "config.set_retries"
    request = {"tool": tool, "args": {}}
    if ambiguous:
        verb = "увеличить" if up else "уменьшить"
        noun = "реплик" if what == "replicas" else "повторов клиента"
        answer = rng.choice((f"На сколько {verb} число {noun} {f['deployment']}? Сейчас в файле {current}.",
                             f"До скольких {verb} число {noun} {f['deployment']}?"))
        return _row("scale_unstated", True, question, (values,), answer, "k8s.restart" if what == "replicas"
                    else "config.set_timeout", (tool,), request=request)
    return _row("scale_unstated", False, question, (values,), _setting_call(what, f, _target(current, up, how)[0]),
                "k8s.restart" if what == "replicas" else "config.set_timeout", request=request)


def readings_scale_unstated(view: View) -> list[dict[str, Any]]:
    _request(view)
    (_, text), = view.files.items()
    asked = view.question.lower()
    what = "replicas" if "реплик" in asked else "retries" if re.search(r"повтор|ретра", asked) else None
    up = bool(re.search(r"увелич|подним", asked))
    if what is None or up == bool(re.search(r"уменьш|сократ", asked)):
        raise ValueError("the question does not say what to change, or whether up or down")
    facts = {"namespace": setting(text, "namespace"), "deployment": setting(text, "deployment")}
    current = int(setting(text, {"replicas": "replicas", "retries": "client.retries"}[what]) or -1)  # YAML paths
    return [_setting_call(what, facts, n) for n in _target(current, up, view.question) if 1 <= n <= _CEILING[what]]


MECHANISMS: dict[str, Mechanism] = {m.name: m for m in (
    Mechanism("logs_same_day", "two_fit", make_logs_same_day, readings_logs_same_day),
    Mechanism("tables_same_column", "two_fit", make_tables_same_column, readings_tables_same_column),
    Mechanism("values_same_service", "two_fit", make_values_same_service, readings_values_same_service),
    Mechanism("twin_columns", "held_twice", make_twin_columns, readings_twin_columns),
    Mechanism("flag_envs", "unstated", make_flag_envs, readings_flag_envs),
    Mechanism("relative_month", "unstated", make_relative_month, readings_relative_month),
    Mechanism("reboot_timing", "vague_operation", make_reboot_timing, readings_reboot_timing, asides=False),
    Mechanism("scale_unstated", "vague_operation", make_scale_unstated, readings_scale_unstated),
)}


def maker(kind: str, ambiguous: bool) -> Callable[[random.Random, Corpus], Question]:
    """The rows of one kind: a mechanism of it drawn per row (the next one where this corpus has
    no files for the first), with the lead-ins and tails other questions get where they cannot
    bear on the answer."""
    mechanisms = [m for m in MECHANISMS.values() if m.kind == kind]

    def make(rng: random.Random, corpus: Corpus) -> Question:
        # asides reads the families' helpers: imported when a row is made, not with the families
        from merabench.tasks.gorillahard.generator.wording.asides import with_asides

        for mechanism in rng.sample(mechanisms, len(mechanisms)):
            try:
                question = mechanism.make(rng, corpus, ambiguous)
            except Unavailable:
                continue
            if mechanism.asides:
                question = replace(question, question=with_asides(question.question, rng))
            return question
        raise RuntimeError(f"no {kind} mechanism has files in this corpus")

    return make


def check_ambiguity(view: View) -> list[str]:
    """A clarification: two or more different calls the row allows, each tool in the catalog; a
    near miss: exactly one, its reference."""
    mechanism = MECHANISMS.get(view.derivation.get("mechanism", ""))
    if mechanism is None or view.derivation.get("kind") != mechanism.kind:
        return [f"unknown mechanism {view.derivation.get('mechanism')!r} of kind {view.derivation.get('kind')!r}"]
    readings = [r for r in mechanism.readings(view) if r["tool"] in view.tools]
    distinct = {repr(sorted(r["args"].items())) + r["tool"] for r in readings}
    if "clarify" in view.reference:
        return problems((len(distinct) >= 2, f"a clarification over {len(distinct)} reading(s): {readings}"))
    return problems((readings == [view.reference], f"the row allows {readings}, not only {view.reference}"))


# rows per kind in a default set: no kind over half of either family
CLARIFY_ROWS = {"two_fit": 3, "held_twice": 2, "unstated": 3, "vague_operation": 2}
NEAR_MISS_ROWS = {"two_fit": 5, "held_twice": 5, "unstated": 5, "vague_operation": 5}


def clarify_families() -> list[Family]:
    """A maker per kind for each of the two families (the rows labelled clarify_file and
    near_miss_clarify, as the card counts them)."""
    return [Family(f"{prefix}_{kind}", lever, tier, rows[kind], maker(kind, ambiguous), check_ambiguity)
            for prefix, lever, tier, rows, ambiguous in (("clarify", "clarify", "T3_expert", CLARIFY_ROWS, True),
                                                          ("near_miss", "near_miss", "T4_wild", NEAR_MISS_ROWS, False))
            for kind in KINDS]
