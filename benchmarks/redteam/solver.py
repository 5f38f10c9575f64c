"""A red-team solver for GorillaHard: answers a row without any model, as strongly as rules can.

It is what an outsider could write after reading one generated set (the dev seed, 23) and the
task card, never the generator's code: the answer's shape and tools come from the most similar
question of the dev set (its reference turned into a recipe: which tool operation, and where each
argument value came from: the question, an attached file, the dialogue history, a constant), and
the values are worked out afresh over this row's files: the file the question names or picks by
what it holds, tables parsed with their decoys, live config values, host lists, counts, extremes.
A recipe whose operation the catalog lacks, a column no header holds, or a value past a limit the
catalog states turns into a refusal. A set on which this solver passes more than the gate's share
measures a template, not a model (the gate of `score.gate_line`, printed by benchmarks/gorillahard_redteam.py).
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np

from merabench.rows.row import Row
from redteam import clarify as ambiguity
from redteam import files as rf
from redteam import generic, hosts, rules, standin
from redteam.dev_bank import bank
from redteam.questions import QUOTE, question_tokens, token_shape, words

DEV_SEED = 23
CATALOG_BONUS = 0.1  # a neighbour whose tool this catalog offers is likelier the request's
_REFUSE = '{"abstain": true, "reason": "запрос невыполним с этим каталогом и этими файлами"}'


@dataclass(frozen=True)
class Prompt:
    question: str
    files: Mapping[str, str]
    tools: Sequence[rf.Tool]
    history: Sequence[tuple[str, Any]] = ()   # earlier turns: (question, reference answer)

    @property
    def text(self) -> str:
        """The question with the earlier turns' questions before it (a turn leans on them)."""
        return " ".join([q for q, _ in self.history] + [self.question])


def prompt_of(row: Row, shots: Sequence[Row] = ()) -> Prompt:
    history = []
    dialog = row.meta.get("dialog_id")
    if row.meta.get("n_turns", 1) > 1:
        earlier = sorted((s for s in shots if s.meta.get("dialog_id") == dialog
                          and s.meta.get("turn_id", 0) < row.meta.get("turn_id", 0)),
                         key=lambda s: s.meta.get("turn_id", 0))
        for turn in earlier:
            try:
                history.append((turn.inputs.get("question", ""), json.loads(turn.outputs)))
            except ValueError:
                history.append((turn.inputs.get("question", ""), {}))
    return Prompt(row.inputs.get("question", ""), rf.attached(row.inputs.get("context", "")),
                  rf.catalog(row.inputs.get("tools", "")), tuple(history))


# --- similarity -------------------------------------------------------------------------------

def asked_words(prompt: Prompt) -> list[str]:
    """The words that say what is asked: the question without the sentence that picks one of two
    files (its criterion says nothing of the operation), the earlier turns, the turn count."""
    clause = rules.pick_clause(prompt)
    text = prompt.text.replace(clause, " ") if clause else prompt.text
    return words(text) + [f"#turn{len(prompt.history)}"] + (["#picks"] if clause else [])


# --- recipes: where each value of a dev reference came from -----------------------------------

def _line_prefix(text: str, value: str) -> tuple[str, int] | None:
    """The live line that holds `value` as a token: the text before it (numbers dropped) and how
    many earlier live lines start the same way (`name =` under [general] before [queue]). A line
    where the value follows a key (`retries: 5`) wins over one where it sits inside another value."""
    lines = rf.live_lines(text)
    found = []
    for n, line in enumerate(lines):
        m = re.search(rf"(?<![\w.-]){re.escape(value)}(?![\w-]|\.\w)", line)
        if not m:
            continue
        prefix = re.sub(r"\d+", "", line[:m.start()].strip())
        if prefix:
            found.append((not re.search(r"[:=]\W*$", prefix), n, prefix))
    if not found:
        return None
    _, n, prefix = min(found)
    return prefix, sum(1 for other in lines[:n] if re.sub(r"\d+", "", other.strip()).startswith(prefix))


