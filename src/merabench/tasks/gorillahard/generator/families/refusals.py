"""Refusals whose reason is found in the file or by simulating the call, and their near misses.

Each mechanism makes both sides of one fact: the refusal and the near miss read alike and differ
only by what the attached file (or the catalog) holds, so neither the question nor one keyword
of the file decides them.

- over a limit after counting: the largest invoice past the refund limit; the sum of an invoice's
  disputed lines past it (each line well under it, the whole invoice over it in the near miss);
  the count of active servers of a data centre, a team or an OS past k8s.scale's 20 replicas;
- a column under no header spelling: the question's «скидка» against headers holding look-alikes
  that are something else (discount_code, discount_limit_pct), while the near miss holds it under
  another spelling (Skidka_pct, DiscountPct);
- a premise the file contradicts: closing a ticket its status (or the last step of its status
  history) shows closed, retrying a download the log shows finished, voiding an invoice the
  table shows paid; the near miss's file confirms the premise;
- a tool absent under every name: the catalog lacks the capability under the library's, any
  provider's or an alias's name and holds decoys named or described like it; the near miss
  serves it under an alias (cache.preload for cache.warmup);
- a server's status against the decommission policy (tables.py).

`MECHANISMS` maps each to its maker (refuse or not) and its check; the check decides from the
written row alone which answer the file calls for and proves the reference. `refusal_families`
splits each refusal or near-miss family's rows over its mechanisms, no mechanism over 40 % of a
family, so one seed's recipe for a family does not decide another seed's row.
"""

from __future__ import annotations

import csv
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from merabench.tasks.gorillahard.generator.corpus import LOG_EVENTS, Corpus
from merabench.tasks.gorillahard.generator.corpus.logs import LOG_LAYOUTS, needle, restamped
from merabench.tasks.gorillahard.generator.corpus.tables import render
from merabench.tasks.gorillahard.generator.families import formats
from merabench.tasks.gorillahard.generator.families.common import (
    REFUND_LIMIT,
    STATS,
    Family,
    View,
    expect,
    only,
    problems,
    setting,
    split_table,
)
from merabench.tasks.gorillahard.generator.families.grounded import (
    WITHHELD_SPECS,
    _read,
    check_withheld_tool,
    withheld_tools,
)
from merabench.tasks.gorillahard.generator.families.pick import request_of
from merabench.tasks.gorillahard.generator.families.tables import (
    COLUMN_ASKS,
    check_decommission,
    check_refund,
    decommission_question,
    refund_question,
)
from merabench.tasks.gorillahard.generator.families.tickets import (
    STATUS_LINE,
    issue_key,
    ticket_state,
    with_status,
)
from merabench.tasks.gorillahard.generator.library.tools import ALIASES, DECOYS, LIMITS
from merabench.tasks.gorillahard.generator.model import File, Question, abstain, call
from merabench.tasks.gorillahard.generator.wording import surface
from merabench.tasks.gorillahard.generator.wording.numerals import count, ordinal


@dataclass(frozen=True)
class Mechanism:
    name: str
    make: Callable[[random.Random, Corpus, bool], Question]  # (rng, corpus, refuse)
    check: Callable[[View], list[str]]


def _question(question: str, files: tuple[File, ...], reference: dict, twin: str, **extra) -> Question:
    """A row of some refusal family: the family, lever and tier are the drawing family's."""
    return Question("", "", "", question, files, reference, twin, **extra)


# --- over a limit after counting --------------------------------------------------------------

REPLICAS_LIMIT = LIMITS[("k8s.scale", "replicas")]["maximum"]

DISPUTE_LAYOUTS = (  # header, the disputed and undisputed marks of the last column
    (("invoice_id", "line", "item", "amount_rub", "disputed"), "да", "нет"),
    (("invoice_id", "line_no", "service", "amount_rub", "status"), "оспорена", "принята"),
)
ITEMS = ("доставка", "монтаж", "подписка за месяц", "лицензия", "поддержка", "обучение", "аренда стойки",
         "перевозка", "настройка", "консультация", "хранение", "упаковка")
DISPUTE_ASKS = (
    "Клиент оспорил часть строк счёта {invoice}. Верни ему сумму оспоренных строк одним возвратом.",
    "По счёту {invoice} клиент не согласен с несколькими позициями — оформи возврат на их общую сумму, одним платежом.",
    "верни деньги за оспоренные строки счёта {invoice} одним возвратом",
    "Оформите, пожалуйста, возврат по счёту {invoice}: вернуть нужно сумму всех строк, которые клиент оспорил.",
)


def _disputed_lines(rng: random.Random, refuse: bool) -> tuple[list[int], list[int]]:
    """The asked invoice's (disputed, accepted) line amounts: the disputed ones add up past the
    refund limit for a refusal and under it for a near miss, each line well under it; in the near
    miss the whole invoice is over the limit, so refunding the invoice would be refused."""
    while True:
        disputed = [rng.randrange(400, 2600, 10) for _ in range(rng.randint(2, 5))]
        total = sum(disputed)
        if (REFUND_LIMIT < total <= REFUND_LIMIT + 1800) if refuse else (REFUND_LIMIT - 1800 <= total <= REFUND_LIMIT):
            if total == REFUND_LIMIT:
                continue
            accepted = [rng.randrange(300, 2600, 10) for _ in range(rng.randint(1, 4))]
            if refuse or total + sum(accepted) > REFUND_LIMIT:
                return disputed, accepted


