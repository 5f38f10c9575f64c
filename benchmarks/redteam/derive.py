"""The red-team solver's values that the files decide: event lines, extremes, counts, a server's
status, premises a file contradicts, tickets, dependencies, traces; a request these show cannot be
carried out raises Refuse."""

from __future__ import annotations

import re
from typing import Any

from redteam import files as rf
from redteam import readers, replicas
from redteam.clause_rules import dependencies
from redteam.clauses import pick_clause
from redteam.timeouts import asked_timeout

_ORDINAL = {"перв": 1, "втор": 2, "трет": 3, "четв": 4, "пят": 5, "шест": 6}


class Refuse(Exception):
    """The recipe cannot be carried out here: the answer is a refusal."""


class Ask(Exception):
    """The files leave the request ambiguous (a column the table holds twice): the answer asks."""


def nth(question: str) -> int:
    m = re.search(r"\b(перв|втор|трет|четв|пят|шест)\w*", question.lower())
    return _ORDINAL[m.group(1)] if m else 1


_EVENTS = (("таймаут", r"ERROR .*timeout"), ("памят", r"ERROR .*out of memory"), ("диск", r"WARN .*disk"),
           ("медлен", r"WARN .*slow request"),
           ("баз", r"ERROR .*connection refused"), ("скачат", r"ERROR .*failed to download"),
           ("загруз", r"ERROR .*failed to download"))


def _event_lines(part: str, text: str) -> list[int] | None:
    """The lines of the log event a part of the question names (a record of the level whose line says it)."""
    for cue, pattern in _EVENTS:
        if cue in part:
            level, message = pattern.split(" ", 1)
            return [i for i, found, line in rf.log_level_records(text) if found == level and re.search(message, line)]
    return None


def _occurrence(lines: list[int], part: str) -> int | None:
    """The event's line by the count the part says: the k-th, or the last."""
    if re.search(r"последн", part):
        return lines[-1] if lines else None
    k = nth(part)
    return lines[k - 1] if len(lines) >= k else None


def event_line(question: str, text: str) -> int | None:
    """The line of the event asked about: the k-th or the last, or the first one after another
    event's k-th ("…, которая случилась уже после первой нехватки памяти")."""
    q = question.lower()
    split = re.search(r"(?:котор\w+\s+)?(?:случил\w*|произош\w*|был\w*)?\s*уже после", q)
    main, after = (q[:split.start()], q[split.end():]) if split else (q, "")
    lines = _event_lines(main, text)
    if lines is None:
        return None
    if after:
        since = _event_lines(after, text)
        start = _occurrence(since, after) if since else None
        if start is None:
            return None
        lines = [n for n in lines if n > start]
    return _occurrence(lines, main)


def derived(op: str, args: dict[str, Any], prompt: Any, path: str | None) -> dict[str, Any]:
    q = prompt.question.lower()
    text = prompt.files.get(path, "") if path else ""
    if op == "window" and "line" in args:
        args["line"] = event_line(q, text)
    if op == "blame" and "line" in args:
        args["line"] = blamed_line(q, text)
    if op == "set_timeout" and "seconds" in args:
        args["seconds"] = asked_timeout(q, text)
    if op == "download" and "url" in args and text:
        args["url"] = export_url(q, text) or args["url"]
    if op == "sum" and args.get("path") == "$1" and text:
        args["column"] = export_column(q, text) or args.get("column")
    return premises_and_counts(op, rules_by_table(op, args, prompt, path, q), prompt, path, q)


_SCOPE_WHERE = re.compile(r"(дата-центре|команды|на) ([a-z][\w.-]*?)(?=[.,]?(?:\s|$))")


