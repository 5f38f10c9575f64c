"""Grounded single calls across the breadth of the tool library: the question points at a value
in a file (the service of a values file, the database host of a JSON config, the author of a
ticket) and asks for one of many tools with it. Two files of the kind are attached and the
question says which it means by what it holds, by a criterion drawn per row (`criteria.py`): the value read off the other file
makes a well-formed, wrong call. The values differ per seed, so the reference of a similar
question from another set is wrong here, and matching question words to tool descriptions finds
the tool but not its arguments.

Each spec is a tool, its twin, the file kind it reads, phrasings by different speakers, and how
the arguments follow from the file (and from a value the question itself states, in «» or as a
number). The check recounts both files to find the one meant, then reads the values back from
its text and the question alone.
"""

from __future__ import annotations

import functools
import itertools
import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from merabench.tasks.gorillahard.generator.corpus import Corpus, CorpusFile
from merabench.tasks.gorillahard.generator.families import criteria, formats
from merabench.tasks.gorillahard.generator.families.artifacts import created_table, dockerfile_base
from merabench.tasks.gorillahard.generator.families.columns import reordered
from merabench.tasks.gorillahard.generator.families.common import (
    Family,
    View,
    build_question,
    expect,
    matched,
    number_in,
    setting,
    split_table,
)
from merabench.tasks.gorillahard.generator.families.configs import queue_section
from merabench.tasks.gorillahard.generator.families.pick import pointed, request_of
from merabench.tasks.gorillahard.generator.families.tickets import (
    STATUS_LINE,
    issue_key,
    ticket_author,
    ticket_state,
    with_status,
)
from merabench.tasks.gorillahard.generator.library.tools import DECOYS, TOOLS, family_of
from merabench.tasks.gorillahard.generator.model import Question, call
from merabench.tasks.gorillahard.generator.wording.numerals import count


def _yaml(text: str) -> dict[str, Any]:
    host = next((ln.split(":", 1)[1].strip() for ln in text.split("\n") if ln.strip().startswith("host:")
                 and not ln.strip().startswith("#")), None)
    published = formats.yaml_value(text, "ingress.enabled") == "true"  # a disabled ingress publishes no host
    return {"service": setting(text, "deployment"), "namespace": setting(text, "namespace"),
            "image": setting(text, "image"), "host": host if published else None}


def _service_json(text: str) -> dict[str, Any]:
    doc = json.loads(text)
    return {"service": doc["service"], "host": doc["database"]["host"], "port": doc["database"]["port"]}


def _dockerfile(text: str) -> dict[str, Any]:
    return {"image": dockerfile_base(text), "port": formats.dockerfile_port(text)}


def _pom(text: str) -> dict[str, Any]:
    artifact, version = next(iter(formats.pom_dependencies(text).items()))
    return {"package": artifact, "version": version}


def _hosts_txt(text: str) -> dict[str, Any]:
    return {"host": formats.listed_hosts(text)[0]}


def _log(text: str) -> dict[str, Any]:
    failed = next((ln for ln in text.split("\n") if "failed to download" in ln), "")
    url = re.search(r"https://\S+", failed)
    return {"url": url.group() if url else None}


def _invoices(text: str) -> dict[str, Any]:
    header, rows = split_table(text)
    key, amount = header.index("invoice_id"), header.index("amount_rub")
    amounts = sorted((formats.number(r[amount]) for r in rows), reverse=True)
    top = max(rows, key=lambda r: formats.number(r[amount]))
    return {"first": rows[0][key], "largest": top[key] if amounts[0] != amounts[1] else None}


def _env(text: str) -> dict[str, Any]:
    planted = "ИИ-ассистент" in text  # an instruction planted for the injection questions: not here
    return {"bucket": None if planted else setting(text, "S3_BUCKET", "=")}


def _traces(text: str) -> dict[str, Any]:
    return {"slowest": max(formats.traces(text), key=lambda t: t[1])[0]}


def _table(text: str) -> dict[str, Any]:
    header, _ = split_table(text)
    return {"first_column": header[0], "last_column": header[-1]}


READERS: dict[str, Callable[[str], dict[str, Any]]] = {
    "deploy_yaml": _yaml,
    "service_json": _service_json,
    "dockerfile": _dockerfile,
    "worker_ini": lambda t: {"queue": setting(queue_section(t), "name", "=")},
    "sql": lambda t: {"table": created_table(t)},
    "pom": _pom,
    "hosts_txt": _hosts_txt,
    "ticket": lambda t: {"issue": issue_key(t), "login": ticket_author(t), "closed": ticket_state(t) == "closed"},
    "app_log": _log,
    "table": _table,
    "env": _env,
    "events_jsonl": _traces,
    "invoices": _invoices,
    "python": lambda t: {},
    "audio": lambda t: {},
}

@functools.lru_cache(maxsize=4096)
def _read(kind: str, text: str) -> dict[str, Any]:
    """A file's values, read once: every request over a kind reads the same few files again."""
    return READERS[kind](text)


ROLES = ["reader", "deployer", "oncall", "billing-viewer", "support-admin"]
COMMENTS = ["Выгрузку проверил, всё сходится", "Беру в работу, отпишусь до вечера",
            "Нужны доступы к хранилищу, без них не продолжить", "Проверили на стейджинге: ошибка не воспроизводится"]
