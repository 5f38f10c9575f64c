"""Tables: exports of sales, weather, staff and server inventories, and invoices."""

from __future__ import annotations

import csv
import io
import math
import random

from merabench.tasks.gorillahard.generator.corpus import decoys
from merabench.tasks.gorillahard.generator.corpus.common import (
    CITIES,
    LOGINS,
    PEOPLE,
    Column,
    CorpusFile,
    distinct,
)
from merabench.tasks.gorillahard.generator.model import File

TABLE_STEMS = ("export", "table", "dump", "extract", "snapshot", "sheet", "upload", "report")

TABLE_SCHEMAS = {
    "sales": (["city", "manager", "month", "amount_rub", "units", "discount_pct", "order_id", "channel", "client"],
              [Column("amount_rub", "сумма продаж в рублях"), Column("units", "число проданных единиц"),
               Column("discount_pct", "скидка в процентах")]),
    "weather": (["station", "date", "temp_c", "humidity_pct", "wind_ms", "sky", "observer"],
                [Column("temp_c", "температура воздуха"), Column("humidity_pct", "влажность"),
                 Column("wind_ms", "скорость ветра")]),
    "staff": (["employee_id", "name", "department", "salary_rub", "experience_years", "projects", "email", "hired",
               "position"],
              [Column("salary_rub", "зарплата"), Column("experience_years", "стаж в годах"),
               Column("projects", "число проектов")]),
    "servers": (["host", "rack", "cpu_pct", "ram_gb", "disk_used_pct", "status", "dc", "os", "ip", "owner",
                 "serial"],
                [Column("cpu_pct", "загрузка процессора"), Column("ram_gb", "объём памяти"),
                 Column("disk_used_pct", "заполненность диска")]),
}


# mean air temperature (°C) in January and July by city, rounded climate normals: a weather table's
# values follow its stations and its month
CLIMATE = {"Москва": (-6.5, 19.2), "Казань": (-10.4, 20.2), "Пермь": (-13.0, 18.7), "Томск": (-16.0, 18.7),
           "Самара": (-9.9, 21.4), "Тула": (-7.6, 19.1), "Омск": (-16.3, 19.7), "Уфа": (-11.9, 19.9),
           "Сочи": (6.4, 23.6), "Тверь": (-7.5, 18.0), "Пенза": (-9.7, 20.2), "Орёл": (-6.9, 19.3)}
DAYS_IN_MONTH = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def monthly_mean(city: str, month: int) -> float:
    """A smooth year between the January and July normals (coldest in January, warmest in July)."""
    january, july = CLIMATE[city]
    return (january + july) / 2 - (july - january) / 2 * math.cos(2 * math.pi * (month - 1) / 12)


def weather_rows(rng: random.Random, n: int) -> list[list[str]]:
    """Daily observations of a few stations over one month, in date order: temperatures around each
    city's mean for the month (each value distinct, so a maximum is one row), humidity higher in the
    cold half of the year, light to fresh wind."""
    month = rng.randint(1, 12)
    stations = rng.sample(sorted(CLIMATE), rng.randint(3, 6))
    cold = month in (11, 12, 1, 2, 3)
    seen: set[int] = set()
    rows: list[list[str]] = []
    for day in range(1, DAYS_IN_MONTH[month - 1] + 1):
        for station in stations:
            if len(rows) == n:
                return rows
            tenths = _unseen(round((monthly_mean(station, month) + rng.gauss(0, 3.5)) * 10), seen, rng)
            seen.add(tenths)
            humidity = min(99, max(25, round(rng.gauss(82 if cold else 64, 8))))
            wind = min(18.0, abs(rng.gauss(3.5, 2.2)))
            rows.append([station, f"2026-{month:02d}-{day:02d}", f"{tenths / 10:.1f}", str(humidity), f"{wind:.1f}",
                         rng.choice(["ясно", "облачно", "пасмурно", "дождь" if not cold else "снег", "туман"]),
                         f"obs-{rng.randint(10, 99)}"])
    return rows


def _unseen(tenths: int, seen: set[int], rng: random.Random) -> int:
    """A random walk of ±0.1 from `tenths` to the first value not yet seen. It draws exactly what
    `rng.choice((-1, 1))` at every step draws (CPython's choice of two: two random bits, drawn
    again while they make 2 or 3), without choice's two calls a step: a month of six stations
    packs the values near each mean, and the walks there run to thousands of steps (60 % of a
    corpus's build time before)."""
    bits = rng.getrandbits
    while tenths in seen:
        drawn = bits(2)
        while drawn >= 2:
            drawn = bits(2)
        tenths += 1 if drawn else -1
    return tenths


