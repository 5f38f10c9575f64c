"""Families over tables: statistics, look-ups after counting, refusals and their near misses."""

from __future__ import annotations

import random
import re
from typing import Any

from merabench.tasks.gorillahard.generator.corpus import Corpus, CorpusFile
from merabench.tasks.gorillahard.generator.families import formats
from merabench.tasks.gorillahard.generator.families.common import (
    REFUND_LIMIT,
    STATS,
    Family,
    View,
    build_question,
    expect,
    only,
    problems,
    setting,
    split_table,
)
from merabench.tasks.gorillahard.generator.families.respelled import (
    meant,
    named_columns,
    quantity_of,
    respelled,
)
from merabench.tasks.gorillahard.generator.model import Question, abstain, call
from merabench.tasks.gorillahard.generator.wording import surface


def summable(table: CorpusFile) -> bool:
    """table.sum reads "," and ";" delimited files only (its stated limit): no TSV; and a sum
    needs a column whose values add up (money, units, projects), never temperatures or shares."""
    return table.facts["delimiter"] != "\t" and bool(additive(table))


ADDITIVE = {"amount_rub", "units", "salary_rub", "projects", "ram_gb"}


def additive(table: CorpusFile) -> list:
    return [c for c in table.facts["numeric"] if c.name in ADDITIVE]


def stat_and_column(rng: random.Random, table: CorpusFile) -> tuple[str, Any]:
    """A statistic and a numeric column it makes sense for (a sum only of what adds up)."""
    stat = rng.choice([s for s in STATS if s != "sum" or summable(table)])
    return stat, rng.choice(additive(table) if stat == "sum" else table.facts["numeric"])


def make_table_stat(rng: random.Random, corpus: Corpus) -> Question:
    table = corpus.pick("table", rng)
    stat, column = stat_and_column(rng, table)
    twin = rng.choice([s for s in STATS if s != stat])
    # the column by its header name: the only trap is the twin (a near miss names it in words)
    question = rng.choice((f"Посчитай {STATS[stat]} по столбцу «{column.name}» в приложенной таблице.",
                           f"посчитай {STATS[stat]} по колонке {column.name}"))
    return build_question(
        "table_stat",
        "catalog",
        "T1_medium",
        question,
        (table,),
        call(f"table.{stat}", path=table.file.path, column=column.name),
        f"table.{twin}",
        facts={"stat": stat, "column": column.name},
    )  # no format trap: the tool reads the table, whatever its delimiter, so a decoy cannot bear on this call


def check_table_stat(view: View) -> list[str]:
    path, text = only(view)
    header, _ = split_table(text)
    d = view.derivation
    return problems((d["column"] in header, "the column is not in the table")) + expect(
        view, call(f"table.{d['stat']}", path=path, column=d["column"])
    )


def make_deprecated_sum(rng: random.Random, corpus: Corpus) -> Question:
    table = rng.choice([t for t in corpus.by_kind["table"] if summable(t)])
    column = rng.choice(additive(table))
    return build_question(
        "table_sum_deprecated",
        "catalog",
        "T2_hard",
        rng.choice((f"Посчитай сумму по столбцу «{column.description}».", f"сумма по колонке «{column.description}»?",
                    f"Нужен итог по столбцу «{column.description}», посчитаете?")),
        (table,),
        call("table.sum", path=table.file.path, column=column.name),
        "table.sum_legacy",
        facts={"stat": "sum", "column": column.name},
    )


def two_stats(name: str, count: int, stat: str, phrasings: tuple[str, ...], twin: str) -> Family:
    """A parallel family: table.<stat> of two columns of the attached table, named by what they
    hold («температура воздуха») under headers respelled for the row (t_air_c, air_temp), often
    beside a column of near meaning; phrasings take {a} and {b}."""
    def make(rng: random.Random, corpus: Corpus) -> Question:
        table = corpus.pick("table", rng)
        file, columns = respelled(rng, table)
        (first, a, _), (second, b, _) = named_columns(rng, columns)
        return build_question(
            name,
            "parallel",
            "T4_wild",
            rng.choice(phrasings).format(a=a, b=b),
            (CorpusFile(file, "table"),),
            {"calls": [call(f"table.{stat}", path=file.path, column=c) for c in (first, second)]},
            twin,
            facts={"columns": [first, second], "phrases": [a, b]},
        )

    def check(view: View) -> list[str]:
        path, text = only(view)
        header, _ = split_table(text)
        columns, phrases = view.derivation["columns"], view.derivation["phrases"]
        quantities = [quantity_of(c) for c in columns]
        return problems(
            (all(c in header for c in columns), "a column is not in the table"),
            (all(f"«{p}»" in view.question for p in phrases), "the question does not name the columns so"),
            (all(q is not None and q == meant(p) for q, p in zip(quantities, phrases, strict=True)),
             "a phrase does not mean its column's quantity"),
            (sum(quantity_of(h) in quantities for h in header) == 2, "a quantity is under two headers"),
        ) + expect(view, {"calls": [call(f"table.{stat}", path=path, column=c) for c in columns]})

    return Family(name, "parallel", "T4_wild", count, make, check)