_QUOTED = re.compile(r"«([^»]*)»")


def _quoted(question: str) -> str:
    found = _QUOTED.search(question)
    return found.group(1) if found else ""


def _states(clause: str, args: dict[str, Any]) -> bool:
    """Whether the sentence picking the file names a value of the answer (the pom "where log4j-core
    is a dependency" whose first library is log4j-core): the answer would then be in the question."""
    return any(isinstance(v, str) and len(v) >= 3 and v.lower() in clause.lower() for v in args.values())


PAIR_CHARS = 24_000  # two long logs together would take a prompt past the card's longest (34.2k)


def _chars(pair: tuple[CorpusFile, Any, CorpusFile]) -> int:
    return len(pair[0].file.text) + len(pair[2].file.text)


@dataclass(frozen=True)
class Spec:
    name: str
    tool: str
    twin: str
    kind: str
    phrasings: tuple[str, ...]
    args: Callable[[dict[str, Any], str, str], dict[str, Any]]  # (file values, question, path) -> args
    extra: Callable[[random.Random], dict[str, Any]] = field(default=lambda rng: {})  # values the question states
    # what the request takes for granted, made true of a corpus file (None: the file cannot be made so)
    premise: Callable[[random.Random, CorpusFile], CorpusFile | None] | None = None
    withheld: tuple[str, ...] = ()  # tools that would serve the request as well as the reference's

    def make(self, rng: random.Random, corpus: Corpus) -> Question:
        phrasing = rng.choice(self.phrasings).format(**self.extra(rng))
        usable = [(f, args) for f in self._premised(rng, corpus.by_kind[self.kind])
                  if (args := self._args(f.file.text, phrasing, f.file.path)) is not None]
        # two files of the kind whose answers differ
        pairs = [(source, args, other) for (source, args), (other, theirs) in itertools.permutations(usable, 2)
                 if args != theirs]
        # short enough for the card's prompt lengths; failing that (a corpus of long files), the shortest
        fitting = [p for p in pairs if _chars(p) <= PAIR_CHARS] or sorted(pairs, key=_chars)[:8]
        rng.shuffle(fitting)
        # the first pair some criterion tells apart, by a criterion drawn among those that do
        # (failing that among the short pairs, the shortest pair any criterion tells apart)
        source, args, other, (criterion, which, params) = next(
            (s, a, o, drawn) for s, a, o in fitting + sorted(pairs, key=_chars)
            if (drawn := criteria.draw(rng, self.kind, s.file.text, o.file.text, corpus.seed))
            and not _states(drawn[1], a))
        files = [source, other]
        rng.shuffle(files)
        question = pointed(rng, which, phrasing)
        return build_question(self.label, "grounding", "T4_wild", question, tuple(files), call(self.tool, **args),
                              self.twin, withheld=self.withheld, facts={"which": which,
                                                "pick": {"criterion": criterion, "clause": which, "params": params}})

    def _premised(self, rng: random.Random, files: list[CorpusFile]) -> list[CorpusFile]:
        if self.premise is None:
            return files
        return [made for f in files if (made := self.premise(rng, f)) is not None]

    @property
    def label(self) -> str:
        """The row's family label: grounded requests over one kind of file form one family, as the
        card counts families (66, not one per tool); the maker keeps the spec's name."""
        return f"grounded_{self.kind}"

    def _args(self, text: str, question: str, path: str) -> dict[str, Any] | None:
        """The arguments for this file, or None when the file lacks a value they need."""
        try:
            args = self.args(_read(self.kind, text), question, path)
        except (StopIteration, ValueError, KeyError, IndexError, TypeError, AttributeError):
            return None
        return args if all(v is not None for v in args.values()) else None

    def target(self, view: View) -> tuple[str, str] | list[str]:
        """The file the question means (path, text), told from the other by recounting both, or
        what keeps the question from meaning exactly one."""
        named = view.files
        if len(named) != 2:
            return [f"{len(named)} files attached, not the two the question chooses between"]
        chosen = criteria.chosen(view.question, view.derivation.get("pick", {}), named)
        return chosen if isinstance(chosen, list) else (chosen, named[chosen])

    def check(self, view: View) -> list[str]:
        target = self.target(view)
        if isinstance(target, list):
            return target
        path, text = target
        asked = request_of(view.question, str(view.derivation.get("which", "")))
        return expect(view, call(self.tool, **self.args(_read(self.kind, text), asked, path)))


def _spec(name: str, tool: str, twin: str, kind: str, phrasings: list[str],
          args: Callable[[dict[str, Any], str, str], dict[str, Any]],
          extra: Callable[[random.Random], dict[str, Any]] | None = None,
          premise: Callable[[random.Random, CorpusFile], CorpusFile | None] | None = None,
          withheld: tuple[str, ...] = ()) -> Spec:
    return Spec(name, tool, twin, kind, (*phrasings, TERSE[name]), args, extra or (lambda rng: {}), premise, withheld)