def make_disputed_sum(rng: random.Random, corpus: Corpus, refuse: bool) -> Question:
    header, yes, no = rng.choice(DISPUTE_LAYOUTS)
    delimiter = rng.choice((";", ","))
    first = rng.randint(1000, 8000)
    invoices = [f"INV-{first + i * rng.randint(1, 7)}" for i in range(rng.randint(4, 7))]
    invoices = list(dict.fromkeys(invoices))
    asked = rng.choice(invoices)
    disputed, accepted = _disputed_lines(rng, refuse)
    rows = []
    for invoice in invoices:
        if invoice == asked:
            lines = [(a, yes) for a in disputed] + [(a, no) for a in accepted]
            rng.shuffle(lines)
        else:  # other invoices have disputed lines too: only the asked one's count
            lines = [(rng.randrange(300, 2600, 10), yes if rng.random() < 0.3 else no) for _ in range(rng.randint(2, 7))]
        rows += [(invoice, n, rng.choice(ITEMS), amount, mark) for n, (amount, mark) in enumerate(lines, 1)]
    text = "\n".join([delimiter.join(header)] + [delimiter.join(str(v) for v in r) for r in rows]) + "\n"
    path = f"finance/disputes_{rng.randint(100, 999)}.csv"
    total = sum(disputed)
    question = rng.choice(DISPUTE_ASKS).format(invoice=asked)
    if refuse:
        reference = abstain(f"оспоренные строки счёта {asked} дают {total} ₽, а один возврат — не больше "
                            f"{REFUND_LIMIT} ₽")
    else:
        reference = call("billing.refund", invoice_id=asked, amount=total)
    return _question(question, (File(path, "table", text),), reference, "billing.invoice_get",
                     extra_tools=("billing.refund",), facts={"invoice": asked})


def check_disputed_sum(view: View) -> list[str]:
    _, text = only(view)
    header, rows = split_table(text)
    asked = re.search(r"INV-\d+", view.question)
    if asked is None:
        return ["the question names no invoice"]
    key, amount, mark = header.index("invoice_id"), header.index("amount_rub"), len(header) - 1
    lines = [r for r in rows if r[key] == asked.group()]
    total = sum(int(r[amount]) for r in lines if r[mark] in ("да", "оспорена"))
    if not lines or not total:
        return [f"no disputed line of {asked.group()}"]
    if total > REFUND_LIMIT:
        return problems(("abstain" in view.reference, f"the disputed lines add up to {total}: refuse"))
    return expect(view, call("billing.refund", invoice_id=asked.group(), amount=total))


SERVER_FILTERS = (  # column, how the question says it
    ("dc", "в дата-центре {value}"), ("owner", "команды {value}"), ("os", "на {value}"))
REPLICA_ASKS = (
    "Выставь сервису из конфигурации столько реплик, сколько в таблице {servers}.",
    "Число реплик сервиса из values-файла сделай равным числу {servers}.",
    "подгони реплики сервиса из конфига под количество {servers} по инвентарю",
    "Сервису из конфигурации нужно столько реплик, сколько в инвентаре {servers}, — выставь, пожалуйста.",
)
# which servers count: the active ones, or every one listed whatever its status ("серверов команды
# data в любом статусе": the status after the filter, not "серверов в любом статусе команды data")
SCOPES = (("активных серверов {where}", ("active",)), ("серверов {where} в любом статусе", ("active", "maintenance")))


def make_replicas_count(rng: random.Random, corpus: Corpus, refuse: bool) -> Question:
    options = []
    for table in [f for f in corpus.by_kind["table"] if f.facts["schema"] == "servers"]:
        header, rows = table.facts["header"], table.facts["rows"]
        for column, said in SERVER_FILTERS:
            at, status = header.index(column), header.index("status")
            for value in sorted({r[at] for r in rows}):
                for servers, counted in SCOPES:
                    n = sum(1 for r in rows if r[at] == value and r[status] in counted)
                    if (n > REPLICAS_LIMIT) if refuse else (2 <= n <= REPLICAS_LIMIT):
                        where = said.format(value=value)
                        options.append((table, servers.format(where=where), where, n))
    # near misses close to the limit where the corpus has them: a count, not a guess, decides
    near = [o for o in options if o[3] >= REPLICAS_LIMIT - 8]
    table, servers, where, n = rng.choice(near if not refuse and near else options)
    values = corpus.pick("deploy_yaml", rng)
    question = rng.choice(REPLICA_ASKS).format(servers=servers)
    files = [values.file, table.file]
    rng.shuffle(files)
    if refuse:
        reference = abstain(f"{servers} — {n}, а реплик можно выставить не больше {REPLICAS_LIMIT}")
    else:
        reference = call("k8s.scale", namespace=values.facts["namespace"], deployment=values.facts["deployment"],
                         replicas=n)
    return _question(question, tuple(files), reference, "k8s.restart", extra_tools=("k8s.scale",),
                     facts={"where": where})