# how a column statistic is asked for (refusals.py's column mechanism: only the headers tell a refusal from a call;
# {stat} in the accusative); a set uses a third of them (surface.py)
COLUMN_ASKS = ("Посчитай {stat} по столбцу «{column}».", "Найди {stat} по столбцу «{column}».",
               "Нужно получить {stat} по колонке «{column}».", "Посчитайте, пожалуйста, {stat} в столбце «{column}».",
               "Дай {stat} по колонке «{column}» из таблицы.", "вычисли {stat} для столбца «{column}»",
               "Хочу увидеть {stat} по столбцу «{column}» этой таблицы.",
               "Посчитай по таблице {stat} у столбца «{column}».",
               "Определите {stat} по графе «{column}».", "Узнай {stat} по полю «{column}».",
               "Вычислите, пожалуйста, {stat} столбца «{column}» из таблицы.",
               "Подсчитай {stat} в колонке «{column}».", "По графе «{column}» посчитай {stat}.",
               "Для колонки «{column}» посчитайте {stat}.", "Выведи {stat} по полю «{column}» таблицы.",
               "По данным таблицы найдите {stat} в столбце «{column}».",
               "мне бы {stat} по колонке «{column}», посчитай",
               "Рассчитай {stat} по столбцу «{column}» в приложенной таблице.",
               "Получите, пожалуйста, {stat} по полю «{column}».",
               "Таблица у тебя есть: найди {stat} по графе «{column}».",
               "Меня интересует колонка «{column}»: вычислите её {stat}.")


def servers_table(corpus: Corpus, rng: random.Random, *, having: str | None = None) -> CorpusFile:
    """A server inventory table; with `having`, one listing a server in that status."""
    tables = [f for f in corpus.by_kind["table"] if f.facts["schema"] == "servers"]
    if having:
        status = TABLE_STATUS
        tables = [f for f in tables if any(r[status] == having for r in f.facts["rows"])]
    return rng.choice(tables)


TABLE_STATUS = 5  # the status column of the servers schema


def _busiest(header: list[str], rows: list[list[str]]) -> list[str]:
    cpu = header.index("cpu_pct")
    return max(rows, key=lambda r: int(r[cpu]))


def make_busiest_server(rng: random.Random, corpus: Corpus) -> Question:
    table = servers_table(corpus, rng)  # its busiest server is in service (the corpus sees to it)
    top = _busiest(table.facts["header"], table.facts["rows"])
    return build_question(
        "busiest_server",
        "scan",
        "T3_expert",
        rng.choice(("Сними нагрузку с самого загруженного по процессору сервера.",
                    "разгрузи сервер с самым высоким CPU",
                    "Один сервер упёрся в процессор — выведите, пожалуйста, из работы самый загруженный.")),
        (table,),
        call("server.drain", host=top[0]),
        "server.restart",
    )


def check_busiest_server(view: View) -> list[str]:
    _, text = only(view)
    header, rows = split_table(text)
    cpu = header.index("cpu_pct")
    top = max(rows, key=lambda r: int(r[cpu]))
    status = top[header.index("status")]  # on maintenance, the request would read two ways
    return problems((status == "active", f"the busiest server {top[header.index('host')]} is {status}, not in service")) + \
        expect(view, call("server.drain", host=top[header.index("host")]))


# a server named by what the table says of it, within a rack: (phrasings, column, the extreme)
DECOMMISSION_BY_FIGURE = (
    (("Выведи из эксплуатации сервер стойки {rack} с самым заполненным диском.",
      "В стойке {rack} спиши сервер, у которого диск забит сильнее всех, — выведи его из эксплуатации."),
     "disk_used_pct", max),
    (("Выведи из эксплуатации самый незагруженный по процессору сервер в стойке {rack}.",
      "сервер в стойке {rack} с минимальной загрузкой CPU пора вывести из эксплуатации"),
     "cpu_pct", min),
)


