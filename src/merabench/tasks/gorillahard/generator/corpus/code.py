"""Source and build files: Dockerfiles, SQL migrations, Python modules, Maven poms."""

from __future__ import annotations

import random

from merabench.tasks.gorillahard.generator.corpus import bulk, decoys
from merabench.tasks.gorillahard.generator.corpus.common import LOGINS, SERVICES, CorpusFile
from merabench.tasks.gorillahard.generator.model import File

# how each base image installs system packages and the app's own dependencies (a Dockerfile's
# package manager fits its base: apk on Alpine, apt-get on Debian-based images)
_DOCKER_STEPS = {
    "python": ("COPY requirements.txt .", "RUN pip install --no-cache-dir -r requirements.txt"),
    "node": ("COPY package.json package-lock.json ./", "RUN npm ci --omit=dev"),
    "golang": ("COPY go.mod go.sum ./", "RUN go mod download"),
}
_PACKAGES = ["ca-certificates", "tzdata", "libpq-dev", "git", "tini"]  # and curl, which the health check runs


def _install(base: str, packages: list[str]) -> list[str]:
    if base.endswith("-alpine"):
        return [f"RUN apk add --no-cache {' '.join(packages)}"]
    return ["RUN apt-get update && \\", f"    apt-get install -y --no-install-recommends {' '.join(packages)} && \\",
            "    rm -rf /var/lib/apt/lists/*"]


DOCKER_LAYOUTS = ("labels", "env", "args")
_MIRRORS = ("", "registry.example.org/dockerhub/", "harbor.example.net/proxy/library/", "cr.example.com/mirror/",
            "docker.example.net/base/", "hub.example.org/library/")
# ports services listen on, twenty of them: five made a guess from other sets a fair bet
_PORTS = (3000, 3001, 4000, 5000, 5001, 7000, 8000, 8001, 8008, 8080, 8081, 8088, 8090, 8181, 8443, 8888, 9000,
          9080, 9090, 9443)
DOCKER_DECOYS = (decoys.DISABLED, decoys.STALE, decoys.IN_STRING)


def dockerfile(rng: random.Random, number: int, index: int) -> CorpusFile:
    """A service's image in one of three layouts (labels first; environment first; the port an
    ARG that EXPOSE and ENV read), the package manager its base image has, the dependency step of
    its language, and decoys drawn per file: an old port commented out above the live one, an old
    build kept commented out, an old port in a label's string."""
    service = rng.choice(SERVICES)
    # every corpus has images of each language (a question may pick a Dockerfile by its base image)
    base = ["python:3.11-slim", "node:20-alpine", "golang:1.22", "python:3.12-slim", "node:20-bookworm-slim",
            "python:3.12-alpine"][index % 6]
    # pulled straight from Docker Hub or through one of the team's mirrors: the image a request
    # about the base names is the one this file writes, not a language's usual name
    image = rng.choice(_MIRRORS) + base
    port = rng.choice(_PORTS)
    old = decoys.other(rng, port, (*_PORTS, port + 1))
    language = base.split(":")[0]
    copy_deps, install_deps = _DOCKER_STEPS[language]
    layout = decoys.layout(DOCKER_LAYOUTS, index)
    drawn = decoys.draw(rng, DOCKER_DECOYS, index)
    shown = "${APP_PORT}" if layout == "args" else str(port)
    labels = [f'LABEL org.opencontainers.image.title="{service}"',
              f'LABEL org.opencontainers.image.source="https://git.example.org/shop/{service}"',
              f'LABEL maintainer="{rng.choice(list(LOGINS.values()))}@example.org"']
    if decoys.IN_STRING in drawn:
        labels.append(f'LABEL org.opencontainers.image.description="{service}; до переезда слушал порт {old}"')
    env = ["ENV TZ=Europe/Moscow", f"ENV APP_PORT={port}" if layout != "args" else "ENV PORT=${APP_PORT}",
           "ENV PYTHONUNBUFFERED=1" if language == "python" else "ENV NODE_ENV=production" if language == "node"
           else "ENV CGO_ENABLED=0"]
    system = _install(base, ["curl", *rng.sample(_PACKAGES, rng.randint(0, 3))])
    build = ["RUN go build -o /app/run ./cmd/server"] if language == "golang" else []
    health = [f"HEALTHCHECK --interval={rng.choice([15, 30])}s --timeout=3s CMD curl -fsS http://localhost:{shown}/health "
              "|| exit 1"]
    user = ["RUN addgroup -S app && adduser -S app -G app" if base.endswith("-alpine")
            else "RUN useradd --create-home --uid 10001 app", "USER app"]
    head = [f"FROM {image}"] + {"labels": labels, "env": env, "args": [f"ARG APP_PORT={port}"]}[layout]
    middle = ["WORKDIR /app", *system, copy_deps, install_deps, "COPY . .", *build]
    tail = {"labels": env + health, "env": labels + health, "args": env + labels}[layout]
    expose = ([f"# EXPOSE {old}   # старый порт"] if decoys.DISABLED in drawn else []) + [f"EXPOSE {shown}"]
    lines = [*head, *middle, *tail, *user, *expose, f'CMD ["./run", "--service", "{service}"]']
    if layout == "args":
        lines.insert(0, f"# {service}: образ для выкладки, собирается в CI; порт задаётся аргументом сборки")
    if decoys.STALE in drawn:  # the build before the move to this base, kept commented out
        older = {"python": "python:3.9-slim", "node": "node:16-alpine", "golang": "golang:1.19"}[language]
        lines += ["", f"# --- прежняя сборка, до {rng.choice(['2025-10', '2025-12', '2026-01'])} ---", f"# FROM {older}",
                  f"# EXPOSE {old}", "# CMD [\"./run\"]"]
    text = bulk.change_notes(rng, "#") + "\n".join(lines) + "\n"
    return CorpusFile(File(f"services/{service}/Dockerfile.{number:03d}", "docker", text), "dockerfile",
                      {"base": image, "port": port, "service": service, "layout": layout, "decoys": drawn})