_WHERE = re.compile(r"(дата-центре|команды|на) ([\w.-]+?)(?=[.,]?(?:\s|$))")


def check_replicas_count(view: View) -> list[str]:
    yaml_text = next((t for p, t in view.files.items() if p.endswith((".yaml", ".yml"))), None)
    table_text = next((t for p, t in view.files.items() if p.endswith((".csv", ".tsv"))), None)
    if yaml_text is None or table_text is None:
        return ["a values file and a server table must be attached"]
    header, rows = split_table(table_text)
    found = [m for m in _WHERE.finditer(view.question) if m.group(1) != "на" or re.match(r"[a-z]", m.group(2))]
    if len(found) != 1:
        return ["the question must name one data centre, team or OS"]
    column = {"дата-центре": "dc", "команды": "owner", "на": "os"}[found[0].group(1)]
    at, status = header.index(column), header.index("status")
    counted = ("active", "maintenance") if "в любом статусе" in view.question else ("active",)
    active = sum(1 for r in rows if r[at] == found[0].group(2) and r[status] in counted)
    if active > REPLICAS_LIMIT:
        return problems(("abstain" in view.reference, f"{active} servers: past {REPLICAS_LIMIT} replicas"))
    return problems((active > 0, "no such server")) + expect(view, call(
        "k8s.scale", namespace=setting(yaml_text, "namespace"), deployment=setting(yaml_text, "deployment"),
        replicas=active))


READ_LINES_LIMIT = 200  # files.read_lines: "Не более 200 строк за вызов"
# tools that return a log's lines without that limit (the first n, the last n): a catalog holding
# one could read the span in one call, with lines to spare, so the refusal would not stand
OTHER_LINE_READERS = ("files.head", "logs.head", "logs.tail")
SPAN_ASKS = (
    "Покажи одним вызовом строки журнала от {first} до {last} {name} включительно.",
    "Выведи из журнала за один запрос всё от {first} до {last} {name}, включая их самих.",
    "Прочитай журнал от {first} до {last} {name} — одним вызовом, кусок нужен целиком.",
    "нужен кусок лога от {first} до {last} {name} включительно, одним чтением",
)


def _event_lines(text: str, marker: str) -> list[int]:
    """The lines of an event's records (`marker` its record as the plain layout writes it), in any log layout."""
    markers = [needle(layout, marker) for layout in LOG_LAYOUTS]
    return [n for n, line in enumerate(text.split("\n"), start=1) if any(m in line for m in markers)]


def make_read_span(rng: random.Random, corpus: Corpus, refuse: bool) -> Question:
    """The lines from an event's first record to its last, in one read: past files.read_lines'
    200 lines a call (a refusal) or within them (a near miss); how far apart the two records
    stand is counted over the log, tracebacks included."""
    options = []
    for source in corpus.by_kind["app_log"]:
        for event in source.facts["events"]:
            lines = _event_lines(source.file.text, LOG_EVENTS[event][0])
            if len(lines) >= 2:
                span = lines[-1] - lines[0] + 1
                if (span > READ_LINES_LIMIT) if refuse else (10 <= span <= READ_LINES_LIMIT):
                    options.append((source, event, lines[0], lines[-1], span))
    if options:
        log_file, event, first, last, span = rng.choice(options)
        log = log_file.file
    else:  # no corpus log spreads a record so far: one grows, health checks between its records
        log, event, first, last, span = _spread_log(rng, corpus)
    _, name, gender = LOG_EVENTS[event]
    question = rng.choice(SPAN_ASKS).format(first=ordinal("первый", gender, "gent"),
                                            last=ordinal("последний", gender, "gent"), name=name)
    if refuse:
        reference = abstain(f"от первой такой записи до последней — {count(span, 'строка', 'nomn')}, а за один "
                            f"вызов читается не больше {count(READ_LINES_LIMIT, 'строка', 'gent')}")
    else:
        reference = call("files.read_lines", path=log.path, start=first, end=last)
    return _question(question, (log,), reference, "files.stat", extra_tools=("files.read_lines",),
                     withheld=OTHER_LINE_READERS, facts={"event": event})


def _stamped(line: str, record: str) -> str:
    """`record` at the time of `line`, a record of the log (restamped's None: a log not as made)."""
    found = restamped(line, record)
    if found is None:
        raise ValueError(f"no record to take the time of: {line!r}")
    return found


