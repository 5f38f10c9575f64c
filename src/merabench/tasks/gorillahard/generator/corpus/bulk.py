"""The rest of a working file: the sections real files carry beside the values questions ask about.

A values file has probes, a config map and a disruption budget; an .env file has the cache, mail
and tracing settings; a pom has its properties and build plugins. They make each file as long as
files of its kind are (the card's prompts run 10.6k-34.2k characters through the files, not
through more of them) and never hold a key any question or check reads (no `replicas`, `image`,
`host`, `namespace`, `deployment`, `timeout_ms`, `retries` in a values file, no `name` or
`prefetch` in a worker's [queue], no `schedule` or `command` in a pyproject, no second FROM,
EXPOSE or CREATE TABLE). How many sections a file gets is drawn per file.
"""

from __future__ import annotations

import random
from collections.abc import Callable

_WORDS = ["orders", "billing", "search", "profile", "reports", "export", "import", "audit", "notify", "sync"]
_SETTINGS = ["enabled", "limit", "ttl", "mode", "batch", "url", "level", "timeout", "workers", "queue", "region",
             "format", "retention", "window", "threshold", "prefix", "channel", "bucket", "schedule_cron", "page_size"]


# a config map value that fits its key's setting (ORDERS_TTL a duration, BILLING_URL an address)
_SETTING_VALUES: dict[str, Callable[[random.Random, str], str]] = {
    "enabled": lambda rng, word: rng.choice(["true", "false"]),
    "limit": lambda rng, word: str(rng.choice([50, 100, 200, 500, 1000, 5000])),
    "ttl": lambda rng, word: rng.choice(["30s", "5m", "15m", "1h", "24h"]),
    "mode": lambda rng, word: rng.choice(["strict", "lenient", "async", "sync", "readonly"]),
    "batch": lambda rng, word: str(rng.choice([10, 25, 50, 100, 250, 500])),
    "url": lambda rng, word: rng.choice([f"http://{word}-api:8080", f"https://{word}.internal/api/v1",
                                         f"https://hooks.example.org/{word}"]),
    "level": lambda rng, word: rng.choice(["debug", "info", "warning", "error"]),
    "timeout": lambda rng, word: rng.choice(["500ms", "2s", "5s", "10s", "30s"]),
    "workers": lambda rng, word: str(rng.choice([1, 2, 4, 8, 16])),
    "queue": lambda rng, word: rng.choice([f"{word}.events", f"{word}-tasks", f"{word}.dead-letter"]),
    "region": lambda rng, word: rng.choice(["ru-central1", "ru-1", "ru-2", "eu-west-1"]),
    "format": lambda rng, word: rng.choice(["json", "csv", "text", "parquet"]),
    "retention": lambda rng, word: rng.choice(["7d", "14d", "30d", "90d", "365d"]),
    "window": lambda rng, word: rng.choice(["1m", "5m", "15m", "1h"]),
    "threshold": lambda rng, word: rng.choice(["0.5", "0.8", "0.9", "0.95", "0.99"]),
    "prefix": lambda rng, word: rng.choice([f"{word}/", f"{word}-", f"tmp/{word}/"]),
    "channel": lambda rng, word: rng.choice([f"#{word}-alerts", f"#team-{word}", "email", "telegram"]),
    "bucket": lambda rng, word: rng.choice([f"{word}-artifacts", f"{word}-data", f"backup-{word}"]),
    "schedule_cron": lambda rng, word: f"{rng.randint(0, 59)} {rng.randint(0, 23)} * * *",
    "page_size": lambda rng, word: str(rng.choice([20, 50, 100, 200])),
}


def _yaml_config_map(rng: random.Random) -> str:
    # a config map as long as services keep them: a few keys to a couple of hundred, each value a
    # string (as config maps hold them) of the kind its setting takes
    pairs = sorted({(rng.choice(_WORDS), rng.choice(_SETTINGS)) for _ in range(int(rng.triangular(4, 260, 60)))})
    return "configMap:\n  data:\n" + "".join(
        f'    {word.upper()}_{setting.upper()}: "{_SETTING_VALUES[setting](rng, word)}"\n' for word, setting in pairs)