def _table_row(schema: str, rng: random.Random, i: int, key: int) -> list[str]:
    if schema == "sales":
        return [rng.choice(CITIES), rng.choice(PEOPLE), f"2026-{rng.randint(1, 12):02d}", str(key),
                str(rng.randint(1, 400)), str(rng.choice([0, 5, 10, 15])), f"SO-{rng.randint(100000, 999999)}",
                rng.choice(["розница", "опт", "интернет", "маркетплейс"]),
                f"ООО «{rng.choice(['Север', 'Дельта', 'Восход', 'Гранит', 'Марс', 'Вектор', 'Лотос', 'Орион'])}»"]
    if schema == "staff":
        person = rng.choice(PEOPLE)
        return [f"E{100 + i}", person, rng.choice(["ИТ", "продажи", "финансы", "склад"]), str(key * 100),
                str(rng.randint(0, 25)), str(rng.randint(1, 12)), f"{LOGINS[person]}{i}@example.org",
                f"20{rng.randint(10, 25)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
                rng.choice(["инженер", "старший инженер", "аналитик", "менеджер", "ведущий специалист"])]
    return [f"srv-{i + 1:03d}", f"R{rng.randint(1, 9)}", str(key), str(rng.choice([16, 32, 64, 128])),
            str(rng.randint(10, 99)), rng.choice(["active", "active", "active", "maintenance"]),
            rng.choice(["msk-1", "msk-2", "spb-1"]), rng.choice(["ubuntu-22.04", "ubuntu-24.04", "debian-12", "rocky-9"]),
            f"10.{rng.randint(0, 20)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}",
            rng.choice(["platform", "data", "billing", "search"]), f"SN{rng.getrandbits(40):010X}"]


TABLE_LAYOUTS = ("comma", "semicolon", "tsv", "quoted")
TABLE_DECOYS = (decoys.DUPLICATE, decoys.DISABLED, decoys.UNIT, decoys.IN_STRING)
_DELIMITERS = {"comma": ",", "semicolon": ";", "tsv": "\t", "quoted": ","}
# a free-text cell a note may join with a comma (the cell is then quoted): its column, and the note
# (never a column questions filter or count by)
_NOTES = {"sales": (8, ", филиал"), "weather": (5, ", данные поста"), "staff": (8, ", дежурный"),
          "servers": (10, ", заменён в 2025")}


def render(lines: list[list[str]], delimiter: str, *, quote_all: bool = False) -> list[str]:
    """Records as a CSV writer writes them: a cell holding the delimiter or a quote is quoted."""
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator="\n",
               quoting=csv.QUOTE_ALL if quote_all else csv.QUOTE_MINIMAL).writerows(lines)
    return out.getvalue().splitlines()


def ru_number(cell: str) -> str:
    """A number as a Russian locale writes it: a decimal comma, a space between thousands."""
    whole, dot, fraction = cell.partition(".")
    sign, digits = ("-", whole[1:]) if whole.startswith("-") else ("", whole)
    grouped = f"{int(digits):,}".replace(",", " ") if digits.isdigit() else digits
    return sign + grouped + ("," + fraction if dot else "")