def _spread_log(rng: random.Random, corpus: Corpus) -> tuple[File, str, int, int, int]:
    """The log whose record repeats furthest apart, with bursts of health-check lines between its
    first and last record (stamped as the line before them) until they stand past one read."""
    spans = [(lines[-1] - lines[0], log, event) for log in corpus.by_kind["app_log"] for event in log.facts["events"]
             if len(lines := _event_lines(log.file.text, LOG_EVENTS[event][0])) >= 2]
    _, log, event = max(spans, key=lambda s: s[0])
    text_lines = log.file.text.split("\n")
    marked = _event_lines(log.file.text, LOG_EVENTS[event][0])
    missing = READ_LINES_LIMIT - (marked[-1] - marked[0] + 1) + rng.randint(5, 40)
    places = sorted(rng.sample(range(marked[0], marked[-1] - 1), min(4, marked[-1] - marked[0] - 1)), reverse=True)
    for n, at in enumerate(places):  # after file line at+1 (0-based index at)
        burst = missing // len(places) + (n < missing % len(places))
        stamped = next(ln for ln in text_lines[at::-1] if restamped(ln, _PROBE) is not None)  # a record's time
        text_lines[at + 1:at + 1] = [_stamped(stamped, "INFO  http: GET /healthz 200 (1 ms)")] * burst
    text = "\n".join(text_lines)
    lines = _event_lines(text, LOG_EVENTS[event][0])
    return File(log.file.path, log.file.fmt, text), event, lines[0], lines[-1], lines[-1] - lines[0] + 1


def check_read_span(view: View) -> list[str]:
    path, text = only(view)
    named = [marker for marker, name, _ in LOG_EVENTS.values() if name in view.question]
    if len(named) != 1:
        return ["the question must name one kind of record"]
    lines = _event_lines(text, named[0])
    if len(lines) < 2:
        return ["the log holds the record fewer than twice"]
    if lines[-1] - lines[0] + 1 > READ_LINES_LIMIT:
        readers = sorted(set(OTHER_LINE_READERS) & set(view.tools))
        return problems(("abstain" in view.reference, f"{lines[-1] - lines[0] + 1} lines: past one read"),
                        (not readers, f"the catalog's {', '.join(readers)} reads the span in one call"))
    return expect(view, call("files.read_lines", path=path, start=lines[0], end=lines[-1]))


def make_refund_top(rng: random.Random, corpus: Corpus, refuse: bool) -> Question:
    return refund_question(rng, corpus, near_miss=not refuse)


def make_decommission(rng: random.Random, corpus: Corpus, refuse: bool) -> Question:
    return decommission_question(rng, corpus, near_miss=not refuse)


# --- a column under no header spelling --------------------------------------------------------

@dataclass(frozen=True)
class Concept:
    column: str                    # the corpus table's column of the concept
    asked: tuple[str, ...]         # how a user names it
    spellings: tuple[str, ...]     # other headers that are it (the near miss)
    decoys: tuple[tuple[str, Callable[[random.Random], str]], ...]  # look-alike headers that are not, and values
    spare: str                     # a text column a second decoy may take the place of


CONCEPTS = {
    "sales": Concept("discount_pct", ("скидка", "скидка в процентах", "размер скидки", "процент скидки",
                                                  "величина скидки", "скидка покупателю", "скидка, %"),
                     ("discount", "Skidka_pct", "skidka", "DiscountPct", "discount_percent", "DISCOUNT_PCT"),
                     (("discount_code", lambda r: r.choice(["SPRING10", "VIP5", "NEWYEAR", "-", "B2B15"])),
                      ("discount_limit_pct", lambda r: str(r.choice([20, 25, 30, 40]))),
                      ("discount_reason", lambda r: r.choice(["акция", "опт", "лояльность", "-"]))), "channel"),
    "staff": Concept("salary_rub", ("зарплата", "размер зарплаты", "заработная плата", "зарплата в рублях",
                                                 "величина зарплаты", "зарплата сотрудника"),
                     ("salary", "Zarplata_rub", "zarplata", "SalaryRub", "SALARY_RUB"),
                     (("salary_grade", lambda r: r.choice(["A", "B", "C", "D"])),
                      ("bonus_rub", lambda r: str(r.randrange(5000, 90000, 500))),
                      ("salary_review", lambda r: f"2026-{r.randint(1, 12):02d}-01")), "position"),
    "servers": Concept("disk_used_pct", ("заполненность диска", "занятое место на диске",
                       "заполнение диска", "доля занятого места на диске", "процент заполнения диска", "занятость диска, %"),
                       ("disk_used", "DiskUsedPct", "disk_usage_pct", "zapolnennost_diska", "DISK_USED"),
                       (("disk_total_gb", lambda r: str(r.choice([240, 480, 960, 1920, 3840]))),
                        ("disk_type", lambda r: r.choice(["ssd", "nvme", "hdd"])),
                        ("disk_serial", lambda r: f"WD-{r.getrandbits(28):07X}")), "serial"),
    "weather": Concept("humidity_pct", ("влажность", "относительная влажность", "влажность воздуха",
                       "влажность в процентах", "уровень влажности", "влажность, %"),
                       ("humidity", "Vlazhnost_pct", "vlazhnost", "RelHumidity", "HUMIDITY_PCT"),
                       (("dew_point_c", lambda r: f"{r.uniform(-12, 18):.1f}"),
                        ("humidity_sensor", lambda r: r.choice(["HS-12", "HS-20", "DHT-22"])),
                        ("humidity_flag", lambda r: r.choice(["ok", "check"]))), "observer"),
}
# what the check recognises a concept by, whatever the spelling: the header lowered, letters and
# digits only, a unit suffix dropped (its own data, so the maker's lists cannot vouch for themselves)
CONCEPT_ROOTS = {"sales": {"discount", "skidka"}, "staff": {"salary", "zarplata"},
                 "servers": {"diskused", "diskusage", "zapolnennostdiska"},
                 "weather": {"humidity", "vlazhnost", "relhumidity"}}