def value_spec(value: Any, name: str, row_q: str, files: Mapping[str, str], used: Sequence[str],
               history: Sequence[tuple[str, Any]], columns: dict[str, Counter[str]], step: int,
               own_q: str = "") -> dict[str, Any]:
    if isinstance(value, bool) or value == "$1" or value is None:
        return {"t": "const", "v": value}
    text = str(value)
    for path in files:
        if text == path:
            return {"t": "path", "kind": rf.file_kind(path), "ext": rf.extension(path)}
    if text not in own_q:  # carried over from an earlier turn
        for _, answer in history[::-1]:
            for earlier in rules.steps_of(answer):
                if earlier.get("args", {}).get(name) == value:
                    return {"t": "hist", "arg": name}
    quotes = QUOTE.findall(row_q)
    if text in quotes:
        return {"t": "quote", "i": quotes.index(text)}
    if name == "column":
        for path in used:
            t = rf.table(files[path], path)
            if t and text in t.header:
                said = QUOTE.findall(own_q) or quotes  # a turn's own phrase, as the solver reads it
                if said:
                    i = step if step < len(said) else 0
                    columns.setdefault(said[i].lower(), Counter())[text] += 1
                    return {"t": "colq", "i": i}
                pos = t.header.index(text)
                return {"t": "colname", "v": text, "pos": pos if pos == 0 else (-1 if pos == len(t.header) - 1 else pos)}
    shape = token_shape(text)
    tokens = question_tokens(own_q, shape)
    if text in tokens:
        return {"t": "qtok", "shape": shape, "i": tokens.index(text), "v": value}
    for path in used:
        if rf.extension(path) in ("csv", "tsv"):
            continue  # a value out of a table's rows is worked out by a rule, not read at a place
        found = _line_prefix(files[path], text)
        if found:
            return {"t": "fkey", "prefix": found[0], "occ": found[1], "shape": shape,
                    "num": isinstance(value, int | float)}
    return {"t": "const", "v": value}


def recipe_of(row: Row, shots: Sequence[Row], columns: dict[str, Counter[str]]) -> dict[str, Any] | None:
    try:
        answer = json.loads(row.outputs)
    except ValueError:
        return None
    prompt = prompt_of(row, shots)
    kind = rules.kind_of(answer)
    asked = asked_words(prompt)
    # the maker is the dev row's family label: kept only to leave a whole family out when measuring
    recipe: dict[str, Any] = {"words": asked, "asked": len(asked), "kind": kind, "steps": [],
                              "maker": row.meta.get("derivation", {}).get("maker", ""),
                              "lever": row.meta.get("categories", {}).get("lever", "")}
    by_name = {t.name: t for t in prompt.tools}
    for step in rules.steps_of(answer):  # the tool's own words: a question often says them
        tool = by_name.get(step.get("tool", ""))
        if tool:
            recipe["words"] += [w for w in words(tool.description + " " + tool.op.replace("_", " "))
                                if not w.startswith("#")]
    if kind in ("abstain", "clarify"):
        return recipe
    steps = rules.steps_of(answer)
    used = [p for p in prompt.files if any(p == v for s in steps for v in s.get("args", {}).values())]
    named = [p for p in prompt.files if p in prompt.question]
    used = used or named or list(prompt.files)
    by_name = {t.name: t for t in prompt.tools}
    hosts_of = {p: (rf.listed_hosts(t), hosts.where(prompt, t)) for p, t in prompt.files.items()}
    for i, step in enumerate(steps):
        args = step.get("args", {})
        tool = by_name.get(step.get("tool", ""))
        spec = {"op": tool.op if tool else step.get("tool", "").split(".", 1)[-1], "args": {},
                "desc": tool.description if tool else ""}
        for name, value in args.items():
            spec["args"][name] = value_spec(value, name, prompt.text, prompt.files, used, prompt.history, columns, i,
                                            prompt.question)
        recipe["steps"].append(spec)
        # a call per listed host: remembered as "each host of the list" (the count varies)
        if kind == "calls" and i == 0 and len({s.get("tool") for s in steps}) == 1:
            varying = [n for n in args if len({json.dumps(s["args"].get(n)) for s in steps}) == len(steps)]
            for path, (listed, kept) in hosts_of.items():  # every host of the list, or those the request keeps
                if varying and [s["args"].get(varying[0]) for s in steps] in ([listed] if listed else []) + [kept]:
                    recipe["foreach"] = {"arg": varying[0], "kind": rf.file_kind(path), "ext": rf.extension(path)}
    return recipe


def capability_labels(rows: Sequence[Row]) -> tuple[dict[str, str], dict[str, list[list[str]]]]:
    """Every tool the dev set's catalogs show, tagged with the operation name the rules call it by:
    by its exact listing (`rf.Tool.key`), and by what a provider keeps of it (`rf.Tool.shape`) with
    its dev description and name. An outsider would write this table by hand from the dev set's
    catalogs, in their own words; the tags here are the library's operation names only because the
    rules were written in them. A tool no dev catalog shows gets no tag."""
    from merabench.tasks.gorillahard.generator.library.providers import canonical

    labels: dict[str, str] = {}
    shapes: dict[str, dict[str, list[str]]] = defaultdict(dict)
    for row in rows:
        for tool in rf.catalog(row.inputs.get("tools", "")):
            tag = canonical(tool.name).split(".", 1)[-1]
            labels[tool.key] = tag
            shapes[tool.shape].setdefault(tag, [tag, tool.description, tool.name.split(".", 1)[-1]])
    return labels, {shape: sorted(tags.values()) for shape, tags in sorted(shapes.items())}


