"""The tool library: every tool with its family, Russian description, typed parameters and an
operational-constraints block.

Twins are tools of the same family that look alike but do another job (mean / median) or carry a
caveat that rules them out (a deprecated version, a cached resolver); same-capability pairs differ
in exactly one caveat (cost against accuracy) and decide the cost_pick questions.
"""

from __future__ import annotations

import hashlib
from typing import Any

_RATE = ["до 10 запросов в секунду", "до 60 запросов в минуту", "до 1000 запросов в час", "без ограничений"]
_DATA = ["внутренние данные", "данные могут содержать персональные сведения", "только публичные данные",
         "конфиденциальные данные компании"]
_LATENCY = ["ответ за доли секунды", "ответ обычно за 1–5 секунд", "долгая операция, до нескольких минут"]
_AUDIT = ["вызов записывается в журнал аудита", "журнал аудита не ведётся"]


def constraints_block(family: str, description: str, note: str) -> dict[str, str]:
    """The operational constraints of a tool. The standard fields follow from its family and
    description, so two tools of one capability differ only in the note they are declared with."""
    h = int(hashlib.sha256(f"{family}:{description}".encode()).hexdigest(), 16)
    return {"ограничения": note, "частота": _RATE[h % 4], "данные": _DATA[(h >> 4) % 4],
            "время_ответа": _LATENCY[(h >> 8) % 3], "идемпотентность": "да" if (h >> 12) % 3 else "нет",
            "аудит": _AUDIT[(h >> 16) % 2]}


def tool(name: str, family: str, description: str, params: list[tuple[str, str, bool, str]],
         constraints: str) -> dict[str, Any]:
    return {"name": name, "family": family, "description": description,
            "parameters": {p: {"type": t, "required": req, "description": d} for p, t, req, d in params},
            "constraints": constraints_block(family, description, constraints)}


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
    tool("http.get_json", "http", "Выполняет GET-запрос и возвращает тело ответа в виде JSON.",
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
    tool("k8s.restart", "kubernetes", "Перезапускает все поды deployment.",
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
         [("service", "string", True, "имя сервиса"), ("retries", "integer", True, "число повторов"),
          ("backoff_ms", "integer", False, "пауза между повторами, мс (по умолчанию 100)")], "—"),
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
         "Только на адреса компании."),
    tool("mail.search", "email", "Ищет письма по теме.", [("query", "string", True, "строка поиска")], "—"),
    tool("storage.upload", "storage", "Загружает файл в объектное хранилище.",
         [PATH, ("bucket", "string", True, "бакет")], "До 5 ГБ."),
    tool("storage.list", "storage", "Список объектов бакета.", [("bucket", "string", True, "бакет")], "—"),
    tool("secrets.get", "secrets", "Читает секрет по имени.", [("name", "string", True, "имя секрета")],
         "Доступ журналируется."),
    tool("secrets.rotate", "secrets", "Перевыпускает секрет.", [("name", "string", True, "имя секрета")], "—"),
    tool("cron.schedule", "cron", "Добавляет задачу в расписание.",
         [("command", "string", True, "команда"), ("cron", "string", True, "расписание в формате cron"),
          ("timezone", "string", False, "часовой пояс расписания, имя из базы IANA (по умолчанию UTC)")], "—"),
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
    tool("db.count_rows", "database", "Число строк в таблице базы данных.",
         [("table", "string", True, "имя таблицы"),
          ("approximate", "boolean", False, "оценка по статистике вместо точного подсчёта (по умолчанию false)")],
         "Только чтение; точный подсчёт большой таблицы занимает минуты."),
    tool("deps.check_vulns", "dependencies", "Известные уязвимости конкретной версии пакета.",
         [("package", "string", True, "имя пакета"), ("version", "string", True, "версия"),
          ("min_severity", "string", False, "только уязвимости этого уровня и выше: low, medium, high, critical "
           "(по умолчанию low)")], "—"),
    tool("deps.latest_version", "dependencies", "Последняя версия пакета.", [("package", "string", True, "имя пакета")],
         "—"),
    tool("registry.scan_image", "containers", "Сканирует образ контейнера на уязвимости.",
         [("image", "string", True, "образ с тегом"),
          ("min_severity", "string", False, "только уязвимости этого уровня и выше: low, medium, high, critical "
           "(по умолчанию low)")], "—"),
    tool("registry.pull", "containers", "Скачивает образ контейнера.", [("image", "string", True, "образ с тегом")], "—"),
    tool("dns.lookup_legacy", "dns", "Возвращает A-записи домена (старая версия).", [("host", "string", True, "доменное имя")],
         "УСТАРЕЛ: не поддерживает IDN и кеширует ответы на сутки; используйте dns.lookup."),
    tool("queue.peek", "queues", "Показывает первые сообщения очереди, не удаляя их.",
         [("queue", "string", True, "имя очереди"), ("count", "integer", False, "сколько сообщений показать (по умолчанию 10)")], "—"),
]
TOOLS.update({t["name"]: t for t in _FOR_QUESTIONS})

