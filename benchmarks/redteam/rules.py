"""The red-team solver's rules: turning a dev recipe into this row's answer (the tool the catalog
offers for the recipe's operation, each value worked out over this row's files: the file by
redteam_pick, the values the files decide by redteam_derive), the catalog's limits and twins,
and the dialogue and clarification rules."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from redteam import files as rf
from redteam import flags, hosts
from redteam.catalog import (
    _STAT_DESC,
    cost_pick,
    statistic,
    tool_for,
    within_limits,
)
from redteam.clauses import pick_clause
from redteam.derive import Ask, Refuse, derived
from redteam.dev_bank import bank, column_roots
from redteam.fanout import fanned_out
from redteam.pick import _FORMAT_GROUPS, choose, main_file, named_files
from redteam.questions import question_tokens, words

_QUOTE = re.compile(r"«([^»]*)»")


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
    roots = {root for known, found in column_roots().items() if stems & {w[:5] for w in re.findall(r"[а-яё]{4,}", known)}
             for root in found} | {header_root(phrase)} | {header_root(phrase.split()[0])}
    if mapped:
        roots.add(header_root(mapped))
    fitting = [h for h in header if header_root(h) in roots]
    if len(fitting) == 1:
        return fitting[0]
    seen = _column_votes().get(phrase.lower(), {})  # any header seed 23 named by this phrase, likeliest first
    for name in sorted(seen, key=lambda h: -seen[h]):
        if name in header:
            return name
    if len(fitting) > 1:
        raise Ask(f"В таблице два подходящих столбца: {fitting[0]} и {fitting[1]}. Какой взять?")
    raise Refuse(f"в таблице нет столбца «{phrase}»")


def _column_votes() -> Mapping[str, Mapping[str, int]]:
    return bank().get("column_votes", {})


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


# "с которого мы начали", "о котором я спросил первым", "из моего первого вопроса"
_FIRST = re.compile(r"с которо\w+ (?:мы )?начал|с чего (?:мы )?начал|спросил\w* первым|перв\w+ вопрос|в самом начале")


def earlier_first(prompt: Any) -> list[tuple[str, Any]]:
    """The earlier turns in the order a carried-over value is looked for: the latest first, the
    first one first when the turn goes back to the dialogue's opening request."""
    return list(prompt.history) if _FIRST.search(prompt.question.lower()) else list(prompt.history[::-1])


def value_of(spec: Mapping[str, Any], name: str, prompt: Any, path: str | None,
             columns: Mapping[str, str], choice: Mapping[str, Mapping[str, int]] | None = None) -> Any:
    """One argument's value over this row, by where the recipe's came from (`spec["t"]`): a
    constant, a path, a quote, a column, a token of the question, the history, a file's key."""
    t = spec["t"]
    quotes = _QUOTE.findall(prompt.text)
    if t == "const":
        if choice:
            picked = _choice(choice, set(words(prompt.question)))
            return picked if picked is not None else spec["v"]
        return spec["v"]
    if t == "path":
        return choose(prompt, spec["kind"], spec["ext"])
    if t == "quote":
        return quotes[spec["i"]] if spec["i"] < len(quotes) else None
    if t == "colq":
        return _quoted_column(spec, name, prompt, path, columns, quotes)
    if t == "colname":
        return _named_column(spec, prompt, path, columns)
    if t == "qtok":
        return _question_token(spec, prompt)
    if t == "hist":
        return _from_history(name, prompt)
    if t == "fkey":
        return _fkey(prompt, spec, path)
    return None


def _quoted_column(spec: Mapping[str, Any], name: str, prompt: Any, path: str | None, columns: Mapping[str, str],
                   quotes: list[str]) -> Any:
    """The column the question quotes (its own quote first, then the earlier turns'), the one the
    previous answer used ("the same column"), or one named bare."""
    own = _QUOTE.findall(prompt.question)
    if not own and prompt.history:  # "the same column": the one the previous answer used
        earlier = _from_history(name, prompt)
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


def _named_column(spec: Mapping[str, Any], prompt: Any, path: str | None, columns: Mapping[str, str]) -> Any:
    """The recipe's column where this table has it, else the one the question names, else the
    header at the recipe's place."""
    table = rf.table(prompt.files.get(path, ""), path or "") if path else None
    if table and spec["v"] in table.header:
        return spec["v"]
    named = _QUOTE.findall(prompt.question)
    if table and named:  # the question names its column: that one or none, never one by place
        return _column(prompt, path, named[0], columns)
    if table and table.header:
        pos = spec["pos"]
        return table.header[pos] if -len(table.header) <= pos < len(table.header) else None
    return spec["v"]


def _question_token(spec: Mapping[str, Any], prompt: Any) -> Any:
    """The question's token of the recipe's shape at its place (a number as a number)."""
    tokens = question_tokens(prompt.question, spec["shape"]) or question_tokens(prompt.text, spec["shape"])
    if not tokens and re.fullmatch(r"\[a-z\]\+(?:\\?[_-]\[a-z\]\+)*", spec["shape"]):
        tokens = question_tokens(prompt.question, r"[a-z][a-z0-9]*(?:[_-][a-z0-9]+)*")  # any identifier
    if not tokens:
        return spec.get("v")
    token = tokens[min(spec["i"], len(tokens) - 1)]
    if re.fullmatch(r"\d+", token):
        return int(token)
    return token


def _from_history(name: str, prompt: Any) -> Any:
    """The argument's value in the first earlier answer that passed it, in `earlier_first`'s order."""
    for _, answer in earlier_first(prompt):
        for step in steps_of(answer):
            if name in step.get("args", {}):
                return step["args"][name]
    return None