def _yaml_security(rng: random.Random) -> str:
    return (f"securityContext:\n  runAsNonRoot: true\n  runAsUser: {rng.choice([1000, 1001, 10001])}\n"
            f"  fsGroup: {rng.choice([1000, 2000])}\n  readOnlyRootFilesystem: {rng.choice(['true', 'false'])}\n"
            "  capabilities:\n    drop:\n      - ALL\n")


def _yaml_budget(rng: random.Random) -> str:
    return f"podDisruptionBudget:\n  enabled: true\n  minAvailable: {rng.randint(1, 3)}\n"


def _yaml_monitor(rng: random.Random) -> str:
    return (f"serviceMonitor:\n  enabled: {rng.choice(['true', 'false'])}\n  interval: {rng.choice(['15s', '30s', '1m'])}\n"
            f"  scrapeTimeout: {rng.choice(['5s', '10s'])}\n  labels:\n    release: {rng.choice(['prom', 'monitoring'])}\n")


def _yaml_affinity(rng: random.Random) -> str:
    return ("affinity:\n  podAntiAffinity:\n    preferredDuringSchedulingIgnoredDuringExecution:\n"
            f"      - weight: {rng.choice([50, 100])}\n        podAffinityTerm:\n          topologyKey: "
            f"{rng.choice(['kubernetes.io/hostname', 'topology.kubernetes.io/zone'])}\n")


def _yaml_jobs(rng: random.Random) -> str:
    jobs = rng.sample(["cleanup", "reindex", "export", "vacuum", "rotate-keys", "warmup"], rng.randint(1, 4))
    return "cronJobs:\n" + "".join(
        f"  - name: {job}\n    cron: \"{rng.randint(0, 59)} {rng.randint(0, 23)} * * *\"\n"
        f"    concurrencyPolicy: {rng.choice(['Forbid', 'Replace'])}\n    args: [\"--{job}\", \"--batch={rng.randint(10, 900)}\"]\n"
        for job in jobs)


def _yaml_network(rng: random.Random) -> str:
    peers = rng.sample(["ingress-nginx", "monitoring", "billing-prod", "shop-prod", "platform"], rng.randint(1, 4))
    return "networkPolicy:\n  enabled: true\n  ingressFrom:\n" + "".join(f"    - namespaceSelector: {p}\n" for p in peers)


def _yaml_init(rng: random.Random) -> str:
    return ("initContainers:\n  - name: migrate\n    args: [\"migrate\", \"--up\"]\n"
            f"    resources:\n      cpu: {rng.choice(['100m', '200m'])}\n      memory: {rng.choice(['128Mi', '256Mi'])}\n")


def _yaml_persistence(rng: random.Random) -> str:
    return (f"persistence:\n  enabled: {rng.choice(['true', 'false'])}\n  storageClass: {rng.choice(['ssd', 'hdd', 'nvme'])}\n"
            f"  size: {rng.choice(['1Gi', '5Gi', '20Gi'])}\n  accessModes:\n    - ReadWriteOnce\n")


def _yaml_feature_toggles(rng: random.Random) -> str:
    flags = sorted({f"{rng.choice(_WORDS)}-{rng.choice(['v2', 'beta', 'fast-path', 'new-ui', 'cache'])}"
                    for _ in range(rng.randint(3, 16))})
    return "featureToggles:\n" + "".join(f"  {f}: {rng.choice(['true', 'false'])}\n" for f in flags)


YAML_SECTIONS: tuple[Callable[[random.Random], str], ...] = (
    _yaml_config_map, _yaml_security, _yaml_budget, _yaml_monitor, _yaml_affinity, _yaml_jobs, _yaml_network,
    _yaml_init, _yaml_persistence, _yaml_feature_toggles)


