"""How a question tells which of two attached files of one kind it means, by what the file holds
or is about, drawn per row from many criteria: a count compared across both files (more ERROR
records after a given time, a larger total), a threshold stated in the question's own units (a
client that waits longer than two seconds), a fact the file shows said in other words than the
file's (the log where the service could not reach its database, beside one whose database lines
are healthy pool reports), the file that lacks such a fact, a newer version or a later date read
inside the files, and a join across the two (the ticket whose author wrote in the other's thread).

Here are the criteria of each kind of file, with their wordings, and how a set and a row draw
from them; a criterion's `fits` re-reads the written files (with `contents.py`'s readers) and
returns those the recorded clause fits, which the validator requires to be exactly the one acted
on, and its `wordings` are the clauses a recorded criterion and its parameters may be said with,
so a row's clause is checked against what it records (the kinds of criterion: `criterion.py`).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from merabench.tasks.gorillahard.generator.corpus.code import POM_LINES
from merabench.tasks.gorillahard.generator.corpus.common import NAMESPACES
from merabench.tasks.gorillahard.generator.families import formats
from merabench.tasks.gorillahard.generator.families.common import split_table
from merabench.tasks.gorillahard.generator.families.contents import (
    as_number,
    audio_minutes,
    column_mean,
    column_sum,
    docker_traits,
    enabled,
    errors_between,
    healthcheck_interval,
    host_lines,
    host_roles,
    hosts_updated,
    image_version,
    invoice_amounts,
    json_doc,
    log_events,
    log_records,
    maintenance,
    mebibytes,
    python_functions,
    python_timeout,
    python_uses,
    release,
    table_topics,
    ticket_author_name,
    ticket_commenters,
    ticket_month,
    ticket_opened,
    ticket_topics,
    trace_records,
    trace_route,
    weather_months,
    yaml_env,
    yaml_key,
)
from merabench.tasks.gorillahard.generator.families.criterion import (
    Compare,
    Criterion,
    Holds,
    Joined,
    Params,
    Threshold,
)
from merabench.tasks.gorillahard.generator.wording import surface
from merabench.tasks.gorillahard.generator.wording.numerals import count


def _clock(seconds: int) -> str:
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}"


def _draw_time(rng: random.Random, a: str, b: str) -> Params | None:
    """A whole minute of the day that splits the two logs' ERROR records unevenly, on neither
    side of which a record falls within the minute (so no record is on the line)."""
    stamps = [t for text in (a, b) for _, t, level, _ in log_records(text) if level == "ERROR"]
    if not stamps:
        return None
    candidates = sorted({(t // 60 + 1) * 60 for t in stamps} | {(t // 60) * 60 for t in stamps})
    rng.shuffle(candidates)
    busy = {t // 60 for text in (a, b) for _, t, _, _ in log_records(text)}
    for minute in candidates:
        if minute // 60 in busy:
            continue
        side = rng.choice(("after", "before"))
        span = (minute, 86_400) if side == "after" else (0, minute)
        if errors_between(a, *span) != errors_between(b, *span):
            return {"at": minute, "side": side}
    return None


def _draw_shared(rng: random.Random, a: str, b: str) -> Params | None:
    mine, theirs = formats.pom_dependencies(a), formats.pom_dependencies(b)
    shared = sorted(x for x in set(mine) & set(theirs) if release(mine[x]) != release(theirs[x]))
    return {"artifact": rng.choice(shared)} if shared else None


def _errors_in(text: str, params: Params) -> float:
    span = (params["at"], 86_400) if params["side"] == "after" else (0, params["at"])
    return float(errors_between(text, *span))


def _time_shown(params: Params) -> Params:
    return {"when": ("после " if params["side"] == "after" else "до ") + _clock(int(params["at"]))}


def _log_extent(text: str, params: Params) -> tuple[float, ...]:
    """What a count of a log's records is taken over: its records and the minutes from its first
    stamp to its last (within the question's window, where it names one)."""
    low, high = (0, 86_400) if "at" not in params else \
        (params["at"], 86_400) if params["side"] == "after" else (0, params["at"])
    stamps = [t for _, t, _, _ in log_records(text) if low <= t < high]
    if not stamps:
        return (0.0, 0.0)
    return (float(len(stamps)), (max(stamps) - min(stamps)) / 60)


def _traces_taken(text: str, params: Params) -> tuple[float, ...]:
    return (float(len(trace_records(text))),)


def _code_lines(text: str, params: Params) -> float:
    """A module's lines of code: neither blank nor a comment (a changelog header is not code)."""
    return float(sum(1 for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")))


def _log_day(text: str, params: Params) -> float | None:
    days = {date for date, *_ in log_records(text)}
    return float(min(days).replace("-", "")) if len(days) == 1 else None


def _events_of_kind(test: Callable[[str, str], bool]) -> Callable[[str, Params], float]:
    return lambda text, params: float(sum(1 for _, _, level, msg in log_records(text) if test(level, msg)))


def _seconds(n: int) -> str:
    return count(n, "секунда", "gent")


def _minutes(n: int) -> str:
    return count(n, "минута", "gent")


def _rubles(n: int) -> str:
    return f"{n:,}".replace(",", " ") + " ₽"


def _more_fewer(noun: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return ((f"где {noun} больше", f"в котором {noun} больше"), (f"где {noun} меньше", f"в котором {noun} меньше"))


_EVENT_SAYS = {
    "db_refused": ("где сервис не мог подключиться к базе данных", "в котором видно, что база отказывала в соединении",
                   "где приложение не достучалось до базы"),
    "upstream_timeout": ("где внешний сервис не ответил вовремя", "в котором видны таймауты при обращении к внешнему сервису"),
    "disk_full": ("где предупреждали, что диск почти заполнен", "в котором видно, что место на диске кончается"),
    "oom": ("где задачу убили из-за нехватки памяти", "в котором фоновой задаче не хватило памяти"),
    "rate_limited": ("где сервису отвечали, что запросов слишком много", "в котором видно, что сервис упирался в лимит запросов"),
    "failed_download": ("где не удалась загрузка файла", "в котором видно, что файл не скачался"),
    "traceback": ("где есть трассировка стека", "в котором ошибка записана вместе со стеком вызовов"),
}
_EVENT_LACKS = {
    "db_refused": ("где с подключением к базе всё в порядке", "в котором нет отказов соединения с базой",
                   "где база ни разу не отказала в соединении"),
    "upstream_timeout": ("где внешний сервис ни разу не подвёл по времени", "в котором нет таймаутов внешнего сервиса"),
    "oom": ("где памяти всем хватало", "в котором никого не убивали из-за памяти"),
    "traceback": ("где нет ни одной трассировки стека", "в котором ошибки записаны без стека вызовов"),
    "disk_full": ("где на место на диске никто не жаловался", "в котором нет предупреждений про диск"),
}
_FEATURES = {"search": "поиск", "cart": "корзина", "promo": "промокоды", "reviews": "отзывы",
             "wishlist": "список желаний", "gift-cards": "подарочные карты"}
_FUNCTION_SAYS = {
    "notify": ("где модуль умеет слать уведомления в чат", "где есть отправка сообщений в чат"),
    "parse_date": ("где модуль разбирает даты из строк", "где есть разбор дат"),
    "to_cents": ("где модуль переводит суммы в копейки", "где рубли пересчитываются в копейки"),
    "paginate": ("где модуль листает постраничную выдачу", "где запросы идут по страницам"),
    "retry": ("где модуль повторяет неудачные вызовы", "где есть повтор упавшей операции"),
    "save_report": ("где модуль сохраняет отчёт в файл", "где отчёт пишется на диск"),
    "load_config": ("где модуль читает настройки из файла", "где загружается конфигурация"),
    "chunked": ("где модуль режет список на пачки", "где элементы делятся на порции"),
    "build_headers": ("где модуль собирает заголовки запроса", "где формируются HTTP-заголовки"),
    "summarize": ("где модуль считает сводку по статусам", "где строки группируются по статусу"),
}
_HOST_SAYS = {
    "mail": ("где есть почтовый сервер",), "vpn": ("где есть шлюз VPN",), "git": ("где есть сервер Git",),
    "ci": ("где есть сервер сборок CI",), "grafana": ("где есть Grafana",), "docs": ("где есть сайт документации",),
    "cdn": ("где есть CDN",), "status": ("где есть страница статуса",), "metrics": ("где есть сервер метрик",),
    "auth": ("где есть сервис авторизации",), "shop": ("где есть магазин",),
}
_ARTIFACTS = tuple(POM_LINES)
_MONTHS = ("январь", "февраль", "март", "апрель", "май", "июнь", "июль", "август", "сентябрь", "октябрь",
           "ноябрь", "декабрь")


def _join_author_commented(mine: str, other: str) -> bool:
    author = ticket_author_name(mine)
    return author is not None and author in ticket_commenters(other)


CRITERIA: dict[str, dict[str, Criterion]] = {
    "app_log": {
        "log.errors": Compare("log.errors", lambda t, p: _events_of_kind(lambda lv, m: lv == "ERROR")(t, p),
                              ("где записей уровня ERROR больше", "в котором больше ошибок уровня ERROR"),
                              ("где записей уровня ERROR меньше", "в котором ошибок уровня ERROR меньше"),
                              per=_log_extent),
        "log.errors_window": Compare(
            "log.errors_window", _errors_in,
            ("где {when} больше записей ERROR", "в котором {when} ошибок уровня ERROR больше",
             "где {when} сервис чаще писал ERROR"),
            ("где {when} записей ERROR меньше", "в котором {when} ошибок уровня ERROR меньше",
             "где {when} сервис реже писал ERROR"),
            _draw_time, _time_shown, per=_log_extent),
        "log.slow": Compare("log.slow", _events_of_kind(lambda lv, m: lv == "WARN" and m.startswith("api: slow request")),
                            ("где медленных запросов больше", "в котором чаще жаловались на медленные запросы"),
                            ("где медленных запросов меньше", "в котором реже жаловались на медленные запросы"),
                            per=_log_extent),
        "log.day": Compare("log.day", _log_day,
                           ("где записи за более поздний день", "в котором даты записей позже"),
                           ("где записи за более ранний день", "в котором даты записей раньше")),
        "log.event": Holds("log.event", log_events, _EVENT_SAYS),
        "log.no_event": Holds("log.no_event", log_events, _EVENT_LACKS, lacks=True),
    },
    "deploy_yaml": {
        "yaml.replicas": Compare("yaml.replicas", lambda t, p: as_number(yaml_key(t, "replicas")), *_more_fewer("реплик")),
        "yaml.version": Compare("yaml.version",
                                lambda t, p: (lambda v: None if v is None else v[0] * 1e6 + v[1] * 1e3 + v[2])(image_version(t)),
                                ("где версия образа новее", "в котором образ более свежей версии"),
                                ("где версия образа более ранняя", "в котором образ более старой версии")),
        "yaml.memory": Compare("yaml.memory", lambda t, p: mebibytes(yaml_key(t, "resources", "memory")),
                               ("где сервису выделено больше памяти", "в котором лимит памяти выше"),
                               ("где сервису выделено меньше памяти", "в котором лимит памяти ниже")),
        "yaml.timeout": Threshold("yaml.timeout", lambda t: as_number(yaml_key(t, "client", "timeout_ms")),
                                  (1, 2, 3, 5, 10, 20), 1000, _seconds,
                                  ("где клиент ждёт ответа дольше {n}", "в котором таймаут клиента больше {n}"),
                                  ("где клиент ждёт ответа меньше {n}", "в котором таймаут клиента не дотягивает до {n}")),
        "yaml.retries": Compare("yaml.retries", lambda t, p: as_number(yaml_key(t, "client", "retries")),
                                ("где клиент делает больше повторов", "в котором повторных попыток больше"),
                                ("где клиент делает меньше повторов", "в котором повторных попыток меньше")),
        "yaml.ingress": Holds("yaml.ingress", lambda t: enabled(t, "ingress"), {
            "on": ("где ingress включён", "у которого сервис открыт наружу через ingress"),
            "off": ("где ingress выключен", "у которого сервис не выставлен наружу через ingress")}),
        "yaml.autoscaling": Holds("yaml.autoscaling", lambda t: enabled(t, "autoscaling"), {
            "on": ("где включено автоматическое масштабирование", "в котором число реплик растёт под нагрузкой само"),
            "off": ("где автоматическое масштабирование выключено", "в котором число реплик само не меняется")}),
        "yaml.debug": Holds("yaml.debug", lambda t: frozenset({yaml_env(t, "LOG_LEVEL") or ""}), {
            "debug": ("где включены подробные отладочные логи", "в котором сервис пишет отладочные логи"),
            "warn": ("где в лог пишутся только предупреждения и ошибки",)}),
        "yaml.namespace": Holds("yaml.namespace", lambda t: frozenset({yaml_key(t, "namespace") or ""}), {
            ns: (f"где пространство имён — {ns}", f"в котором сервис развёрнут в {ns}") for ns in NAMESPACES}),
    },
    "service_json": {
        "json.pool": Compare("json.pool", lambda t, p: as_number(json_doc(t).get("database", {}).get("pool")),
                             *_more_fewer("соединений в пуле базы")),
        "json.engine": Holds("json.engine", lambda t: frozenset(
            {"mysql" if json_doc(t).get("database", {}).get("port") == 3306 else "postgres"}), {
            "mysql": ("где база — MySQL", "в котором сервис работает с MySQL"),
            "postgres": ("где база — PostgreSQL", "в котором сервис работает с PostgreSQL")}),
        "json.feature": Holds("json.feature", lambda t: frozenset(json_doc(t).get("features", [])), {
            f: (f"где включена функция «{ru}»", f"в котором среди возможностей есть «{ru}»") for f, ru in _FEATURES.items()}),
        "json.endpoints": Compare("json.endpoints", lambda t, p: float(len(json_doc(t).get("endpoints", []))),
                                  ("где описано больше маршрутов", "в котором маршрутов API больше"),
                                  ("где описано меньше маршрутов", "в котором маршрутов API меньше")),
        "json.cache": Holds("json.cache", lambda t: frozenset({"cache" if "cache" in json_doc(t) else "nocache"}), {
            "cache": ("где настроен кеш", "в котором есть раздел про Redis-кеш"),
            "nocache": ("где кеш не настроен", "в котором нет раздела про кеш")}),
    },
    "dockerfile": {
        "docker.language": Holds("docker.language", docker_traits, {
            "golang": ("где сервис написан на Go", "в котором собирается приложение на Go"),
            "python": ("где сервис на Python", "в котором собирается приложение на Python"),
            "node": ("где сервис на Node.js", "в котором собирается приложение на Node.js"),
            "alpine": ("где образ построен на Alpine", "в котором базовый образ — из семейства Alpine")}),
        "docker.health": Compare("docker.health", lambda t, p: healthcheck_interval(t),
                                 ("где проверка здоровья идёт реже", "в котором healthcheck запускается реже"),
                                 ("где проверка здоровья идёт чаще", "в котором healthcheck запускается чаще")),
    },
    "pom": {
        "pom.dependency": Holds("pom.dependency", lambda t: frozenset(formats.pom_dependencies(t)), {
            a: (f"где среди зависимостей есть {a}", f"в котором подключён {a}") for a in _ARTIFACTS}),
        "pom.no_dependency": Holds("pom.no_dependency", lambda t: frozenset(formats.pom_dependencies(t)), {
            a: (f"где нет зависимости {a}", f"в котором {a} не подключён") for a in _ARTIFACTS}, lacks=True),
        "pom.newer": Compare("pom.newer", lambda t, p: (lambda v: None if v is None else release(v))(
            formats.pom_dependencies(t).get(p["artifact"])),
                             ("где {artifact} более новой версии", "в котором версия {artifact} выше"),
                             ("где {artifact} более старой версии", "в котором версия {artifact} ниже"),
                             _draw_shared),
    },
    "worker_ini": {
        "ini.prefetch": Compare("ini.prefetch", lambda t, p: as_number(formats.ini_value(t, "queue", "prefetch")),
                                *_more_fewer("prefetch у очереди")),
        "ini.max_jobs": Compare("ini.max_jobs", lambda t, p: as_number(formats.ini_value(t, "limits", "max_jobs")),
                                ("где воркер берёт больше задач одновременно", "в котором лимит параллельных задач выше"),
                                ("где воркер берёт меньше задач одновременно", "в котором лимит параллельных задач ниже")),
        "ini.purpose": Holds("ini.purpose", lambda t: frozenset({(formats.ini_value(t, "queue", "name") or "").split("-")[0]}), {
            "orders": ("где воркер разбирает заказы", "в котором очередь — с заказами"),
            "emails": ("где воркер рассылает письма", "в котором очередь — с письмами"),
            "reports": ("где воркер готовит отчёты", "в котором очередь — с отчётами"),
            "payments": ("где воркер проводит платежи", "в котором очередь — с платежами")}),
    },
    "hosts_txt": {
        "hosts.count": Compare("hosts.count", lambda t, p: float(len(host_lines(t))), *_more_fewer("хостов")),
        "hosts.updated": Compare("hosts.updated", lambda t, p: hosts_updated(t),
                                 ("где список обновляли позже", "в котором дата обновления свежее"),
                                 ("где список обновляли раньше", "в котором дата обновления более ранняя")),
        "hosts.role": Holds("hosts.role", host_roles, _HOST_SAYS),
        "hosts.zone": Compare("hosts.zone", lambda t, p: float(sum(h.endswith("." + p["zone"]) for h in host_lines(t))),
                              ("где больше хостов в зоне {zone}", "в котором в зоне {zone} хостов больше"),
                              ("где меньше хостов в зоне {zone}", "в котором в зоне {zone} хостов меньше"),
                              lambda rng, a, b: {"zone": rng.choice(["example.org", "example.com", "example.net"])}),
    },
    "ticket": {
        "ticket.comments": Compare("ticket.comments", lambda t, p: float(formats.ticket_comments(t)),
                                   *_more_fewer("комментариев в обсуждении")),
        "ticket.opened": Compare("ticket.opened", lambda t, p: ticket_opened(t),
                                 ("где задачу завели позже", "в котором задача создана позже"),
                                 ("где задачу завели раньше", "в котором задача создана раньше")),
        "ticket.month": Holds("ticket.month", ticket_month, {
            f"{i:02d}": (f"где задача про выгрузку за {m}", f"в котором речь о заказах за {m}") for i, m in enumerate(_MONTHS, 1)}),
        "ticket.author": Holds("ticket.author", lambda t: frozenset({ticket_author_name(t) or ""}), {
            p: (f"где задачу {'завела' if p.endswith('а') else 'завёл'} {p}", f"в котором автор задачи — {p}") for p in
            ("Иванова", "Петров", "Смирнова", "Кузнецов", "Попова", "Соколов", "Лебедева", "Новиков", "Морозова",
             "Волков")}),
        "ticket.topic": Holds("ticket.topic", ticket_topics, {
            "priority_high": ("где приоритет задачи поднимали до высокого", "в котором задачу пометили как срочную"),
            "reassigned": ("где исполнителя меняли из-за отпуска", "в котором задачу забрали себе на время отпуска"),
            "bom": ("где в обсуждении вспоминали про BOM", "в котором предупреждали про BOM в начале выгрузки"),
            "storage_moved": ("где выгрузку переносили в новое хранилище", "в котором файл выгрузки переехал в другое хранилище"),
            "dashboard": ("где в обсуждении дали ссылку на дашборд", "в котором есть ссылка на дашборд с динамикой"),
            "timeouts_before": ("где вспоминали, что выгрузка падала по таймауту",
                                "в котором писали о прошлых падениях выгрузки")}),
        "ticket.no_topic": Holds("ticket.no_topic", ticket_topics, {
            "priority_high": ("где приоритет задачи до высокого не поднимали", "в котором задачу срочной не помечали"),
            "bom": ("где про BOM в обсуждении не говорили", "в котором ни слова про BOM"),
            "dashboard": ("где ссылки на дашборд нет", "в котором никто не давал ссылку на дашборд")}, lacks=True),
        "ticket.join": Joined("ticket.join", _join_author_commented, (
            "где автор задачи сам писал в обсуждении другой задачи из вложений",
            "в котором автор задачи отметился в комментариях к другой задаче из вложений")),
    },
    "table": {
        "table.rows": Compare("table.rows", lambda t, p: float(len(split_table(t)[1])), *_more_fewer("строк данных")),
        "table.topic": Holds("table.topic", table_topics, {
            "weather": ("где записаны замеры погоды", "в котором есть столбец с влажностью"),
            "staff": ("где данные по сотрудникам", "в котором указаны зарплаты"),
            "sales": ("где записаны продажи", "в котором есть суммы продаж"),
            "servers": ("где перечислены серверы", "в котором видна загрузка процессоров")}),
        "table.sales_total": Compare("table.sales_total", lambda t, p: column_sum(t, "amount_rub"),
                                     ("где общая сумма продаж больше", "в котором продаж на большую сумму"),
                                     ("где общая сумма продаж меньше", "в котором продаж на меньшую сумму")),
        "table.colder": Compare("table.colder", lambda t, p: column_mean(t, "temp_c"),
                                ("где в среднем теплее", "в котором средняя температура выше"),
                                ("где в среднем холоднее", "в котором средняя температура ниже")),
        "table.month": Holds("table.month", lambda t: (lambda ms: ms if len(ms) == 1 else frozenset())(weather_months(t)), {
            f"{i:02d}": (f"где погода за {m}", f"в котором замеры за {m}") for i, m in enumerate(_MONTHS, 1)}),
        "table.maintenance": Holds("table.maintenance", maintenance, {
            "maintenance": ("где есть серверы на обслуживании", "в котором часть серверов выведена на обслуживание"),
            "none": ("где ни один сервер не на обслуживании", "в котором все серверы в работе")}, both=True),
    },
    "invoices": {
        "invoices.count": Compare("invoices.count", lambda t, p: float(len(invoice_amounts(t))), *_more_fewer("счетов")),
        "invoices.total": Compare("invoices.total", lambda t, p: float(sum(invoice_amounts(t))),
                                  ("где общая сумма счетов больше", "в котором счета выставлены на большую сумму"),
                                  ("где общая сумма счетов меньше", "в котором счета выставлены на меньшую сумму")),
        "invoices.largest": Threshold("invoices.largest", lambda t: max(invoice_amounts(t), default=None),
                                      (3000, 5000, 8000, 10000, 15000), 1, _rubles,
                                      ("где есть счёт больше {n}", "в котором хотя бы один счёт дороже {n}"),
                                      ("где все счета меньше {n}", "в котором ни один счёт не дотягивает до {n}")),
    },
    "env": {
        "env.variables": Compare("env.variables", lambda t, p: float(formats.env_variables(t)),  # a name once
                                 *_more_fewer("переменных")),
        "env.environment": Holds("env.environment", lambda t: frozenset({formats.assignment(t, "APP_ENV") or ""}), {
            "production": ("где настройки боевого окружения", "в котором окружение — production"),
            "staging": ("где настройки тестового стенда", "в котором окружение — staging")}),
        "env.bouncer": Holds("env.bouncer", lambda t: frozenset({"bouncer" if formats.assignment(t, "DB_PORT") == "6432" else "direct"}), {
            "bouncer": ("где база подключена через pgbouncer (порт 6432)",),
            "direct": ("где к базе ходят напрямую, на порт 5432",)}),
        "env.cache_ttl": Compare("env.cache_ttl", lambda t, p: as_number(formats.assignment(t, "CACHE_TTL_S")),
                                 ("где кеш живёт дольше", "в котором TTL кеша больше"),
                                 ("где кеш живёт меньше", "в котором TTL кеша меньше")),
    },
    "events_jsonl": {
        "traces.count": Compare("traces.count", lambda t, p: float(len(trace_records(t))), *_more_fewer("трасс")),
        "traces.route": Compare("traces.route", lambda t, p: float(sum(trace_route(r) == p["route"] for r in
                                                                       trace_records(t))),
                                ("где больше запросов к {route}", "в котором к {route} обращались чаще"),
                                ("где меньше запросов к {route}", "в котором к {route} обращались реже"),
                                lambda rng, a, b: {"route": rng.choice(["/orders", "/cart", "/pay"])},
                                per=_traces_taken),
    },
    "python": {
        "python.lines": Compare("python.lines", lambda t, p: float(len(t.splitlines())),
                                ("где модуль длиннее", "в котором строк больше"),
                                ("где модуль короче", "в котором строк меньше"),
                                also=(_code_lines, lambda t, p: float(len(t)))),
        "python.function": Holds("python.function", python_functions, _FUNCTION_SAYS),
        "python.functions": Compare("python.functions", lambda t, p: float(len(python_functions(t))),
                                    *_more_fewer("функций")),
        "python.timeout": Threshold("python.timeout", python_timeout, (7, 10, 12, 20), 1, _seconds,
                                    ("где таймаут запросов больше {n}", "в котором ответа на запрос ждут дольше {n}"),
                                    ("где таймаут запросов меньше {n}", "в котором ответа на запрос ждут меньше {n}")),
        "python.requests": Holds("python.requests", python_uses, {
            "requests": ("где модуль ходит в сеть через requests", "в котором HTTP-запросы идут через библиотеку requests"),
            "stdlib": ("где модуль обходится без requests", "в котором нет зависимости от requests")}),
    },
    "audio": {
        "audio.length": Compare("audio.length", lambda t, p: audio_minutes(t),
                                ("где запись длиннее", "в котором запись дольше"),
                                ("где запись короче", "в котором запись короче")),
        "audio.threshold": Threshold("audio.threshold", audio_minutes, (15, 20, 30, 45, 60), 1, _minutes,
                                     ("где запись дольше {n}", "в котором запись идёт больше {n}"),
                                     ("где запись короче {n}", "в котором запись не дотягивает до {n}")),
    },
}


# More ways to say each criterion, in words of their own (a synonym, not the same stem), so one
# set's clauses show only some of them: a rule keyed on the words of one set misses the rest.
WIDER: dict[str, dict[str, tuple[str, ...]]] = {
    "log.errors": {"more": ("где сервис чаще падал с ошибками", "в котором ошибок набралось больше"),
                   "fewer": ("где сервис реже сбоил", "в котором ошибок набралось меньше")},
    "log.errors_window": {"more": ("в котором {when} сбоев случилось больше",),
                          "fewer": ("в котором {when} сбоев случилось меньше",)},
    "log.slow": {"more": ("где чаще отвечали с большой задержкой", "в котором больше тормозящих запросов"),
                 "fewer": ("где реже отвечали с большой задержкой", "в котором тормозящих запросов меньше")},
    "log.day": {"more": ("где журнал более свежий", "в котором события случились позднее"),
                "fewer": ("где журнал более давний", "в котором события случились раньше")},
    "log.event": {
        "db_refused": ("где видно, что СУБД отвергала подключения", "в котором Postgres не пускал приложение"),
        "upstream_timeout": ("где соседний сервис не успевал ответить", "в котором вызовы наружу отваливались по времени"),
        "disk_full": ("где место на томе подходило к концу", "в котором хранилище сервера почти забито"),
        "oom": ("где процесс прибили за перерасход ОЗУ", "в котором случился OOM"),
        "rate_limited": ("где упирались в ограничение частоты (код 429)",),
        "failed_download": ("где выгрузку так и не удалось забрать по ссылке",),
        "traceback": ("где к ошибке приложена цепочка вызовов", "в котором видно, в какой строке кода упал вызов")},
    "log.no_event": {
        "db_refused": ("где СУБД ни разу не отвергла подключение", "в котором Postgres исправно пускал приложение"),
        "upstream_timeout": ("где соседний сервис всегда успевал ответить",),
        "oom": ("где OOM не случался", "в котором ОЗУ хватило всем процессам"),
        "traceback": ("где ошибки записаны одной строкой, без продолжения",),
        "disk_full": ("где место на томе не кончалось",)},
    "yaml.replicas": {"more": ("где запущено больше копий сервиса",), "fewer": ("где запущено меньше копий сервиса",)},
    "yaml.version": {"more": ("где тег сборки свежее", "в котором выкатывается более поздний релиз"),
                     "fewer": ("где тег сборки старее", "в котором выкатывается более ранний релиз")},
    "yaml.memory": {"more": ("где у контейнера выше потолок по RAM",), "fewer": ("где у контейнера ниже потолок по RAM",)},
    "yaml.timeout": {"over": ("где исходящий вызов может длиться дольше {n}",),
                     "under": ("где исходящий вызов обрывается раньше {n}",)},
    "yaml.retries": {"more": ("где неудачный вызов переспрашивают чаще",), "fewer": ("где неудачный вызов переспрашивают реже",)},
    "yaml.ingress": {"on": ("где у сервиса есть внешний адрес",), "off": ("где у сервиса нет внешнего адреса",)},
    "yaml.autoscaling": {"on": ("где работает HPA",), "off": ("где HPA отключён",)},
    "yaml.debug": {"debug": ("где уровень журнала — самый подробный",), "warn": ("где журнал пишет лишь тревожные события",)},
    "json.pool": {"more": ("где к базе держат больше открытых подключений",),
                  "fewer": ("где к базе держат меньше открытых подключений",)},
    "json.engine": {"mysql": ("где хранилище данных — «мускул»", "в котором база слушает порт 3306"),
                    "postgres": ("где хранилище данных — «постгрес»", "в котором база на порту Postgres")},
    "json.endpoints": {"more": ("где API шире по числу ручек",), "fewer": ("где API беднее по числу ручек",)},
    "json.cache": {"cache": ("где ответы кешируются в Redis",), "nocache": ("где Redis не используется",)},
    "docker.language": {"golang": ("где образ собирается компилятором Go",),
                        "python": ("где внутри интерпретатор Python",),
                        "node": ("где приложение запускается под Node",),
                        "alpine": ("где пакеты ставятся через apk",)},
    "docker.health": {"more": ("где живость проверяют с большим интервалом",),
                      "fewer": ("где живость проверяют с меньшим интервалом",)},
    "ini.max_jobs": {"more": ("где воркер выполняет больше задач разом",), "fewer": ("где воркер выполняет меньше задач разом",)},
    "ini.purpose": {"orders": ("где воркер обслуживает оформление покупок",),
                    "emails": ("где воркер занят почтовой рассылкой",),
                    "reports": ("где воркер формирует отчётность",),
                    "payments": ("где воркер занят оплатами",)},
    "hosts.updated": {"more": ("где правки вносили недавно",), "fewer": ("где правки вносили давно",)},
    "hosts.role": {"mail": ("где есть SMTP-сервер", "в котором есть узел для почты"),
                   "vpn": ("где есть точка удалённого доступа",), "git": ("где есть хостинг репозиториев",),
                   "ci": ("где есть сборочный сервер",), "grafana": ("где есть панели мониторинга",),
                   "docs": ("где есть база знаний",), "cdn": ("где есть сеть доставки контента",),
                   "status": ("где есть страничка состояния сервисов",), "metrics": ("где есть сбор метрик",),
                   "auth": ("где есть сервер входа",), "shop": ("где есть витрина интернет-магазина",)},
    "ticket.opened": {"more": ("где задача моложе", "в котором тикет появился позднее"),
                      "fewer": ("где задача старше", "в котором тикет появился раньше")},
    "ticket.comments": {"more": ("где переписка длиннее",), "fewer": ("где переписка короче",)},
    "ticket.topic": {
        "priority_high": ("где важность задачи повышали",),
        "reassigned": ("где ответственный уходил отдыхать",),
        "bom": ("где жаловались на невидимый символ в начале файла",),
        "storage_moved": ("где ссылку меняли после переезда файла",),
        "dashboard": ("где делились графиками по неделям",),
        "timeouts_before": ("где вспоминали сбой генерации на прошлой неделе",)},
    "ticket.no_topic": {"priority_high": ("где важность задачи не меняли",),
                        "bom": ("где о невидимом символе в начале файла не писали",),
                        "dashboard": ("где графиками по неделям не делились",)},
    "table.topic": {"weather": ("где собраны показания метеостанций",), "staff": ("где описан персонал",),
                    "sales": ("где учтена выручка",), "servers": ("где описан парк машин",)},
    "table.sales_total": {"more": ("где выручка в сумме выше",), "fewer": ("где выручка в сумме ниже",)},
    "table.colder": {"more": ("где погода в среднем мягче",), "fewer": ("где погода в среднем суровее",)},
    "table.maintenance": {"maintenance": ("где часть машин на плановых работах",), "none": ("где все машины в строю",)},
    "invoices.total": {"more": ("где клиентам выставлено больше денег",), "fewer": ("где клиентам выставлено меньше денег",)},
    "env.environment": {"production": ("где конфигурация рабочего контура",), "staging": ("где конфигурация тестового контура",)},
    "env.cache_ttl": {"more": ("где запомненные ответы хранятся дольше",), "fewer": ("где запомненные ответы устаревают быстрее",)},
    "python.function": {
        "notify": ("где модуль пишет в мессенджер",), "parse_date": ("где строки превращаются в даты",),
        "to_cents": ("где деньги считают в копейках",), "paginate": ("где выдача обходится страница за страницей",),
        "retry": ("где операцию пробуют заново",), "save_report": ("где результат выгружается в CSV",),
        "load_config": ("где настройки читаются из JSON-файла",), "chunked": ("где список нарезается кусками",),
        "build_headers": ("где готовятся заголовки для HTTP",), "summarize": ("где считаются итоги по статусам",)},
    "python.requests": {"requests": ("где сетевые вызовы идут через сторонний HTTP-клиент",),
                        "stdlib": ("где нет стороннего HTTP-клиента",)},
    "audio.length": {"more": ("где разговор продолжался дольше",), "fewer": ("где разговор уложился быстрее",)},
}


def _wider(criterion: Criterion, more: Mapping[str, tuple[str, ...]]) -> Criterion:
    if isinstance(criterion, Compare):
        return replace(criterion, more=criterion.more + more.get("more", ()), fewer=criterion.fewer + more.get("fewer", ()))
    if isinstance(criterion, Threshold):
        return replace(criterion, over=criterion.over + more.get("over", ()), under=criterion.under + more.get("under", ()))
    if isinstance(criterion, Holds):
        return replace(criterion, says={m: said + more.get(m, ()) for m, said in criterion.says.items()})
    return criterion


CRITERIA = {kind: {name: _wider(c, WIDER.get(name, {})) for name, c in group.items()} for kind, group in CRITERIA.items()}
BY_NAME = {name: c for group in CRITERIA.values() for name, c in group.items()}


SET_SHARE = 0.75  # of each kind's criteria, the share one set uses
WORDING_SHARE = 0.7  # of each criterion's wordings (two at least, where it has two)


@functools.lru_cache(maxsize=64)
def in_set(seed: int) -> dict[str, Criterion]:
    """The criteria one set picks by, each with the wordings it says them with: a share of each
    kind's criteria (two at least) and of each criterion's wordings (two at least), drawn once per
    set. Another set draws others, so the clauses one set shows are not all another set uses: a
    rule written from one set's clauses meets criteria and words it has never seen."""
    rng = random.Random(f"{seed}:picks")
    chosen: dict[str, Criterion] = {}
    for group in CRITERIA.values():
        names = sorted(group)
        for name in rng.sample(names, max(2, round(SET_SHARE * len(names)))):
            chosen[name] = _narrowed(rng, group[name])
    return chosen


def _some(rng: random.Random, wordings: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(surface.some(rng, wordings, max(min(2, len(wordings)), round(WORDING_SHARE * len(wordings)))))


def _narrowed(rng: random.Random, criterion: Criterion) -> Criterion:
    if isinstance(criterion, Compare):
        return replace(criterion, more=_some(rng, criterion.more), fewer=_some(rng, criterion.fewer))
    if isinstance(criterion, Threshold):
        return replace(criterion, over=_some(rng, criterion.over), under=_some(rng, criterion.under))
    if isinstance(criterion, Holds):
        return replace(criterion, says={m: _some(rng, said) for m, said in sorted(criterion.says.items())})
    return replace(criterion, clauses=_some(rng, criterion.clauses))


def draw(rng: random.Random, kind: str, source: str, other: str, seed: int = 0) -> tuple[str, str, Params] | None:
    """(criterion name, clause, parameters) telling `source` from `other`: a criterion drawn
    evenly among those of the kind the set uses that tell them apart, or None when none does."""
    offered = []
    usable = in_set(seed)
    for name in CRITERIA.get(kind, {}):
        criterion = usable.get(name)
        options = criterion.options(rng, source, other) if criterion is not None else []
        if options:
            offered.append((name, *rng.choice(options)))
    return rng.choice(offered) if offered else None


def chosen(question: str, pick: Mapping[str, Any], texts: Mapping[str, str]) -> str | list[str]:
    """The path a row's recorded pick means, from the written question and files alone, or what
    keeps it from meaning exactly one: the clause is in the question and is one the criterion and
    its parameters may be said with, and exactly one attached file fits it."""
    criterion = BY_NAME.get(str(pick.get("criterion")))
    if criterion is None:
        return [f"unknown pick criterion {pick.get('criterion')!r}"]
    params, clause = dict(pick.get("params", {})), str(pick.get("clause", ""))
    if not clause or clause not in question:
        return ["the question does not hold the recorded picking clause"]
    if clause not in criterion.wordings(params):
        return [f"«{clause}» is not how {criterion.name} with {params} is said"]
    fitting = criterion.fits(texts, params)
    return fitting[0] if len(fitting) == 1 else [f"{len(fitting)} of the {len(texts)} files fit «{clause}»"]