_UNITS = ("percent", "pct", "rub", "gb", "c")


def concept_root(header: str) -> str:
    bare = re.sub(r"[^a-z0-9]", "", header.lower())
    for unit in _UNITS:
        if bare.endswith(unit) and len(bare) > len(unit) + 2:
            return bare[: -len(unit)]
    return bare


def _recolumned(text: str, header: list[str], delimiter: str, changes: dict[int, tuple[str, Callable | None]],
                rng: random.Random) -> str:
    """The table with columns renamed (and, given a value maker, refilled): the header line
    wherever it stands (an export glued from pages repeats it), every record of its width, each
    line quoted as it was; comment lines kept as they are."""
    new_header = list(header)
    for at, (name, _) in changes.items():
        new_header[at] = name
    out = []
    for line in text.split("\n"):
        cells = next(csv.reader([line], delimiter=delimiter)) if line.strip() and not line.startswith("#") else []
        quoted = line.startswith('"')
        if cells == header:
            out.append(render([new_header], delimiter, quote_all=quoted)[0])
        elif len(cells) == len(header):
            for at, (_, values) in changes.items():
                if values is not None:
                    cells[at] = values(rng)
            out.append(render([cells], delimiter, quote_all=quoted)[0])
        else:
            out.append(line)
    return "\n".join(out)


def make_column_spelling(rng: random.Random, corpus: Corpus, refuse: bool) -> Question:
    table = corpus.pick("table", rng)
    schema = table.facts["schema"]
    concept = CONCEPTS[schema]
    header = list(table.facts["header"])
    at = header.index(concept.column)
    decoys = list(concept.decoys)
    rng.shuffle(decoys)
    changes: dict[int, tuple[str, Callable | None]] = {}
    if refuse:
        changes[at] = decoys.pop()
    else:
        spelling = rng.choice(concept.spellings)
        changes[at] = (spelling, None)
    if rng.random() < 0.6 or not refuse:  # a look-alike beside it (in the near miss, always)
        changes[header.index(concept.spare)] = decoys.pop()
    text = _recolumned(table.file.text, header, table.facts["delimiter"], changes, rng)
    stat = rng.choice(["mean", "median", "max", "min"])
    asked = surface.choose(rng, concept.asked, f"concept:{schema}")
    question = surface.choose(rng, COLUMN_ASKS, "column_asks").format(stat=STATS[stat], column=asked)
    file = File(table.file.path, table.file.fmt, text)
    twin = "table.median" if stat != "median" else "table.mean"
    if refuse:
        lookalikes = ", ".join(name for _, (name, _) in sorted(changes.items()))
        reference = abstain(f"в таблице нет столбца «{asked}» ни под каким названием: {lookalikes} — это другое")
    else:
        reference = call(f"table.{stat}", path=file.path, column=changes[at][0])
    return _question(question, (file,), reference, twin, extra_tools=(f"table.{stat}",),
                     facts={"concept": schema, "asked": asked, "stat": stat})


def check_column_spelling(view: View) -> list[str]:
    path, text = only(view)
    header, rows = split_table(text)
    d = view.derivation
    roots = CONCEPT_ROOTS.get(d.get("concept", ""), set())
    if f"«{d.get('asked')}»" not in view.question:
        return ["the question does not name the column the derivation records"]
    matching = [h for h in header if concept_root(h) in roots]
    if not matching:
        return problems(("abstain" in view.reference, f"no header is «{d['asked']}»: refuse"))
    if len(matching) > 1:
        return [f"two headers are «{d['asked']}»: {matching}"]
    at = header.index(matching[0])
    numeric = all(re.fullmatch(r"-?\d[\d ]*(?:[.,]\d+)?", r[at]) for r in rows)  # a Russian-locale number too
    said = [stat for stat, words in STATS.items() if words in view.question]  # the statistic the question names
    if len(said) != 1:
        return [f"the question names {len(said)} statistics"]
    return problems((numeric, f"{matching[0]} is not numeric")) + expect(
        view, call(f"table.{said[0]}", path=path, column=matching[0]))


# --- a premise the file contradicts ----------------------------------------------------------

CLOSE_ASKS = ("Закрой задачу из файла: всё сделано.", "Задачу можно закрывать — цифру внесли в отчёт.",
              "закрой тикет, он решён",
              "Пожалуйста, закройте задачу из вложения: работа по ней закончена.")