SQL_LAYOUTS = ("plain", "goose", "dbmate")
# what a migration's table is called: a schema's prefix (or none) and an entity, some 140 names, so
# that no name recurs across sets often enough to be guessed (five names once did, numbered as the file)
_TABLE_PREFIXES = ("", "", "shop_", "billing_", "crm_", "wms_", "app_")
_TABLE_ENTITIES = ("orders", "payments", "customers", "shipments", "invoices", "refunds", "carts", "reviews",
                   "coupons", "deliveries", "subscriptions", "sessions", "price_changes", "stock_moves", "returns",
                   "payouts", "addresses", "receipts", "bonus_accounts", "supplier_offers", "courier_shifts",
                   "promo_codes", "order_items", "audit_events")
SQL_DECOYS = (decoys.DISABLED, decoys.STALE, decoys.IN_STRING)


def sql_migration(rng: random.Random, number: int, index: int) -> CorpusFile:
    """A migration creating one table, in one of three layouts (a plain transaction; goose's Up
    and Down with IF NOT EXISTS; dbmate's up and down with a quoted name), with decoys drawn per
    file: an old table's CREATE commented out, a block comment on the table's former name, a
    table comment whose string names another table."""
    table = rng.choice(_TABLE_PREFIXES) + rng.choice(_TABLE_ENTITIES)
    columns = rng.sample(["id BIGSERIAL PRIMARY KEY", "created_at TIMESTAMPTZ NOT NULL", "amount NUMERIC(12,2)",
                          "status TEXT", "customer_id BIGINT", "comment TEXT", "updated_at TIMESTAMPTZ",
                          "currency CHAR(3) NOT NULL DEFAULT 'RUB'", "external_ref TEXT UNIQUE",
                          "deleted_at TIMESTAMPTZ", "region_code SMALLINT", "meta JSONB NOT NULL DEFAULT '{}'"],
                         rng.randint(4, 10))
    name = table
    layout = decoys.layout(SQL_LAYOUTS, index)
    drawn = decoys.draw(rng, SQL_DECOYS, index)
    old = f"{table}_{rng.choice(['legacy', 'archive', 'old'])}_{rng.randint(1, 999):03d}"
    shown = {"plain": name, "goose": f"IF NOT EXISTS {name}", "dbmate": f'"{name}"'}[layout]
    create = f"CREATE TABLE {shown} (\n    " + ",\n    ".join(columns) + "\n);\n"
    before = ""
    if decoys.STALE in drawn:
        before += f"/* до {rng.choice(['2025-11', '2025-12', '2026-01'])} данные лежали в таблице {old}; её не трогаем */\n"
    if decoys.DISABLED in drawn:  # the first attempt, kept commented out
        before += f"-- CREATE TABLE {old} (\n--     id BIGSERIAL PRIMARY KEY\n-- );\n"
    after = bulk.sql_after(rng, name, columns)
    if decoys.IN_STRING in drawn:
        after += f"COMMENT ON TABLE {name} IS 'заменяет {old}: CREATE TABLE {old} больше не выполняется';\n"
    if layout == "plain":
        text = f"-- migration {number:04d}: {table}\nBEGIN;\n{before}{create}{after}COMMIT;\n"
    elif layout == "goose":
        text = (f"-- +goose Up\n-- +goose StatementBegin\n{before}{create}{after}-- +goose StatementEnd\n\n"
                f"-- +goose Down\nDROP TABLE IF EXISTS {name};\n")
    else:
        text = f"-- migrate:up\n{before}{create}{after}\n-- migrate:down\nDROP TABLE \"{name}\";\n"
    text = bulk.change_notes(rng, "--") + text
    # the file is named after the change, not the table: a table read off the name needs no reading
    slug = rng.choice(["init", "schema_update", "new_tables", "reporting", "backoffice", "split_monolith",
                       f"release_{rng.randint(1, 4)}_{rng.randint(0, 9)}", f"sprint_{rng.randint(10, 60)}"])
    return CorpusFile(File(f"db/migrations/{number:04d}_{slug}.sql", "sql", text), "sql",
                      {"table": name, "layout": layout, "decoys": drawn})