def build_bank(test: Sequence[Row], shots: Sequence[Row]) -> dict[str, Any]:
    labels, shapes = capability_labels([*test, *shots])
    saved = dict(rf.LABELS), dict(rf.SHAPES)
    rf.set_labels(labels, shapes)  # the recipes name each operation by its tag, as the solver reads catalogs
    votes: dict[str, Counter[str]] = {}
    try:
        recipes = [r for r in (recipe_of(row, shots, votes) for row in test) if r]
    finally:
        rf.set_labels(*saved)
    columns = {phrase: counts.most_common(1)[0][0] for phrase, counts in sorted(votes.items())}
    # every header a phrase named in the dev rows, by its root: the same column spelt otherwise elsewhere
    roots = {phrase: sorted({rules.header_root(c) for c in counts}) for phrase, counts in sorted(votes.items())}
    votes_seen = {phrase: dict(counts) for phrase, counts in sorted(votes.items())}  # every header a phrase named
    return {"seed": DEV_SEED, "labels": labels, "shapes": shapes, "columns": columns, "roots": roots, "column_votes": votes_seen, "recipes": recipes,
            "choices": const_choices(recipes)}


def const_choices(recipes: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, dict[str, int]]]:
    """For an (operation, argument) whose constant differs between dev rows (a severity, a
    resolution, a time zone), the question words seen with each value: the solver picks the value
    whose words the question shares most."""
    seen: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    for r in recipes:
        for step in r["steps"]:
            for name, spec in step["args"].items():
                if spec["t"] == "const" and isinstance(spec["v"], str) and spec["v"] != "$1":
                    seen[f"{step['op']}/{name}"][spec["v"]].update(set(r["words"]) | {"#n"})
    return {key: {v: dict(c) for v, c in values.items()} for key, values in seen.items() if len(values) > 1}


# --- answering --------------------------------------------------------------------------------

class Index:
    """The dev recipes' questions as IDF-weighted word sets; a question's neighbours by weighted
    Jaccard similarity (one matrix product per question)."""

    def __init__(self, recipes: list[dict[str, Any]]) -> None:
        self.recipes = recipes
        vocab = sorted({w for r in recipes for w in r["words"]})
        self.column = {w: n for n, w in enumerate(vocab)}
        df = np.zeros(len(vocab))
        self.matrix = np.zeros((len(recipes), len(vocab)), dtype=np.float32)
        for i, r in enumerate(recipes):
            for w in set(r["words"]):
                self.matrix[i, self.column[w]] = 1.0
        df = self.matrix.sum(axis=0)
        self.idf = np.log((len(recipes) + 1) / (df + 0.5)).astype(np.float32)
        self.norms = self.matrix @ self.idf

    def ranked(self, question_words: Sequence[str], skip: frozenset[int] = frozenset()) -> list[tuple[float, int]]:
        return self._ranked(frozenset(question_words), skip)

    @functools.lru_cache(maxsize=4096)  # noqa: B019 - one index per process; questions repeat
    def _ranked(self, mine: frozenset[str], skip: frozenset[int]) -> list[tuple[float, int]]:
        known = [self.column[w] for w in mine if w in self.column]
        unknown = 2.0 * (len(mine) - len(known))  # a word no dev question holds weighs like a rare one
        shared = self.matrix[:, known] @ self.idf[known] if known else np.zeros(len(self.recipes))
        norm_q = float(self.idf[known].sum()) + unknown or 1.0
        similarity = shared / (norm_q + self.norms - shared)
        if skip:
            similarity[list(skip)] = -1.0
        top = np.argsort(-similarity, kind="stable")[:40]
        return [(float(similarity[i]), int(i)) for i in top if similarity[i] > 0]


@lru_cache(maxsize=1)
def index() -> Index:
    return Index(bank()["recipes"])