def _simple(name: str, family: str, description: str, params: str, note: str = "—") -> dict[str, Any]:
    """A tool from a compact spec: params as "name:type:required:description; ..."."""
    parsed = []
    for spec in filter(None, (p.strip() for p in params.split(";"))):
        pname, ptype, required, pdesc = (part.strip() for part in spec.split(":", 3))
        parsed.append((pname, ptype, required == "1", pdesc))
    return tool(name, family, description, parsed, note)


_BREADTH = [_simple(*spec) for spec in [
    ("files.head", "files", "Первые строки текстового файла.", "path:string:1:путь к файлу; n:integer:1:сколько строк"),
    ("files.checksum", "files", "Контрольная сумма файла.", "path:string:1:путь к файлу; algorithm:string:0:алгоритм (по умолчанию sha256)"),
    ("files.copy", "files", "Копирует файл.", "path:string:1:откуда; target:string:1:куда", "Перезаписывает существующий файл."),
    ("table.filter_eq", "tables", "Строки таблицы, в которых значение столбца равно заданному.", "path:string:1:путь; column:string:1:столбец; value:string:1:значение"),
    ("table.group_count", "tables", "Число строк для каждого значения столбца.", "path:string:1:путь; column:string:1:столбец; top:integer:0:сколько самых частых значений вернуть (по умолчанию все)"),
    ("logs.errors_per_hour", "logs", "Число записей журнала за каждый час (по умолчанию — уровня ERROR).", "path:string:1:путь к журналу; level:string:0:уровень записей: ERROR, WARN, INFO или DEBUG (по умолчанию ERROR)"),
    ("logs.head", "logs", "Первые n строк журнала.", "path:string:1:путь к журналу; n:integer:0:сколько строк (по умолчанию 10)"),
    ("code.run_tests", "code", "Запускает тесты модуля.", "path:string:1:путь к модулю; match:string:0:только тесты, в имени которых есть эта подстрока (по умолчанию все)", "До 10 минут."),
    ("code.format", "code", "Форматирует файл исходного кода.", "path:string:1:путь к файлу", "Изменяет файл на месте."),
    ("code.complexity", "code", "Цикломатическая сложность функций файла.", "path:string:1:путь к файлу; function:string:0:только эта функция (по умолчанию все функции файла)"),
    ("http.head", "http", "Заголовки ответа по URL без загрузки тела.", "url:string:1:адрес"),
    ("http.put", "http", "Отправляет PUT-запрос с телом JSON.", "url:string:1:адрес; body:object:1:тело", "Отправляет данные наружу."),
    ("tracker.close_issue", "tracker", "Закрывает задачу.", "issue:string:1:ключ задачи; resolution:string:0:резолюция: fixed, duplicate или wont_fix (по умолчанию fixed)"),
    ("tracker.assign", "tracker", "Назначает исполнителя задачи.", "issue:string:1:ключ задачи; user:string:1:логин; notify:boolean:0:уведомить исполнителя (по умолчанию true)"),
    ("tracker.search", "tracker", "Ищет задачи по тексту.", "query:string:1:строка поиска"),
    ("git.diff", "git", "Изменения между двумя коммитами.", "base:string:1:коммит; head:string:1:коммит"),
    ("git.revert", "git", "Отменяет коммит, создавая обратный коммит.", "commit:string:1:хеш коммита", "Создаёт коммит в общей ветке."),
    ("git.tag", "git", "Ставит тег на коммит.", "commit:string:1:хеш коммита; name:string:1:имя тега"),
    ("queue.create", "queues", "Создаёт очередь.", "queue:string:1:имя очереди"),
    ("queue.move_dead", "queues", "Возвращает сообщения из очереди недоставленных обратно в рабочую очередь.", "queue:string:1:имя очереди"),
    ("dns.set_record", "dns", "Создаёт или меняет A-запись.", "host:string:1:доменное имя; ip:string:1:адрес", "Изменения вступают в силу в течение часа."),
    ("dns.delete_record", "dns", "Удаляет A-запись.", "host:string:1:доменное имя"),
    ("dns.reverse", "dns", "Обратная запись (PTR) для адреса.", "ip:string:1:адрес"),
    ("k8s.logs", "kubernetes", "Журналы подов deployment.", "namespace:string:1:пространство имён; deployment:string:1:имя deployment"),
    ("k8s.status", "kubernetes", "Состояние deployment.", "namespace:string:1:пространство имён; deployment:string:1:имя deployment; events:boolean:0:добавить последние события (по умолчанию false)"),
    ("k8s.rollback", "kubernetes", "Откатывает deployment на предыдущую версию.", "namespace:string:1:пространство имён; deployment:string:1:имя deployment; dry_run:boolean:0:только показать, что изменится, не применяя (по умолчанию false)"),
    ("k8s.set_image", "kubernetes", "Меняет образ deployment.", "namespace:string:1:пространство имён; deployment:string:1:имя deployment; image:string:1:образ; wait:boolean:0:дождаться окончания выкатки (по умолчанию false)"),
    ("flags.get", "flags", "Состояние фича-флага.", "flag:string:1:имя флага; environment:string:1:окружение"),
    ("flags.rollout", "flags", "Включает флаг для доли пользователей.", "flag:string:1:имя флага; environment:string:1:окружение; percent:integer:1:доля, %"),
    ("perm.audit", "permissions", "Журнал изменений ролей пользователя.", "user:string:1:логин"),
    ("billing.invoice_list", "billing", "Счета клиента.", "customer:string:1:клиент"),
    ("billing.invoice_void", "billing", "Аннулирует неоплаченный счёт.", "invoice_id:string:1:номер счёта", "Только неоплаченные счета."),
    ("trace.compare", "traces", "Сравнивает две трассы.", "first:string:1:идентификатор; second:string:1:идентификатор"),
    ("trace.slowest", "traces", "Самые медленные трассы сервиса за сутки.", "service:string:1:сервис"),
    ("asr.detect_language", "speech", "Определяет язык речи в аудиофайле.", "path:string:1:путь к аудиофайлу"),
    ("tts.synthesize", "speech", "Синтезирует речь из текста.", "text:string:1:текст"),
    ("config.get", "config", "Текущее значение настройки сервиса.", "service:string:1:сервис; key:string:1:ключ"),
    ("config.reload", "config", "Перечитывает настройки сервиса.", "service:string:1:сервис"),
    ("db.backup", "database", "Делает снимок таблицы базы данных.", "table:string:1:имя таблицы; compress:boolean:0:сжать снимок (по умолчанию false)", "Блокирует запись на время снимка."),
    ("db.vacuum", "database", "Очищает таблицу от мёртвых строк.", "table:string:1:имя таблицы; full:boolean:0:полная очистка с перезаписью таблицы, VACUUM FULL (по умолчанию false)", "Нагружает диск."),
    ("net.traceroute", "network", "Маршрут до хоста.", "host:string:1:хост"),
    ("net.resolve_port", "network", "Определяет, какой сервис слушает порт на хосте.", "host:string:1:хост; port:integer:1:порт"),
    ("server.reboot_scheduled", "servers", "Перезагружает сервер в ближайшее окно обслуживания.", "host:string:1:имя хоста"),
    ("server.inventory", "servers", "Паспорт сервера из инвентаря.", "host:string:1:имя хоста"),
    ("deps.license", "dependencies", "Лицензия пакета.", "package:string:1:имя пакета; transitive:boolean:0:также лицензии его зависимостей (по умолчанию false)"),
    ("deps.upgrade_plan", "dependencies", "План обновления пакета, по умолчанию до последней версии.", "package:string:1:имя пакета; version:string:1:текущая версия; target_version:string:0:до какой версии (по умолчанию последняя)"),
    ("registry.list_tags", "containers", "Теги образа в реестре.", "image:string:1:образ без тега; limit:integer:0:сколько последних тегов (по умолчанию все)"),
    ("registry.delete_tag", "containers", "Удаляет тег образа.", "image:string:1:образ с тегом", "Необратимо."),
    ("metrics.list", "metrics", "Метрики сервиса.", "service:string:1:сервис"),
    ("metrics.anomalies", "metrics", "Аномалии метрики за сутки.", "metric:string:1:имя метрики"),
    ("mail.draft", "email", "Создаёт черновик письма.", "to:string:1:адрес; subject:string:1:тема"),
    ("mail.forward", "email", "Пересылает письмо.", "message_id:string:1:идентификатор письма; to:string:1:адрес"),
    ("storage.delete", "storage", "Удаляет объект из бакета.", "bucket:string:1:бакет; key:string:1:ключ", "Необратимо."),
    ("storage.presign", "storage", "Временная ссылка на объект.", "bucket:string:1:бакет; key:string:1:ключ; minutes:integer:0:срок действия ссылки, мин (по умолчанию 60)"),
    ("secrets.list", "secrets", "Имена секретов сервиса.", "service:string:1:сервис"),
    ("cron.remove", "cron", "Снимает задачу с расписания.", "job_id:string:1:идентификатор задачи"),
    ("cron.run_now", "cron", "Запускает задачу вне расписания.", "job_id:string:1:идентификатор задачи"),
    ("search.reindex", "search", "Переиндексирует раздел базы знаний.", "section:string:1:раздел", "Долгая операция."),
    ("search.suggest", "search", "Подсказки к поисковому запросу.", "query:string:1:начало запроса"),
    ("calendar.free_slots", "calendar", "Свободное время участников.", "users:array:1:логины; day:string:1:дата"),
    ("calendar.cancel", "calendar", "Отменяет встречу.", "event_id:string:1:идентификатор встречи"),
    ("cache.get", "cache", "Значение ключа в кеше.", "key:string:1:ключ"),
    ("cache.invalidate", "cache", "Удаляет ключ из кеша.", "key:string:1:ключ"),
    ("cache.stats", "cache", "Статистика попаданий в кеш.", "service:string:1:сервис"),
    ("cache.flush_all", "cache", "Очищает весь кеш.", "", "Вызывает всплеск нагрузки на базу."),
    ("backup.create", "backups", "Создаёт резервную копию тома.", "volume:string:1:том"),
    ("backup.restore", "backups", "Восстанавливает том из копии.", "volume:string:1:том; snapshot:string:1:копия", "Перезаписывает данные тома."),
    ("backup.list", "backups", "Резервные копии тома.", "volume:string:1:том"),
    ("backup.verify", "backups", "Проверяет целостность копии.", "snapshot:string:1:копия"),
    ("backup.prune", "backups", "Удаляет старые копии тома.", "volume:string:1:том; keep:integer:1:сколько оставить", "Необратимо."),
    ("files.move", "files", "Перемещает файл.", "path:string:1:откуда; target:string:1:куда"),
    ("files.delete", "files", "Удаляет файл.", "path:string:1:путь к файлу", "Необратимо."),
    ("files.encoding", "files", "Определяет кодировку файла.", "path:string:1:путь к файлу"),
    ("table.unique", "tables", "Уникальные значения столбца.", "path:string:1:путь; column:string:1:столбец"),
    ("table.sort", "tables", "Таблица, отсортированная по столбцу.", "path:string:1:путь; column:string:1:столбец; descending:boolean:0:по убыванию (по умолчанию false)"),
    ("table.to_json", "tables", "Преобразует таблицу в JSON.", "path:string:1:путь"),
    ("logs.rotate", "logs", "Архивирует журнал и начинает новый.", "path:string:1:путь к журналу", "Только для журналов сервисов."),
    ("logs.follow", "logs", "Подписка на новые строки журнала.", "path:string:1:путь к журналу; seconds:integer:1:сколько секунд"),
    ("code.coverage", "code", "Покрытие модуля тестами.", "path:string:1:путь к модулю"),
    ("code.dependencies", "code", "Импорты модуля.", "path:string:1:путь к модулю"),
    ("http.post_form", "http", "Отправляет форму POST-запросом.", "url:string:1:адрес; fields:object:1:поля формы", "Отправляет данные наружу."),
    ("http.status", "http", "Код ответа по URL.", "url:string:1:адрес"),
    ("tracker.reopen", "tracker", "Открывает задачу заново.", "issue:string:1:ключ задачи"),
    ("tracker.link", "tracker", "Связывает две задачи.", "issue:string:1:ключ задачи; other:string:1:ключ другой задачи"),
    ("git.branch", "git", "Создаёт ветку.", "name:string:1:имя ветки; commit:string:1:от какого коммита"),
    ("git.cherry_pick", "git", "Переносит коммит в текущую ветку.", "commit:string:1:хеш коммита"),
    ("queue.resize", "queues", "Меняет максимальный размер очереди.", "queue:string:1:имя очереди; size:integer:1:размер"),
    ("dns.ttl", "dns", "TTL записи домена.", "host:string:1:доменное имя"),
    ("k8s.describe_pod", "kubernetes", "Описание пода.", "namespace:string:1:пространство имён; pod:string:1:имя пода"),
    ("k8s.delete_pod", "kubernetes", "Удаляет под (контроллер создаст его заново).", "namespace:string:1:пространство имён; pod:string:1:имя пода"),
    ("flags.list", "flags", "Все фича-флаги окружения.", "environment:string:1:окружение"),
    ("flags.delete", "flags", "Удаляет фича-флаг.", "flag:string:1:имя флага", "Необратимо."),
    ("perm.check", "permissions", "Проверяет, есть ли у пользователя право.", "user:string:1:логин; permission:string:1:право"),
    ("perm.temporary_grant", "permissions", "Выдаёт роль на время.", "user:string:1:логин; role:string:1:роль; hours:integer:1:на сколько часов"),
    ("billing.balance", "billing", "Баланс клиента.", "customer:string:1:клиент"),
    ("billing.credit_note", "billing", "Оформляет кредит-ноту по счёту.", "invoice_id:string:1:номер счёта; amount:number:1:сумма, ₽"),
    ("trace.annotate", "traces", "Добавляет к трассе комментарий.", "trace_id:string:1:идентификатор; note:string:1:комментарий"),
    ("asr.diarize", "speech", "Разделяет запись по говорящим.", "path:string:1:путь к аудиофайлу"),
    ("config.diff", "config", "Различия настроек двух окружений.", "service:string:1:сервис; first:string:1:окружение; second:string:1:окружение"),
    ("db.explain", "database", "План выполнения запроса.", "sql:string:1:запрос", "Только SELECT."),
    ("db.list_tables", "database", "Таблицы базы данных.", ""),
    ("net.whois", "network", "Сведения о владельце домена.", "host:string:1:доменное имя"),
    ("server.uptime", "servers", "Время работы сервера без перезагрузки.", "host:string:1:имя хоста"),
    ("deps.tree", "dependencies", "Дерево зависимостей пакета.", "package:string:1:имя пакета; version:string:1:версия"),
    ("registry.copy", "containers", "Копирует образ в другой реестр.", "image:string:1:образ с тегом; target:string:1:реестр"),
    ("metrics.export", "metrics", "Выгружает метрику в CSV.", "metric:string:1:имя метрики; hours:integer:1:за сколько часов"),
    ("mail.unsubscribe", "email", "Отписывает адрес от рассылки.", "address:string:1:адрес; list:string:1:рассылка"),
    ("storage.copy", "storage", "Копирует объект между бакетами.", "bucket:string:1:бакет; key:string:1:ключ; target:string:1:бакет назначения"),
    ("secrets.revoke", "secrets", "Отзывает секрет.", "name:string:1:имя секрета", "Сервисы с этим секретом перестанут работать."),
    ("cron.pause", "cron", "Приостанавливает задачу по расписанию.", "job_id:string:1:идентификатор задачи"),
    ("search.index_status", "search", "Состояние индекса раздела.", "section:string:1:раздел"),
    ("calendar.invite", "calendar", "Приглашает участника на встречу.", "event_id:string:1:идентификатор встречи; user:string:1:логин"),
    ("cache.warmup", "cache", "Прогревает кеш сервиса.", "service:string:1:сервис", "Нагружает базу на время прогрева."),
]]
TOOLS.update({t["name"]: t for t in _BREADTH})