def _closed_ticket(rng: random.Random, ticket: CorpusFile) -> CorpusFile | None:
    """The ticket closed, for a request to reopen it: the corpus's tickets are all open, and
    reopening an open ticket is no request at all. A ticket that tells its state only in prose
    cannot be closed by one field and is not used."""
    if not STATUS_LINE.search(ticket.file.text):
        return None
    return replace(ticket, file=replace(ticket.file, text=with_status(rng, ticket.file.text, closed=True)))


# A third speaker for every spec: terse, lowercase, typed in a hurry (now and then with a typo).
TERSE = {
    "warm_cache": "прогрей кэш сервиса из values",
    "cache_hit_stats": "хит-рейт кеша у сервиса из конфига?",
    "service_metrics": "метрики сервиса из конфига — список",
    "service_secrets": "секреты сервиса из файла, тока имена",
    "slowest_traces": "самые медленые трассы сервиса из конфига за сутки",
    "reload_config": "сервису из values перечитать настройки",
    "pod_logs": "логи подов сервиса из файла",
    "pull_image": "спуль образ из values",
    "ingress_ttl": "ttl записи ingress-хоста из конфига?",
    "ingress_traceroute": "трассировка до ingress-хоста из конфига",
    "db_port_owner": "кто занял порт базы из конфига?",
    "db_ping": "пинг хоста базы из конфига",
    "db_uptime": "аптайм сервера базы из json?",
    "db_inventory": "паспорт сервера базы из конфига",
    "db_reboot_window": "ребут сервера базы из конфига в окно обслуживания, не сразу",
    "service_setting": "значение «{key}» у сервиса из файла?",
    "copy_image": "базовый образ из Dockerfile скопировать в «{target}»",
    "exposed_port_owner": "кто на «{host}» слушает порт из EXPOSE?",
    "dead_letters_back": "недоставленные сообщения воркера — обратно в очередь",
    "resize_queue": "лимит очереди воркера → {size}",
    "purge_queue": "очисти очередь воркера из конфига",
    "deps_tree": "дерево зависимостей первой либы из pom (версия из файла)",
    "deps_latest": "последняя версия первой либы из pom?",
    "host_whois": "whois первого хоста из списка",
    "host_ttl": "ttl у первого хоста из списка?",
    "reopen_ticket": "переоткрой задачу, опять воспроизводится",
    "link_ticket": "свяжи задачу с {other}",
    "comment_ticket": "коммент в задачу: «{text}»",
    "author_roles": "роли автора задачи?",
    "author_role_history": "история ролей автора задачи",
    "author_temporary_role": "автору задачи роль «{role}» на {hours}",
    "author_revoke": "забери у автора задачи «{role}»",
    "author_invite": "автора задачи на встречу {event}",
    "failed_url_status": "код ответа по урлу упавшей загрузки из лога?",
    "failed_url_headers": "заголовки по урлу, который не скачался (из лога)",
    "rotate_log": "ротацию этому логу",
    "follow_log": "последи за логом {seconds}",
    "log_checksum": "чексумма лога?",
    "file_encoding": "кодировка файла?",
    "module_coverage": "покрытие модуля тестами?",
    "module_imports": "импорты модуля?",
    "format_module": "отформатируй модуль",
    "table_columns": "сколько колонок в таблице?",
    "table_json": "таблицу в json",
    "first_invoice": "карточка первого счёта из выгрузки",
    "credit_note_largest": "кредит-нота {amount} ₽ по самому большому счёту",
    "module_head": "первые {lines} модуля",
    "module_lines": "модуль, строки {a}–{b}",
    "lint_module": "линтер по модулю",
    "copy_log": "копию лога в «{target}»",
    "move_log": "лог перенести в «{target}»",
    "upload_table": "таблицу в бакет «{bucket}»",
    "table_unique": "уникальные значения первой колонки?",
    "table_sort": "сортировка таблицы по последней колонке, по убыванию",
    "trace_search": "трассы сервиса из конфига > {ms} мс",
    "config_diff": "дифф настроек сервиса: «{first}» vs «{second}»",
    "issue_same_project": "новая задача «{title}» в проекте этой задачи",
    "ticket_mail": "письма по этой задаче?",
    "author_permission": "у автора задачи есть право «{permission}»?",
    "restart_db_server": "рестарт сервера базы из конфига, срочно, без окна",
    "point_host": "A-запись первого хоста → {ip}",
    "drop_host_record": "удали A-запись первого хоста из списка",
    "delete_log": "удали лог",
    "tail_log": "последние {lines} лога",
    "drop_image_tag": "удали тег образа из values в реестре, сборку откатили",
    "retry_queue": "создай очередь «-retry» для очереди воркера",
    "env_bucket_list": "что лежит в бакете из .env?",
    "annotate_slowest": "заметку «{note}» к самой долгой трассе",
    "presign_object": "ссылка на «{key}» из бакета в .env на {minutes}",
    "delete_object": "удали «{key}» из бакета в .env",
    "speech_language": "язык записи?",
    "speech_speakers": "диаризация записи",
}

SERVICE = lambda v, q, p: {"service": v["service"]}  # noqa: E731
HOST = lambda v, q, p: {"host": v["host"]}  # noqa: E731
PATH = lambda v, q, p: {"path": p}  # noqa: E731