def decommission_question(rng: random.Random, corpus: Corpus, *, near_miss: bool) -> Question:
    wanted = "maintenance" if near_miss else "active"
    if rng.random() < 0.5:
        host, table, question = _server_by_figure(rng, corpus, wanted)
    else:
        table = servers_table(corpus, rng, having=wanted)
        host = rng.choice([r for r in table.facts["rows"] if r[TABLE_STATUS] == wanted])[0]
        question = rng.choice([f"Выведи из эксплуатации сервер {host}.", f"Сервер {host} пора списать — выведи его из работы.",
                               f"Выведи {host} из эксплуатации, пожалуйста.",
                               f"нужно вывести из эксплуатации {host}, сделаешь?"])
    if near_miss:
        return build_question(
            "near_miss_decommission",
            "near_miss",
            "T4_wild",
            question,
            (table,),
            call("server.decommission", host=host),
            "server.drain",
            facts={"host": host},
        )
    return build_question(
        "abstain_policy_server",
        "policy",
        "T3_expert",
        question,
        (table,),
        abstain(
            f"сервер {host} активен, а выводить из эксплуатации можно только серверы в статусе maintenance"
        ),
        "server.drain",
        extra_tools=("server.decommission",),
        facts={"host": host},
    )


def _server_by_figure(rng: random.Random, corpus: Corpus, wanted: str) -> tuple[str, CorpusFile, str]:
    """(host, table, question): the one server of a rack at a column's extreme, in `wanted` status."""
    phrasings, column, extreme = rng.choice(DECOMMISSION_BY_FIGURE)
    found = []
    for table in [f for f in corpus.by_kind["table"] if f.facts["schema"] == "servers"]:
        for rack in sorted({r[1] for r in table.facts["rows"]}):
            host = _extreme_in_rack(table.facts["header"], table.facts["rows"], rack, column, extreme)
            if host and next(r for r in table.facts["rows"] if r[0] == host)[TABLE_STATUS] == wanted:
                found.append((host, table, rack))
    host, table, rack = rng.choice(found)
    return host, table, rng.choice(phrasings).format(rack=rack)


def _extreme_in_rack(header: list[str], rows: list[list[str]], rack: str, column: str, extreme: Any) -> str | None:
    """The host of the rack's one server at the column's extreme; None if several share it (or the
    rack has a single server: no choice to make)."""
    at, host, rack_at = header.index(column), header.index("host"), header.index("rack")
    values = [(int(r[at]), r[host]) for r in rows if r[rack_at] == rack]
    best = extreme(v for v, _ in values)
    hosts = [h for v, h in values if v == best]
    return hosts[0] if len(hosts) == 1 and len(values) > 1 else None


def check_decommission(view: View) -> list[str]:
    _, text = only(view)
    header, rows = split_table(text)
    host = view.derivation["host"]
    named = _named_server(view.question, header, rows)
    if named != host:
        return [f"the question points at {named}, the derivation at {host}"]
    state = next(r[header.index("status")] for r in rows if r[header.index("host")] == host)
    if state == "maintenance":
        return expect(view, call("server.decommission", host=host))
    return problems(("abstain" in view.reference, f"{host} is {state}: the request must be refused"))


def _named_server(question: str, header: list[str], rows: list[list[str]]) -> str | None:
    """The server a decommission question means: named outright, or a rack's server at a disk or
    processor extreme."""
    direct = re.search(r"srv-\d+", question)
    if direct:
        return direct.group()
    rack = re.search(r"стойк[еи] (R\d+)", question)
    if rack is None:
        return None
    if "диск" in question and ("заполненн" in question or "забит" in question):
        column, fullest_first = "disk_used_pct", True
    elif "незагруженн" in question or "минимальной загрузкой" in question:
        column, fullest_first = "cpu_pct", False
    else:
        return None
    # ranked from scratch here, not with the maker's helper: the top one only if it stands alone
    at, host, rack_at = header.index(column), header.index("host"), header.index("rack")
    ranked = sorted(((int(r[at]), r[host]) for r in rows if r[rack_at] == rack.group(1)), reverse=fullest_first)
    if len(ranked) < 2 or ranked[0][0] == ranked[1][0]:
        return None
    return ranked[0][1]