def solve(prompt: Prompt, *, skip: frozenset[int] = frozenset(), idx: Index | None = None) -> str:
    """The solver's answer to one prompt (`skip`: dev recipes to leave out, for a fair dev score):
    the nearest dev recipe carried out over this row, then checked against the catalog tool whose
    description fits the question best (another tool fits far better: that one, its parameters
    filled by type; no recipe or no catalog operation for it: the best-fitting tool or a refusal)."""
    idx = idx or index()
    found = ambiguity.detect(prompt, bank()["columns"])  # two files, columns or environments fit: ask back
    if found is not None and "_narrow" not in found:
        return json.dumps(found, ensure_ascii=False)
    if found is not None:  # exactly one of two files fits: the recipes answer over it alone
        prompt = replace(prompt, files={path: prompt.files[path] for path in found["_narrow"]})
    answer, near, similarity = _by_recipe(prompt, skip, idx)
    if answer.get("_special"):
        answer = {k: v for k, v in answer.items() if k != "_special"}
    elif similarity < generic.NEAR_ENOUGH:  # a recipe this near was the row's own kind of request
        answer = generic.second_opinion(prompt, answer, near, lexicon(), skip, bank()["columns"])
    return json.dumps(answer, ensure_ascii=False)


@lru_cache(maxsize=1)
def lexicon() -> generic.Lexicon:
    return generic.Lexicon.of(bank()["recipes"])


def _by_recipe(prompt: Prompt, skip: frozenset[int],
               idx: Index) -> tuple[dict[str, Any], dict[str, Any] | None, float]:
    """The nearest applicable recipe's answer, that recipe (None: no call recipe was near) and the
    nearest dev question's similarity."""
    known = bank()
    try:
        special = (rules.special(prompt) or rules.statistic_chain(prompt, known["columns"])
                   or rules.column_statistic(prompt, known["columns"]))
    except rules.Refuse as why:
        special = rules.refusal(str(why))
    except rules.Ask as why:
        special = {"clarify": str(why)}
    if special is not None:
        return {**special, "_special": True}, None, 1.0
    ranked = idx.ranked(asked_words(prompt), skip)
    top = ranked[0][0] if ranked else 0.0
    calls = [(s, i) for s, i in ranked[:40] if idx.recipes[i]["kind"] not in ("abstain", "clarify")]
    refusals = [s for s, i in ranked[:40] if idx.recipes[i]["kind"] == "abstain"]
    if not calls or (refusals and refusals[0] > calls[0][0] + 0.25 and calls[0][0] < 0.3):
        return json.loads(_REFUSE), None, top
    first_refusal = None
    tried: set[str] = set()
    offered = {(t.op, t.description) for t in prompt.tools}
    ops = {t.op for t in prompt.tools}

    def in_catalog(i: int) -> bool:
        return all((st["op"], st.get("desc", "")) in offered or st["op"] in ops for st in idx.recipes[i]["steps"])
    calls = sorted(calls, key=lambda si: -(si[0] + CATALOG_BONUS * in_catalog(si[1])))
    for score, i in calls[:8]:
        recipe = idx.recipes[i]
        shape = json.dumps([recipe["kind"], [(s["op"], sorted(s["args"])) for s in recipe["steps"]]])
        if shape in tried or score < calls[0][0] - 0.2:
            continue
        tried.add(shape)
        answer = rules.apply(recipe, prompt, known["columns"], known.get("choices", {}))
        if answer is None:
            continue
        if "abstain" in answer:
            first_refusal = first_refusal or (answer, recipe)
            if "каталоге нет" in answer["reason"]:
                continue  # another near recipe may name an operation the catalog has
        return answer, recipe, top
    if first_refusal and "каталоге нет" in first_refusal[0]["reason"] and calls:
        sibling = standin.sibling(prompt, idx, calls[0][1], skip, dict((i, sc) for sc, i in ranked),
                                  lambda recipe: rules.apply(recipe, prompt, known["columns"], known.get("choices", {})))
        if sibling is not None:
            return sibling, idx.recipes[calls[0][1]], top
    return (*(first_refusal or (json.loads(_REFUSE), idx.recipes[calls[0][1]])), top)


LEAVE_OUT = ("", "row", "maker")


def answers(rows: Sequence[Row], shots: Sequence[Row] = (), *, leave_out: str = "") -> dict[int, str]:
    """The solver's answer to every row, by id. On the dev set itself `leave_out` "row" leaves each
    row's own recipe out; "maker" leaves out every recipe of the row's family (how the solver does
    on a family it never saw)."""
    idx = index()
    by_maker: dict[str, list[int]] = defaultdict(list)
    for n, recipe in enumerate(idx.recipes):
        by_maker[recipe.get("maker", "")].append(n)

    def skipped(n: int, row: Row) -> frozenset[int]:
        if leave_out == "maker":
            return frozenset(by_maker.get(row.meta.get("derivation", {}).get("maker", ""), [n]) + [n])
        return frozenset([n]) if leave_out == "row" else frozenset()
    return {row.id: solve(prompt_of(row, shots), skip=skipped(n, row), idx=idx) for n, row in enumerate(rows)}