def premises_and_counts(op: str, args: dict[str, Any], prompt: Any, path: str | None, q: str) -> dict[str, Any]:
    """What seed 23's refusals and near misses turn on: a sum or a count to compare with the
    catalog's maximum (the caller refuses past it), a status the request presumes (a ticket to
    close that is closed, a download to retry that went through, an invoice to void that is paid)."""
    invoice = re.search(r"INV-\d+", prompt.question)
    if invoice and "invoice_id" in args:
        args["invoice_id"] = invoice.group()
    if op == "refund" and re.search(r"оспор|спорн|не соглас|несоглас|претенз|не устро", q) and invoice:
        _disputed_amount(args, prompt, invoice.group())
    where = _SCOPE_WHERE.search(q)
    if "replicas" in args and where:
        column = {"дата-центре": "dc", "команды": "owner", "на": "os"}[where.group(1)]
        counted = ("active", "maintenance") if "в любом статусе" in q else ("active",)
        args["replicas"] = sum(1 for r in _servers(prompt, None)
                               if r.get(column, "").lower() == where.group(2) and r.get("status") in counted)
    text = prompt.files.get(path, "") if path else ""
    if op == "close_issue" and text:
        steps = re.findall(r"^- \d{4}-\d\d-\d\d: (?:.*→ )?([^→\n(]+?)\s*(?:\(.*\))?$", text, re.M)
        status = re.search(r"^(?:(?:Статус|Status|Состояние)\s*:\s*(.+)|\|\s*Статус\s*\|\s*(.+?)\s*\|)$", text, re.M)
        state = steps[-1] if steps else (status.group(1) or status.group(2) if status else "")
        if re.search(r"закрыт|closed", state):
            raise Refuse("задача уже закрыта")
    if op == "download" and re.search(r"упал|не скачал|споткнул", q):
        _failed_download(args, prompt)
    if op == "read_lines" and re.search(r"от перв\w* до последн", q) and text:
        _event_span(args, prompt, text, q)
    if op == "invoice_void" and invoice:
        for record in _invoices(prompt, path):
            paid = record.get("status") == "paid" or bool(re.fullmatch(r"\d{4}-\d\d-\d\d", record.get("paid_at", "")))
            if record.get("invoice_id") == invoice.group() and paid:
                raise Refuse(f"счёт {invoice.group()} уже оплачен")
    return args


def _disputed_amount(args: dict[str, Any], prompt: Any, invoice: str) -> None:
    """A refund of what is disputed: the sum of the invoice's rows marked as disputed."""
    for p in prompt.files:
        t = rf.table(prompt.files[p], p)
        if t and {"invoice_id", "amount_rub"} <= set(t.header):
            marked = [r for r in t.records() if r.get("invoice_id") == invoice
                      and r.get(t.header[-1]) in ("да", "оспорена", "disputed", "yes")]
            args["amount"] = int(sum(rf.number(r.get("amount_rub", "")) or 0 for r in marked))


def _failed_download(args: dict[str, Any], prompt: Any) -> None:
    """The download to retry: the first that failed and was not fetched later; none in the logs
    is a refusal."""
    logs = [p for p in prompt.files if rf.extension(p) == "log"]
    failed = []
    for p in logs:  # a failure stands while no later line brings the same file
        text_of = prompt.files[p]
        lines = text_of.split("\n")
        for n, level, line in rf.log_level_records(text_of):
            if level != "ERROR" or "failed to download" not in line:
                continue
            url = line.split("failed to download", 1)[1].split()[0].rstrip('"')
            if not re.search(rf"{re.escape(url)}.*downloaded", "\n".join(lines[n:])):
                failed.append(url)
    if logs and not failed:
        raise Refuse("в журнале нет упавшей загрузки")
    if failed:
        args["url"] = failed[0]


def _event_span(args: dict[str, Any], prompt: Any, text: str, q: str) -> None:
    """An event's first record to its last in one read: the span counted, held against the
    catalog's "Не более N строк за вызов"."""
    for cue, pattern in _EVENTS:
        if cue in q:
            lines = [i for i, line in rf.log_records(text) if re.search(pattern, line)]
            if len(lines) >= 2:
                args["start"], args["end"] = lines[0], lines[-1]
                tool = next((t for t in prompt.tools if t.op == "read_lines"), None)
                most = re.search(r"(\d+) строк", tool.limits) if tool else None
                if most and lines[-1] - lines[0] + 1 > int(most.group(1)):
                    raise Refuse(f"{lines[-1] - lines[0] + 1} строк — больше, чем читается за один вызов")
            break


_RACK = re.compile(r"\bстойк\w*\s+(r\d+)")  # over the lowered question
_SERVER = re.compile(r"\bsrv-\d+\b")