def table_file(rng: random.Random, number: int, index: int) -> CorpusFile:
    """An export in one of four layouts (comma-, semicolon- or tab-separated, or every cell
    quoted), with decoys drawn per file: the header repeated mid-file (an export glued from two
    pages), a record commented out, numbers in the Russian locale (a decimal comma, spaced
    thousands), notes with the delimiter inside quoted cells."""
    schema = list(TABLE_SCHEMAS)[index % len(TABLE_SCHEMAS)]  # every schema in every corpus
    header, numeric = TABLE_SCHEMAS[schema]
    # servers draw distinct loads from 1-99; the other schemas run longer, as exports do
    n = rng.randint(50, 95) if schema == "servers" else int(rng.triangular(50, 450, 300))
    if schema == "weather":
        rows = weather_rows(rng, n)
    else:
        keys = distinct(rng, *{"servers": (1, 100)}.get(schema, (100, 9900)), n)
        rows = [_table_row(schema, rng, i, keys[i]) for i in range(n)]
    if schema == "servers":  # the busiest is in service: «разгрузи самый загруженный сервер» then reads one way
        max(rows, key=lambda r: int(r[2]))[5] = "active"
    layout = decoys.layout(TABLE_LAYOUTS, index // len(TABLE_SCHEMAS))  # each schema in each layout
    available = tuple(k for k in TABLE_DECOYS if k != decoys.UNIT or schema != "servers")  # servers: whole small numbers
    drawn = decoys.draw(rng, available, index % len(available))
    delimiter = _DELIMITERS[layout]
    if decoys.IN_STRING in drawn:
        column, note = _NOTES[schema]
        for row in rng.sample(rows, max(1, len(rows) // 8)):
            row[column] += note
    numbers = {header.index(c.name) for c in numeric} | ({header.index("wind_ms")} if schema == "weather" else set())
    shown = [[ru_number(c) if decoys.UNIT in drawn and i in numbers else c for i, c in enumerate(r)] for r in rows]
    records = [list(header), *shown]
    if decoys.DISABLED in drawn:  # a record taken out by hand, left commented out
        copy = list(rng.choice(shown))
        copy[0] = {"servers": f"srv-{n + rng.randint(1, 9):03d}", "staff": f"E{100 + n + rng.randint(1, 9)}"}.get(schema,
                                                                                                         copy[0])
        at = rng.randint(1, len(records))
    lines = render(records, delimiter, quote_all=layout == "quoted")
    if decoys.DISABLED in drawn:
        lines.insert(at, "# " + render([copy], delimiter, quote_all=layout == "quoted")[0])
    if decoys.DUPLICATE in drawn:  # an export glued from two pages keeps the second page's header
        lines.insert(len(lines) // 2, lines[0])
    extension = "tsv" if layout == "tsv" else "csv"
    # named as exports are, never by what they hold: a name that says `sales` would pick "the table
    # with revenue" out of two without reading either (issue 46)
    path = f"{rng.choice(['data', 'reports', 'exports', 'analytics'])}/{rng.choice(TABLE_STEMS)}_{number:03d}.{extension}"
    return CorpusFile(File(path, "table", "\n".join(lines) + "\n"), "table",
                      {"schema": schema, "header": header, "numeric": numeric, "layout": layout, "decoys": drawn,
                       "delimiter": delimiter, "rows": rows})


INVOICE_LAYOUTS = ("semicolon", "comma", "ledger")
INVOICE_DECOYS = (decoys.DUPLICATE, decoys.DISABLED, decoys.UNIT, decoys.IN_STRING)
_CUSTOMERS = ["Север", "Дельта", "Восход", "Гранит", "Марс", "Вектор"]


def invoices_file(rng: random.Random, number: int, index: int) -> CorpusFile:
    """Invoices in one of three layouts (`;`-separated under a .csv name; comma-separated with
    quoted customers; a ledger with a title and a currency column), with decoys drawn per file:
    the header repeated, an invoice commented out, amounts in the Russian locale, a customer
    holding the delimiter in quotes. About half have their largest amount under the refund limit
    (5,000), so refusals and near misses both have files to stand on; no decoy is ever the largest."""
    n = rng.randint(8, 30)
    top = 5001 if index % 2 else 20000
    amounts = distinct(rng, 300, top, n)
    first = rng.randint(1000, 8000)
    items = [(f"INV-{first + i}", amounts[i]) for i in range(n)]
    layout = decoys.layout(INVOICE_LAYOUTS, index)
    drawn = decoys.draw(rng, INVOICE_DECOYS, index)
    delimiter = "," if layout == "comma" else ";"
    header = ["invoice_id", "customer", "amount_rub", "status"] + (["currency"] if layout == "ledger" else [])
    def amount(value: int) -> str:
        return ru_number(f"{value}.00") if decoys.UNIT in drawn else str(value)
    def customer() -> str:
        name = f"ООО «{rng.choice(_CUSTOMERS)}»"
        return name + (f"{delimiter} филиал" if decoys.IN_STRING in drawn and rng.random() < 0.3 else "")
    records = [header] + [[inv, customer(), amount(value), "paid"] + (["RUB"] if layout == "ledger" else [])
                          for inv, value in items]
    lines = render(records, delimiter, quote_all=layout == "comma")
    if decoys.DISABLED in drawn:  # a cancelled invoice taken out by hand: never the largest
        cancelled = [f"INV-{first + n + rng.randint(1, 9)}", customer(), amount(rng.randint(300, min(amounts) + 1)),
                     "cancelled"] + (["RUB"] if layout == "ledger" else [])
        lines.insert(rng.randint(1, len(lines)), "# " + render([cancelled], delimiter, quote_all=layout == "comma")[0])
    if decoys.DUPLICATE in drawn and len(lines) > 4:
        lines.insert(len(lines) // 2, lines[0])
    if layout == "ledger":
        lines = [f"# Реестр счетов, выгрузка {number:03d}", "# суммы в рублях", *lines]
    return CorpusFile(File(f"finance/invoices_{number:03d}.csv", "table", "\n".join(lines) + "\n"), "invoices",
                      {"items": items, "layout": layout, "decoys": drawn})