def sections(rng: random.Random, pool: tuple[Callable[[random.Random], str], ...], low: int, high: int) -> str:
    """Between low and high of the pool's sections, each at most once, in a drawn order."""
    chosen = rng.sample(pool, min(len(pool), rng.randint(low, high)))
    return "".join(make(rng) for make in chosen)


# .env settings beyond the ones questions read, grouped as teams keep them
ENV_GROUPS = {
    "кэш": ["REDIS_POOL_SIZE={n}", "REDIS_TIMEOUT_MS={ms}", "CACHE_PREFIX={word}", "CACHE_MAX_ITEMS={big}"],
    "почта": ["SMTP_USER=robot@example.org", "SMTP_TLS=true", "MAIL_FROM=noreply@example.org",
              "MAIL_BATCH={n}"],
    "трассировка": ["OTEL_EXPORTER_OTLP_ENDPOINT=https://otel.internal:4317", "OTEL_SERVICE_NAME={word}-svc",
                    "OTEL_TRACES_SAMPLER=parentbased_traceidratio", "OTEL_METRIC_EXPORT_INTERVAL={ms}"],
    "очереди": ["AMQP_URL=amqp://mq.internal:5672/%2F", "AMQP_HEARTBEAT_S={n}", "AMQP_CONFIRM=true",
                "CONSUMER_CONCURRENCY={n}"],
    "безопасность": ["SESSION_COOKIE_SECURE=true", "CSRF_TRUSTED_ORIGINS=https://app.example.org",
                     "PASSWORD_MIN_LENGTH={n}", "LOGIN_ATTEMPTS_MAX={n}"],
    "интеграции": ["PAYMENTS_GATEWAY_URL=https://pay.example.org/api", "PAYMENTS_TIMEOUT_MS={ms}",
                   "CRM_SYNC_INTERVAL_S={big}", "GEO_PROVIDER={word}"],
    "фоновые задачи": ["SCHEDULER_ENABLED=true", "SCHEDULER_TICK_S={n}", "JOB_MAX_RUNTIME_S={big}",
                       "JOB_RETRY_LIMIT={n}"],
}


def env_groups(rng: random.Random) -> list[str]:
    lines: list[str] = []
    for group in rng.sample(sorted(ENV_GROUPS), rng.randint(3, len(ENV_GROUPS))):
        lines += ["", f"# {group}"]
        lines += [v.format(n=rng.randint(2, 64), ms=rng.choice([250, 500, 1500, 3000]), big=rng.randint(100, 9000),
                           word=rng.choice(_WORDS)) for v in ENV_GROUPS[group]]
    return lines


INI_SECTIONS = {
    "http": ["bind = 0.0.0.0:{port}", "keepalive_s = {n}", "max_body_mb = {n}"],
    "logging": ["level = {level}", "format = json", "file = /var/log/worker/worker.log", "rotate_mb = {n}"],
    "retry": ["attempts = {n}", "backoff_ms = {ms}", "jitter = true"],
    "metrics": ["enabled = true", "port = {port}", "path = /metrics"],
    "database": ["dsn = postgresql://worker@pg.internal:5432/jobs", "pool_min = 1", "pool_max = {n}",
                 "statement_timeout_ms = {ms}"],
    "cache": ["backend = redis", "url = redis://cache.internal:6379/2", "ttl_s = {n}"],
    "smtp": ["server = smtp.internal", "port = 587", "starttls = yes"],
    "tracing": ["endpoint = https://otel.internal:4317", "sample_rate = 0.{n}"],
    "storage": ["bucket_prefix = worker-{n}", "region = ru-central1", "multipart_mb = {n}"],
}


def ini_sections(rng: random.Random) -> str:
    out = []
    for name in rng.sample(sorted(INI_SECTIONS), rng.randint(2, len(INI_SECTIONS))):
        keys = INI_SECTIONS[name]
        out.append(f"\n[{name}]\n" + "".join(k.format(n=rng.randint(2, 60), ms=rng.choice([200, 500, 1000]),
                                                    port=rng.choice([8081, 9090, 9102]),
                                                    level=rng.choice(["info", "warning", "debug"])) + "\n"
                                           for k in keys))
    return "".join(out)