def _servers(prompt: Any, path: str | None) -> list[dict[str, str]]:
    for p in ([path] if path else []) + list(prompt.files):
        t = rf.table(prompt.files.get(p, ""), p)
        if t and "host" in t.header and "status" in t.header:
            return t.records()
    return []


def _pick_server(q: str, records: list[dict[str, str]]) -> dict[str, str] | None:
    named = _SERVER.findall(q)
    if named:
        return next((r for r in records if r.get("host") == named[0]), {"host": named[0]})
    rack = _RACK.search(q)
    pool = [r for r in records if not rack or r.get("rack", "").lower() == rack.group(1)]
    column = "disk_used_pct" if "диск" in q else ("ram_gb" if "памят" in q else "cpu_pct")
    lowest = any(w in q for w in ("незагруж", "минимал", "меньше всего", "наименее", "свободн"))
    scored = [(r, rf.number(r.get(column, ""))) for r in pool]
    scored = [(r, v) for r, v in scored if v is not None]
    return rf.argmax(scored, lowest=lowest) if scored else None


def _invoices(prompt: Any, path: str | None) -> list[dict[str, str]]:
    for p in ([path] if path else []) + list(prompt.files):
        t = rf.table(prompt.files.get(p, ""), p)
        if t and "invoice_id" in t.header:
            return t.records()
    return []


def rules_by_table(op: str, args: dict[str, Any], prompt: Any, path: str | None, q: str) -> dict[str, Any]:
    """The recipe's arguments worked out afresh over this row's files: a server, replica count,
    invoice or trace from the tables and exports; the ticket's own key, author and project; the
    levels the question names; a file's first host, a dependency, a function; a config's value."""
    text = prompt.files.get(path, "") if path else ""
    _server_args(op, args, prompt, path, q)
    _invoice_args(op, args, prompt, path, q)
    _trace_args(op, args, prompt, path, text)
    _ticket_args(args, prompt, path, text, q)
    _asked_levels(args, q)
    _listed_or_declared(op, args, prompt, path, text, q)
    _config_values(op, args, prompt, path, text, q)
    return args


def _server_args(op: str, args: dict[str, Any], prompt: Any, path: str | None, q: str) -> None:
    """The server the question means, by name or by its figures (one to decommission must be in
    maintenance), and replicas as many as the servers or hosts counted."""
    if "host" in args and re.search(r"srv-|сервер|машин", q) and ("srv-" in str(args["host"]) or _SERVER.search(q)):
        server = _pick_server(q, _servers(prompt, path))
        if server:
            args["host"] = server["host"]
            if op == "decommission" and server.get("status") not in (None, "maintenance"):
                raise Refuse(f"сервер {server['host']} в статусе {server.get('status') or 'без статуса'}, "
                             "а выводить из эксплуатации можно только серверы в статусе maintenance")
    if "replicas" in args:
        counted = replicas.by_servers(q, prompt)
        if counted is not None:
            args["replicas"] = counted
        elif "ранбук" in q or "хост" in q:
            books = [p for p in prompt.files if rf.extension(p) in ("md", "txt") and rf.listed_hosts(prompt.files[p])]
            if books:
                args["replicas"] = replicas.by_hosts(q, len(rf.listed_hosts(prompt.files[books[0]])))


def _invoice_args(op: str, args: dict[str, Any], prompt: Any, path: str | None, q: str) -> None:
    """The invoice the question picks (first, last, largest or smallest) and, for a full refund,
    its whole amount."""
    if "invoice_id" not in args:
        return
    records = _invoices(prompt, path)
    scored = [(r, rf.number(r.get("amount_rub", ""))) for r in records]
    scored = [(r, v) for r, v in scored if v is not None]
    if not scored:
        return
    if "перв" in q:
        pick = scored[0]
    elif "последн" in q:
        pick = scored[-1]
    else:
        pick = max(scored, key=lambda rv: rv[1]) if not re.search(r"маленьк|дешёв|дешев|минимал", q) \
            else min(scored, key=lambda rv: rv[1])
    args["invoice_id"] = pick[0]["invoice_id"]
    if op == "refund" and "amount" in args and ("всю" in q or "целиком" in q or "полн" in q or "всей" in q):
        args["amount"] = int(pick[1]) if pick[1] == int(pick[1]) else pick[1]


