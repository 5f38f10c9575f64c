"""Plans over a ticket's export: download it, then count its rows or sum one of its columns.

A row's ticket is redrawn for it, so that which file to download and which column to sum take
reading the thread: the export re-uploaded under a new link later in the discussion, a test
export posted beside the real one, two months' exports of which the question names one, or just
the one link; and the columns of last month's export pasted into the ticket under headers drawn
per row (amount_rub, total_rub, сумма_руб), beside the delivery charge, the question asking for
one of them by what it holds.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

from merabench.tasks.gorillahard.generator.corpus import Corpus, CorpusFile
from merabench.tasks.gorillahard.generator.corpus.common import PEOPLE
from merabench.tasks.gorillahard.generator.families.common import View, build_question, expect, only
from merabench.tasks.gorillahard.generator.families.tickets import download_plan
from merabench.tasks.gorillahard.generator.model import File, Question, call
from merabench.tasks.gorillahard.generator.wording import surface

LINKS = ("moved", "test", "old", "months", "plain")
MONTHS = ("январь", "февраль", "март", "апрель", "май", "июнь", "июль", "август", "сентябрь", "октябрь", "ноябрь",
          "декабрь")
AMOUNT = ("amount_rub", "total_rub", "order_sum_rub", "сумма_руб")
DELIVERY = ("delivery_rub", "shipping_rub", "доставка_руб")
_LINK = re.compile(r"Файл лежит здесь: (https://\S+)")
_HEADER = re.compile(r"^order_id,month,city,amount_rub,status$", re.M)
# a comment that replaces the description's link, one that posts a link that is not the data, one
# that recalls an old link (the description's is the live one)
_MOVED = ("Выгрузку перевыложили, старая ссылка больше не открывается. Новая: {url}",
          "Файл переехал в новое хранилище, по ссылке из описания его уже нет. Актуальная ссылка: {url}",
          "По ссылке из описания теперь 404. Правильная вот: {url}",
          "Ссылку обновил, берите файл отсюда: {url} (в описании поправлю позже).",
          "Ночная задача теперь кладёт файл в другое место: {url}. Считайте по нему.")
_TEST = ("Для проверки формата выложил тестовую выгрузку на стенд: {url} — считать по ней не нужно, там десяток строк.",
         "Тестовый файл с тем же форматом лежит тут: {url}. Это не данные, для отладки.",
         "Новая ссылка на копию для стенда: {url} — это обрезанный образец, для подсчёта не годится.",
         "Скинул пример из песочницы, {url}, чтобы было видно колонки. Боевой файл — по ссылке из описания.")
_OLD = ("Для истории: раньше выгрузка лежала тут: {url}, сейчас актуальна ссылка из описания.",
        "Старая ссылка {url} больше не работает, в описании уже новая.",
        "Кто будет искать прошлую версию: она была по адресу {url}, но считать нужно по описанию.")


def _url(month: str, number: int, host: str = "data.example.org", folder: str = "exports") -> str:
    return f"https://{host}/{folder}/orders-2026-{month}-{number:03d}.csv"


def redrawn(rng: random.Random, ticket: CorpusFile, link: str, column: bool) -> tuple[File, dict[str, Any]] | None:
    """The ticket with the drawn link mechanism (and, for a sum, respelled pasted columns): its
    file and what the question needs; None when the ticket is not laid out for it."""
    # the corpus ticket's own link decoys (…-old.csv in an HTML comment, a line, a comment) give way to the row's
    text = "\n".join(line for line in ticket.file.text.split("\n") if "-old.csv" not in line)
    described = _LINK.search(text)
    if described is None:
        return None
    url = described.group(1)
    month = re.search(r"orders-2026-(\d\d)-", url)
    if month is None:
        return None
    mm = month.group(1)
    number = int(found.group(1)) if (found := re.search(r"-(\d+)\.csv$", url)) else 1
    facts: dict[str, Any] = {"link": link}
    answer = url
    day = int(re.findall(r"\d{4}-\d\d-(\d\d)", text)[-1])  # on the thread's last day: after every comment
    speaker = rng.choice(PEOPLE)
    if link == "moved":
        answer = _url(mm, number, rng.choice(("files.example.org", "data.example.net")), "exports/v2")
        text += f"\n**{speaker}**, 2026-{mm}-{day:02d}: {rng.choice(_MOVED).format(url=answer)}\n"
    elif link == "test":
        test = _url(mm, rng.randint(1, 999), rng.choice(("data-staging.example.org", "sandbox.example.net")),
                    rng.choice(("sandbox", "samples")))
        text += f"\n**{speaker}**, 2026-{mm}-{day:02d}: {rng.choice(_TEST).format(url=test)}\n"
    elif link == "old":
        stale = _url(mm, rng.randint(1, 999), rng.choice(("files.example.org", "data.example.com")), "exports/old")
        text += f"\n**{speaker}**, 2026-{mm}-{day:02d}: {rng.choice(_OLD).format(url=stale)}\n"
    elif link == "months":
        other = f"{(int(mm) % 12) + 1:02d}" if rng.random() < 0.5 else f"{(int(mm) - 2) % 12 + 1:02d}"
        second = _url(other, rng.randint(1, 999))
        pair = sorted([(mm, url), (other, second)])
        text = text.replace(described.group(0), "Файлы лежат здесь:\n" + "".join(
            f"- за 2026-{m}: {u}\n" for m, u in pair).rstrip("\n"))
        facts["month"] = MONTHS[int(mm) - 1]
    if column:
        header = _HEADER.search(text)
        if header is None:
            return None
        amount, delivery = rng.choice(AMOUNT), rng.choice(DELIVERY)
        block = text[header.start():text.index("```", header.end())]
        rows = block.split("\n")[1:]
        rebuilt = [f"order_id,month,city,{amount},{delivery},status"] + [
            re.sub(r"^(\d+,[^,]+,[^,]+,\d+),", lambda m: f"{m.group(1)},{rng.choice((0, 0, 199, 299, 490))},", r)
            for r in rows]
        text = text[:header.start()] + "\n".join(rebuilt) + text[header.start() + len(block):]
        wanted = rng.choice(("amount", "delivery"))
        facts.update(wanted=wanted, column=amount if wanted == "amount" else delivery)
    path = ticket.file.path
    return File(path.replace(".md", f"-{rng.randint(1, 9)}.md"), "ticket", text), {**facts, "url": answer}


_COUNT = ("Сколько строк в выгрузке, о которой говорится в задаче?", "сколько строк в выгрузке из тикета?",
          "Подскажите, пожалуйста, сколько строк в выгрузке, на которую ссылается задача.",
          "Там в задаче ссылка на выгрузку — глянь, сколько в ней строк?",
          "Посчитай строки в выгрузке из задачи — в той, что актуальна.",
          "Сколько записей в актуальном экспорте, который приложен к обращению?",
          "В тикете есть ссылка на CSV с заказами — сколько в нём записей?",
          "Нужен объём выгрузки из задачи в строках: сколько их там?",
          "Узнай, сколько заказов попало в выгрузку, на которую ссылается тикет.",
          "Какой длины актуальный экспорт из задачи — сколько в нём строк?",
          "Пересчитай записи в свежем экспорте из тикета.", "Сколько строк данных в выгрузке, упомянутой в задаче?",
          "По ссылке из обращения лежит выгрузка заказов — сколько в ней записей?")
_COUNT_MONTH = ("Сколько строк в выгрузке за {month} из этой задачи?", "сколько строк в выгрузке за {month}? она в тикете",
                "Посчитайте, пожалуйста, строки выгрузки за {month} — ссылка в задаче.",
                "Сколько записей в экспорте за {month}, который приложен к обращению?",
                "В тикете есть ссылки на CSV по месяцам — сколько записей в файле за {month}?",
                "Узнай, сколько заказов попало в выгрузку за {month} из задачи.",
                "Пересчитай записи в экспорте за {month} из тикета.",
                "Сколько строк данных в выгрузке за {month}, упомянутой в задаче?")
_SUM = {"amount": ("Посчитай общую сумму заказов в выгрузке из задачи.", "итог по сумме заказов в выгрузке из задачи?",
                   "Будьте добры, посчитайте выручку по выгрузке из задачи — сумму всех заказов.",
                   "На какую сумму набралось заказов в экспорте из обращения?",
                   "Сложи суммы всех заказов в CSV-выгрузке, на которую ссылается тикет.",
                   "Сколько денег в сумме принесли заказы из выгрузки, приложенной к задаче?",
                   "Нужен итог по стоимости заказов в экспорте из тикета.",
                   "Какова общая выручка по заказам из выгрузки, о которой говорится в обращении?"),
        "delivery": ("Сколько всего взяли за доставку? Посчитай по выгрузке из задачи.",
                     "сумма по доставке в выгрузке из тикета?",
                     "Посчитайте, пожалуйста, общую стоимость доставки по выгрузке из задачи.",
                     "Сколько в сумме заплатили за доставку по экспорту из обращения?",
                     "Сложи стоимость доставки по всем заказам CSV-выгрузки, на которую ссылается тикет.",
                     "Нужен итог по доставке в экспорте из тикета — сколько она стоила в сумме?",
                     "Какие общие расходы клиентов на доставку в выгрузке, о которой говорится в обращении?",
                     "Во что в сумме обошлась доставка заказов из выгрузки, приложенной к задаче?")}
_SUM_MONTH = {"amount": ("Посчитай общую сумму заказов в выгрузке за {month} из задачи.",
                         "итог по сумме заказов за {month}? выгрузка в тикете",
                         "На какую сумму набралось заказов в экспорте за {month} из обращения?",
                         "Сложи суммы всех заказов в CSV-выгрузке за {month}, на которую ссылается тикет.",
                         "Какова общая выручка по заказам из выгрузки за {month}, приложенной к задаче?"),
              "delivery": ("Сколько всего взяли за доставку в {month_in}? Выгрузка в задаче.",
                           "Посчитайте, пожалуйста, стоимость доставки по выгрузке за {month} из задачи.",
                           "Сколько в сумме заплатили за доставку по экспорту за {month} из обращения?",
                           "Сложи стоимость доставки по заказам из CSV-выгрузки за {month}, на которую ссылается тикет.",
                           "Во что в сумме обошлась доставка в {month_in}? Выгрузка приложена к задаче.")}
_STEMS = ("январ", "феврал", "март", "апрел", r"ма[йея]\b", "июн", "июл", "август", "сентябр", "октябр", "ноябр",
          "декабр")
_IN = {"январь": "январе", "февраль": "феврале", "март": "марте", "апрель": "апреле", "май": "мае", "июнь": "июне",
       "июль": "июле", "август": "августе", "сентябрь": "сентябре", "октябрь": "октябре", "ноябрь": "ноябре",
       "декабрь": "декабре"}


def export_question(rng: random.Random, facts: dict[str, Any]) -> str:
    month = facts.get("month")
    if "wanted" in facts:
        key = f"sum:{facts['wanted']}:{bool(month)}"
        pool: tuple[str, ...] = _SUM_MONTH[facts["wanted"]] if month else _SUM[facts["wanted"]]
    else:
        key = f"count:{bool(month)}"
        pool = _COUNT_MONTH if month else _COUNT
    return surface.choose(rng, pool, key).format(month=month, month_in=_IN.get(month or "", ""))


def export_plan(name: str, *, column: bool) -> Callable[[random.Random, Corpus], Question]:
    """A plan family's maker: download the export the thread means, then count its rows (or sum
    the column the question asks for by what it holds)."""
    def make(rng: random.Random, corpus: Corpus) -> Question:
        drawn = None
        while drawn is None:
            ticket = rng.choice([t for t in corpus.by_kind["ticket"] if not t.facts["planted"]])
            drawn = redrawn(rng, ticket, rng.choice(LINKS), column)
        file, facts = drawn
        then = call("table.sum", path="$1", column=facts["column"]) if column else call("table.row_count", path="$1")
        return build_question(name, "plan", "T4_wild", export_question(rng, facts), (CorpusFile(file, "ticket"),),
                              download_plan(facts["url"], then), "http.get_json",
                              extra_tools=("table.sum",) if column else ("table.row_count",),
                              facts={k: v for k, v in facts.items() if k in ("link", "month", "wanted")})

    return make


# --- the validator's reading -----------------------------------------------------------------

def live_export(text: str, question: str, link: str) -> str | None:
    """The export the thread means, by how the row's thread treats its links: the link of the
    month the question names; the link a comment gives in place of the description's; else the
    description's (a test upload or an old link recalled in a comment is not the data)."""
    links = re.findall(r"https://\S+?\.csv", text)
    described = _LINK.search(text)
    if link == "months":
        month = next((n for n, stem in enumerate(_STEMS, 1) if re.search(rf"\b{stem}", question.lower())), None)
        return next((u for u in links if f"-2026-{month:02d}-" in u), None) if month else None
    if link == "moved":
        given = [u for u in links if described and u != described.group(1)]
        return given[-1] if len(given) == 1 else None
    return described.group(1) if described else None


def summed_column(text: str, question: str) -> str | None:
    header = re.search(r"^order_id,month,city,(.+)$", text, re.M)
    if header is None:
        return None
    columns = header.group(1).split(",")
    delivery = bool(re.search(r"доставк", question.lower()))
    return next((c for c in columns if (c in DELIVERY) == delivery and (c in AMOUNT or c in DELIVERY)), None)


def check_export_plan(view: View) -> list[str]:
    _, text = only(view)
    url = live_export(text, view.question, view.derivation["link"])
    if url is None:
        return ["no export link the question means"]
    if view.reference["plan"][1]["tool"] == "table.sum":
        then = call("table.sum", path="$1", column=summed_column(text, view.question))
    else:
        then = call("table.row_count", path="$1")
    return expect(view, download_plan(url, then))