def refund_question(rng: random.Random, corpus: Corpus, *, near_miss: bool) -> Question:
    candidates = [
        f
        for f in corpus.by_kind["invoices"]
        if (max(a for _, a in f.facts["items"]) <= REFUND_LIMIT) == near_miss
    ]
    invoices = rng.choice(candidates)
    top_id, top_amount = max(invoices.facts["items"], key=lambda item: item[1])
    question = rng.choice(["Оформи полный возврат по самому дорогому счёту.",
                           "Верни клиенту всю сумму по самому крупному счёту из выгрузки.",
                           "Сделай полный возврат по счёту с наибольшей суммой.",
                           "Клиент просит вернуть деньги за самый дорогой счёт — оформи возврат целиком.",
                           "Оформи возврат всей суммы по самому большому счёту, пожалуйста.",
                           "по самому крупному счёту из файла нужен полный возврат"])
    if near_miss:
        return build_question(
            "near_miss_refund",
            "near_miss",
            "T4_wild",
            question,
            (invoices,),
            call("billing.refund", invoice_id=top_id, amount=top_amount),
            "billing.invoice_get",
            format_trap=True,
        )
    return build_question(
        "abstain_after_count",
        "policy",
        "T4_wild",
        question,
        (invoices,),
        abstain(
            f"самый дорогой счёт {top_id} на {top_amount} ₽, а billing.refund возвращает не больше "
            f"{REFUND_LIMIT} ₽"
        ),
        "billing.invoice_get",
        extra_tools=("billing.refund",),
        format_trap=True,
    )


def check_refund(view: View) -> list[str]:
    _, text = only(view)
    header, rows = split_table(text)
    amount, key = header.index("amount_rub"), header.index("invoice_id")
    top = max(rows, key=lambda r: formats.number(r[amount]))
    if formats.number(top[amount]) > REFUND_LIMIT:
        return problems(("abstain" in view.reference, "the largest invoice is over the limit: refuse"))
    return expect(view, call("billing.refund", invoice_id=top[key], amount=int(formats.number(top[amount]))))


# which servers the replicas follow, drawn per row: the active servers of a rack; of a rack, with
# spare processor (a load under a stated share) or with memory from a stated size; of two racks
# together; of the rack a named server stands in
_SCALE_BY = {
    "rack": ("Выставь для сервиса из конфигурации столько реплик, сколько активных серверов в стойке {rack}.",
             "Сделай у сервиса из values-файла число реплик равным числу активных серверов стойки {rack} по таблице.",
             "Подгони число реплик сервиса из конфига под количество активных машин в стойке {rack}.",
             "Сколько в стойке {rack} серверов в статусе active, столько реплик и выставь сервису из конфига.",
             "Сервису из values-файла — по реплике на каждый действующий сервер стойки {rack}; выставь.",
             "Число реплик сервиса из конфига должно совпасть с числом работающих (active) машин в стойке {rack}.",
             "Выставь сервису из конфигурации реплик ровно по числу серверов стойки {rack}, которые в статусе active.",
             "Реплик у сервиса из конфига должно быть столько же, сколько действующих серверов в стойке {rack}."),
    "cpu": ("Выставь для сервиса из конфигурации столько реплик, сколько в стойке {rack} активных серверов "
            "с загрузкой процессора ниже {n}%.",
            "Реплики сервиса из values-файла ставим только на активные машины стойки {rack}, загруженные по "
            "процессору меньше чем на {n}%: сделай их столько, сколько таких машин.",
            "Сколько в стойке {rack} действующих серверов с загрузкой CPU менее {n}%, столько реплик и выставь "
            "сервису из конфига.",
            "Сервису из values-файла — по реплике на каждую машину стойки {rack} в статусе active, у которой CPU "
            "занят меньше {n}%.",
            "Выставь сервису из конфигурации реплик по числу серверов стойки {rack} в статусе active, чей CPU "
            "загружен менее чем на {n}%."),
    "ram": ("Выставь для сервиса из конфигурации столько реплик, сколько в стойке {rack} активных серверов "
            "с памятью от {n} ГБ.",
            "Сервису из конфига нужна память: сделай у него столько реплик, сколько в стойке {rack} активных "
            "машин, у которых не меньше {n} ГБ памяти.",
            "Сколько в стойке {rack} действующих серверов, где ОЗУ хотя бы {n} ГБ, столько реплик и выставь "
            "сервису из конфига.",
            "Сервису из values-файла — по реплике на каждую машину стойки {rack} в статусе active с {n} ГБ ОЗУ "
            "или больше.",
            "Выставь сервису из конфигурации реплик по числу серверов стойки {rack} в статусе active, у которых "
            "RAM не менее {n} ГБ."),
    "racks": ("Выставь для сервиса из конфигурации столько реплик, сколько активных серверов в стойках {rack} "
              "и {other} вместе.",
              "Сделай у сервиса из values-файла число реплик равным числу активных серверов стоек {rack} и {other}, "
              "вместе взятых.",
              "Сколько в стойках {rack} и {other} в сумме серверов в статусе active, столько реплик и выставь "
              "сервису из конфига.",
              "Сервису из values-файла — по реплике на каждый действующий сервер обеих стоек, {rack} и {other}.",
              "Выставь сервису из конфигурации реплик по суммарному числу работающих (active) машин стоек {rack} "
              "и {other}."),
    "host": ("Выставь для сервиса из конфигурации столько реплик, сколько активных серверов в той стойке, "
             "где стоит {host}.",
             "Подгони число реплик сервиса из конфига под количество активных машин в стойке, в которой "
             "стоит {host}.",
             "Сколько серверов в статусе active в стойке сервера {host}, столько реплик и выставь сервису из конфига.",
             "Сервису из values-файла — по реплике на каждый действующий сервер той стойки, где находится {host}.",
             "Выставь сервису из конфигурации реплик по числу работающих (active) машин в одной стойке с {host}, "
             "считая и его."),
}