# a client module's functions, each with its own body (the imports and constants it needs); the
# time-out constant is defined once, so "the line with the time-out" is one line
_FUNCTIONS: dict[str, tuple[set[str], list[str]]] = {
    "fetch": ({"requests"}, [
        "def fetch(url, params=None):",
        '    """GET a resource of {service}; the body as bytes."""',
        "    response = requests.get(url, params=params, timeout=TIMEOUT_S)",
        "    response.raise_for_status()",
        "    return response.content"]),
    "parse_payload": ({"json"}, [
        "def parse_payload(raw):",
        '    """Decode a {service} message and check its required keys."""',
        "    data = json.loads(raw)",
        '    missing = [key for key in ("id", "status") if key not in data]',
        "    if missing:",
        '        raise ValueError("payload without " + ", ".join(missing))',
        "    return data"]),
    "retry": ({"time", "requests"}, [
        "def retry(operation, attempts=3):",
        '    """Call operation until it succeeds, backing off between attempts."""',
        "    for attempt in range(attempts):",
        "        try:",
        "            return operation()",
        "        except requests.RequestException:",
        "            time.sleep(2 ** attempt)",
        '    raise RuntimeError(f"gave up after {{attempts}} attempts")']),
    "save_report": ({"csv"}, [
        "def save_report(rows, path):",
        '    """Write the {service} report rows to a CSV file; how many were written."""',
        '    with open(path, "w", newline="", encoding="utf-8") as out:',
        "        writer = csv.writer(out)",
        '        writer.writerow(["id", "status", "amount"])',
        "        writer.writerows(rows)",
        "    return len(rows)"]),
    "load_config": ({"json"}, [
        "def load_config(path):",
        '    """Read the JSON settings of {service}, with defaults for what they leave out."""',
        '    with open(path, encoding="utf-8") as source:',
        "        config = json.load(source)",
        '    config.setdefault("timeout", TIMEOUT_S)',
        '    config.setdefault("retries", 3)',
        "    return config"]),
    "notify": ({"requests"}, [
        'def notify(message, channel="#{service}-alerts"):',
        '    """Post a message to the team chat."""',
        '    payload = {{"channel": channel, "text": message}}',
        "    requests.post(WEBHOOK_URL, json=payload, timeout=TIMEOUT_S).raise_for_status()"]),
    "paginate": ({"requests"}, [
        "def paginate(url, page_size=MAX_BATCH):",
        '    """Yield every item of a paged {service} listing, page by page."""',
        "    page = 1",
        "    while True:",
        '        response = requests.get(url, params={{"page": page, "size": page_size}}, timeout=TIMEOUT_S)',
        "        response.raise_for_status()",
        '        items = response.json()["items"]',
        "        if not items:",
        "            return",
        "        yield from items",
        "        page += 1"]),
    "to_cents": ({"decimal"}, [
        "def to_cents(amount):",
        '    """An amount in roubles (a string or a number) as whole kopecks."""',
        '    value = decimal.Decimal(str(amount)).quantize(decimal.Decimal("0.01"))',
        "    return int(value * 100)"]),
    "chunked": (set(), [
        "def chunked(items, size=MAX_BATCH):",
        '    """Split a list into batches of at most size items for the {service} bulk API."""',
        "    for start in range(0, len(items), size):",
        "        yield items[start:start + size]"]),
    "build_headers": ({"os"}, [
        "def build_headers(request_id=None):",
        '    """The headers every call to {service} carries."""',
        '    headers = {{"Accept": "application/json", "User-Agent": "{service}-client"}}',
        '    token = os.environ.get("API_TOKEN")',
        "    if token:",
        '        headers["Authorization"] = f"Bearer {{token}}"',
        "    if request_id:",
        '        headers["X-Request-Id"] = request_id',
        "    return headers"]),
    "parse_date": ({"datetime"}, [
        "def parse_date(text):",
        '    """A date from the {service} API: ISO 8601 or DD.MM.YYYY."""',
        '    for pattern in ("%Y-%m-%d", "%d.%m.%Y"):',
        "        try:",
        "            return datetime.datetime.strptime(text, pattern).date()",
        "        except ValueError:",
        "            continue",
        '    raise ValueError(f"not a date: {{text!r}}")']),
    "summarize": (set(), [
        "def summarize(rows):",
        '    """Counts of {service} records by status, largest first."""',
        "    counts = {{}}",
        "    for row in rows:",
        '        counts[row["status"]] = counts.get(row["status"], 0) + 1',
        "    return sorted(counts.items(), key=lambda item: item[1], reverse=True)"]),
}


