"""The red-team solver's rules: turning a dev recipe into this row's answer (the tool the catalog
offers for the recipe's operation, each value worked out over this row's files), and the
per-request rules a reader of one set writes down (extremes, counts, event lines, limits, the
server's status, the file the question picks by what it holds)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from merabench.tasks.gorillahard.generator import redteam_files as rf

_QUOTE = re.compile(r"«([^»]*)»")
_PATH_IN = re.compile(r"(?:[\w.-]+/)+[\w.-]+")
_ORDINAL = {"перв": 1, "втор": 2, "трет": 3, "четв": 4, "пят": 5, "шест": 6}
_PICK = re.compile(r"(где|в котором|которого|который|что)\s+(.*?)\s*(больше|меньше|длиннее|короче)"
                   r"|(больше|меньше)\s+(.*?)(?:[.;]|$)")


class Refuse(Exception):
    """The recipe cannot be carried out here: the answer is a refusal."""


def kind_of(answer: Any) -> str:
    if not isinstance(answer, dict):
        return "abstain"
    for key, kind in (("plan", "plan"), ("calls", "calls"), ("clarify", "clarify"), ("abstain", "abstain")):
        if key in answer:
            return kind
    return "call"


def steps_of(answer: Any) -> list[dict[str, Any]]:
    if not isinstance(answer, dict):
        return []
    if "tool" in answer:
        return [answer]
    steps = answer.get("plan") or answer.get("calls") or []
    return [s for s in steps if isinstance(s, dict)]


def refusal(reason: str) -> dict[str, Any]:
    return {"abstain": True, "reason": reason}


# --- which file ------------------------------------------------------------------------------

def named_files(prompt: Any) -> list[str]:
    return [p for p in prompt.files if p in prompt.question or p.rsplit("/", 1)[-1] in prompt.question]


def live_text(text: str) -> str:
    """A file without its comments (XML ones too): what it says, not what it used to."""
    return "\n".join(rf.live_lines(re.sub(r"<!--.*?-->", "", text, flags=re.S)))


_PICKING = re.compile(r"больше|меньше|длиннее|короче|\b(?:тот|том|то|та|файл\w*|вложени\w*)\W+"
                     r"(?:где|в котором|в которой|которая|который|что|из)\b|подключ|собира|среди зависимост")


def pick_clause(prompt: Any) -> str:
    """The sentence of a question that picks one of two files: it names both, or says which one by
    what it holds ("нужен тот, где реплик больше")."""
    sentences = [s for s in re.split(r"(?<=[.?!])\s+", prompt.question) if s.strip()]
    for sentence in sentences:
        if sum(p in sentence for p in prompt.files) >= 2:
            return sentence
    if len(prompt.files) >= 2:
        for sentence in sentences:
            if _PICKING.search(sentence):
                return sentence
    return ""


def dependencies(text: str) -> list[tuple[str, str]]:
    """A pom's (artifactId, version) pairs of its <dependencies>, in order (not its own, not plugins)."""
    section = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    found = re.search(r"<dependencies>(.*?)</dependencies>", section, re.S)
    blocks = re.findall(r"<dependency>(.*?)</dependency>", found.group(1) if found else "", re.S)
    pairs = []
    for block in blocks:
        artifact = re.search(r"<artifactId>\s*([^<\s]+)\s*</artifactId>", block)
        version = re.search(r"<version>\s*([^<\s]+)\s*</version>", block)
        if artifact and version:
            pairs.append((artifact.group(1), version.group(1)))
    return pairs


def _held(text: str, path: str) -> str:
    """What a file holds that a question can pick it by: a pom's dependencies, else its live text."""
    if rf.extension(path) == "xml" and "<dependencies>" in text:
        return " ".join(name for name, _ in dependencies(text))
    if rf.extension(path) == "dockerfile":  # what it builds from
        return " ".join(re.findall(r"^FROM\s+(\S+)", text, re.M))
    return live_text(text)