def _trace_args(op: str, args: dict[str, Any], prompt: Any, path: str | None, text: str) -> None:
    """The slowest trace, or the two slowest to compare, from the attached exports."""
    if not ("trace_id" in args or ("first" in args and "second" in args
                                   and (op == "compare" or "tr-" in str(args["first"])))):
        return
    traces = [t for p in prompt.files if rf.extension(p) == "jsonl" for t in rf.trace_records(prompt.files[p])]
    if path and rf.extension(path) == "jsonl":
        traces = rf.trace_records(text) or traces
    ranked = [trace for trace, _ in sorted(traces, key=lambda t: -t[1])]  # by latency, in ms whatever the layout
    if ranked:
        if "trace_id" in args:
            args["trace_id"] = ranked[0]
        elif len(ranked) > 1:
            args["first"], args["second"] = ranked[0], ranked[1]


def _ticket_args(args: dict[str, Any], prompt: Any, path: str | None, text: str, q: str) -> None:
    """What the attached ticket says of itself: its key (for the issue, project and query the
    recipe took from another ticket) and its author."""
    own = rf.ticket_key(text) if path and rf.extension(path) == "md" and text.strip() else ""  # the title's key
    if ("issue" in args and own and str(args["issue"]) != own and re.fullmatch(r"[A-Z]+-\d+", str(args["issue"]))
            and str(args["issue"]) not in prompt.question):
        args["issue"] = own
    if "project" in args and own:
        args["project"] = own.split("-")[0]
    if "query" in args and own and re.fullmatch(r"[A-Z]+-\d+", str(args["query"])):
        args["query"] = own
    if "user" in args and path and rf.extension(path) == "md" and re.search(r"автор|завёл|завел|создал|открыл\w* (?:эту )?задач", q):
        args["user"] = rf.ticket_author(text) or args["user"]


def _asked_levels(args: dict[str, Any], q: str) -> None:
    """A severity and a resolution as the question words them."""
    severity = next((name for name in args if name.endswith("severity")), None)
    if severity:  # the lowest level the question accepts ("high и critical" -> high)
        levels = [lv for lv in ("low", "medium", "high", "critical") if re.search(rf"\b{lv}\b", q)]
        if levels:
            args[severity] = levels[0]
    if "resolution" in args:
        if re.search(r"не буд|wont|не станем|исправлять не", q):
            args["resolution"] = "wont_fix"
        elif re.search(r"дубл|duplicate", q):
            args["resolution"] = "duplicate"
        elif re.search(r"исправ|починил|fixed", q):
            args["resolution"] = "fixed"


def _listed_or_declared(op: str, args: dict[str, Any], prompt: Any, path: str | None, text: str, q: str) -> None:
    """What the file lists or declares in order: its first host, the dependency the question names
    (or the first), the n-th function of a module."""
    if "host" in args and "перв" in q and "хост" in q and path:
        listed = rf.listed_hosts(text)
        if listed:
            args["host"] = listed[0]
    if "package" in args and path and rf.extension(path) == "xml":
        deps = dependencies(text)
        asked = prompt.question.replace(pick_clause(prompt), " ") if pick_clause(prompt) else prompt.question
        named = [d for d in deps if re.search(rf"(?<![\w-]){re.escape(d[0])}(?![\w-])", asked)]
        pick = deps[0] if deps and re.search(r"перв\w* (зависим|библиот|либ)", q) else (named[0] if named else None)
        if pick:
            args["package"] = pick[0]
            if "version" in args and not re.search(r"«[^»]*»", prompt.question):
                args["version"] = pick[1]
            elif "version" in args:
                args["version"] = pick[1] if "target_version" in args else args["version"]
    if op == "find_symbol" and "name" in args and path and re.search(r"функци", q):
        defs = re.findall(r"^def (\w+)\(", text, re.M)
        k = nth(q)
        args["name"] = defs[k - 1] if len(defs) >= k else args["name"]


