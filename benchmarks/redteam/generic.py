"""The red-team solver without a recipe: the catalog tool a question asks for, chosen by what the
tool's description and name say (and by which description words the dev questions' words came
with), each parameter filled by its type and description from the question, the attached files
(keys named like the parameter, values of the right shape) and the dialogue history.

It answers a row whose family the dev set never showed, or whose nearest recipe names an
operation this catalog lacks; when no tool's description fits the request, it refuses.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from redteam import catalog, derive, rules
from redteam import files as rf
from redteam.clauses import pick_by_content, pick_clause

LIFT_WEIGHT = 0.5  # a stem the dev questions came with counts half of one the question says
FIT_FLOOR = 0.34  # below this share of a tool's own words in the question, nothing fits: refuse
_QUOTE = re.compile(r"«([^»]*)»")
_STOP = {"для", "что", "это", "как", "его", "все", "или", "при", "под", "над", "без", "так", "там", "тут", "уже",
         "очень", "пожа", "спас", "благ", "проше", "нужн", "надо", "можн", "пожал", "будьт", "добр", "файл",
         "the", "and", "from", "with", "прил", "этот", "этом", "этой", "тот", "том", "мне"}


def stems(text: str) -> list[str]:
    """Word stems of Russian and Latin text: the first four letters (удали / удаляет), numbers out."""
    found = [w[:4] for w in re.findall(r"[а-яёa-z]{3,}", text.lower().replace("_", " "))]
    return [w for w in found if w not in _STOP]


def tool_stems(tool: rf.Tool) -> set[str]:
    return set(stems(tool.description + " " + tool.op.replace("_", " ")))


@dataclass(frozen=True)
class Lexicon:
    """Which stems of a tool's description the dev questions' stems came with: a question's
    "погаси" with a description's "выключает", learnt over the dev rows (a row's own family can
    be left out by its recipes' numbers)."""

    question_vocab: Mapping[str, int]
    tool_vocab: Mapping[str, int]
    questions: np.ndarray   # recipes x question stems (0/1)
    tools: np.ndarray       # recipes x tool stems (0/1)
    together: np.ndarray    # question stems x tool stems: how many recipes said both
    keys: Mapping[str, Mapping[str, frozenset[int]]]  # parameter -> file key the dev rows read it under -> recipes

    def keys_for(self, name: str, skip: frozenset[int] = frozenset()) -> list[str]:
        """The file keys the dev rows read a parameter under (`deployment:` for service), the most
        often first, only those that recipes outside `skip` show."""
        seen = [(len(rows - skip), key) for key, rows in self.keys.get(name, {}).items() if rows - skip]
        return [key for _, key in sorted(seen, key=lambda nk: (-nk[0], nk[1]))]

    @classmethod
    def of(cls, recipes: Sequence[Mapping[str, Any]]) -> Lexicon:
        asked = [set(stems(" ".join(w for w in r["words"][:r.get("asked", len(r["words"]))] if not w.startswith("#"))))
                 for r in recipes]
        said = [set(stems(" ".join(st.get("desc", "") + " " + st["op"].replace("_", " ") for st in r["steps"][:1])))
                for r in recipes]
        qv = {w: n for n, w in enumerate(sorted(set().union(*asked)))}
        tv = {w: n for n, w in enumerate(sorted(set().union(*said)))}
        q = np.zeros((len(recipes), len(qv)), dtype=np.float32)
        t = np.zeros((len(recipes), len(tv)), dtype=np.float32)
        for i, (a, s) in enumerate(zip(asked, said, strict=True)):
            q[i, [qv[w] for w in a]] = 1.0
            t[i, [tv[w] for w in s]] = 1.0
        keys: dict[str, dict[str, set[int]]] = {}
        for n, r in enumerate(recipes):
            for st in r["steps"]:
                for name, spec in st["args"].items():
                    key = re.findall(r"[A-Za-z_][\w.-]*", spec.get("prefix", "")) if spec["t"] == "fkey" else []
                    if key and re.search(r"[:=]\W*$", spec["prefix"]):
                        keys.setdefault(name, {}).setdefault(key[-1], set()).add(n)
        frozen = {name: {k: frozenset(v) for k, v in found.items()} for name, found in keys.items()}
        return cls(qv, tv, q, t, q.T @ t, frozen)

    def lift(self, question: set[str], skip: frozenset[int]) -> dict[str, float]:
        """For each tool stem, how much more often it came with one of these question stems than
        without: P(tool stem | question stem) - P(tool stem), the best over the question's stems."""
        cols = [self.question_vocab[w] for w in question if w in self.question_vocab]
        if not cols:
            return {}
        together, seen = self.together[cols], self.questions[:, cols].sum(axis=0)
        base, n = self.tools.sum(axis=0), len(self.questions)
        if skip:  # a family left out: its recipes' counts taken away
            out = sorted(skip)
            together = together - self.questions[out][:, cols].T @ self.tools[out]
            seen, base, n = seen - self.questions[out][:, cols].sum(axis=0), base - self.tools[out].sum(axis=0), n - len(out)
        base = base / max(1, n)
        given = together / (seen[:, None] + 2.0)  # smoothed P(tool stem | question stem)
        best = (given - base).max(axis=0)
        return {w: float(best[n]) for w, n in self.tool_vocab.items() if best[n] > 0.05}