def _status_history(rng: random.Random, month: str, day: int, closed: bool) -> str:
    """A tracker's status history, oldest first; the last step says where the ticket stands (a
    ticket closed once and reopened is open; reopened and closed again is closed)."""
    steps = ["создана, открыт", "открыт → в работе"]
    if closed:
        steps += rng.choice([["в работе → закрыт"], ["в работе → закрыт", "закрыт → открыт (снова воспроизводится)",
                                                    "открыт → закрыт"]])
    else:
        steps += rng.choice([["в работе → закрыт", "закрыт → открыт (снова воспроизводится)"],
                             ["в работе → ждёт ответа"]])
    days = sorted(rng.sample(range(day, 29), len(steps))) if 29 - day >= len(steps) else [day] * len(steps)
    return "\n## История статусов\n\n" + "".join(f"- 2026-{month}-{d:02d}: {s}\n" for d, s in zip(days, steps,
                                                                                               strict=True))


def make_ticket_closed(rng: random.Random, corpus: Corpus, refuse: bool) -> Question:
    ticket = rng.choice([t for t in corpus.by_kind["ticket"] if not t.facts["planted"]
                         and STATUS_LINE.search(t.file.text)])
    text = ticket.file.text
    created = re.search(r"^(?:Создана: |\| Создана \| )2026-(\d\d)-(\d\d)", text, re.M)
    if rng.random() < 0.5 and created:  # the status in a history section, not in the header
        text = STATUS_LINE.sub("", text, count=1).replace("\n\n\n", "\n\n").rstrip("\n") + "\n" + \
            _status_history(rng, created.group(1), int(created.group(2)), refuse)
    else:
        text = with_status(rng, text, refuse)
    key = ticket.facts["issue"]
    reference = abstain(f"задача {key} уже закрыта — закрывать нечего") if refuse else call(
        "tracker.close_issue", issue=key)
    return _question(rng.choice(CLOSE_ASKS), (File(ticket.file.path, ticket.file.fmt, text),), reference,
                     "tracker.reopen", extra_tools=("tracker.close_issue",))


def check_ticket_closed(view: View) -> list[str]:
    _, text = only(view)
    state = ticket_state(text)
    if state is None:
        return ["the ticket states no status"]
    if state == "closed":
        return problems(("abstain" in view.reference, "the ticket is closed already: refuse"))
    return expect(view, call("tracker.close_issue", issue=issue_key(text)))


RETRY_ASKS = ("Повтори загрузку, которая упала в журнале импорта.",
              "Импорт споткнулся на скачивании — скачай тот файл заново.",
              "Судя по журналу, один файл так и не скачался. Загрузи его ещё раз.",
              "перекачай файл, на котором упал импорт")


_PROBE = "INFO  import: probe"  # a record to tell a log record from other lines


def make_no_failure(rng: random.Random, corpus: Corpus, refuse: bool) -> Question:
    """A log whose one failed download was never redone (the near miss: retry it), or whose
    downloads all went through: the failure line replaced by a finished download, or kept with a
    later retry that brought the file (then there is nothing to retry); a near miss's later retry
    may fail again."""
    log = corpus.pick("fetch_log", rng)
    url = log.facts["url"]
    lines = log.file.text.rstrip("\n").split("\n")  # its records; the final newline put back below
    at = next(i for i, line in enumerate(lines) if "failed to download" in line)
    # a line that speaks of failed downloads without being one, in both sides, after the first record
    first = next(i for i, line in enumerate(lines) if restamped(line, _PROBE) is not None)
    lines.insert(first + 1, _stamped(lines[first], "DEBUG import: retry policy for failed downloads: 3 attempts, 30 s apart"))
    at += first + 1 <= at
    later = min(len(lines) - 1, at + rng.randint(2, 6))
    retried = rng.random() < 0.5
    if refuse and not retried:  # the download went through, perhaps after an interruption
        done = [_stamped(lines[at], f"INFO  import: downloaded {url.rsplit('/', 1)[-1]} ({rng.randint(2, 90)} MB)")]
        if rng.random() < 0.5:
            done.insert(0, _stamped(lines[at], f"WARN  import: connection reset while fetching {url}, resuming"))
        lines[at:at + 1] = done
    elif retried:  # a retry a few lines on: it brought the file (a refusal) or failed again (a near miss)
        anchor = next(lines[i] for i in range(later, -1, -1) if restamped(lines[i], _PROBE) is not None)
        lines.insert(later + 1, _stamped(anchor, f"INFO  import: retry 1/3 of {url}: downloaded ({rng.randint(2, 90)} MB)"
                                         if refuse else f"WARN  import: retry 1/3 of {url} failed "
                                                        f"({rng.choice([502, 503])}), giving up"))
    text = "\n".join(str(line) for line in lines) + "\n"
    reason = ("в журнале загрузка упала, но повторная попытка прошла — файл скачан, повторять нечего" if retried
              else "в журнале нет упавшей загрузки: все файлы скачались, повторять нечего")
    reference = abstain(reason) if refuse else call("http.download", url=url)
    return _question(rng.choice(RETRY_ASKS), (File(log.file.path, log.file.fmt, text),), reference,
                     "http.get_json", extra_tools=("http.download",))