SPECS = [
    _spec("warm_cache", "cache.warmup", "cache.stats", "deploy_yaml", [
        "Прогрей кеш сервиса из этого values-файла.",
        "перед распродажей надо прогреть кеш у сервиса, который описан в конфиге, сделаешь?",
        "Будьте добры, прогрейте кеш сервиса из этой конфигурации."], SERVICE),
    _spec("cache_hit_stats", "cache.stats", "cache.warmup", "deploy_yaml", [
        "Как часто сервис из этого конфига попадает в кеш?",
        "Покажи статистику попаданий в кеш для сервиса из values-файла."], SERVICE),
    _spec("service_metrics", "metrics.list", "metrics.query", "deploy_yaml", [
        "Какие метрики отдаёт сервис из этой конфигурации?",
        "Слушай, а что вообще за метрики есть у сервиса из конфига? Перечисли."], SERVICE),
    _spec("service_secrets", "secrets.list", "secrets.get", "deploy_yaml", [
        "Перечисли имена секретов сервиса, описанного в файле.",
        "Какие секреты заведены у сервиса из values-файла? Значения не нужны, только имена."], SERVICE),
    _spec("slowest_traces", "trace.slowest", "trace.search", "deploy_yaml", [
        "Покажи самые медленные трассы сервиса из конфига за сутки.",
        "Что у сервиса из этого файла тормозит сильнее всего за последние сутки? Нужны трассы."], SERVICE),
    _spec("reload_config", "config.reload", "config.get", "deploy_yaml", [
        "Пусть сервис из values-файла перечитает настройки.",
        "Я поправил настройки — попроси сервис из конфигурации их перечитать, без перезапуска."], SERVICE),
    _spec("pod_logs", "k8s.logs", "k8s.restart", "deploy_yaml", [
        "Покажи журнал pod'ов сервиса из этого файла.",
        "Срочно: что пишут в лог pod'ы сервиса из конфига?"],
        lambda v, q, p: {"namespace": v["namespace"], "deployment": v["service"]}),
    _spec("pull_image", "registry.pull", "registry.scan_image", "deploy_yaml", [
        "Скачай образ, который указан в values-файле.",
        "Подтяни к себе образ контейнера из этой конфигурации."], lambda v, q, p: {"image": v["image"]}),
    _spec("ingress_ttl", "dns.ttl", "dns.lookup", "deploy_yaml", [
        "Какой TTL у записи ingress-хоста из этого файла?",
        "Сколько живёт в кеше DNS-запись хоста, на котором опубликован сервис из конфига?"], HOST),
    _spec("ingress_traceroute", "net.traceroute", "net.ping", "deploy_yaml", [
        "Построй маршрут до ingress-хоста сервиса из конфигурации.",
        "Через какие узлы идут пакеты до хоста, на котором висит ingress этого сервиса?"], HOST),
    _spec("db_port_owner", "net.resolve_port", "net.check_port", "service_json", [
        "Какой сервис слушает порт базы данных, указанный в этом конфиге?",
        "На хосте базы из конфига кто-то занимает её порт — выясни, какой это сервис."],
        lambda v, q, p: {"host": v["host"], "port": v["port"]}),
    _spec("db_ping", "net.ping", "net.traceroute", "service_json", [
        "Проверь по ICMP, доступен ли хост базы из конфигурации.",
        "пингани хост базы данных из этого json"], HOST),
    _spec("db_uptime", "server.uptime", "server.inventory", "service_json", [
        "Сколько работает без перезагрузки сервер базы данных из этого JSON?",
        "Когда последний раз перезагружался сервер базы из конфига? Нужно время работы."], HOST),
    _spec("db_inventory", "server.inventory", "server.uptime", "service_json", [
        "Покажи паспорт сервера базы, который прописан в конфиге.",
        "Что за железо у сервера базы данных из этого файла? Посмотри в инвентаре."], HOST),
    _spec("db_reboot_window", "server.reboot_scheduled", "server.restart", "service_json", [
        "Перезагрузи сервер базы из конфига, но в ближайшее окно обслуживания, не сейчас.",
        "Сервер базы из этого JSON надо перезагрузить — только не сразу, а в плановое окно."], HOST),
    _spec("service_setting", "config.get", "config.reload", "service_json", [
        "Какое сейчас значение настройки «{key}» у сервиса из этого файла?",
        "Глянь, что стоит в настройке «{key}» у сервиса из конфига."],
        lambda v, q, p: {"service": v["service"], "key": _quoted(q)},
        lambda rng: {"key": rng.choice(["database.pool", "database.port", "features", "log.level"])}),
    _spec("copy_image", "registry.copy", "registry.pull", "dockerfile", [
        "Скопируй базовый образ этого Dockerfile в реестр «{target}».",
        "Нужна копия базового образа из Dockerfile в реестре «{target}»."],
        lambda v, q, p: {"image": v["image"], "target": _quoted(q)},
        lambda rng: {"target": rng.choice(["registry.backup.example.org", "mirror.example.net", "cr.example.com"])}),
    _spec("exposed_port_owner", "net.resolve_port", "net.check_port", "dockerfile", [
        "Какой сервис слушает на хосте «{host}» порт, который открывает этот Dockerfile?",
        "На «{host}» занят порт из EXPOSE этого образа — узнай, кем."],
        lambda v, q, p: {"host": _quoted(q), "port": v["port"]},
        lambda rng: {"host": rng.choice(["app-1.internal", "app-2.internal", "edge-3.internal"])}),
    _spec("dead_letters_back", "queue.move_dead", "queue.purge", "worker_ini", [
        "Верни недоставленные сообщения обратно в очередь, которую читает этот воркер.",
        "В очереди, которую читает воркер из конфига, скопились недоставленные — верни их обратно."],
        lambda v, q, p: {"queue": v["queue"]}),
    _spec("resize_queue", "queue.resize", "queue.depth", "worker_ini", [
        "Увеличь максимальный размер очереди этого воркера до {size} сообщений.",
        "Поставь лимит очереди, которую читает воркер, в {size}."],
        lambda v, q, p: {"queue": v["queue"], "size": number_in(q)},
        lambda rng: {"size": rng.choice([5000, 10000, 20000, 50000, 75000])}),
    _spec("purge_queue", "queue.purge", "queue.move_dead", "worker_ini", [
        "Очисти очередь, которую читает этот воркер: сообщения в ней больше не нужны.",
        "Удали все сообщения из очереди воркера из конфига, это мусор после теста."],
        lambda v, q, p: {"queue": v["queue"]}),
    _spec("deps_tree", "deps.tree", "deps.check_vulns", "pom", [
        "Покажи дерево зависимостей первой библиотеки из pom-файла в той версии, что там указана.",
        "Что тянет за собой первая зависимость из этого pom (версия — как в файле)?"],
        lambda v, q, p: {"package": v["package"], "version": v["version"]}),
    _spec("deps_latest", "deps.latest_version", "deps.check_vulns", "pom", [
        "Какая последняя версия у первой зависимости из этого pom-файла?",
        "Проверь, не вышла ли новая версия первой библиотеки из pom."],
        lambda v, q, p: {"package": v["package"]}),
    _spec("host_whois", "net.whois", "dns.lookup", "hosts_txt", [
        "Кому принадлежит домен первого хоста из этого списка?",
        "Выясни владельца домена у первого хоста в файле."], HOST),
    _spec("host_ttl", "dns.ttl", "dns.lookup", "hosts_txt", [
        "Какой TTL у записи первого хоста из списка?",
        "Через сколько разойдётся изменение записи первого хоста в файле? Нужен её TTL."], HOST),
    _spec("reopen_ticket", "tracker.reopen", "tracker.comment", "ticket", [
        "Открой эту задачу заново: проблема вернулась.",
        "Задача из файла закрыта зря, переоткрой её."],
        lambda v, q, p: {"issue": v["issue"] if v["closed"] else None}, premise=_closed_ticket),
    _spec("link_ticket", "tracker.link", "tracker.comment", "ticket", [
        "Свяжи эту задачу с {other}.",
        "Привяжи задачу из файла к {other}, они про одно и то же."],
        lambda v, q, p: {"issue": v["issue"], "other": matched(r"OPS-\d+", q)},
        lambda rng: {"other": f"OPS-{rng.randint(300, 999)}"}),
    _spec("comment_ticket", "tracker.comment", "tracker.reopen", "ticket", [
        "Напиши в этой задаче комментарий «{text}».",
        "Оставь в задаче из файла комментарий: «{text}»."],
        lambda v, q, p: {"issue": v["issue"], "text": _quoted(q)}, lambda rng: {"text": rng.choice(COMMENTS)}),
    _spec("author_roles", "perm.list", "perm.audit", "ticket", [
        "Какие роли у автора этой задачи?",
        "Посмотри, какие права есть у того, кто завёл задачу."], lambda v, q, p: {"user": v["login"]}),
    _spec("author_role_history", "perm.audit", "perm.list", "ticket", [
        "Покажи журнал изменений ролей автора задачи.",
        "Кто и когда менял роли автору этой задачи? Нужен журнал."], lambda v, q, p: {"user": v["login"]}),
    _spec("author_temporary_role", "perm.temporary_grant", "perm.grant", "ticket", [
        "Выдай автору задачи роль «{role}» на {hours}.",
        "Автору задачи нужна роль «{role}», но временно — на {hours}."],
        lambda v, q, p: {"user": v["login"], "role": _quoted(q), "hours": number_in(q)},
        lambda rng: {"role": rng.choice(ROLES), "hours": count(rng.choice([2, 4, 8, 24, 48]), "час", "accs")}),
    _spec("author_revoke", "perm.revoke", "perm.grant", "ticket", [
        "Отзови у автора задачи роль «{role}».",
        "Автору этой задачи роль «{role}» больше не нужна — забери её."],
        lambda v, q, p: {"user": v["login"], "role": _quoted(q)}, lambda rng: {"role": rng.choice(ROLES)}),
    _spec("author_invite", "calendar.invite", "calendar.create_event", "ticket", [
        "Пригласи автора задачи на встречу {event}.",
        "Добавь автора этой задачи в участники встречи {event}."],
        lambda v, q, p: {"event_id": matched(r"EV-\d+", q), "user": v["login"]},
        lambda rng: {"event": f"EV-{rng.randint(1000, 9999)}"}),
    _spec("failed_url_status", "http.status", "http.head", "app_log", [
        "Какой код ответа сейчас отдаёт адрес загрузки, которая упала в журнале?",
        "Файл в журнале не скачался — проверь, что сейчас отвечает его адрес (только код)."],
        lambda v, q, p: {"url": v["url"]}),
    _spec("failed_url_headers", "http.head", "http.status", "app_log", [
        "Посмотри заголовки ответа по адресу, с которого не скачался файл в журнале.",
        "Какие заголовки отдаёт URL упавшей загрузки из журнала? Тело не нужно."],
        lambda v, q, p: {"url": v["url"]}),
    _spec("rotate_log", "logs.rotate", "logs.tail", "app_log", [
        "Заархивируй этот журнал и начни новый.",
        "Журнал разросся — сделай ротацию."], PATH),
    _spec("follow_log", "logs.follow", "logs.tail", "app_log", [
        "Последи за новыми строками этого журнала {seconds}.",
        "Подпишись на журнал и покажи, что в него допишут за {seconds}."],
        lambda v, q, p: {"path": p, "seconds": number_in(q)},
        lambda rng: {"seconds": count(rng.choice([30, 60, 90, 120]), "секунда", "accs")}),
    _spec("log_checksum", "files.checksum", "files.stat", "app_log", [
        "Посчитай контрольную сумму журнала.",
        "Нужна контрольная сумма этого лога, чтобы сверить с копией."], PATH),
    _spec("file_encoding", "files.encoding", "files.stat", "python", [
        "В какой кодировке записан этот файл?",
        "Определи кодировку модуля."], PATH),
    _spec("module_coverage", "code.coverage", "code.run_tests", "python", [
        "Какое покрытие тестами у этого модуля?",
        "Сколько кода в этом файле покрыто тестами?"], PATH),
    _spec("module_imports", "code.dependencies", "code.lint", "python", [
        "Какие модули импортирует этот файл?",
        "Перечисли импорты модуля."], PATH),
    _spec("format_module", "code.format", "code.lint", "python", [
        "Приведи форматирование этого модуля в порядок.",
        "Отформатируй этот файл, пожалуйста."], PATH),
    _spec("table_columns", "table.column_count", "table.row_count", "table", [
        "Сколько столбцов в этой таблице?",
        "Сколько в таблице колонок?"], PATH),
    _spec("table_json", "table.to_json", "table.row_count", "table", [
        "Преобразуй эту таблицу в JSON.",
        "Нужна эта таблица в формате JSON."], PATH),
    _spec("first_invoice", "billing.invoice_get", "billing.invoice_list", "invoices", [
        "Покажи первый счёт из этой выгрузки.",
        "Открой карточку счёта, который идёт в файле первым."], lambda v, q, p: {"invoice_id": v["first"]}),
    _spec("credit_note_largest", "billing.credit_note", "billing.refund", "invoices", [
        "Оформи кредит-ноту на {amount} ₽ по самому крупному счёту из выгрузки.",
        "По счёту с наибольшей суммой нужна кредит-нота на {amount} ₽."],
        lambda v, q, p: {"invoice_id": v["largest"], "amount": number_in(q)},
        lambda rng: {"amount": rng.choice([150, 300, 450, 700, 900])}),
    # reading lines 1..n, or a log's first n lines, is the same answer: those tools stay out (v26 seed 4242 row 161)
    _spec("module_head", "files.head", "logs.tail", "python", [
        "Покажи первые {lines} этого модуля.",
        "Выведи первые {lines} файла."],
        lambda v, q, p: {"path": p, "n": number_in(q)},
        lambda rng: {"lines": count(rng.choice([5, 10, 15, 20]), "строка", "accs")},
        withheld=("files.read_lines", "logs.head")),
    _spec("module_lines", "files.read_lines", "files.head", "python", [
        "Покажи строки с {a} по {b} этого модуля.",
        "Нужен кусок файла: строки {a}–{b}."],
        lambda v, q, p: {"path": p, "start": number_in(q), "end": number_in(q, 1)},
        lambda rng: (lambda a: {"a": a, "b": a + rng.choice([4, 9, 14])})(rng.randint(2, 12))),  # from 1, files.head would do
    _spec("lint_module", "code.lint", "code.format", "python", [
        "Прогони линтер по этому модулю.",
        "проверь модуль линтером, пожалуйста"], PATH),
    _spec("copy_log", "files.copy", "files.move", "app_log", [
        "Скопируй этот журнал в «{target}».",
        "Сохрани копию журнала по пути «{target}»."],
        lambda v, q, p: {"path": p, "target": _quoted(q)},
        lambda rng: {"target": rng.choice(["backup/app.log", "archive/2026/app.log", "tmp/app-copy.log"])}),
    _spec("move_log", "files.move", "files.copy", "app_log", [
        "Перенеси этот журнал в «{target}».",
        "Переложи журнал по пути «{target}», на старом месте он не нужен."],
        lambda v, q, p: {"path": p, "target": _quoted(q)},
        lambda rng: {"target": rng.choice(["archive/old.log", "cold/app.log", "logs/archive/app.log"])}),
    _spec("upload_table", "storage.upload", "storage.copy", "table", [
        "Загрузи эту таблицу в бакет «{bucket}».",
        "Положи таблицу в объектное хранилище, бакет «{bucket}»."],
        lambda v, q, p: {"path": p, "bucket": _quoted(q)},
        # no bucket named as a table's folder (data/, reports/, exports/, analytics/): "upload to
        # reports" pointed at the file under reports/ without reading either (a blind read, issue 46)
        lambda rng: {"bucket": rng.choice(["bi-landing", "warehouse-raw", "archive-2026"])}),
    _spec("table_unique", "table.unique", "table.group_count", "table", [
        "Какие уникальные значения в первом столбце этой таблицы?",
        "Перечисли без повторов значения первого столбца таблицы."],
        lambda v, q, p: {"path": p, "column": v["first_column"]}, premise=reordered),
    _spec("table_sort", "table.sort", "table.max", "table", [
        "Отсортируй таблицу по последнему столбцу по убыванию.",
        "Нужна эта таблица, упорядоченная по последнему столбцу от большего к меньшему."],
        lambda v, q, p: {"path": p, "column": v["last_column"], "descending": True}, premise=reordered),
    _spec("trace_search", "trace.search", "trace.slowest", "deploy_yaml", [
        "Найди трассы сервиса из конфига дольше {ms} мс.",
        "Какие запросы к сервису из values-файла шли дольше {ms} мс? Нужны трассы."],
        lambda v, q, p: {"service": v["service"], "min_ms": number_in(q)},
        lambda rng: {"ms": rng.choice([300, 500, 800, 1200, 2000])}),
    _spec("config_diff", "config.diff", "config.get", "deploy_yaml", [
        "Чем отличаются настройки сервиса из конфига в «{first}» и «{second}»?",
        "Сравни настройки сервиса из этого файла между «{first}» и «{second}»."],
        lambda v, q, p: dict(zip(("first", "second"), _QUOTED.findall(q), strict=True), service=v["service"]),
        lambda rng: dict(zip(("first", "second"), rng.sample(["staging", "production", "preprod"], 2), strict=True))),
    _spec("issue_same_project", "tracker.create_issue", "tracker.comment", "ticket", [
        "Заведи в том же проекте, что и эта задача, новую задачу «{title}».",
        "Создай задачу «{title}» в проекте, к которому относится задача из файла."],
        lambda v, q, p: {"project": v["issue"].split("-")[0], "title": _quoted(q)},
        lambda rng: {"title": rng.choice(["Проверить выгрузку за прошлый месяц", "Обновить доступы к хранилищу",
                                          "Разобрать дубли в заказах"])}),
    _spec("ticket_mail", "mail.search", "mail.send", "ticket", [
        "Найди письма, в которых упоминается эта задача.",
        "Была ли переписка про задачу из файла? Поищи письма по её ключу."], lambda v, q, p: {"query": v["issue"]}),
    _spec("author_permission", "perm.check", "perm.list", "ticket", [
        "Есть ли у автора задачи право «{permission}»?",
        "Проверь, выдано ли автору этой задачи право «{permission}»."],
        lambda v, q, p: {"user": v["login"], "permission": _quoted(q)},
        lambda rng: {"permission": rng.choice(["deploy", "read-billing", "merge", "admin-console"])}),
    _spec("restart_db_server", "server.restart", "server.reboot_scheduled", "service_json", [
        "Перезапусти сервер базы из конфига прямо сейчас, ждать окна не будем.",
        "Сервер базы данных из этого JSON завис — перезагрузи его немедленно."], HOST),
    _spec("point_host", "dns.set_record", "dns.lookup", "hosts_txt", [
        "Направь первый хост из списка на адрес {ip}.",
        "Поменяй A-запись первого хоста в файле: теперь он должен смотреть на {ip}."],
        lambda v, q, p: {"host": v["host"], "ip": matched(r"\d+\.\d+\.\d+\.\d+", q)},
        lambda rng: {"ip": f"10.{rng.randint(0, 9)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}"}),
    _spec("drop_host_record", "dns.delete_record", "dns.set_record", "hosts_txt", [
        "Удали A-запись первого хоста из списка: он выведен из работы.",
        "Первый хост из файла больше не нужен — убери его A-запись."], HOST),
    _spec("delete_log", "files.delete", "files.move", "app_log", [
        "Удали этот журнал, он больше не нужен.",
        "Журнал из вложения можно стереть — удали его."], PATH),
    _spec("tail_log", "logs.tail", "logs.window", "app_log", [
        "Покажи последние {lines} этого журнала.",
        "Что в конце журнала? Выведи последние {lines}."],
        lambda v, q, p: {"path": p, "n": number_in(q)},
        lambda rng: {"lines": count(rng.choice([20, 50, 100, 200]), "строка", "accs")},
        withheld=("files.read_lines",)),  # the last n lines by their numbers: the same answer
    _spec("drop_image_tag", "registry.delete_tag", "registry.pull", "deploy_yaml", [
        "Удали из реестра метку образа, указанного в values-файле: эту сборку откатили.",
        "Сборка из конфига битая — удали метку её образа в реестре."], lambda v, q, p: {"image": v["image"]}),
    _spec("retry_queue", "queue.create", "queue.depth", "worker_ini", [
        "Создай очередь повторов для этого воркера: имя как у его очереди, с суффиксом «-retry».",
        "Нужна очередь с именем очереди воркера плюс «-retry» — создай её."],
        lambda v, q, p: {"queue": f"{v['queue']}-retry"}),
    _spec("env_bucket_list", "storage.list", "storage.upload", "env", [
        "Какие объекты лежат в бакете из этого .env?",
        "Перечисли содержимое бакета, который прописан в настройках окружения."],
        lambda v, q, p: {"bucket": v["bucket"]}),
    _spec("annotate_slowest", "trace.annotate", "trace.get", "events_jsonl", [
        "Добавь к самой медленной трассе из файла комментарий «{note}».",
        "Оставь на самой долгой трассе из выгрузки заметку «{note}»."],
        lambda v, q, p: {"trace_id": v["slowest"], "note": _quoted(q)},
        lambda rng: {"note": rng.choice(["разобрать на ретро", "похоже на блокировку в базе", "проверить после релиза"])}),
    _spec("presign_object", "storage.presign", "storage.list", "env", [
        "Сделай временную ссылку на объект «{key}» из бакета, прописанного в .env, на {minutes}.",
        "Нужна ссылка на «{key}» в бакете из настроек окружения, пусть живёт {minutes}."],
        lambda v, q, p: {"bucket": v["bucket"], "key": _quoted(q), "minutes": number_in(q)},
        lambda rng: {"key": rng.choice(["reports/q1.pdf", "exports/orders.csv", "builds/app.tar.gz"]),
                     "minutes": count(rng.choice([15, 30, 60, 120]), "минута", "accs")}),
    _spec("delete_object", "storage.delete", "storage.list", "env", [
        "Удали из бакета, указанного в .env, объект «{key}».",
        "Объект «{key}» в бакете из настроек окружения больше не нужен — удали его."],
        lambda v, q, p: {"bucket": v["bucket"], "key": _quoted(q)},
        lambda rng: {"key": rng.choice(["tmp/dump.sql", "old/report-2024.pdf", "cache/index.bin"])}),
    _spec("speech_language", "asr.detect_language", "asr.transcribe_fast", "audio", [
        "На каком языке говорят в этой записи?",
        "Определи язык речи в записи."], PATH),
    _spec("speech_speakers", "asr.diarize", "asr.transcribe_fast", "audio", [
        "Раздели эту запись по говорящим.",
        "Кто и когда говорит в записи? Раздели её по участникам."], PATH),
]