_PY_DEPS = ["requests>=2.31", "pydantic>=2.5", "sqlalchemy>=2.0", "httpx>=0.26", "click>=8.1", "structlog>=24.1",
            "redis>=5.0", "boto3>=1.34", "jinja2>=3.1", "prometheus-client>=0.19", "tenacity>=8.2", "orjson>=3.9"]


def toml_sections(rng: random.Random) -> tuple[str, str]:
    """(lines for [project], tables after it)."""
    deps = rng.sample(_PY_DEPS, rng.randint(3, len(_PY_DEPS)))
    project = ("requires-python = \">=3.11\"\ndependencies = [\n" + "".join(f"    \"{d}\",\n" for d in deps) + "]\n")
    tables = [
        "[project.optional-dependencies]\ndev = [\"pytest>=8\", \"ruff>=0.4\", \"mypy>=1.9\"]\n",
        f"[tool.ruff]\nline-length = {rng.choice([100, 110, 120])}\ntarget-version = \"py311\"\n",
        "[tool.ruff.lint]\nselect = [\"E\", \"F\", \"I\", \"B\", \"UP\"]\n",
        "[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\naddopts = \"-q\"\n",
        f"[tool.mypy]\nstrict = {rng.choice(['true', 'false'])}\nwarn_unused_ignores = true\n",
        "[tool.coverage.run]\nbranch = true\nsource = [\"src\"]\n",
        "[build-system]\nrequires = [\"setuptools>=68\", \"wheel\"]\nbuild-backend = \"setuptools.build_meta\"\n",
    ]
    chosen = rng.sample(tables, rng.randint(2, len(tables)))
    return project, "".join(f"\n{t}" for t in chosen)


_PLUGINS = [("maven-compiler-plugin", "3.11.0", "<release>17</release>"),
            ("maven-surefire-plugin", "3.2.5", "<skipTests>false</skipTests>"),
            ("jacoco-maven-plugin", "0.8.11", "<haltOnFailure>true</haltOnFailure>"),
            ("spotbugs-maven-plugin", "4.8.3.0", "<effort>Max</effort>"),
            ("maven-shade-plugin", "3.5.1", "<createDependencyReducedPom>false</createDependencyReducedPom>"),
            ("maven-enforcer-plugin", "3.4.1", "<fail>true</fail>")]


def pom_build(rng: random.Random) -> tuple[str, str]:
    """(a <properties> block, a <build> block) for a pom."""
    properties = ("  <properties>\n    <java.version>17</java.version>\n"
                  "    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>\n"
                  f"    <maven.build.timestamp.format>{rng.choice(['yyyyMMdd', 'yyyy-MM-dd'])}</maven.build.timestamp.format>\n"
                  "  </properties>\n")
    plugins = rng.sample(_PLUGINS, rng.randint(1, len(_PLUGINS)))
    build = ("  <build>\n    <plugins>\n" + "".join(
        f"      <plugin>\n        <groupId>org.apache.maven.plugins</groupId>\n        <artifactId>{a}</artifactId>\n"
        f"        <version>{v}</version>\n        <configuration>\n          {c}\n        </configuration>\n"
        "      </plugin>\n" for a, v, c in plugins) + "    </plugins>\n  </build>\n")
    return properties, build


def sql_after(rng: random.Random, table: str, columns: list[str]) -> str:
    """What a migration does after creating its table: indexes, comments, grants, a note on rollback."""
    names = [c.split()[0] for c in columns]
    out = [f"CREATE INDEX {table}_{n}_idx ON {table} ({n});\n" for n in rng.sample(names, rng.randint(1, len(names)))]
    out += [f"COMMENT ON COLUMN {table}.{n} IS '{rng.choice(['заполняется сервисом', 'из внешней системы', 'см. ADR-12'])}';\n"
            for n in rng.sample(names, rng.randint(0, len(names)))]
    out += [f"GRANT SELECT ON {table} TO {role};\n" for role in rng.sample(["analytics", "readonly", "support"],
                                                                           rng.randint(0, 3))]
    return "".join(out) + f"-- откат: DROP TABLE {table};\n"


