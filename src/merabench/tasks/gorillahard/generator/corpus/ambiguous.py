"""Files that can hold one thing twice, for the clarifications and their near misses: a table with
two columns a user names by one word (revenue in roubles and in dollars, response time at p50 and
at p95, weight gross and net, a price without and with VAT, the air temperature and how it
feels) and a feature-flag file with a section per environment. Half of
each hold the thing once (one revenue column, one environment), so a near miss stands on the same
kind of file as its clarification and only what the file holds tells them apart.
"""

from __future__ import annotations

import random

from merabench.tasks.gorillahard.generator.corpus.common import CITIES, LOGINS, PEOPLE, SERVICES, CorpusFile
from merabench.tasks.gorillahard.generator.model import File

# schema: (the columns before the pair, the pair, the columns after it)
TWIN_SCHEMAS = {
    "revenue": (["region", "month", "orders"], ("revenue_rub", "revenue_usd"), ["avg_check_rub", "manager"]),
    "latency": (["route", "date", "requests"], ("latency_p50_ms", "latency_p95_ms"), ["errors", "service"]),
    "shipments": (["warehouse", "date", "parcels"], ("weight_gross_kg", "weight_net_kg"), ["carrier", "status"]),
    "prices": (["sku", "category", "stock"], ("price_rub", "price_vat_rub"), ["supplier", "updated"]),
    "climate": (["station", "date", "humidity_pct"], ("temp_air_c", "temp_feels_c"), ["wind_ms", "sky"]),
}
_API_ROUTES = ["/orders", "/cart", "/pay", "/profile", "/search", "/catalog/items", "/delivery/slots", "/promo/apply",
               "/auth/token", "/reviews"]


def _day(rng: random.Random) -> str:
    return f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def _twin_row(schema: str, rng: random.Random, service: str) -> dict[str, str]:
    """A record of a report whose figure comes in two columns."""
    if schema == "revenue":
        orders, check = rng.randint(40, 4000), rng.randint(600, 9000)
        rate = rng.uniform(78.0, 96.0)  # the month's rouble to dollar rate
        return {"region": rng.choice(CITIES), "month": f"2026-{rng.randint(1, 12):02d}", "orders": str(orders),
                "revenue_rub": str(orders * check), "revenue_usd": f"{orders * check / rate:.2f}",
                "avg_check_rub": str(check), "manager": rng.choice(PEOPLE)}
    if schema == "latency":
        median = rng.randint(8, 400)
        return {"route": rng.choice(_API_ROUTES), "date": _day(rng), "requests": str(rng.randint(500, 90000)),
                "latency_p50_ms": str(median), "latency_p95_ms": str(median + rng.randint(20, 2500)),
                "errors": str(rng.randint(0, 300)), "service": service}
    if schema == "shipments":
        net = rng.randint(50, 9000) / 10
        return {"warehouse": f"{rng.choice(CITIES)}-{rng.randint(1, 4)}", "date": _day(rng),
                "parcels": str(rng.randint(1, 60)), "weight_gross_kg": f"{net * rng.uniform(1.04, 1.2):.1f}",
                "weight_net_kg": f"{net:.1f}", "carrier": rng.choice(["СДЭК", "Почта", "свой парк", "Деловые линии"]),
                "status": rng.choice(["в пути", "доставлено", "на складе"])}
    if schema == "prices":
        price = rng.randint(90, 60000)
        return {"sku": f"SKU-{rng.randint(10000, 99999)}", "category": rng.choice(["техника", "одежда", "дом", "книги",
                                                                                    "спорт"]),
                "stock": str(rng.randint(0, 900)), "price_rub": str(price), "price_vat_rub": f"{price * 1.2:.2f}",
                "supplier": f"ООО «{rng.choice(['Север', 'Дельта', 'Восход', 'Гранит', 'Марс', 'Вектор'])}»",
                "updated": _day(rng)}
    air = rng.randint(-250, 320) / 10
    return {"station": rng.choice(CITIES), "date": _day(rng), "humidity_pct": str(rng.randint(25, 99)),
            "temp_air_c": f"{air:.1f}", "temp_feels_c": f"{air + rng.uniform(-6, 3):.1f}",
            "wind_ms": f"{rng.uniform(0, 14):.1f}", "sky": rng.choice(["ясно", "облачно", "пасмурно", "дождь", "туман"])}


def twin_table(rng: random.Random, number: int, index: int) -> CorpusFile:
    """A report whose user-facing figure comes in two columns (each schema in every corpus: the
    first and third of its files hold both, the second and fourth one of them)."""
    schema = list(TWIN_SCHEMAS)[index % len(TWIN_SCHEMAS)]
    before, pair, after = TWIN_SCHEMAS[schema]
    held = list(pair) if index // len(TWIN_SCHEMAS) % 2 == 0 else [rng.choice(pair)]
    header = before + held + after
    service = rng.choice(SERVICES)
    rows = [_twin_row(schema, rng, service) for _ in range(int(rng.triangular(60, 320, 150)))]
    delimiter = rng.choice([",", ",", ";"])
    lines = [delimiter.join(header)] + [delimiter.join(row[c] for c in header) for row in rows]
    folder = rng.choice(["reports", "analytics", "exports"])
    return CorpusFile(File(f"{folder}/{schema}_{number:03d}.csv", "table", "\n".join(lines) + "\n"), "twin_table",
                      {"schema": schema, "header": header, "pair": pair, "held": held, "delimiter": delimiter})


FLAG_NAMES = ["new-checkout", "dark-mode", "fast-search", "beta-reports", "smart-cart", "one-click-pay", "promo-banner",
              "new-onboarding", "gift-cards", "reviews-v2", "wishlist-sync", "express-delivery", "live-chat",
              "price-alerts", "bulk-export", "saved-carts"]
ENVIRONMENTS = ("staging", "production")


def flags_file(rng: random.Random, number: int, index: int) -> CorpusFile:
    """A service's feature flags as the repository keeps them: a section per environment (even
    index: staging and production, odd: one of them), each flag with its state, owner and ticket;
    the two environments share most flags, in states of their own."""
    service = rng.choice(SERVICES)
    envs = list(ENVIRONMENTS) if index % 2 == 0 else [rng.choice(ENVIRONMENTS)]
    shared = rng.sample(FLAG_NAMES, rng.randint(5, 8))
    rest = [f for f in FLAG_NAMES if f not in shared]
    states: dict[str, dict[str, bool]] = {}
    lines = [f"# фича-флаги сервиса {service}", "# меняются через ревью; на серверах вступают в силу при выкладке",
             f"service: {service}", f"updated: 2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
             "environments:"]
    for env in envs:
        flags = shared + rng.sample(rest, rng.randint(0, 3))
        states[env] = {flag: rng.random() < 0.4 for flag in flags}
        lines.append(f"  {env}:")
        for flag, enabled in states[env].items():
            owner = rng.choice(list(LOGINS.values()))
            lines += [f"    {flag}:", f"      enabled: {'true' if enabled else 'false'}", f"      owner: {owner}",
                      f"      ticket: {rng.choice(['OPS', 'SHOP', 'WEB'])}-{rng.randint(100, 999)}"]
    return CorpusFile(File(f"deploy/features-{number:03d}.yaml", "yaml", "\n".join(lines) + "\n"), "flags_yaml",
                      {"service": service, "states": states})


# kind -> (factory, how many files a corpus holds)
AMBIGUOUS_FACTORIES = {"twin_table": (twin_table, 4 * len(TWIN_SCHEMAS)), "flags_yaml": (flags_file, 8)}