_PAIRED = [
    tool("storage.archive_hot", "storage", "Помещает файл в архивное хранилище.",
         [PATH, ("bucket", "string", True, "бакет")], "Дорого (2 ₽ за ГБ в месяц); файл доступен сразу."),
    tool("storage.archive_cold", "storage", "Помещает файл в архивное хранилище.",
         [PATH, ("bucket", "string", True, "бакет")], "Дёшево (0,1 ₽ за ГБ в месяц); чтение файла — через 12 часов."),
]
TOOLS.update({t["name"]: t for t in _PAIRED})

# Stand-ins for the refusals whose tool is absent under every name (families/refusals.py): an
# alias serves a capability under an unusual verb (the same parameters, described in other
# words), a decoy has a name or description like it and another effect. Neither is ever drawn
# as a filler, and a catalog holds an alias only in place of its original.
_ALIAS_SPECS = [
    ("cache.preload", "cache.warmup", "Заранее наполняет кеш сервиса часто запрашиваемыми данными.",
     "Нагружает базу, пока кеш наполняется."),
    ("registry.untag", "registry.delete_tag", "Снимает тег с образа в реестре: по этому тегу образ больше не скачать.",
     "Необратимо."),
    ("dns.unpublish", "dns.delete_record", "Снимает A-запись домена с публикации в зоне.",
     "Изменения вступают в силу в течение часа."),
    ("storage.expunge", "storage.delete", "Безвозвратно убирает объект из бакета.", "Необратимо."),
    ("files.digest", "files.checksum", "Хеш содержимого файла для сверки копий.", "—"),
    ("queue.flush", "queue.purge", "Опустошает очередь: сообщения исчезают, не дойдя до получателей.", "Необратимо."),
    ("trace.remark", "trace.annotate", "Оставляет на трассе запроса заметку для коллег.", "—"),
    ("code.prettify", "code.format", "Переписывает файл исходного кода в стиле оформления проекта.",
     "Изменяет файл на месте."),
    ("cache.prime", "cache.warmup", "Загружает в кеш сервиса данные до того, как их запросят.",
     "Нагружает базу, пока кеш наполняется."),
    ("registry.drop_label", "registry.delete_tag", "Убирает тег образа из реестра (сам образ не трогает).",
     "Необратимо."),
    ("dns.retract", "dns.delete_record", "Убирает адресную запись домена из зоны DNS.", "Изменения вступают в силу в течение часа."),
    ("storage.discard", "storage.delete", "Стирает объект в бакете без возможности вернуть.", "Необратимо."),
    ("files.fingerprint", "files.checksum", "Отпечаток содержимого файла (хеш) — совпадёт у точных копий.", "—"),
    ("queue.empty", "queue.purge", "Выбрасывает из очереди всё, что в ней накопилось.", "Необратимо."),
    ("trace.note", "trace.annotate", "Прикрепляет к трассе запроса текстовую пометку.", "—"),
    ("code.restyle", "code.format", "Выравнивает отступы, кавычки и переносы строк в файле кода.",
     "Изменяет файл на месте."),
]
ALIASES = {alias: original for alias, original, _, _ in _ALIAS_SPECS}
TOOLS.update({alias: tool(alias, TOOLS[original]["family"], description,
                          [(name, spec["type"], spec["required"], spec["description"])
                           for name, spec in TOOLS[original]["parameters"].items()], note)
              for alias, original, description, note in _ALIAS_SPECS})
