"""A table's columns under the headers one export gives them, and the words a user names them by.

Exports name the same quantity differently (temp_c, t_air_c, «температура»; amount_rub, revenue_rub,
«выручка_руб»), and a user asks by meaning («температура воздуха», «выручка»), not by header. A row's
table is respelled for it: each numeric column under one spelling drawn per row, and often a
column of near meaning beside them (the apparent temperature beside the air's, the discount in
roubles beside the one in per cent, free disk beside used), so the header has to be read with the
values, not matched by a word.
"""

from __future__ import annotations

import random
from typing import Any

from merabench.tasks.gorillahard.generator.corpus import CorpusFile
from merabench.tasks.gorillahard.generator.corpus.tables import render, ru_number
from merabench.tasks.gorillahard.generator.model import File

# each quantity's headers (no spelling another quantity of its table could also mean)
SPELLINGS = {
    "amount_rub": ("amount_rub", "sum_rub", "revenue_rub", "выручка_руб", "sales_total"),
    "units": ("units", "qty", "quantity", "кол_во_шт", "units_sold"),
    "discount_pct": ("discount_pct", "скидка_проц", "disc_pct", "discount_percent"),
    "discount_rub": ("discount_rub", "скидка_руб", "disc_amount_rub"),
    "temp_c": ("temp_c", "t_air_c", "air_temp", "температура_воздуха", "t2m_c"),
    "feels_like_c": ("feels_like_c", "t_feels_c", "ощущается_как", "apparent_temp_c"),
    "humidity_pct": ("humidity_pct", "rel_humidity_pct", "rh_pct", "влажность_проц", "hum_pct"),
    "wind_ms": ("wind_ms", "wind_speed", "ветер_мс", "ws_ms", "wind_mps"),
    "salary_rub": ("salary_rub", "оклад_руб", "base_pay_rub", "monthly_salary"),
    "bonus_rub": ("bonus_rub", "премия_руб", "bonus_amount"),
    "experience_years": ("experience_years", "exp_years", "стаж_лет", "tenure_y"),
    "projects": ("projects", "n_projects", "кол_во_проектов", "projects_cnt"),
    "cpu_pct": ("cpu_pct", "cpu_load_pct", "cpu_util", "загрузка_цп"),
    "ram_gb": ("ram_gb", "mem_gb", "memory_gb", "озу_гб"),
    "disk_used_pct": ("disk_used_pct", "fs_used_pct", "диск_занято_проц", "used_disk_pct"),
    "disk_free_pct": ("disk_free_pct", "free_disk_pct", "диск_свободно_проц"),
}
# how a user names each quantity (none that its near neighbour would also answer to)
MEANINGS = {
    "amount_rub": ("сумма продаж", "выручка", "сумма заказа в рублях"),
    "units": ("число проданных единиц", "количество штук", "продано штук"),
    "discount_pct": ("скидка в процентах", "процент скидки"),
    "discount_rub": ("скидка в рублях", "размер скидки в рублях"),
    "temp_c": ("температура воздуха", "температура воздуха, °C"),
    "feels_like_c": ("ощущаемая температура", "температура по ощущениям"),
    "humidity_pct": ("влажность", "относительная влажность"),
    "wind_ms": ("скорость ветра", "ветер, м/с"),
    "salary_rub": ("зарплата", "оклад"),
    "bonus_rub": ("премия", "размер премии"),
    "experience_years": ("стаж в годах", "опыт работы в годах"),
    "projects": ("число проектов", "количество проектов"),
    "cpu_pct": ("загрузка процессора", "нагрузка на процессор"),
    "ram_gb": ("объём памяти", "оперативная память в гигабайтах"),
    "disk_used_pct": ("заполненность диска", "занятое место на диске"),
    "disk_free_pct": ("свободное место на диске", "доля свободного диска"),
}
# a column of near meaning a table may carry, worked out from its row: (new column, after which)
NEIGHBOURS = {"sales": ("discount_rub", "discount_pct"), "weather": ("feels_like_c", "wind_ms"),
              "staff": ("bonus_rub", "salary_rub"), "servers": ("disk_free_pct", "disk_used_pct")}


def _neighbour(name: str, record: dict[str, str], rng: random.Random) -> str:
    if name == "discount_rub":
        return str(round(int(record["amount_rub"]) * int(record["discount_pct"]) / 100))
    if name == "feels_like_c":
        return f"{float(record['temp_c']) - 0.6 * float(record['wind_ms']):.1f}"
    if name == "bonus_rub":
        return str(int(record["salary_rub"]) * rng.choice((0, 5, 10, 15, 20)) // 100)
    return str(100 - int(record["disk_used_pct"]))


def respelled(rng: random.Random, table: CorpusFile) -> tuple[File, dict[str, str]]:
    """The table under headers drawn for one row, in its file's layout (delimiter, quoting) with its
    decoys (a repeated header, the Russian locale, notes in quoted cells) as they were, and maybe a
    column of near meaning; and {quantity: its header here}."""
    f = table.facts
    header = list(f["header"])
    records = [dict(zip(header, row, strict=True)) for row in f["rows"]]
    if rng.random() < 0.7:
        extra, after = NEIGHBOURS[f["schema"]]
        header.insert(header.index(after) + 1, extra)
        for record in records:
            record[extra] = _neighbour(extra, record, rng)
    spelled = {name: rng.choice(SPELLINGS[name]) if name in SPELLINGS else name for name in header}
    drawn = f.get("decoys", ())

    def shown(name: str, value: str) -> str:  # the table's locale, as its file writes numbers
        return ru_number(value) if "unit" in drawn and name in SPELLINGS and value.lstrip("-")[:1].isdigit() else value

    lines = render([[spelled[name] for name in header]] + [[shown(n, record[n]) for n in header] for record in records],
                   f["delimiter"], quote_all=f.get("layout") == "quoted")
    if "duplicate" in drawn:  # the file's repeated header, repeated here too
        lines.insert(len(lines) // 2, lines[0])
    folder, name = table.file.path.rsplit("/", 1)
    stem, extension = name.rsplit(".", 1)
    path = f"{folder}/{stem.rsplit('_', 1)[0]}_{rng.randint(100, 999)}.{extension}"
    return File(path, "table", "\n".join(lines) + "\n"), {n: spelled[n] for n in header if n in SPELLINGS}


def quantity_of(header: str) -> str | None:
    """The quantity a header spells (the validator's reading of a respelled table)."""
    return next((name for name, spellings in SPELLINGS.items() if header in spellings), None)


def meant(phrase: str) -> str | None:
    """The quantity a user's phrase names."""
    return next((name for name, phrases in MEANINGS.items() if phrase in phrases), None)


def named_columns(rng: random.Random, columns: dict[str, str]) -> list[tuple[str, str, Any]]:
    """Two quantities of the table: (header, the user's phrase, the quantity)."""
    picked = rng.sample(sorted(columns), 2)
    return [(columns[q], rng.choice(MEANINGS[q]), q) for q in picked]