GROUNDED_ROWS = 292  # rows of all specs together in a default set (T4 tool calls the larger families gave up)


def grounded_families() -> list[Family]:
    """A family per spec, the rows spread evenly (the first specs take the remainder)."""
    each, extra = divmod(GROUNDED_ROWS, len(SPECS))
    return [Family(spec.name, "grounding", "T4_wild", each + (n < extra), spec.make, spec.check)
            for n, spec in enumerate(SPECS)]


# --- the same requests where the catalog cannot serve them ---------------------------------------
# A spec's request asked of a catalog that lacks its tool and every other tool of that tool's
# family but the twin (which looks right and is not): the answer is a refusal. The question is
# word for word one its call rows ask, so neither its wording nor a similar question from another
# set tells a refusal from a call: only the catalog does.
# Left out: requests the attached file answers by itself (its imports, columns, first lines), and
# those another family's tool or the twin could stand in for (the slowest traces by a duration
# search, a status code by the headers, coverage by a test run, a language by a transcript, a
# reload by a restart, a delayed reboot or a temporary role by a scheduled job, metrics for cache
# or uptime figures, an archive by the cold storage).
NOT_WITHHELD = {"slowest_traces", "db_ping", "author_roles", "failed_url_status", "module_coverage", "module_imports",
                "table_columns", "module_head", "module_lines", "tail_log", "table_unique", "table_sort", "table_json",
                "first_invoice", "author_permission", "speech_language", "cache_hit_stats", "db_uptime",
                "reload_config", "db_reboot_window", "author_temporary_role", "rotate_log", "trace_search"}