_DECOY_SPECS = [
    ("cache.warmup_history", "cache.warmup", "cache", "История прогревов кеша сервиса: когда шли и сколько длились.",
     "service:string:1:сервис"),
    ("registry.protect_tag", "registry.delete_tag", "containers", "Защищает тег образа от удаления и перезаписи.",
     "image:string:1:образ с тегом"),
    ("dns.lock_record", "dns.delete_record", "dns", "Запрещает удалять и менять A-запись домена.",
     "host:string:1:доменное имя"),
    ("storage.restore_deleted", "storage.delete", "storage", "Возвращает в бакет удалённый объект.",
     "bucket:string:1:бакет; key:string:1:ключ"),
    ("files.verify_checksum", "files.checksum", "files", "Сверяет файл с известной контрольной суммой.",
     "path:string:1:путь к файлу; expected:string:1:ожидаемая сумма"),
    ("queue.purge_status", "queue.purge", "queues", "Ход очистки очереди: сколько сообщений уже удалено.",
     "queue:string:1:имя очереди"),
    ("trace.annotations", "trace.annotate", "traces", "Заметки, оставленные к трассе запроса.",
     "trace_id:string:1:идентификатор"),
    ("code.format_check", "code.format", "code", "Проверяет, отформатирован ли файл, не меняя его.",
     "path:string:1:путь к файлу"),
    ("cache.warmup_schedule", "cache.warmup", "cache", "Расписание плановых прогревов кеша сервиса.",
     "service:string:1:сервис"),
    ("registry.tag_history", "registry.delete_tag", "containers", "Кто и когда ставил и удалял теги образа.",
     "image:string:1:образ без тега"),
    ("dns.deleted_records", "dns.delete_record", "dns", "Список удалённых A-записей зоны за месяц.",
     "host:string:1:доменное имя"),
    ("storage.delete_protection", "storage.delete", "storage", "Включает защиту объектов бакета от удаления.",
     "bucket:string:1:бакет"),
    ("files.checksum_history", "files.checksum", "files", "Ранее посчитанные контрольные суммы файла.",
     "path:string:1:путь к файлу"),
    ("queue.purge_schedule", "queue.purge", "queues", "Когда очередь очищается по расписанию.",
     "queue:string:1:имя очереди"),
    ("trace.annotate_rules", "trace.annotate", "traces", "Правила, по которым трассы помечаются автоматически.",
     "service:string:1:сервис"),
    ("code.format_diff", "code.format", "code", "Показывает, что изменило бы форматирование, не трогая файл.",
     "path:string:1:путь к файлу"),
]
DECOYS: dict[str, tuple[str, ...]] = {}
for _decoy, _original, _family, _description, _params in _DECOY_SPECS:
    DECOYS[_original] = (*DECOYS.get(_original, ()), _decoy)
    TOOLS[_decoy] = _simple(_decoy, _family, _description, _params)
