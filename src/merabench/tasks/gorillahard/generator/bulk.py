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


def _ident(rng: random.Random) -> str:
    return f"{rng.choice(_WORDS)}_{rng.choice(_SETTINGS)}"


def _yaml_config_map(rng: random.Random) -> str:
    # a config map as long as services keep them: a few keys to a couple of hundred
    keys = sorted({_ident(rng).upper() for _ in range(int(rng.triangular(4, 260, 60)))})
    values = ['"true"', '"false"', f'"{rng.randint(1, 500)}"', '"strict"', '"lenient"', '"https://hooks.example.org"']
    return "configMap:\n  data:\n" + "".join(f"    {k}: {rng.choice(values)}\n" for k in keys)


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


_NOTES = ["поднят лимит после нагрузочного теста", "вынесено в отдельную секцию", "убраны неиспользуемые ключи",
          "значение согласовано с владельцами сервиса", "добавлено для нового региона", "переименовано по ревью",
          "временно, до переезда хранилища", "вернули прежнее значение после инцидента", "по итогам ретро",
          "добавлен комментарий про единицы", "согласовано с безопасностью", "снижено, чтобы не упираться в квоту",
          "включено для стейджинга, в проде пока нет", "перенесено из старого репозитория", "уточнены таймауты",
          "порядок ключей как в шаблоне", "удалён дубль", "добавлены метрики", "отключено: мешало отладке",
          "исправлена опечатка в имени", "подготовка к обновлению зависимостей", "обновлено под новую схему"]


def change_notes(rng: random.Random, prefix: str, suffix: str = "") -> str:
    """A header of dated change notes, as files edited by many hands keep them: none to several
    dozen, oldest first (comments every reader skips)."""
    count = int(rng.triangular(0, 200, 100))
    if not count:
        return ""
    logins = ["a.ivanova", "d.petrov", "e.smirnova", "i.kuznetsov", "o.popova", "s.sokolov", "m.lebedeva"]
    day = rng.randint(0, 100)
    lines = [f"{prefix} Изменения (новые внизу):{suffix}"]
    for _ in range(count):
        day += rng.randint(1, 9)
        lines.append(f"{prefix} 20{24 + day // 336}-{day // 28 % 12 + 1:02d}-{day % 28 + 1:02d} {rng.choice(logins)}: "
                     f"{rng.choice(_NOTES)}{suffix}")
    return "\n".join(lines) + "\n\n"