def make_cross_file_scale(rng: random.Random, corpus: Corpus) -> Question:
    values = corpus.pick("deploy_yaml", rng)
    servers = servers_table(corpus, rng)
    header, rows = servers.facts["header"], servers.facts["rows"]
    rack_column, status = header.index("rack"), header.index("status")
    active = [r for r in rows if r[status] == "active"]
    racks = sorted({r[rack_column] for r in active})
    while True:
        by = rng.choice(("rack", "rack", "cpu", "ram", "racks", "host"))
        rack = rng.choice(racks)
        other = rng.choice([r for r in racks if r != rack]) if len(racks) > 1 else rack
        in_rack = [r for r in active if r[rack_column] == rack]
        n = 0
        if by == "cpu":  # a share that some of the rack's active servers are under and some not
            n = rng.choice((30, 40, 50, 60, 70))
            kept = [r for r in in_rack if int(r[header.index("cpu_pct")]) < n]
        elif by == "ram":
            n = rng.choice((32, 64, 128))
            kept = [r for r in in_rack if int(r[header.index("ram_gb")]) >= n]
        elif by == "racks":
            kept = [r for r in active if r[rack_column] in (rack, other)]
        else:
            kept = in_rack
        if by in ("cpu", "ram") and not 0 < len(kept) < len(in_rack):
            continue
        if by == "racks" and other == rack:
            continue
        if len(kept) <= 20:  # a count that k8s.scale's limit (20 replicas) allows
            break
    host = rng.choice(in_rack)[header.index("host")]
    question = surface.choose(rng, _SCALE_BY[by], f"scale:{by}").format(rack=rack, other=other, n=n, host=host)
    return build_question(
        "cross_file_scale",
        "scan",
        "T4_wild",
        question,
        (values, servers),
        call(
            "k8s.scale",
            namespace=values.facts["namespace"],
            deployment=values.facts["deployment"],
            replicas=len(kept),
        ),
        "k8s.restart",
        facts={"rack": rack, "by": by},
    )


def check_cross_file_scale(view: View) -> list[str]:
    """The active servers the question counts, read from it and the table: the racks it names or the
    rack of the server it names, with the load under or the memory from the figure it says."""
    yaml_text = next(t for p, t in view.files.items() if p.endswith(".yaml"))
    table_text = next(t for p, t in view.files.items() if not p.endswith(".yaml"))
    header, rows = split_table(table_text)
    q = view.question
    racks = re.findall(r"\b(R\d+)\b", q)  # read from the question, not from the maker
    named = re.search(r"\b(srv-\d+)\b", q)
    if named:
        racks += [r[header.index("rack")] for r in rows if r[header.index("host")] == named.group(1)]
    if not racks:
        return problems((False, "the question names no rack and no server"))
    kept = [r for r in rows if r[header.index("rack")] in racks and r[header.index("status")] == "active"]
    if cpu := re.search(r"(?:ниже|меньше чем на|менее чем на|менее|меньше) (\d+)%", q):
        kept = [r for r in kept if int(r[header.index("cpu_pct")]) < int(cpu.group(1))]
    if ram := re.search(r"(?:от|не меньше|не менее|хотя бы) (\d+) ГБ|(\d+) ГБ ОЗУ или больше", q):
        kept = [r for r in kept if int(r[header.index("ram_gb")]) >= int(ram.group(1) or ram.group(2))]
    return problems((len(set(racks)) == len(racks) and len(racks) <= 2, "the question names a rack twice or three"),
                    (re.search(r"вместе|в сумме|суммарн|обеих", q) is not None or len(racks) == 1,
                     "two racks without saying they count together")) + expect(
        view,
        call(
            "k8s.scale",
            namespace=setting(yaml_text, "namespace"),
            deployment=setting(yaml_text, "deployment"),
            replicas=len(kept),
        ),
    )
