"""The tool library: every tool with its family, Russian description, typed parameters and an
operational-constraints block.

Twins are tools of the same family that look alike but do another job (mean / median) or carry a
caveat that rules them out (a deprecated version, a cached resolver); same-capability pairs differ
in exactly one caveat (cost against accuracy) and decide the cost_pick questions.
"""

from __future__ import annotations

from typing import Any


def tool(name: str, family: str, description: str, params: list[tuple[str, str, bool, str]],
         constraints: str) -> dict[str, Any]:
    return {"name": name, "family": family, "description": description,
            "parameters": {p: {"type": t, "required": req, "description": d} for p, t, req, d in params},
            "constraints": constraints}


PATH = ("path", "string", True, "путь к приложенному файлу")
TOOLS = {t["name"]: t for t in [
    tool("table.mean", "tables", "Среднее арифметическое числового столбца таблицы.",
         [PATH, ("column", "string", True, "имя столбца")], "Пустые ячейки пропускаются."),
    tool("table.median", "tables", "Медиана числового столбца таблицы.",
         [PATH, ("column", "string", True, "имя столбца")], "Пустые ячейки пропускаются."),
    tool("table.sum", "tables", "Сумма значений числового столбца таблицы.",
         [PATH, ("column", "string", True, "имя столбца")], "Поддерживает разделители «,» и «;»."),
    tool("table.sum_legacy", "tables", "Сумма значений столбца (старая версия).",
         [PATH, ("column", "string", True, "имя столбца")],
         "УСТАРЕЛ: не учитывает строки после первой пустой; будет удалён, используйте table.sum."),
    tool("table.row_count", "tables", "Число строк данных в таблице (без заголовка).",
         [PATH], "Только файлы CSV/TSV."),
    tool("table.column_count", "tables", "Число столбцов таблицы.", [PATH], "Только файлы CSV/TSV."),
    tool("logs.count", "logs", "Число строк журнала, содержащих подстроку.",
         [PATH, ("pattern", "string", True, "подстрока"),
          ("ignore_case", "boolean", False, "искать без учёта регистра (по умолчанию false)")],
         "Файлы до 50 МБ."),
    tool("logs.grep", "logs", "Возвращает строки журнала, содержащие подстроку.",
         [PATH, ("pattern", "string", True, "подстрока"),
          ("ignore_case", "boolean", False, "искать без учёта регистра (по умолчанию false)")],
         "Не более 1000 строк в ответе."),
    tool("logs.window", "logs", "Строки журнала вокруг строки с заданным номером.",
         [PATH, ("line", "integer", True, "номер строки, с 1"), ("radius", "integer", True, "сколько строк до и после")],
         "radius не больше 50."),
    tool("logs.tail", "logs", "Последние n строк журнала.",
         [PATH, ("n", "integer", True, "сколько строк")], "n не больше 500."),
    tool("files.read_lines", "files", "Читает диапазон строк текстового файла.",
         [PATH, ("start", "integer", True, "первая строка, с 1"), ("end", "integer", True, "последняя строка")],
         "Не более 200 строк за вызов."),
    tool("files.stat", "files", "Размер файла и дата изменения.", [PATH], "Только локальные файлы."),
    tool("http.download", "http", "Скачивает файл по URL и возвращает локальный путь.",
         [("url", "string", True, "адрес файла")], "Только https; до 100 МБ."),
    tool("http.get_json", "http", "Выполняет GET-запрос и возвращает тело ответа как JSON.",
         [("url", "string", True, "адрес")], "Только https; не сохраняет файл."),
    tool("http.post", "http", "Отправляет POST-запрос с телом JSON.",
         [("url", "string", True, "адрес"), ("body", "object", True, "тело запроса")],
         "Отправляет данные наружу: только по явной просьбе пользователя."),
    tool("tracker.create_issue", "tracker", "Создаёт задачу в трекере.",
         [("project", "string", True, "ключ проекта"), ("title", "string", True, "заголовок")], "—"),
    tool("tracker.comment", "tracker", "Добавляет комментарий к задаче.",
         [("issue", "string", True, "ключ задачи, например OPS-12"), ("text", "string", True, "текст")], "—"),
    tool("git.blame", "git", "Возвращает хеш коммита, последним изменившего строку файла.",
         [PATH, ("line", "integer", True, "номер строки, с 1")], "Только отслеживаемые файлы."),
    tool("git.show", "git", "Показывает изменения коммита.",
         [("commit", "string", True, "хеш коммита")], "—"),
    tool("git.log", "git", "Последние коммиты ветки.",
         [("branch", "string", True, "ветка"), ("limit", "integer", False, "сколько коммитов (по умолчанию 20)")], "—"),
    tool("dns.lookup", "dns", "Возвращает A-записи домена.",
         [("host", "string", True, "доменное имя")], "Только публичные зоны."),
    tool("dns.lookup_cached", "dns", "Возвращает A-записи домена из локального кеша резолвера.",
         [("host", "string", True, "доменное имя")], "Данные могут устареть на час."),
    tool("k8s.scale", "kubernetes", "Меняет число реплик deployment.",
         [("namespace", "string", True, "пространство имён"), ("deployment", "string", True, "имя deployment"),
          ("replicas", "integer", True, "новое число реплик")], "Не больше 20 реплик."),
    tool("k8s.restart", "kubernetes", "Перезапускает все pod'ы deployment.",
         [("namespace", "string", True, "пространство имён"), ("deployment", "string", True, "имя deployment")],
         "Вызывает кратковременный простой."),
    tool("flags.enable", "flags", "Включает фича-флаг.",
         [("flag", "string", True, "имя флага"), ("environment", "string", True, "окружение")], "—"),
    tool("flags.disable", "flags", "Выключает фича-флаг.",
         [("flag", "string", True, "имя флага"), ("environment", "string", True, "окружение")], "—"),
    tool("billing.refund", "billing", "Возвращает деньги по счёту.",
         [("invoice_id", "string", True, "номер счёта"), ("amount", "number", True, "сумма, ₽")],
         "Не более 5000 ₽ за один возврат; большие суммы — только через финансовый отдел."),
    tool("billing.invoice_get", "billing", "Возвращает счёт по номеру.",
         [("invoice_id", "string", True, "номер счёта")], "—"),
    tool("asr.transcribe_fast", "speech", "Распознаёт речь в аудиофайле.",
         [PATH], "Дёшево (0,2 ₽ за минуту); ожидаемая точность около 85 %."),
    tool("asr.transcribe_accurate", "speech", "Распознаёт речь в аудиофайле.",
         [PATH], "Дорого (3 ₽ за минуту); ожидаемая точность около 98 %."),
    tool("db.delete_user", "database", "Удаляет пользователя из базы.",
         [("user_id", "integer", True, "идентификатор пользователя")], "Только окружение staging; production запрещено."),
    tool("db.query_readonly", "database", "Выполняет SELECT-запрос только на чтение.",
         [("sql", "string", True, "запрос")], "Только SELECT."),
    tool("config.set_timeout", "config", "Задаёт таймаут клиента сервиса.",
         [("service", "string", True, "имя сервиса"), ("seconds", "number", True, "таймаут в секундах")], "—"),
    tool("config.set_retries", "config", "Задаёт число повторов клиента сервиса.",
         [("service", "string", True, "имя сервиса"), ("retries", "integer", True, "число повторов")], "—"),
]}