# what a chart's maintainers write above its top-level keys (Helm charts document their values so)
YAML_DOCS = {
    "namespace": "Пространство имён, в которое ставится релиз.",
    "deployment": "Имя Deployment; по нему сервис находят мониторинг и алерты.",
    "replicas": "Число подов. При включённом autoscaling это стартовое значение.",
    "image": "Образ контейнера: реестр, репозиторий и тег. Тег latest не используем.",
    "resources": "Запросы ресурсов контейнера. Лимиты задаёт политика пространства имён.",
    "client": "Настройки исходящих вызовов сервиса.",
    "env": "Переменные окружения контейнера. Секреты сюда не кладём: для них есть secrets.",
    "service": "Service, через который под доступен внутри кластера.",
    "livenessProbe": "Проверка живости: при провале под перезапускается.",
    "readinessProbe": "Проверка готовности: пока она не пройдёт, трафик на под не идёт.",
    "ingress": "Внешний доступ через ingress-nginx и сертификат от cert-manager.",
    "autoscaling": "Горизонтальное масштабирование по загрузке процессора.",
    "nodeSelector": "Пул узлов, на котором разрешено запускать поды.",
    "tolerations": "Допуски к выделенным узлам.",
    "volumes": "Тома пода: временный кеш на диске узла.",
    "podAnnotations": "Аннотации подов: сбор метрик Prometheus.",
    "configMap": "Несекретные настройки, которые сервис читает при старте.",
    "securityContext": "Контекст безопасности: без root и с файловой системой только для чтения.",
    "podDisruptionBudget": "Сколько подов должно оставаться при плановом обслуживании узлов.",
    "serviceMonitor": "Сбор метрик оператором Prometheus.",
    "affinity": "Размещение подов: по возможности на разных узлах или зонах.",
    "cronJobs": "Периодические задачи сервиса, запускаются отдельными подами.",
    "networkPolicy": "Из каких пространств имён разрешён входящий трафик.",
    "initContainers": "Контейнеры, которые отрабатывают до старта основного: миграции схемы.",
    "persistence": "Постоянный том для данных сервиса.",
    "featureToggles": "Флаги функций, которые сервис читает при старте; переключаются без выкладки.",
}


def documented(text: str, prefix: str, docs: dict[str, str]) -> str:
    """The text with a comment above each top-level key the docs describe, and a rule before it
    (how documented charts and configs read)."""
    out = []
    for line in text.split("\n"):
        key = line.split(":", 1)[0].split("=", 1)[0].strip()
        if line[:1].isalpha() and key in docs:
            out += ["", f"{prefix} {key}", f"{prefix} {docs[key]}"]
        out.append(line)
    return "\n".join(out).lstrip("\n")


# what a change to a working file was: a setting or a part of the file (its gender for the verb),
# what was done to it, and now and then why
_QUANTITIES = [("таймаут подключения к базе", "m"), ("лимит пула соединений", "m"), ("интервал сбора метрик", "m"),
               ("размер пачки при выгрузке", "m"), ("таймаут исходящих запросов", "m"), ("лимит запросов в секунду", "m"),
               ("срок хранения временных файлов", "m"), ("порог алерта по задержке", "m"),
               ("квота на память", "f"), ("предельная глубина очереди задач", "f"), ("пауза между повторами", "f"),
               ("доля трассируемых запросов", "f"), ("время жизни кеша", "n"), ("время жизни сессии", "n"),
               ("число воркеров", "n"), ("число соединений на хост", "n")]