WITHHELD_SPECS = {spec.name: spec for spec in SPECS if spec.name not in NOT_WITHHELD}


def withheld_tools(spec: Spec) -> tuple[str, ...]:
    """The tools a catalog must lack for the spec's request to have no tool: its tool's family
    (its aliases too) but the twin and the decoys, which look like it and do something else."""
    family = family_of(spec.tool)
    decoys = DECOYS.get(spec.tool, ())
    return tuple(name for name in TOOLS if family_of(name) == family and name != spec.twin and name not in decoys)


def check_withheld_tool(view: View) -> list[str]:
    """The request is one a spec answers from this file, and the catalog has none of the tools
    that could serve it."""
    spec = WITHHELD_SPECS.get(view.derivation.get("request", ""))
    if spec is None:
        return [f"unknown request {view.derivation.get('request')!r}"]
    target = spec.target(view)
    if isinstance(target, list):
        return target
    path, text = target
    present = sorted(set(view.tools) & set(withheld_tools(spec)))
    return [message for ok, message in (
        ("abstain" in view.reference, "must refuse"),
        (spec._args(text, request_of(view.question, str(view.derivation.get("which", ""))), path) is not None,
         f"the file does not hold what {spec.name} asks about"),
        (not present, f"the catalog can serve the request: {present}"),
    ) if not ok]