# Filler families: never a reference here yet, they make catalogs as varied as real ones.
_MORE = [
    tool("queue.publish", "queues", "Публикует сообщение в очередь.",
         [("queue", "string", True, "имя очереди"), ("message", "object", True, "тело сообщения")], "Не более 256 КБ."),
    tool("queue.purge", "queues", "Удаляет все сообщения из очереди.", [("queue", "string", True, "имя очереди")],
         "Необратимо."),
    tool("queue.depth", "queues", "Число сообщений в очереди.", [("queue", "string", True, "имя очереди")], "—"),
    tool("perm.grant", "permissions", "Выдаёт пользователю роль.",
         [("user", "string", True, "логин"), ("role", "string", True, "роль")], "Требует подтверждения владельца."),
    tool("perm.revoke", "permissions", "Отзывает у пользователя роль.",
         [("user", "string", True, "логин"), ("role", "string", True, "роль")], "—"),
    tool("perm.list", "permissions", "Роли пользователя.", [("user", "string", True, "логин")], "—"),
    tool("trace.get", "traces", "Возвращает трассу запроса по идентификатору.",
         [("trace_id", "string", True, "идентификатор трассы")], "Хранятся 7 дней."),
    tool("trace.search", "traces", "Ищет трассы по сервису и минимальной длительности.",
         [("service", "string", True, "сервис"), ("min_ms", "integer", False, "минимальная длительность, мс")], "—"),
    tool("metrics.query", "metrics", "Значение метрики за период.",
         [("metric", "string", True, "имя метрики"), ("hours", "integer", True, "за сколько часов")], "—"),
    tool("metrics.alert_create", "metrics", "Создаёт правило оповещения по метрике.",
         [("metric", "string", True, "имя метрики"), ("threshold", "number", True, "порог")], "—"),
    tool("mail.send", "email", "Отправляет письмо.",
         [("to", "string", True, "адрес"), ("subject", "string", True, "тема"), ("body", "string", True, "текст")],
         "Только адреса компании."),
    tool("mail.search", "email", "Ищет письма по теме.", [("query", "string", True, "строка поиска")], "—"),
    tool("storage.upload", "storage", "Загружает файл в объектное хранилище.",
         [PATH, ("bucket", "string", True, "бакет")], "До 5 ГБ."),
    tool("storage.list", "storage", "Список объектов бакета.", [("bucket", "string", True, "бакет")], "—"),
    tool("secrets.get", "secrets", "Читает секрет по имени.", [("name", "string", True, "имя секрета")],
         "Доступ журналируется."),
    tool("secrets.rotate", "secrets", "Перевыпускает секрет.", [("name", "string", True, "имя секрета")], "—"),
    tool("cron.schedule", "cron", "Ставит задачу по расписанию.",
         [("command", "string", True, "команда"), ("cron", "string", True, "расписание в формате cron")], "—"),
    tool("cron.list", "cron", "Список задач по расписанию.", [], "—"),
    tool("search.docs", "search", "Полнотекстовый поиск по базе знаний.", [("query", "string", True, "запрос")], "—"),
    tool("calendar.create_event", "calendar", "Создаёт встречу в календаре.",
         [("title", "string", True, "название"), ("start", "string", True, "начало, ISO 8601")], "—"),
    tool("files.word_count", "files", "Число слов в текстовом файле.", [PATH], "Только UTF-8."),
    tool("code.lint", "code", "Запускает линтер для файла исходного кода.", [PATH], "Только Python."),
    tool("code.find_symbol", "code", "Ищет определение функции или класса.",
         [PATH, ("name", "string", True, "имя")], "Только Python."),
    tool("table.max", "tables", "Максимум числового столбца таблицы.",
         [PATH, ("column", "string", True, "имя столбца")], "Пустые ячейки пропускаются."),
    tool("table.min", "tables", "Минимум числового столбца таблицы.",
         [PATH, ("column", "string", True, "имя столбца")], "Пустые ячейки пропускаются."),
]
TOOLS.update({t["name"]: t for t in _MORE})