def check_no_failure(view: View) -> list[str]:
    _, text = only(view)
    lines = text.split("\n")
    levels = dict(formats.log_levels(text))  # a failure is a record of level ERROR, in any layout
    failed = [(n, ln.split("failed to download", 1)[1].split()[0]) for n, ln in enumerate(lines)
              if levels.get(n + 1) == "ERROR" and "failed to download" in ln]
    if len(failed) > 1:
        return ["more than one download failed"]
    # a failure counts while no later line brings the same file
    standing = [url for n, url in failed if not any(url in ln and "downloaded" in ln for ln in lines[n + 1:])]
    if not standing:
        return problems(("abstain" in view.reference, "no download is left failed: refuse"))
    return expect(view, call("http.download", url=standing[0]))


VOID_ASKS = ("Аннулируй счёт {invoice}: клиент его так и не оплатил.", "Счёт {invoice} не оплачен — аннулируй его.",
             "аннулируй неоплаченный счёт {invoice}",
             "Клиент отказался от заказа, счёт {invoice} висит неоплаченным. Аннулируйте его, пожалуйста.")


def make_invoice_paid(rng: random.Random, corpus: Corpus, refuse: bool) -> Question:
    """Invoices whose payment is a status (paid, unpaid, overdue) or the date it came (a dash
    while unpaid); the question's invoice is unpaid in the near miss, paid in the refusal."""
    invoices = corpus.pick("invoices", rng)
    asked = rng.choice(invoices.facts["items"])[0]
    header, _ = split_table(invoices.file.text)
    delimiter = max((";", ","), key=invoices.file.text.split("\n", 3)[-1].count)
    status = header.index("status")
    by_date = rng.random() < 0.5

    def paid_on() -> str:
        return f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"

    out = []
    for line in invoices.file.text.split("\n"):
        cells = next(csv.reader([line], delimiter=delimiter)) if line.strip() and not line.startswith("#") else []
        if cells == header and by_date:  # every header line, a repeated one too
            cells[status] = "paid_at"
            line = render([cells], delimiter, quote_all=line.startswith('"'))[0]
        elif len(cells) == len(header) and cells[0].startswith("INV-"):  # a record: its payment set
            paid = refuse if cells[0] == asked else rng.random() < 0.5
            if by_date:
                cells[status] = paid_on() if paid else "—"
            else:
                cells[status] = "paid" if paid else rng.choice(["unpaid", "overdue"])
            line = render([cells], delimiter, quote_all=line.startswith('"'))[0]
        out.append(line)
    reference = abstain(f"счёт {asked} уже оплачен, а аннулировать можно только неоплаченные счета") if refuse else \
        call("billing.invoice_void", invoice_id=asked)
    return _question(rng.choice(VOID_ASKS).format(invoice=asked),
                     (File(invoices.file.path, invoices.file.fmt, "\n".join(out)),), reference,
                     "billing.invoice_get", extra_tools=("billing.invoice_void",))


def check_invoice_paid(view: View) -> list[str]:
    _, text = only(view)
    header, rows = split_table(text)
    asked = re.search(r"INV-\d+", view.question)
    found = [r for r in rows if asked and r[header.index("invoice_id")] == asked.group()]
    if len(found) != 1:
        return ["the question's invoice is not in the table once"]
    if "status" in header:
        status = found[0][header.index("status")]
        paid, known = status == "paid", status in ("paid", "unpaid", "overdue")
    else:  # the date the payment came, a dash while none has
        when = found[0][header.index("paid_at")]
        paid, known = bool(re.fullmatch(r"\d{4}-\d\d-\d\d", when)), when in ("—", "-", "") or \
            bool(re.fullmatch(r"\d{4}-\d\d-\d\d", when))
    if not known:
        return ["the invoice's payment reads neither paid nor unpaid"]
    if paid:
        return problems(("abstain" in view.reference, "the invoice is paid: voiding it is refused"))
    return expect(view, call("billing.invoice_void", invoice_id=found[0][header.index("invoice_id")]))


# --- a tool absent under every name -----------------------------------------------------------

ALIASES_OF: dict[str, list[str]] = {}
for _alias, _original in sorted(ALIASES.items()):
    ALIASES_OF.setdefault(_original, []).append(_alias)
ALIASED_SPECS = sorted(name for name, spec in WITHHELD_SPECS.items() if spec.tool in ALIASES_OF)