def _config_values(op: str, args: dict[str, Any], prompt: Any, path: str | None, text: str, q: str) -> None:
    """A value the attached config or build file sets: the database's host and port, the ingress
    host, the exposed port, the created table, the base image, the image's repository, the queue."""
    if not path:
        return
    if rf.extension(path) == "json" and "баз" in q and ("host" in args or "port" in args):
        doc = rf.json_doc(text)
        database = doc.get("database") if isinstance(doc, dict) else None
        if isinstance(database, dict):
            for name in ("host", "port"):
                if name in args and name in database:
                    args[name] = database[name]
    if "host" in args and "ingress" in q and rf.extension(path) in ("yaml", "yml"):
        section = re.search(r"^ingress:\s*\n((?:[ \t]+.*\n?)*)", text, re.M)
        host = re.search(r"^\s+host:\s*[\"']?([\w.-]+)", section.group(1), re.M) if section else None
        if host:
            args["host"] = host.group(1)
    if "port" in args and rf.extension(path) == "dockerfile":  # EXPOSE ${APP_PORT}: the ARG's value
        args["port"] = readers.exposed_port(text) or args["port"]
    if "table" in args and rf.extension(path) == "sql":  # IF NOT EXISTS, a quoted name, a string's CREATE
        args["table"] = readers.created_table(text) or args["table"]
    if op == "list_tags" and "image" in args and rf.extension(path) == "dockerfile":
        base = re.search(r"^FROM\s+(\S+)", text, re.M)
        if base:
            args["image"] = base.group(1).split(":", 1)[0]
    if op == "set_image" and "image" in args:
        live = rf.key_value(text, "image")
        version = re.findall(r"\b\d+\.\d+\.\d+\b", prompt.question)
        if live and version:
            args["image"] = live.rsplit(":", 1)[0] + ":" + version[-1]
    if "queue" in args and rf.extension(path) == "ini":
        section = re.search(r"^\[queue\]\n(.*?)(?=^\[|\Z)", text, re.M | re.S)
        name = rf.key_value(section.group(1), "name") if section else None
        if name:
            suffix = "-retry" if str(args["queue"]).endswith("-retry") else ""
            args["queue"] = name + suffix


# --- plans and time-outs seed 23's rows decide by reading (links, columns, settings, parts) ---

_MONTH_STEMS = ("январ", "феврал", "март", "апрел", r"ма[йея]\b", "июн", "июл", "август", "сентябр", "октябр",
                "ноябр", "декабр")


def export_url(q: str, text: str) -> str | None:
    """The export a ticket's thread means: the named month's, the re-uploaded one, else the
    description's (not a test upload)."""
    links = rf.urls(text)
    month = next((n for n, stem in enumerate(_MONTH_STEMS, 1) if re.search(rf"\b{stem}", q)), None)
    if month:
        return next((u for u in links if f"-{month:02d}-" in u), None)
    described = re.search(r"здесь:\s*(https://\S+)", text)
    for line in reversed(text.splitlines()):
        low = line.lower()
        if not rf.urls(line) or re.search(r"тест|стенд|песочниц|образец|пример|не данные|не годится|для истории|"
                                          r"раньше|стар\w+ ссылк|прошлую версию|была по адресу", low):
            continue
        if re.search(r"перевыложил|переехал|правильная|обновил|другое место|новая:|актуальная ссылка|берите", low):
            return rf.urls(line)[-1].rstrip(".,")
    if described:
        return described.group(1)
    live = [u for u in links if not re.search(r"staging|sandbox|test", u)]
    return live[0] if live else None


def export_column(q: str, text: str) -> str | None:
    header = re.search(r"^order_id,.*$", text, re.M)
    columns = header.group(0).split(",") if header else []
    pattern = r"deliver|shipping|доставк" if "доставк" in q else r"amount|total|sum|сумм"
    return next((c for c in columns if re.search(pattern, c.lower())), None)


_SETTINGS = ((r"таймаут", r"TIMEOUT"), (r"пачк", r"BATCH|LIMIT|CHUNK|PAGE"), (r"вебхук|оповещ", r"HOOK"),
             (r"адрес", r"URL|ROOT|BASE"))


def blamed_line(q: str, text: str) -> int | None:
    """The live line that defines the setting the question names (its constant's name says what it is)."""
    pattern = next((name for cue, name in _SETTINGS if re.search(cue, q)), r"TIMEOUT")
    for n, line in enumerate(text.splitlines(), 1):
        m = re.match(r"([A-Z][A-Z0-9_]*)\s*=", line)
        if m and re.search(pattern, m.group(1)) and not (pattern != r"HOOK" and "HOOK" in m.group(1)):
            return n
    return None