PYTHON_LAYOUTS = ("plain", "typed", "sectioned")
PYTHON_DECOYS = (decoys.DISABLED, decoys.STALE, decoys.IN_STRING)


def python_module(rng: random.Random, number: int, index: int) -> CorpusFile:
    """A small client module: a docstring, the imports its functions use, a few constants (the
    time-out among them, at a varying line) and three to nine functions with their own bodies, in
    one of three layouts (plain; annotated constants under `from __future__ import annotations`;
    banners and an alphabetical `__all__`), with decoys drawn per file: an old time-out commented
    out above the live one, an old function kept commented out, the old time-out in the docstring."""
    service = rng.choice(SERVICES).replace("-", "_")
    timeout = rng.choice([5, 10, 15, 30])
    old = decoys.other(rng, timeout, (5, 10, 15, 30, 60))
    functions = rng.sample(sorted(_FUNCTIONS), rng.randint(3, 9))
    layout = decoys.layout(PYTHON_LAYOUTS, index)
    drawn = decoys.draw(rng, PYTHON_DECOYS, index)
    imports = sorted(set().union(*(_FUNCTIONS[name][0] for name in functions)) | ({"logging"} if rng.random() < 0.5
                                                                                else set()))
    stdlib = [f"import {m}" for m in imports if m != "requests"]
    said = f" (TIMEOUT_S = {old} until the {rng.choice(['spring', 'autumn'])} release)" if decoys.IN_STRING in drawn else ""
    body = [f'"""{rng.choice(["Client", "Helpers", "HTTP client"])} of {service}: '
            f'{rng.choice(["fetching and parsing", "calls and reports", "settings and alerts"])}{said}."""', ""]
    if layout == "typed":
        body += ["from __future__ import annotations", ""]
    body += stdlib + ([""] if stdlib and "requests" in imports else []) + (["import requests"] if "requests" in imports
                                                                          else [])
    if layout == "sectioned":
        body += ["", "__all__ = [" + ", ".join(f'"{f}"' for f in sorted(functions)) + "]"]
    hint = (lambda kind: f": {kind}") if layout == "typed" else (lambda kind: "")
    live = f"TIMEOUT_S{hint('int')} = {timeout}"
    constants = [live, f'BASE_URL{hint("str")} = "https://{service.replace("_", "-")}.internal/api/v{rng.randint(1, 3)}"',
                 f"MAX_BATCH{hint('int')} = {rng.choice([50, 100, 500])}"]
    if "notify" in functions:
        constants.append(f'WEBHOOK_URL{hint("str")} = "https://chat.example.org/hooks/{rng.getrandbits(24):06x}"')
    if "logging" in imports:
        constants.append("log = logging.getLogger(__name__)")
    rng.shuffle(constants)
    if decoys.DISABLED in drawn:  # the old value, commented out right above the live one
        constants.insert(constants.index(live), f"# TIMEOUT_S = {old}  # было до переезда")
    body += ["", "", *(["# --- settings ---"] if layout == "sectioned" else []), *constants]
    if layout == "sectioned":
        body += ["", "", "# --- API ---"]
    retired = rng.randrange(len(functions)) if decoys.STALE in drawn else -1
    for i, name in enumerate(functions):
        if i == retired:  # a function taken out of use, kept commented out
            body += ["", "", "# def fetch_legacy(url):", '#     """The v1 endpoint, retired."""',
                     "#     return requests.get(url.replace(\"/v2/\", \"/v1/\")).content"]
        body += ["", ""] + [line.format(service=service) for line in _FUNCTIONS[name][1]]
    notes = bulk.change_notes(rng, "#")
    text = notes + "\n".join(body) + "\n"
    return CorpusFile(File(f"src/{service}/client_{number:03d}.py", "code", text), "python",
                      {"functions": functions, "timeout_line": notes.count("\n") + body.index(live) + 1,
                       "layout": layout, "decoys": drawn})