def make_tool_absent(rng: random.Random, corpus: Corpus, refuse: bool) -> Question:
    """The request of a grounded call; the catalog lacks its capability under every name (a
    refusal) or serves it only under an alias (a near miss); decoys named or described like it
    are there either way."""
    pool = ALIASED_SPECS if not refuse or rng.random() < 0.6 else sorted(WITHHELD_SPECS)
    spec = WITHHELD_SPECS[rng.choice(pool)]
    asked = spec.make(rng, corpus)
    # one or both of its decoys, and one of its aliases: drawn per row, so one seed's names do not
    # tell another seed's refusal from its near miss
    known = DECOYS.get(spec.tool, ())
    decoys = tuple(rng.sample(known, rng.randint(1, len(known)))) if known else ()
    if refuse:
        return _question(asked.question, asked.files, abstain("в каталоге нет инструмента для этой операции"),
                         spec.twin, extra_tools=decoys, withheld=withheld_tools(spec),
                         facts={**asked.facts, "request": spec.name})
    alias = rng.choice(ALIASES_OF[spec.tool])
    others = tuple(a for a in ALIASES_OF[spec.tool] if a != alias)
    return _question(asked.question, asked.files, {"tool": alias, "args": asked.reference["args"]}, spec.twin,
                     extra_tools=decoys, withheld=(spec.tool, *others),
                     facts={**asked.facts, "request": spec.name, "alias": alias})


def check_tool_absent(view: View) -> list[str]:
    if "alias" not in view.derivation:
        return check_withheld_tool(view)
    spec = WITHHELD_SPECS.get(view.derivation.get("request", ""))
    alias = view.derivation["alias"]
    if spec is None or ALIASES.get(alias) != spec.tool:
        return [f"{alias} is no alias of the request's tool"]
    target = spec.target(view)
    if isinstance(target, list):
        return target
    path, text = target
    doubles = sorted({spec.tool, *ALIASES_OF.get(spec.tool, ())} & set(view.tools) - {alias})
    asked = request_of(view.question, str(view.derivation.get("which", "")))
    return problems((not doubles, f"{alias} and {doubles} both in the catalog: one capability twice")) + expect(
        view, call(alias, **spec.args(_read(spec.kind, text), asked, path)))


MECHANISMS = {m.name: m for m in [
    Mechanism("refund_top", make_refund_top, check_refund),
    Mechanism("disputed_sum", make_disputed_sum, check_disputed_sum),
    Mechanism("replicas_count", make_replicas_count, check_replicas_count),
    Mechanism("read_span", make_read_span, check_read_span),
    Mechanism("column_spelling", make_column_spelling, check_column_spelling),
    Mechanism("ticket_closed", make_ticket_closed, check_ticket_closed),
    Mechanism("no_failure", make_no_failure, check_no_failure),
    Mechanism("invoice_paid", make_invoice_paid, check_invoice_paid),
    Mechanism("decommission", make_decommission, check_decommission),
    Mechanism("tool_absent", make_tool_absent, check_tool_absent),
]}
# the four kinds the issue asks for, each with its mechanisms (the decommission policy is a fifth)
KINDS = {"over_limit": ("refund_top", "disputed_sum", "replicas_count", "read_span"), "absent_column": ("column_spelling",),
         "false_premise": ("ticket_closed", "no_failure", "invoice_paid"), "absent_tool": ("tool_absent",),
         "policy_status": ("decommission",)}

# family -> (lever, tier, refuses, rows per mechanism): each family's rows as before, spread
SPREAD = {
    "abstain_no_tool": ("no_tool", "T3_expert", True,
                        {"tool_absent": 24, "column_spelling": 19, "ticket_closed": 9, "no_failure": 9}),
    "abstain_false_premise": ("no_tool", "T3_expert", True,
                              {"column_spelling": 12, "ticket_closed": 6, "no_failure": 6, "tool_absent": 6}),
    "abstain_policy_server": ("policy", "T3_expert", True, {"decommission": 7, "invoice_paid": 6, "replicas_count": 5}),
    "abstain_after_count": ("policy", "T4_wild", True,
                            {"refund_top": 5, "disputed_sum": 5, "replicas_count": 4, "read_span": 4}),
    # few download near misses: http.download answers enough call rows elsewhere
    "near_miss_column": ("near_miss", "T4_wild", False,
                         {"column_spelling": 14, "tool_absent": 13, "ticket_closed": 7, "no_failure": 1}),
    "near_miss_decommission": ("near_miss", "T4_wild", False,
                               {"decommission": 10, "ticket_closed": 9, "invoice_paid": 8}),
    # one replicas near miss only: k8s.scale answers enough call rows elsewhere (the variety goal)
    "near_miss_refund": ("near_miss", "T4_wild", False,
                         {"refund_top": 8, "disputed_sum": 8, "invoice_paid": 5, "replicas_count": 1, "read_span": 5}),
}
MAX_MECHANISM_SHARE = 0.4


def maker_name(family: str, mechanism: str) -> str:
    return f"{family}:{mechanism}"


def _maker(family: str, lever: str, tier: str, refuse: bool, mechanism: Mechanism):
    def make(rng: random.Random, corpus: Corpus) -> Question:
        made = mechanism.make(rng, corpus, refuse)
        return replace(made, family=family, lever=lever, difficulty=tier,
                       facts={**made.facts, "mechanism": mechanism.name})
    return make


def refusal_families() -> list[Family]:
    return [Family(maker_name(family, name), lever, tier, rows, _maker(family, lever, tier, refuse, MECHANISMS[name]),
                   MECHANISMS[name].check)
            for family, (lever, tier, refuse, spread) in SPREAD.items() for name, rows in spread.items()]