_FOR_QUESTIONS = [
    tool("server.restart", "servers", "Перезапускает сервер по имени хоста.", [("host", "string", True, "имя хоста")],
         "Вызывает простой до пяти минут."),
    tool("server.drain", "servers", "Снимает с сервера нагрузку без перезапуска.", [("host", "string", True, "имя хоста")],
         "—"),
    tool("server.decommission", "servers", "Выводит сервер из эксплуатации.", [("host", "string", True, "имя хоста")],
         "Только для серверов в статусе maintenance; активные выводить запрещено."),
    tool("net.check_port", "network", "Проверяет, принимает ли хост соединения на порту.",
         [("host", "string", True, "хост"), ("port", "integer", True, "порт")], "Только внутренняя сеть."),
    tool("net.ping", "network", "Проверяет доступность хоста по ICMP.", [("host", "string", True, "хост")], "—"),
    tool("db.count_rows", "database", "Число строк в таблице базы данных.", [("table", "string", True, "имя таблицы")],
         "Только чтение."),
    tool("deps.check_vulns", "dependencies", "Известные уязвимости конкретной версии пакета.",
         [("package", "string", True, "имя пакета"), ("version", "string", True, "версия")], "—"),
    tool("deps.latest_version", "dependencies", "Последняя версия пакета.", [("package", "string", True, "имя пакета")],
         "—"),
    tool("registry.scan_image", "containers", "Сканирует образ контейнера на уязвимости.",
         [("image", "string", True, "образ с тегом")], "—"),
    tool("registry.pull", "containers", "Скачивает образ контейнера.", [("image", "string", True, "образ с тегом")], "—"),
    tool("dns.lookup_legacy", "dns", "Возвращает A-записи домена (старая версия).", [("host", "string", True, "доменное имя")],
         "УСТАРЕЛ: не поддерживает IDN и кеширует ответы на сутки; используйте dns.lookup."),
    tool("queue.peek", "queues", "Показывает первые сообщения очереди, не удаляя их.",
         [("queue", "string", True, "имя очереди"), ("count", "integer", False, "сколько (по умолчанию 10)")], "—"),
]
TOOLS.update({t["name"]: t for t in _FOR_QUESTIONS})


def family_of(name: str) -> str:
    return TOOLS[name]["family"]


def parameters(name: str) -> dict[str, dict[str, Any]]:
    return TOOLS[name]["parameters"]


def required(name: str) -> set[str]:
    return {p for p, spec in parameters(name).items() if spec["required"]}