# a part of the file with the changes that make sense for it (indices into _PART_VERBS)
_PARTS = [("блок с настройками кеша", "m", (0, 1, 3, 4, 6)), ("уровень логирования для отладки", "m", (0, 1, 5)),
          ("формат логов", "m", (5, 7)), ("адрес сборщика трасс", "m", (5, 7)), ("ключ интеграции с CRM", "m", (0, 1, 2)),
          ("раздел про почту", "m", (0, 1, 3, 4)), ("пример конфигурации в комментарии", "m", (0, 1, 7)),
          ("секция с очередями", "f", (0, 1, 2, 3, 4)), ("проверка готовности", "f", (0, 5, 6)),
          ("политика повторов", "f", (0, 5, 6, 7)), ("ротация логов", "f", (0, 5, 6)),
          ("зависимость от старого клиента", "f", (1,)), ("настройка часового пояса", "f", (0, 5, 7)),
          ("секция с метриками", "f", (0, 3, 6)), ("проверка сертификата", "f", (0, 6)),
          ("значение по умолчанию для региона", "n", (0, 5, 7)), ("расписание фоновых задач", "n", (3, 5, 7)),
          ("имя бакета для артефактов", "n", (5, 7)), ("подключение к резервной базе", "n", (0, 1, 6)),
          ("переменные для стейджинга", "p", (0, 1, 2, 3)), ("комментарии к секциям", "p", (0, 5)),
          ("настройки трассировки", "p", (0, 3, 4, 6)), ("параметры пула соединений", "p", (3, 5, 7)),
          ("флаги экспериментов", "p", (0, 1, 6)), ("ключи доступа к хранилищу", "p", (2, 3)),
          ("настройки прокси", "p", (0, 1, 7))]
_QUANTITY_VERBS = [("увеличен", "увеличена", "увеличено", "увеличены"), ("уменьшен", "уменьшена", "уменьшено", "уменьшены"),
                   ("поднят", "поднята", "поднято", "подняты"), ("снижен", "снижена", "снижено", "снижены"),
                   ("возвращён прежний", "возвращена прежняя", "возвращено прежнее", "возвращены прежние")]
_PART_VERBS = [("добавлен", "добавлена", "добавлено", "добавлены"), ("убран", "убрана", "убрано", "убраны"),
               ("переименован", "переименована", "переименовано", "переименованы"),
               ("вынесен в отдельный файл", "вынесена в отдельный файл", "вынесено в отдельный файл",
                "вынесены в отдельный файл"),
               ("перенесён из старого репозитория", "перенесена из старого репозитория",
                "перенесено из старого репозитория", "перенесены из старого репозитория"),
               ("поправлен", "поправлена", "поправлено", "поправлены"),
               ("временно отключён", "временно отключена", "временно отключено", "временно отключены"),
               ("изменён", "изменена", "изменено", "изменены")]
_WHY = ["после нагрузочного теста", "по итогам ретро", "по ревью", "для нового региона", "по просьбе команды данных",
        "временно, до переезда хранилища", "согласовано с безопасностью", "чтобы не упираться в квоту",
        "после разбора инцидента", "по замечанию дежурных", "под новую версию библиотеки", "как в соседнем сервисе",
        "по результатам профилирования", "иначе падали ночные задачи"]
_STANDALONE = ["первая версия файла", "порядок ключей как в шаблоне", "удалён дубль", "исправлена опечатка в имени ключа",
               "мелкие правки форматирования", "откат предыдущей правки", "синхронизировано с шаблоном",
               "обновлены комментарии", "подготовка к обновлению зависимостей", "обновлено под новую схему",
               "убраны неиспользуемые ключи", "добавлен комментарий про единицы", "слияние правок из двух веток"]
_GENDER = {"m": 0, "f": 1, "n": 2, "p": 3}
_LOGINS = ["a.ivanova", "d.petrov", "e.smirnova", "i.kuznetsov", "o.popova", "s.sokolov", "m.lebedeva", "k.volkov",
           "n.morozova", "p.novikov"]
CHANGE_LAYOUTS = ("dated", "newest_first", "releases", "tickets")