def pom_xml(rng: random.Random, number: int, index: int) -> CorpusFile:
    deps = []
    for artifact in rng.sample(sorted(POM_LINES), 3):
        major, low, high = POM_LINES[artifact]
        minor = rng.randint(low, high)
        if artifact == "guava":  # guava counts 31.x, 32.x, 33.x
            version = f"{major}{minor}.{rng.randint(0, 1)}.{rng.randint(0, 2)}-jre"
        elif artifact == "netty-handler":
            version = f"{major}.{minor}.Final"
        else:
            version = f"{major}.{minor}.{rng.randint(0, 9)}"
        deps.append((artifact, version))
    properties, build = bulk.pom_build(rng)
    layout = decoys.layout(POM_LAYOUTS, index)
    drawn = decoys.draw(rng, POM_DECOYS, index)
    artifact, version = rng.choice(deps)
    older = _older(version)
    if layout == "properties":  # versions kept as properties, the dependencies refer to them
        properties = properties.replace("  </properties>\n", "".join(f"    <{a}.version>{v}</{a}.version>\n" for a, v in deps)
                                        + "  </properties>\n")
    items = [_dependency(layout, a, v) for a, v in deps]
    if decoys.DISABLED in drawn:  # the old version, commented out right above the live one
        at = [a for a, _ in deps].index(artifact)
        items.insert(at, "    <!--\n" + _dependency("plain", artifact, older).replace("    <", "      <") + "    -->\n")
    described = (f"  <description>Сервис {number:03d}; с {artifact} {older} ушли после аудита</description>\n"
                 if decoys.IN_STRING in drawn else "")
    profile = ("  <profiles>\n    <profile>\n      <id>legacy-java8</id>\n      <dependencies>\n"
               + _dependency("plain", artifact, older).replace("    <", "        <") + "      </dependencies>\n"
               "    </profile>\n  </profiles>\n" if decoys.STALE in drawn else "")
    text = ('<?xml version="1.0" encoding="UTF-8"?>\n<project>\n  <modelVersion>4.0.0</modelVersion>\n'
            f"  <groupId>org.example.shop</groupId>\n  <artifactId>service-{number:03d}</artifactId>\n"
            f"  <version>1.{rng.randint(0, 40)}.0-SNAPSHOT</version>\n" + described + properties + "  <dependencies>\n"
            + "".join(items) + "  </dependencies>\n" + build + profile + "</project>\n")
    return CorpusFile(File(f"services/svc-{number:03d}/pom.xml", "xml", text), "pom",
                      {"deps": deps, "layout": layout, "decoys": drawn})


