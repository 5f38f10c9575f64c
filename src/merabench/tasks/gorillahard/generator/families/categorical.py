"""Filters by a table's categorical column, where the file says how the column and its values are
written (issue 46): exports name a city column `city`, `город` or `store_city`, and a server's
state `status` or `lifecycle` with `maintenance`, `maint` or `техобслуживание`. The user asks by
meaning (the sales of a city, the servers under maintenance); the header and the value a filter
needs are read off the attached table, so neither is a constant a model could copy from another
set or from the question.

A row's table is recoded for it (`columns.recoded`): the corpus file's lines with the one
column's header (and, for a state, its words) rewritten, every other byte kept, decoys included.
"""

from __future__ import annotations

import random

from merabench.tasks.gorillahard.generator.corpus import Corpus
from merabench.tasks.gorillahard.generator.families.columns import recoded
from merabench.tasks.gorillahard.generator.families.common import (
    View,
    build_question,
    expect,
    only,
    split_table,
)
from merabench.tasks.gorillahard.generator.families.tables import servers_table
from merabench.tasks.gorillahard.generator.model import Question, call

# how exports head a sales table's city column (no spelling another of its columns could mean)
CITY_HEADERS = ("city", "город", "city_name", "store_city", "branch_city", "town", "sales_city", "shop_city", "locality")
# how inventories head a server's state, and the words for in service and under maintenance: one
# pair a file; a file never mixes two exports' words
STATE_HEADERS = ("status", "state", "server_status", "lifecycle", "статус", "op_state")
STATE_WORDS = (("active", "maintenance"), ("up", "maint"), ("in_service", "in_maintenance"),
               ("online", "servicing"), ("в работе", "техобслуживание"), ("ACTIVE", "MAINTENANCE"))
# what a row's file is headed with: never the corpus's own `city`, `status` and its words (the same in
# every seed's corpus, so a model could learn them from other sets), nor `город`, a word the
# question itself says
CITY_DRAWN = tuple(h for h in CITY_HEADERS if h not in ("city", "город"))
STATE_DRAWN, WORDS_DRAWN = STATE_HEADERS[1:], STATE_WORDS[1:]


def make_filter_maintenance(rng: random.Random, corpus: Corpus) -> Question:
    table = servers_table(corpus, rng, having="maintenance")
    header = rng.choice(STATE_DRAWN)
    active, maintenance = rng.choice(WORDS_DRAWN)
    shown = recoded(table, "status", header, {"active": active, "maintenance": maintenance})
    return build_question(
        "servers_in_maintenance",
        "grounding",
        "T3_expert",
        rng.choice(("Покажи строки таблицы с серверами на обслуживании.", "какие сервера сейчас на обслуживании?",
                    "Выведите, пожалуйста, из таблицы серверы, которые сейчас на обслуживании.",
                    "покажи сервера на обслуживанни из таблицы")),
        (shown,),
        call("table.filter_eq", path=shown.file.path, column=header, value=maintenance),
        "table.group_count",
        facts={"header": header, "words": [active, maintenance]},
    )


def check_filter_maintenance(view: View) -> list[str]:
    """The one column headed as a state, and the one of its words that means maintenance; the
    file's words one export's pair."""
    path, text = only(view)
    header, rows = split_table(text)
    columns = [h for h in header if h in STATE_HEADERS]
    if len(columns) != 1:
        return [f"{len(columns)} columns headed as a server's state: {columns}"]
    values = {r[header.index(columns[0])] for r in rows}
    pairs = [pair for pair in STATE_WORDS if values <= set(pair)]
    if len(pairs) != 1 or pairs[0][1] not in values:
        return [f"the state column holds {sorted(values)}: no one export's words with a server under maintenance"]
    return expect(view, call("table.filter_eq", path=path, column=columns[0], value=pairs[0][1]))


def make_filter_city(rng: random.Random, corpus: Corpus) -> Question:
    table = rng.choice([f for f in corpus.by_kind["table"] if f.facts["schema"] == "sales"])
    city = rng.choice(table.facts["rows"])[0]
    header = rng.choice(CITY_DRAWN)
    shown = recoded(table, "city", header, {})
    return build_question(
        "sales_in_city",
        "grounding",
        "T3_expert",
        rng.choice((f"Покажи продажи по городу {city}.", f"Отбери из таблицы продажи, где город — {city}.",
                    f"продажи в городе {city} покажи", f"Нужны строки таблицы с продажами по городу {city}.")),
        (shown,),
        call("table.filter_eq", path=shown.file.path, column=header, value=city),
        "table.group_count",
        facts={"city": city, "header": header},
    )


def check_filter_city(view: View) -> list[str]:
    """The one column headed as a city, holding the city the question names."""
    path, text = only(view)
    header, rows = split_table(text)
    columns = [h for h in header if h in CITY_HEADERS]
    if len(columns) != 1:
        return [f"{len(columns)} columns headed as a city: {columns}"]
    city = view.derivation["city"]
    if city not in view.question or not any(r[header.index(columns[0])] == city for r in rows):
        return [f"{city} is not a city the question names and the table holds"]
    return expect(view, call("table.filter_eq", path=path, column=columns[0], value=city))