def fit(tool: rf.Tool, asked: set[str], lifted: Mapping[str, float]) -> float:
    """How well a tool's words fit a question: each of its stems the question says counts 1, one
    the question's words came with in the dev set counts its lift; over the tool's stem count."""
    own = tool_stems(tool)
    if not own:
        return 0.0
    return sum(1.0 if w in asked else LIFT_WEIGHT * min(1.0, lifted.get(w, 0.0)) for w in own) / len(own) ** 0.8


def ranked_tools(prompt: Any, lexicon: Lexicon | None, skip: frozenset[int] = frozenset()) -> list[tuple[float, rf.Tool]]:
    asked = set(stems(_asked_text(prompt)))
    lifted = lexicon.lift(asked, skip) if lexicon else {}
    scored = [(fit(t, asked, lifted), t) for t in prompt.tools]
    return sorted(scored, key=lambda st: (-st[0], st[1].deprecated, st[1].name))


def _asked_text(prompt: Any) -> str:
    clause = pick_clause(prompt)
    question = prompt.question.replace(clause, " ") if clause else prompt.question
    if not stems(question):  # the sentence that picks the file is the request too
        question = prompt.question
    return " ".join([q for q, _ in prompt.history] + [question])


# --- filling parameters by type ---------------------------------------------------------------

_EXT_BY_WORD = ((r"таблиц|столб", ("csv", "tsv")), (r"журнал|лог", ("log",)), (r"модул|функци|тест|код", ("py",)),
                (r"образ|dockerfile", ("dockerfile",)), (r"миграц|sql", ("sql",)), (r"задач|тикет", ("md",)))
_SHAPES = ((r"хост|домен|сервер", r"\b(?:[a-z0-9-]+\.)+[a-z]{2,}\b|\bsrv-\d+\b"), (r"url|адрес", r"https?://\S+"),
           (r"задач|тикет|issue", r"\b[A-Z]+-\d+\b"), (r"окружен", r"\b(?:staging|production|dev|prod)\b"),
           (r"верси", r"\b\d+(?:\.\d+)+[\w.-]*"), (r"трасс", r"\btr-[\w-]+"))


def _param_spec(tool: rf.Tool, name: str) -> Mapping[str, Any]:
    spec = tool.params.get(name) if isinstance(tool.params, Mapping) else None
    return spec if isinstance(spec, Mapping) else {}


def _file_for(prompt: Any, tool: rf.Tool) -> str | None:
    text = tool.description.lower() + " " + tool.op
    for pattern, exts in _EXT_BY_WORD:
        if re.search(pattern, text):
            fitting = [p for p in prompt.files if rf.extension(p) in exts]
            if fitting:
                return pick_by_content(prompt, fitting)[0]
    files = list(prompt.files)
    return pick_by_content(prompt, files)[0] if files else None


def _key_in_files(prompt: Any, name: str, first: str | None) -> str | None:
    order = ([first] if first else []) + [p for p in prompt.files if p != first]
    for path in order:
        value = rf.key_value(prompt.files[path], name) or rf.key_value(prompt.files[path], name.upper())
        if value:
            return value
        found = re.search(rf"[\"']{re.escape(name)}[\"']\s*:\s*[\"']?([^\"',}}\s]+)", prompt.files[path])
        if found:
            return found.group(1)
    return None


def _history_value(prompt: Any, name: str) -> Any:
    for _, answer in rules.earlier_first(prompt):
        for step in rules.steps_of(answer):
            if name in step.get("args", {}):
                return step["args"][name]
    return None