def apply(recipe: Mapping[str, Any], prompt: Any, columns: Mapping[str, str],
          choices: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """This row's answer by a dev recipe, a refusal when the recipe cannot be carried out here, or
    None when the recipe does not fit at all (a value it needs is nowhere)."""
    try:
        return _apply(recipe, prompt, columns, choices or {})
    except Refuse as why:
        return refusal(str(why))
    except Ask as why:
        return {"clarify": str(why)}


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
        if {"flag", "environment"} <= set(args) and recipe["kind"] == "calls":
            per_env = flags.environments(prompt)
            if per_env:  # the flag file says which: filled per environment below
                args.update(flag=per_env[0], environment=per_env[1][0])
        args = derived(op, args, prompt, path)
        if isinstance(args.get("column"), str) and path and rf.extension(path) in ("csv", "tsv"):
            args["column"] = _column(prompt, path, args["column"], columns)
        if any(v is None for v in args.values()):
            return None
        over = within_limits(tool, args)
        if over:
            raise Refuse(over)
        steps.append({"tool": tool.name, "args": args})
    if recipe["kind"] == "calls" and steps:
        fanned = fanned_out(steps[0], prompt)  # one call per host or environment the condition picks
        if fanned:
            steps, each = fanned, None
    if each:
        source = choose(prompt, each["kind"], each.get("ext"))
        if source and each.get("ext") and rf.extension(source) not in _FORMAT_GROUPS.get(each["ext"], {each["ext"]}):
            return None  # a list of hosts is not in a file of this format
        listed = (hosts.where(prompt, prompt.files.get(source, "")) or rf.listed_hosts(prompt.files.get(source, ""))
                  if source else [])
        if not listed or not steps:
            return None
        steps = [{"tool": steps[0]["tool"], "args": {**steps[0]["args"], each["arg"]: h}} for h in listed]
    kind = recipe["kind"]
    both = re.search(r"обоих|обеих|staging и (?:в )?production|production и (?:в )?staging", prompt.question.lower())
    if kind == "calls" and both and len(steps) == 2 and all("environment" in s["args"] for s in steps):
        for step, env in zip(steps, ("staging", "production"), strict=True):
            step["args"] = {**step["args"], "environment": env}
    per_env = flags.environments(prompt) if kind == "calls" and steps and "environment" in steps[0]["args"] else None
    if per_env and "flag" in steps[0]["args"]:  # the environments the flag file and the request leave
        steps = [{"tool": steps[0]["tool"], "args": {**steps[0]["args"], "flag": per_env[0], "environment": env}}
                 for env in per_env[1]]
    if kind == "calls" and len({repr(st) for st in steps}) == 1:
        kind = "call"  # the same call twice is one call: the recipe's second value is not here
    if kind == "call":
        return steps[0]
    return {kind: steps}


def statistic_chain(prompt: Any, columns: Mapping[str, str]) -> dict[str, Any] | None:
    """A dialogue over a table's column statistics: the turn names a new statistic, a new column, or
    both; what it leaves out is the previous answer's."""
    if not prompt.history:
        return None
    last = steps_of(prompt.history[-1][1])
    if len(last) != 1 or rf.op_of(prompt.tools, last[0].get("tool", "")) not in _STAT_DESC:
        return None
    q = prompt.question.lower()
    if re.search(r"забудь|вместо|не важно|отмен|ладно", q):
        return None  # the turn switches to another operation
    args = dict(last[0].get("args", {}))
    op = rf.op_of(prompt.tools, last[0]["tool"])
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


_STAT_WORDS = {"mean": r"\bсредн", "median": r"\bмедиан", "max": r"\bмаксимум", "min": r"\bминимум",
               "sum": r"\bсумм[уаы]\b"}


def column_statistic(prompt: Any, columns: Mapping[str, str]) -> dict[str, Any] | None:
    """One table, one statistic and one «column» named, no earlier turn: that statistic over the
    column the quote names under whatever spelling (none: refuse), however the request is worded
    (the recipes' nearest dev question is a wording match, and another set words it otherwise)."""
    if prompt.history or len(prompt.files) != 1:
        return None
    path = next(iter(prompt.files))
    quotes = _QUOTE.findall(prompt.question)
    q = prompt.question.lower()
    said = [op for op, cue in _STAT_WORDS.items() if re.search(cue, q)]
    if rf.extension(path) not in ("csv", "tsv") or len(quotes) != 1 or len(said) != 1 or len(q.split()) > 30:
        return None
    column = _column(prompt, path, quotes[0], columns)
    tool = tool_for(prompt, said[0], _STAT_DESC[said[0]])
    if tool is None:
        return refusal("в каталоге нет инструмента для этой операции")
    return {"tool": tool.name, "args": {"path": path, "column": column}}


def special(prompt: Any) -> dict[str, Any] | None:
    """A clarification: two files of one format attached (two logs, two tables, two configs), the
    question names neither and says nothing that picks one, and no earlier turn settled it."""
    if prompt.history or named_files(prompt) or pick_clause(prompt):
        return None
    by_format: dict[frozenset[str], list[str]] = {}
    for path in prompt.files:
        ext = rf.extension(path)
        by_format.setdefault(frozenset(_FORMAT_GROUPS.get(ext, {ext})), []).append(path)
    both = next((paths for paths in by_format.values() if len(paths) >= 2), None)
    if both:
        return {"clarify": f"Какой из файлов имеется в виду: {both[0]} или {both[1]}?"}
    return None


def as_lists(values: Sequence[Any]) -> list[Any]:
    return list(values)