def _change(rng: random.Random, verb_first: float) -> str:
    """One change, as people write it: what was done to which setting (the verb first, or after
    the setting and a colon), and sometimes why."""
    if rng.random() < 0.15:
        return rng.choice(_STANDALONE)
    if rng.random() < 0.45:
        thing, gender = rng.choice(_QUANTITIES)
        verb, reasoned = rng.choice(_QUANTITY_VERBS)[_GENDER[gender]], True
    else:
        thing, gender, done = rng.choice(_PARTS)
        how = rng.choice(done)
        # a reason comes with adding, removing or disabling a part, not with a fix or a rename
        verb, reasoned = _PART_VERBS[how][_GENDER[gender]], how in (0, 1, 6)
    if rng.random() >= verb_first:
        return f"{thing}: {verb}"
    return f"{verb} {thing}, {rng.choice(_WHY)}" if reasoned and rng.random() < 0.5 else f"{verb} {thing}"


def change_notes(rng: random.Random, prefix: str, suffix: str = "") -> str:
    """A header of change notes, as files edited by many hands keep them: none to a couple of
    hundred lines, in one of four layouts (dated lines oldest first; dated lines newest first; a
    release per heading with its changes under it; a ticket key per change), entries not repeated
    (comments every reader skips)."""
    count = int(rng.triangular(0, 200, 100))
    if not count:
        return ""
    layout = rng.choice(CHANGE_LAYOUTS)
    # as many characters as a log of that many short dated lines: longer entries, fewer of them
    budget = count * (48 + len(prefix) + len(suffix))
    overhead = {"dated": 26, "newest_first": 28, "releases": 14, "tickets": 36}[layout] + len(prefix) + len(suffix)
    changes: list[str] = []
    verb_first, capital = rng.choice((1.0, 0.8, 0.5)), rng.random() < 0.4  # each file's hands write alike
    used = 0
    for _ in range(count * 4):  # distinct entries, as a real log's are
        change = _change(rng, verb_first)
        change = change[0].upper() + change[1:] if capital else change
        if change not in changes:
            changes.append(change)
            used += len(change) + overhead
        if used >= budget:
            break
    day = rng.randint(0, 100)
    dates = []
    for _ in changes:
        day += rng.randint(1, 9)
        dates.append((2024 + day // 336, day // 28 % 12 + 1, day % 28 + 1))
    who = [rng.choice(_LOGINS) for _ in changes]
    if layout == "dated":
        lines = [rng.choice(["Изменения (новые внизу):", "История изменений:", "Changelog (по возрастанию даты)"])]
        lines += [f"{y}-{m:02d}-{d:02d} {login}: {change}" for (y, m, d), login, change in zip(dates, who, changes, strict=True)]
    elif layout == "newest_first":
        lines = [rng.choice(["История правок (свежие сверху)", "Что менялось, последние правки первыми:"]), ""]
        lines += [f"{d:02d}.{m:02d}.{y} — {change} ({login})"
                  for (y, m, d), login, change in reversed(list(zip(dates, who, changes, strict=True)))]
    elif layout == "releases":
        lines = ["CHANGELOG"]
        minor, patch, at = rng.randint(0, 9), 0, 0
        releases = []
        while at < len(changes):
            size = rng.randint(1, 6)
            releases.append((f"1.{minor}.{patch}", dates[min(at + size, len(changes)) - 1], changes[at:at + size]))
            at += size
            minor, patch = (minor + 1, 0) if rng.random() < 0.3 else (minor, patch + 1)
        for version, (y, m, d), items in reversed(releases):
            lines += ["", f"{version} ({y}-{m:02d}-{d:02d})"] + [f"  - {item}" for item in items]
    else:
        project = rng.choice(["INFRA", "PLAT", "SRE"])
        number = rng.randint(100, 4000)
        lines = [rng.choice(["Журнал изменений (задача — что сделано):", "Правки по задачам, по порядку:"])]
        for (y, m, d), login, change in zip(dates, who, changes, strict=True):
            number += rng.randint(1, 40)
            lines.append(f"{project}-{number} [{y}-{m:02d}-{d:02d}, {login}] {change}")
    return "\n".join(f"{prefix} {line}{suffix}".rstrip() if line else prefix + suffix for line in lines) + "\n\n"