def _enum_choice(description: str, question: str) -> str | None:
    options = re.findall(r"\b[A-Za-z_]{2,}\b", description.split(":", 1)[-1]) if ":" in description else []
    named = [o for o in options if re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", question, re.I)]
    return named[0] if named else None


def fill(prompt: Any, tool: rf.Tool, lexicon: Lexicon | None = None,
         skip: frozenset[int] = frozenset()) -> dict[str, Any] | None:
    """Every required parameter, and an optional one the question gives a value for, filled by its
    type and description; None when a required one is nowhere."""
    question = prompt.question
    path = _file_for(prompt, tool) if prompt.files else None
    quotes = list(_QUOTE.findall(question))
    numbers = [int(n) for n in re.findall(r"(?<![\w.-])(\d+)(?![\w.-]|\.\d)", _QUOTE.sub(" ", question))]
    args: dict[str, Any] = {}
    for name in tool.params if isinstance(tool.params, Mapping) else {}:
        spec = _param_spec(tool, name)
        kind, about = spec.get("type", "string"), f"{name} {spec.get('description', '')}".lower()
        required = spec.get("required", True) and "по умолчанию" not in about
        value: Any = None
        if name in ("path", "file") or "путь" in about:
            value = path
        elif name == "column" or "столб" in about:
            table = rf.table(prompt.files.get(path, ""), path or "") if path else None
            header = table.header if table else ()
            value = next((q for q in quotes if q in header), None) or next(
                (h for h in header if re.search(rf"(?<![\w-]){re.escape(h)}(?![\w-])", question)), None)
            value = value or _history_value(prompt, name)
        elif kind == "boolean":  # an optional switch the question describes ("без учёта регистра")
            said = set(stems(spec.get("description", "").split("(по умолчанию")[0])) & set(stems(question))
            value = True if len(said) >= 2 else (None if not required else False)
        elif kind in ("integer", "number"):
            value = numbers.pop(0) if numbers else None
            if value is None and required:
                found = _key_in_files(prompt, name, path)
                number = rf.number(found) if found else None
                value = int(number) if number is not None and number == int(number) else number
            value = _history_value(prompt, name) if value is None and required else value
        else:
            value = _enum_choice(spec.get("description", ""), question)
            for pattern, shape in _SHAPES:
                if value is None and re.search(pattern, about):
                    hits = re.findall(shape, question)
                    value = hits[0] if hits else None
            if value is None and quotes:
                value = quotes.pop(0)
            if value is None and required:
                value = _key_in_files(prompt, name, path) or _history_value(prompt, name)
        if value is None and required:
            value = _PENDING  # the files decide it below
        if value is not None:
            args[name] = value
    if _PENDING in args.values():
        args = derive.derived(tool.op, args, prompt, path)  # extremes, counts, tickets, traces...
    for name, value in list(args.items()):
        if value == _PENDING:
            about = f"{name} {_param_spec(tool, name).get('description', '')}".lower()
            learned = lexicon.keys_for(name, skip) if lexicon else []
            args[name] = _from_file(prompt, name, about, path, learned)
    return None if any(v is None or v == _PENDING for v in args.values()) else args


_PENDING = "?"
_KEYED = re.compile(r"^\s*[\"']?([\w.-]+)[\"']?\s*[:=]\s*[\"']?([^\s\"',#}]+)")


def _from_file(prompt: Any, name: str, about: str, path: str | None, learned: Sequence[str] = ()) -> Any:
    """A value out of the files: under a key that holds the parameter's name (`S3_BUCKET=` for
    bucket), else the first value of the parameter's shape (a host of the list, the URL of an
    ERROR line, a ticket's key)."""
    order = ([path] if path else []) + [p for p in prompt.files if p != path]
    for key in learned:
        for p in order:
            value = rf.key_value(prompt.files[p], key)
            if value and not value.endswith(":"):
                return value
    for p in order:
        for line in rf.live_lines(prompt.files[p]):
            m = _KEYED.match(line)
            if m and name.lower() in m.group(1).lower().replace("-", "_"):
                return m.group(2)
    for pattern, shape in _SHAPES:
        if not re.search(pattern, about):
            continue
        for p in order:
            lines = rf.live_lines(prompt.files[p])
            failing = [line for line in lines if re.search(r"\bERROR\b|fail", line)]
            for line in failing + lines:
                hit = re.search(shape, line)
                if hit:
                    return hit.group(0)
    return None


def answer(prompt: Any, lexicon: Lexicon | None, skip: frozenset[int] = frozenset()) -> dict[str, Any] | None:
    """A call of the best-fitting catalog tool with its parameters filled; a refusal when no tool
    fits; None when the best tool's parameters cannot be filled."""
    ranked = ranked_tools(prompt, lexicon, skip)
    if not ranked or ranked[0][0] < FIT_FLOOR:
        return rules.refusal("в каталоге нет инструмента для этой операции")
    tool = catalog.cost_pick(prompt, catalog.tool_for(prompt, ranked[0][1].op, ranked[0][1].description))
    if tool is None:
        return None
    try:
        args = fill(prompt, tool, lexicon, skip)
    except derive.Refuse as why:
        return rules.refusal(str(why))
    if args is None:
        return None
    over = catalog.within_limits(tool, args)
    return rules.refusal(over) if over else expand(prompt, tool, args)


_EACH_HOST = re.compile(r"кажд\w* хост|всех хост|все хост|по всем хост|каждого домен|всех домен")
_BOTH_ENVS = re.compile(r"обоих|обеих|staging и (?:в )?production|production и (?:в )?staging")


def expand(prompt: Any, tool: rf.Tool, args: dict[str, Any]) -> dict[str, Any]:
    """One call, or independent calls when the question asks the same of several things: two
    quoted columns, both environments, every host of the list."""
    params = set(tool.params) if isinstance(tool.params, Mapping) else set()
    q = prompt.question.lower()
    values: list[tuple[str, Any]] = []
    quotes = _QUOTE.findall(prompt.question)
    if "column" in params and len(quotes) >= 2 and args.get("path"):
        try:
            values = [("column", rules._column(prompt, args["path"], phrase, {})) for phrase in quotes[:2]]
        except (derive.Refuse, derive.Ask):
            values = []
    elif "environment" in params and _BOTH_ENVS.search(q):
        values = [("environment", "staging"), ("environment", "production")]
    elif "host" in params and _EACH_HOST.search(q):
        lists = [p for p in prompt.files if rf.listed_hosts(prompt.files[p])]
        source = pick_by_content(prompt, lists)[0] if lists else None
        values = [("host", h) for h in rf.listed_hosts(prompt.files[source])] if source else []
    if len(values) < 2:
        return {"tool": tool.name, "args": args}
    return {"calls": [{"tool": tool.name, "args": {**args, name: value}} for name, value in values]}


# --- a second opinion on the recipe's answer ---------------------------------------------------

NEAR_ENOUGH = 0.35   # a dev question at least this similar decides: no second opinion
SWITCH_MARGIN = 0.3  # another tool must fit this much better than the recipe's before it replaces it
SAID_SHARE = 0.6     # a refusal for want of an operation stands unless the question says this much of a tool


def substitute(recipe: Mapping[str, Any], prompt: Any, tool: rf.Tool, columns: Mapping[str, str],
               lexicon: Lexicon | None = None, skip: frozenset[int] = frozenset()) -> dict[str, Any] | None:
    """The recipe's answer with `tool` in place of its operation: the arguments the two share
    are worked out as the recipe says, the others filled by type."""
    first = recipe["steps"][0]["op"]
    names = set(tool.params) if isinstance(tool.params, Mapping) else set()
    steps = [{**st, "op": tool.op, "desc": tool.description, "args": {n: v for n, v in st["args"].items() if n in names}}
             if st["op"] == first else st for st in recipe["steps"]]
    answer = rules.apply({**recipe, "steps": steps}, prompt, columns)
    if answer is None or "abstain" in answer or "clarify" in answer:
        return answer
    try:
        extra = fill(prompt, tool, lexicon, skip) or {}
    except derive.Refuse:
        extra = {}
    for step in rules.steps_of(answer):
        if step.get("tool") == tool.name:
            step["args"] = {**{n: v for n, v in extra.items() if n not in step["args"]}, **step["args"]}
            missing = [n for n, spec in (tool.params.items() if isinstance(tool.params, Mapping) else ())
                       if isinstance(spec, Mapping) and spec.get("required") and n not in step["args"]]
            if missing:
                return None
    return answer


def second_opinion(prompt: Any, answer: dict[str, Any], recipe: Mapping[str, Any] | None, lexicon: Lexicon | None,
                   skip: frozenset[int], columns: Mapping[str, str]) -> dict[str, Any]:
    """The recipe's answer unless the catalog tool that fits the question best is another one by a
    wide margin, or the recipe could only refuse for want of its operation (or none was near)."""
    ranked = ranked_tools(prompt, lexicon, skip)
    if not ranked or "clarify" in answer:
        return answer
    best_fit, best = ranked[0]
    if "abstain" in answer:
        said = set(stems(best.description))
        if len(said & set(stems(_asked_text(prompt)))) < SAID_SHARE * len(said) or \
                (recipe is not None and "каталоге нет" not in answer.get("reason", "")):
            return answer
        made = substitute(recipe, prompt, best, columns, lexicon, skip) if recipe and len(recipe["steps"]) == 1 else None
        made = made or globals()["answer"](prompt, lexicon, skip)
        return made if made and "abstain" not in made else answer
    steps = rules.steps_of(answer)
    if recipe is None or len({s.get("tool") for s in steps}) != 1:
        return answer  # a plan's steps are the recipe's to order
    current = next((t for t in prompt.tools if t.name == steps[0].get("tool")), None)
    asked = set(stems(_asked_text(prompt)))
    now = fit(current, asked, lexicon.lift(asked, skip) if lexicon else {}) if current else 0.0
    if current is None or best.op == current.op or best_fit < now + SWITCH_MARGIN:
        return answer
    return substitute(recipe, prompt, best, columns, lexicon, skip) or answer