def pick_by_content(prompt: Any, candidates: list[str]) -> list[str]:
    """Of the files a question lists, the one it picks by what they hold: a thing one of them holds
    ("в котором подключён postgresql", "что собирается из образа golang") or more or less of
    something ("где хостов больше")."""
    q = prompt.question
    if len(candidates) < 2:
        return candidates
    clause = pick_clause(prompt) or q
    if re.search(r"образ|подключ|есть|собира|упомина|содерж", clause):
        bare = _PATH_IN.sub(" ", clause)
        for word in re.findall(r"[a-z][a-z0-9.-]*[a-z0-9]", bare):
            holding = [p for p in candidates
                       if re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", _held(prompt.files[p], p))]
            if len(holding) == 1:
                return holding
    m = re.search(r"(больше|меньше|длиннее|короче)", clause)
    if not m:
        return candidates
    lowest = m.group(1) in ("меньше", "короче")
    if "короче" in clause or "длиннее" in clause:
        lowest = "короче" in clause
    measured = [(p, rf.measure(prompt.files[p], p, clause)) for p in candidates]
    known = [(p, v) for p, v in measured if v is not None]
    if len(known) < 2:
        return candidates
    return [rf.argmax(known, lowest=lowest)]


_FORMAT_GROUPS = {"csv": {"csv", "tsv"}, "tsv": {"csv", "tsv"}, "yaml": {"yaml", "yml"}, "yml": {"yaml", "yml"},
                  "md": {"md", "txt"}, "txt": {"md", "txt"}}  # a host list is a text file or a runbook


def choose(prompt: Any, kind: str | None, ext: str | None) -> str | None:
    """The file a value comes from: the one the question names, else of the recipe's kind or
    format; of two that fit, the one the picking sentence means."""
    files = list(prompt.files)
    group = _FORMAT_GROUPS.get(ext or "", {ext})
    same_ext = [p for p in files if ext and rf.extension(p) in group]
    fitting = [p for p in files if kind and rf.file_kind(p) == kind] or same_ext
    named = named_files(prompt)
    clause = pick_clause(prompt)
    picking = [p for p in named if p in clause]
    pool = (picking if len(picking) >= 2 else []) or [p for p in named if p in fitting] or fitting or named or files
    if clause and not named and len(same_ext) > 1:
        pool = same_ext
    if len(pool) > 1:
        pool = pick_by_content(prompt, pool)
    return pool[0] if pool else None


def main_file(prompt: Any, recipe: Mapping[str, Any]) -> str | None:
    for step in recipe["steps"]:
        for spec in step["args"].values():
            if spec["t"] == "path":
                return choose(prompt, spec["kind"], spec["ext"])
    named = named_files(prompt) or (list(prompt.files) if pick_clause(prompt) else [])
    if len(named) > 1:
        named = pick_by_content(prompt, named)
    return named[0] if named else (next(iter(prompt.files)) if len(prompt.files) == 1 else None)


# --- the catalog -----------------------------------------------------------------------------

def tool_for(prompt: Any, op: str, desc: str = "") -> rf.Tool | None:
    """The catalog's tool for a recipe's operation: the same operation name under any provider,
    told from other families' tools of that name (`flags.get`, `cache.get`) by its description;
    the live one before a deprecated twin."""
    same = [t for t in prompt.tools if t.op == op]
    if desc and same:
        mine = set(re.findall(r"\w{3,}", desc.lower()))

        def overlap(tool: rf.Tool) -> float:
            theirs = set(re.findall(r"\w{3,}", tool.description.lower()))
            return len(mine & theirs) / max(1, len(mine | theirs))
        same = [t for t in same if t.description == desc] or [t for t in same if overlap(t) >= 0.5]
    live = [t for t in same if not t.deprecated]
    return (live or same or [None])[0]


_STATISTICS = (("median", r"медиан"), ("max", r"максим|наибольш|сам\w+ больш|наивысш"),
               ("min", r"миним|наименьш|сам\w+ маленьк|сам\w+ меньш"), ("mean", r"средн"), ("sum", r"сумм|итог"))
_STAT_DESC = {"median": "Медиана числового столбца таблицы.", "max": "Максимум числового столбца таблицы.",
              "min": "Минимум числового столбца таблицы.", "mean": "Среднее арифметическое числового столбца таблицы.",
              "sum": "Сумма значений числового столбца таблицы."}


def statistic(op: str, desc: str, question: str) -> tuple[str, str]:
    """A column statistic is the one the question's own word names, whatever the neighbour's was;
    so is switching on or off."""
    if op in ("enable", "disable"):
        q = question.lower()
        if re.search(r"выключ|отключ|погас|выруб|\boff\b", q):
            return "disable", ""
        if re.search(r"(?<!вы)(?<!от)включ|\bon\b", q):
            return "enable", ""
        return op, desc
    if op not in _STAT_DESC:
        return op, desc
    q = question.lower()
    for name, pattern in _STATISTICS:
        if re.search(pattern, q):
            return name, _STAT_DESC[name]
    return op, desc


_CHEAP = re.compile(r"дёшев|дешев|сэконом|недорог|экономн|подешевле|бюджет (?:огранич|мал|скром)")
_QUALITY = re.compile(r"точн|кажд\w* (?:фраз|слов)|не ограничен|сразу|срочн|немедленн|без задерж|в любой момент")


def cost_pick(prompt: Any, tool: rf.Tool | None) -> rf.Tool | None:
    """Of a same-capability pair (one description, a caveat apart: cheap or dear), the side the
    question's priority names."""
    if tool is None:
        return None
    twins = [t for t in prompt.tools if t.description == tool.description and t.name != tool.name
             and t.name.split(".", 1)[0] == tool.name.split(".", 1)[0]]
    if not twins:
        return tool
    q = prompt.question.lower()
    wants = "Дёшево" if _CHEAP.search(q) and not _QUALITY.search(q) else ("Дорого" if _QUALITY.search(q) else None)
    if wants is None:
        return tool
    for candidate in [tool, *twins]:
        if wants in candidate.limits:
            return candidate
    return tool


def within_limits(tool: rf.Tool, args: Mapping[str, Any]) -> str | None:
    for name, value in args.items():
        spec = tool.params.get(name) if isinstance(tool.params, Mapping) else None
        if not isinstance(spec, Mapping) or isinstance(value, bool):
            continue
        if isinstance(value, int | float):
            if "maximum" in spec and value > spec["maximum"]:
                return f"{name} = {value} больше допустимого {tool.name} ({spec['maximum']})"
            if "minimum" in spec and value < spec["minimum"]:
                return f"{name} = {value} меньше допустимого {tool.name} ({spec['minimum']})"
        if isinstance(value, str) and "pattern" in spec and value != "$1":
            try:
                if not re.search(spec["pattern"], value):
                    return f"{name} не подходит {tool.name}"
            except re.error:
                pass
    return None


# --- values ----------------------------------------------------------------------------------

_TRANSLIT = dict(zip("абвгдеёжзийклмнопрстуфхцчшщъыьэюя",
                     ["a", "b", "v", "g", "d", "e", "e", "zh", "z", "i", "y", "k", "l", "m", "n", "o", "p", "r", "s",
                      "t", "u", "f", "h", "ts", "ch", "sh", "sch", "", "y", "", "e", "yu", "ya"], strict=True))
_UNIT_TAILS = ("percent", "pct", "rub", "gb", "c")


def header_root(name: str) -> str:
    """A header as its spelling varies: lowered, transliterated, letters and digits only, without
    a unit at its end (Skidka_pct, skidka and DiscountPct as the dev rows spell one column)."""
    bare = re.sub(r"[^a-z0-9]", "", "".join(_TRANSLIT.get(ch, ch) for ch in name.lower()))
    for unit in _UNIT_TAILS:
        if bare.endswith(unit) and len(bare) > len(unit) + 2:
            return bare[: -len(unit)]
    return bare


ROOTS: dict[str, list[str]] = {}  # a column phrase -> the roots of the headers dev rows used for it (the bank's)


def _column(prompt: Any, path: str | None, phrase: str, columns: Mapping[str, str]) -> str:
    t = rf.table(prompt.files.get(path, ""), path or "") if path else None
    header = t.header if t else ()
    if phrase in header:
        return phrase
    mapped = columns.get(phrase.lower())
    if mapped and (not header or mapped in header):
        return mapped
    # the column under another spelling: a header whose root a dev row used for the phrase, or
    # the phrase transliterated; a look-alike (discount_code for «скидка») has another root
    stems = {w[:5] for w in re.findall(r"[а-яё]{4,}", phrase.lower())}  # «размер скидки» shares «скидка»'s stem
    roots = {root for known, found in ROOTS.items() if stems & {w[:5] for w in re.findall(r"[а-яё]{4,}", known)}
             for root in found} | {header_root(phrase)} | {header_root(phrase.split()[0])}
    if mapped:
        roots.add(header_root(mapped))
    fitting = [h for h in header if header_root(h) in roots]
    if len(fitting) == 1:
        return fitting[0]
    raise Refuse(f"в таблице нет столбца «{phrase}»")


_TOKEN = re.compile(r"[^\s\"',;<>]+")


def _after(line: str, prefix: str) -> int | None:
    """Where the value starts: past the recipe's prefix (the text before the value, its numbers
    dropped) and the blanks after it."""
    pos = len(line) - len(line.lstrip())
    for ch in prefix:
        while pos < len(line) and line[pos].isdigit() and not ch.isdigit():
            pos += 1
        if pos >= len(line) or line[pos] != ch:
            return None
        pos += 1
    while pos < len(line) and line[pos].isspace():
        pos += 1
    return pos if pos < len(line) else None


def _fkey(prompt: Any, spec: Mapping[str, Any], first: str | None) -> Any:
    found = _fkey_exact(prompt, spec, first)
    if found is not None:
        return found
    # the file is laid out otherwise: the same key anywhere ("retries:" under another parent)
    key = re.findall(r"[A-Za-z_][\w.-]*", spec["prefix"])
    if not key or not re.search(r"[:=]\W*$", spec["prefix"]):
        return None
    order = ([first] if first else []) + [p for p in prompt.files if p != first]
    pattern = re.compile(rf"^\s*[\"']?{re.escape(key[-1])}[\"']?\s*[:=]\s*[\"']?([^\s\"',;#]+)")
    for path in order:
        for line in rf.live_lines(prompt.files[path]):
            m = pattern.match(line)
            if m:
                token = m.group(1)
                if spec.get("num"):
                    n = rf.number(token)
                    return int(n) if n is not None and n == int(n) else n
                return token
    return None


def _fkey_exact(prompt: Any, spec: Mapping[str, Any], first: str | None) -> Any:
    order = ([first] if first else []) + [p for p in prompt.files if p != first]
    shape = re.compile(spec["shape"])
    for path in order:
        seen = 0
        for line in rf.live_lines(prompt.files[path]):
            if not re.sub(r"\d+", "", line.strip()).startswith(spec["prefix"]):
                continue
            if seen < spec["occ"]:
                seen += 1
                continue
            start = _after(line, spec["prefix"])
            if start is None:
                continue
            m = (shape.match(line, start) if " " in spec["shape"] else None) or _TOKEN.match(line, start)
            if not m:
                continue
            token = m.group(0)
            if spec.get("num"):
                n = rf.number(token)
                return int(n) if n is not None and n == int(n) else n
            return token
    return None


def _choice(values: Mapping[str, Mapping[str, int]], question_words: set[str]) -> str | None:
    """Naive Bayes over the dev questions that carried each value: its share, times how often each
    of this question's words came with it."""
    total = sum(seen.get("#n", 1) for seen in values.values())

    def fit(value: str) -> float:
        seen = values[value]
        n = seen.get("#n", 1)
        return math.log(n / total) + sum(math.log((seen.get(w, 0) + 0.1) / (n + 0.2)) for w in question_words)
    return max(values, key=fit) if values else None


def value_of(spec: Mapping[str, Any], name: str, prompt: Any, path: str | None,
             columns: Mapping[str, str], choice: Mapping[str, Mapping[str, int]] | None = None) -> Any:
    t = spec["t"]
    quotes = _QUOTE.findall(prompt.text)
    if t == "const":
        if choice:
            from merabench.tasks.gorillahard.generator.redteam import words

            picked = _choice(choice, set(words(prompt.question)))
            return picked if picked is not None else spec["v"]
        return spec["v"]
    if t == "path":
        return choose(prompt, spec["kind"], spec["ext"])
    if t == "quote":
        return quotes[spec["i"]] if spec["i"] < len(quotes) else None
    if t == "colq":
        own = _QUOTE.findall(prompt.question)
        if not own and prompt.history:  # "the same column": the one the previous answer used
            earlier = value_of({"t": "hist"}, name, prompt, path, columns)
            if earlier is not None:
                return earlier
        if not own:  # a column named bare: "по колонке projects"
            table = rf.table(prompt.files.get(path, ""), path or "") if path else None
            bare = [h for h in (table.header if table else ()) if re.search(rf"(?<![\w-]){re.escape(h)}(?![\w-])",
                                                                           prompt.question)]
            if bare:
                return bare[0]
        own = own or quotes
        if spec["i"] < len(own):
            return _column(prompt, path, own[spec["i"]], columns)
        return None
    if t == "colname":
        table = rf.table(prompt.files.get(path, ""), path or "") if path else None
        if table and spec["v"] in table.header:
            return spec["v"]
        if table and table.header:
            pos = spec["pos"]
            return table.header[pos] if -len(table.header) <= pos < len(table.header) else None
        return spec["v"]
    if t == "qtok":
        from merabench.tasks.gorillahard.generator.redteam import _question_tokens

        tokens = _question_tokens(prompt.question, spec["shape"]) or _question_tokens(prompt.text, spec["shape"])
        if not tokens and re.fullmatch(r"\[a-z\]\+(?:\\?[_-]\[a-z\]\+)*", spec["shape"]):
            tokens = _question_tokens(prompt.question, r"[a-z][a-z0-9]*(?:[_-][a-z0-9]+)*")  # any identifier
        if not tokens:
            return spec.get("v")
        token = tokens[min(spec["i"], len(tokens) - 1)]
        if re.fullmatch(r"\d+", token):
            return int(token)
        return token
    if t == "hist":
        for _, answer in prompt.history[::-1]:
            for step in steps_of(answer):
                if name in step.get("args", {}):
                    return step["args"][name]
        return None
    if t == "fkey":
        return _fkey(prompt, spec, path)
    return None


def apply(recipe: Mapping[str, Any], prompt: Any, columns: Mapping[str, str],
          choices: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """This row's answer by a dev recipe, a refusal when the recipe cannot be carried out here, or
    None when the recipe does not fit at all (a value it needs is nowhere)."""
    try:
        return _apply(recipe, prompt, columns, choices or {})
    except Refuse as why:
        return refusal(str(why))


def _apply(recipe: Mapping[str, Any], prompt: Any, columns: Mapping[str, str],
           choices: Mapping[str, Any]) -> dict[str, Any] | None:
    path = main_file(prompt, recipe)
    steps = []
    each = recipe.get("foreach")
    for spec in recipe["steps"][:1] if each else recipe["steps"]:  # a call per host: the first one, then each
        op, desc = statistic(spec["op"], spec.get("desc", ""), prompt.question)
        tool = cost_pick(prompt, tool_for(prompt, op, desc))
        if tool is None:
            raise Refuse("в каталоге нет инструмента для этой операции")
        args = {name: value_of(s, name, prompt, path, columns, choices.get(f"{spec['op']}/{name}"))
                for name, s in spec["args"].items()}
        if each and each["arg"] in args:
            args[each["arg"]] = "?"  # filled per host below
        args = derived(op, args, prompt, path)
        if isinstance(args.get("column"), str) and path and rf.extension(path) in ("csv", "tsv"):
            args["column"] = _column(prompt, path, args["column"], columns)
        if any(v is None for v in args.values()):
            return None
        over = within_limits(tool, args)
        if over:
            raise Refuse(over)
        steps.append({"tool": tool.name, "args": args})
    if each:
        source = choose(prompt, each["kind"], each.get("ext"))
        if source and each.get("ext") and rf.extension(source) not in _FORMAT_GROUPS.get(each["ext"], {each["ext"]}):
            return None  # a list of hosts is not in a file of this format
        listed = rf.listed_hosts(prompt.files.get(source, "")) if source else []
        if not listed or not steps:
            return None
        steps = [{"tool": steps[0]["tool"], "args": {**steps[0]["args"], each["arg"]: h}} for h in listed]
    kind = recipe["kind"]
    both = re.search(r"обоих|обеих|staging и (?:в )?production|production и (?:в )?staging", prompt.question.lower())
    if kind == "calls" and both and len(steps) == 2 and all("environment" in s["args"] for s in steps):
        for step, env in zip(steps, ("staging", "production"), strict=True):
            step["args"] = {**step["args"], "environment": env}
    if kind == "calls" and len({repr(st) for st in steps}) == 1:
        kind = "call"  # the same call twice is one call: the recipe's second value is not here
    if kind == "call":
        return steps[0]
    return {kind: steps}


# --- values the files decide (extremes, counts, event lines) ---------------------------------

def nth(question: str) -> int:
    m = re.search(r"\b(перв|втор|трет|четв|пят|шест)\w*", question.lower())
    return _ORDINAL[m.group(1)] if m else 1


_EVENTS = (("таймаут", r"ERROR .*timeout"), ("памят", r"ERROR .*out of memory"), ("диск", r"WARN .*disk"),
           ("медлен", r"WARN .*slow request"),
           ("баз", r"ERROR .*connection refused"), ("скачат", r"ERROR .*failed to download"),
           ("загруз", r"ERROR .*failed to download"))


def event_line(question: str, text: str) -> int | None:
    q = question.lower()
    for cue, pattern in _EVENTS:
        if cue in q:
            lines = [i for i, line in rf.log_records(text) if re.search(pattern, line)]
            k = nth(q)
            return lines[k - 1] if len(lines) >= k else None
    return None


def derived(op: str, args: dict[str, Any], prompt: Any, path: str | None) -> dict[str, Any]:
    q = prompt.question.lower()
    text = prompt.files.get(path, "") if path else ""
    if op == "window" and "line" in args:
        args["line"] = event_line(q, text)
    if op == "blame" and "line" in args:
        lines = [i for i, line in enumerate(text.splitlines(), 1) if re.match(r"\s*TIMEOUT\w*\s*=", line)]
        args["line"] = lines[0] if lines else None
    if op == "set_timeout" and "seconds" in args:
        v = rf.key_value(text, "timeout_ms")
        n = rf.number(v) if v else None
        args["seconds"] = n / 1000 if n is not None else None
    return premises_and_counts(op, rules_by_table(op, args, prompt, path, q), prompt, path, q)


_SCOPE_WHERE = re.compile(r"(дата-центре|команды|на) ([a-z][\w.-]*?)(?=[.,]?(?:\s|$))")


def premises_and_counts(op: str, args: dict[str, Any], prompt: Any, path: str | None, q: str) -> dict[str, Any]:
    """What seed 23's refusals and near misses turn on: a sum or a count to compare with the
    catalog's maximum (the caller refuses past it), a status the request presumes (a ticket to
    close that is closed, a download to retry that went through, an invoice to void that is paid)."""
    invoice = re.search(r"INV-\d+", prompt.question)
    if invoice and "invoice_id" in args:
        args["invoice_id"] = invoice.group()
    if op == "refund" and "оспор" in q and invoice:
        for p in prompt.files:
            t = rf.table(prompt.files[p], p)
            if t and {"invoice_id", "amount_rub"} <= set(t.header):
                marked = [r for r in t.records() if r.get("invoice_id") == invoice.group()
                          and r.get(t.header[-1]) in ("да", "оспорена", "disputed", "yes")]
                args["amount"] = int(sum(rf.number(r.get("amount_rub", "")) or 0 for r in marked))
    where = _SCOPE_WHERE.search(q)
    if "replicas" in args and where:
        column = {"дата-центре": "dc", "команды": "owner", "на": "os"}[where.group(1)]
        counted = ("active", "maintenance") if "в любом статусе" in q else ("active",)
        args["replicas"] = sum(1 for r in _servers(prompt, None)
                               if r.get(column, "").lower() == where.group(2) and r.get("status") in counted)
    text = prompt.files.get(path, "") if path else ""
    if op == "close_issue" and text:
        steps = re.findall(r"^- \d{4}-\d\d-\d\d: (?:.*→ )?([^→\n(]+?)\s*(?:\(.*\))?$", text, re.M)
        status = re.search(r"^(?:Статус|Status|Состояние)\s*:\s*(.+)$", text, re.M)
        state = steps[-1] if steps else (status.group(1) if status else "")
        if re.search(r"закрыт|closed", state):
            raise Refuse("задача уже закрыта")
    if op == "download" and re.search(r"упал|не скачал|споткнул", q):
        logs = [p for p in prompt.files if rf.extension(p) == "log"]
        failed = [m.group(1) for p in logs for m in re.finditer(r"ERROR .*failed to download (\S+)", prompt.files[p])]
        if logs and not failed:
            raise Refuse("в журнале нет упавшей загрузки")
        if failed:
            args["url"] = failed[0]
    if op == "invoice_void" and invoice:
        for record in _invoices(prompt, path):
            if record.get("invoice_id") == invoice.group() and record.get("status") == "paid":
                raise Refuse(f"счёт {invoice.group()} уже оплачен")
    return args


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
    text = prompt.files.get(path, "") if path else ""
    if "host" in args and re.search(r"srv-|сервер|машин", q) and ("srv-" in str(args["host"]) or _SERVER.search(q)):
        server = _pick_server(q, _servers(prompt, path))
        if server:
            args["host"] = server["host"]
            if op == "decommission" and server.get("status") not in (None, "maintenance"):
                raise Refuse(f"сервер {server['host']} в статусе {server.get('status') or 'без статуса'}, "
                             "а выводить из эксплуатации можно только серверы в статусе maintenance")
    if "replicas" in args:
        rack = _RACK.search(q)
        if rack and "актив" in q:
            args["replicas"] = sum(1 for r in _servers(prompt, None)
                                   if r.get("rack", "").lower() == rack.group(1) and r.get("status") == "active")
        elif "ранбук" in q or "хостов" in q:
            books = [p for p in prompt.files if rf.extension(p) in ("md", "txt") and rf.listed_hosts(prompt.files[p])]
            if books:
                args["replicas"] = len(rf.listed_hosts(prompt.files[books[0]]))
    if "invoice_id" in args:
        records = _invoices(prompt, path)
        scored = [(r, rf.number(r.get("amount_rub", ""))) for r in records]
        scored = [(r, v) for r, v in scored if v is not None]
        if scored:
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
    if "trace_id" in args or ("first" in args and "second" in args and (op == "compare" or "tr-" in str(args["first"]))):
        traces = [t for p in prompt.files for t in rf.json_lines(prompt.files[p]) if "trace_id" in t]
        if path and rf.extension(path) == "jsonl":
            traces = [t for t in rf.json_lines(text) if "trace_id" in t] or traces
        ranked = sorted(traces, key=lambda t: -(rf.number(str(t.get("latency_ms", 0))) or 0))
        if ranked:
            if "trace_id" in args:
                args["trace_id"] = ranked[0]["trace_id"]
            elif len(ranked) > 1:
                args["first"], args["second"] = ranked[0]["trace_id"], ranked[1]["trace_id"]
    if "issue" in args and path and rf.extension(path) == "md":
        key = re.match(r"\s*([A-Z]+-\d+):", text)
        if key and str(args["issue"]) != key.group(1) and re.fullmatch(r"[A-Z]+-\d+", str(args["issue"])) \
                and str(args["issue"]) not in prompt.question:
            args["issue"] = key.group(1)
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
    if "project" in args and path and rf.extension(path) == "md":
        key = re.match(r"\s*([A-Z]+)-\d+:", text)
        if key:
            args["project"] = key.group(1)
    if "query" in args and path and rf.extension(path) == "md" and re.fullmatch(r"[A-Z]+-\d+", str(args["query"])):
        key = re.match(r"\s*([A-Z]+-\d+):", text)
        if key:
            args["query"] = key.group(1)
    if "user" in args and path and rf.extension(path) == "md" and "автор" in q:
        args["user"] = rf.ticket_author(text) or args["user"]
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
    if path and rf.extension(path) == "json" and "баз" in q and ("host" in args or "port" in args):
        doc = rf.json_doc(text)
        database = doc.get("database") if isinstance(doc, dict) else None
        if isinstance(database, dict):
            for name in ("host", "port"):
                if name in args and name in database:
                    args[name] = database[name]
    if "host" in args and "ingress" in q and path and rf.extension(path) in ("yaml", "yml"):
        section = re.search(r"^ingress:\s*\n((?:[ \t]+.*\n?)*)", text, re.M)
        host = re.search(r"^\s+host:\s*[\"']?([\w.-]+)", section.group(1), re.M) if section else None
        if host:
            args["host"] = host.group(1)
    if op == "list_tags" and "image" in args and path and rf.extension(path) == "dockerfile":
        base = re.search(r"^FROM\s+(\S+)", text, re.M)
        if base:
            args["image"] = base.group(1).split(":", 1)[0]
    if op == "set_image" and "image" in args and path:
        live = rf.key_value(text, "image")
        version = re.findall(r"\b\d+\.\d+\.\d+\b", prompt.question)
        if live and version:
            args["image"] = live.rsplit(":", 1)[0] + ":" + version[-1]
    if "queue" in args and path and rf.extension(path) == "ini":
        section = re.search(r"^\[queue\]\n(.*?)(?=^\[|\Z)", text, re.M | re.S)
        name = rf.key_value(section.group(1), "name") if section else None
        if name:
            suffix = "-retry" if str(args["queue"]).endswith("-retry") else ""
            args["queue"] = name + suffix
    return args


def statistic_chain(prompt: Any, columns: Mapping[str, str]) -> dict[str, Any] | None:
    """A dialogue over a table's column statistics: the turn names a new statistic, a new column, or
    both; what it leaves out is the previous answer's."""
    if not prompt.history:
        return None
    last = steps_of(prompt.history[-1][1])
    if len(last) != 1 or last[0].get("tool", "").split(".", 1)[-1] not in _STAT_DESC:
        return None
    q = prompt.question.lower()
    if re.search(r"забудь|вместо|не важно|отмен|ладно", q):
        return None  # the turn switches to another operation
    args = dict(last[0].get("args", {}))
    op = last[0]["tool"].split(".", 1)[-1]
    named, _ = statistic(op, _STAT_DESC[op], prompt.question)
    quotes = _QUOTE.findall(prompt.question)
    if named == op and not quotes:
        return None  # neither a statistic nor a column: not a chain turn
    path = args.get("path") if args.get("path") in prompt.files else next(iter(prompt.files), None)
    if quotes:
        args["column"] = _column(prompt, path, quotes[0], columns)
    tool = tool_for(prompt, named, _STAT_DESC[named])
    if tool is None:
        return refusal("в каталоге нет инструмента для этой операции")
    return {"tool": tool.name, "args": {**args, "path": path}}


def special(prompt: Any) -> dict[str, Any] | None:
    """A clarification: a request over "the log" with two logs attached and neither named."""
    logs = [p for p in prompt.files if rf.extension(p) == "log"]
    if len(logs) >= 2 and not named_files(prompt) and not prompt.history and not pick_clause(prompt) and \
            re.search(r"журнал|\bлог", prompt.question.lower()):
        return {"clarify": f"Какой журнал имеется в виду: {logs[0]} или {logs[1]}?"}
    return None


def as_lists(values: Sequence[Any]) -> list[Any]:
    return list(values)