NOT_FILLERS = frozenset(ALIASES) | {decoy for decoys in DECOYS.values() for decoy in decoys}

# Operational limits as data: each is rendered into the parameter's spec in the catalog the model
# sees (JSON Schema keywords: maximum, minimum, pattern), beside the constraint note that states it
# in words. The validator's constraint checker reads them back from the rendered catalog only.
LOGIN = r"^[a-z][a-z0-9._-]*$"
LIMITS: dict[tuple[str, str], dict[str, Any]] = {
    ("k8s.scale", "replicas"): {"minimum": 0, "maximum": 20},
    ("billing.refund", "amount"): {"minimum": 0, "maximum": 5000},
    ("logs.window", "radius"): {"minimum": 0, "maximum": 50},
    ("logs.tail", "n"): {"minimum": 1, "maximum": 500},
    ("logs.window", "line"): {"minimum": 1},
    ("git.blame", "line"): {"minimum": 1},
    ("table.sum", "path"): {"pattern": r"\.csv$"},           # delimiters "," and ";": no TSV
    ("table.row_count", "path"): {"pattern": r"\.(csv|tsv)$"},
    ("table.column_count", "path"): {"pattern": r"\.(csv|tsv)$"},
    ("http.download", "url"): {"pattern": r"^https://"},
    ("http.get_json", "url"): {"pattern": r"^https://"},
    ("db.query_readonly", "sql"): {"pattern": r"^\s*(?i:select)\b"},
    ("code.lint", "path"): {"pattern": r"\.py$"},
    ("code.find_symbol", "path"): {"pattern": r"\.py$"},
    **{(name, "user"): {"pattern": LOGIN} for name in ("tracker.assign", "perm.grant", "perm.revoke", "perm.list",
                                                        "perm.audit", "perm.check", "perm.temporary_grant",
                                                        "calendar.invite")},
}
for (_name, _param), _limit in LIMITS.items():
    TOOLS[_name]["parameters"][_param].update(_limit)

# Same-capability pairs: one caveat apart (cost_pick questions turn on it).
PAIRS = [("asr.transcribe_fast", "asr.transcribe_accurate"), ("storage.archive_cold", "storage.archive_hot")]
# Deprecated versions and the tools that replace them (catalog-age questions).
DEPRECATED = {"table.sum_legacy": "table.sum", "dns.lookup_legacy": "dns.lookup"}


def family_of(name: str) -> str:
    return TOOLS[name]["family"]


def parameters(name: str) -> dict[str, dict[str, Any]]:
    return TOOLS[name]["parameters"]


def required(name: str) -> set[str]:
    return {p for p, spec in parameters(name).items() if spec["required"]}