# versions as each project's release lines go (major.minor ranges, a patch), drawn per file; twenty
# libraries, so that which one a pom names is the file's to say (eight made the commonest a fair bet)
POM_LINES = {"jackson-databind": ("2", 12, 17), "log4j-core": ("2", 17, 23), "guava": ("3", 1, 3),
             "netty-handler": ("4.1", 80, 110), "postgresql": ("42", 5, 7), "commons-text": ("1", 9, 12),
             "snakeyaml": ("2", 0, 2), "spring-core": ("6", 0, 2), "commons-lang3": ("3", 12, 17),
             "httpclient5": ("5", 2, 4), "slf4j-api": ("2", 0, 0), "kafka-clients": ("3", 5, 8),
             "logback-classic": ("1", 4, 5), "hibernate-core": ("6", 2, 6), "gson": ("2", 10, 11),
             "okhttp": ("4", 10, 12), "protobuf-java": ("3", 24, 25), "jedis": ("5", 0, 2),
             "flyway-core": ("10", 0, 20), "caffeine": ("3", 1, 1)}
POM_LAYOUTS = ("plain", "coordinates", "properties")
POM_DECOYS = (decoys.DISABLED, decoys.STALE, decoys.IN_STRING)
_GROUPS = {"jackson-databind": "com.fasterxml.jackson.core", "log4j-core": "org.apache.logging.log4j",
           "guava": "com.google.guava", "netty-handler": "io.netty", "postgresql": "org.postgresql",
           "commons-text": "org.apache.commons", "snakeyaml": "org.yaml", "spring-core": "org.springframework",
           "commons-lang3": "org.apache.commons", "httpclient5": "org.apache.httpcomponents.client5",
           "slf4j-api": "org.slf4j", "kafka-clients": "org.apache.kafka", "logback-classic": "ch.qos.logback",
           "hibernate-core": "org.hibernate.orm", "gson": "com.google.code.gson", "okhttp": "com.squareup.okhttp3",
           "protobuf-java": "com.google.protobuf", "jedis": "redis.clients", "flyway-core": "org.flywaydb",
           "caffeine": "com.github.ben-manes.caffeine"}


def _dependency(layout: str, artifact: str, version: str) -> str:
    """A <dependency> element: artifact and version; full coordinates with a scope; or a version
    that is a property's reference."""
    if layout == "plain":
        return f"    <dependency>\n      <artifactId>{artifact}</artifactId>\n      <version>{version}</version>\n    </dependency>\n"
    shown = f"${{{artifact}.version}}" if layout == "properties" else version
    return (f"    <dependency>\n      <groupId>{_GROUPS[artifact]}</groupId>\n      <artifactId>{artifact}</artifactId>\n"
            f"      <version>{shown}</version>\n" + ("      <scope>compile</scope>\n" if layout == "coordinates" else "")
            + "    </dependency>\n")


def _older(version: str) -> str:
    """An earlier release of the same line: its last non-zero number one down (2.15.3 -> 2.15.2,
    4.1.95.Final -> 4.1.94.Final, 2.0.0 -> 1.0.0)."""
    parts = version.replace("-", ".-").split(".")
    numbers = [i for i, part in enumerate(parts) if part.isdigit() and int(part) > 0]
    at = numbers[-1]
    parts[at] = str(int(parts[at]) - 1)
    return ".".join(parts).replace(".-", "-")
