"""Proofs that a generated (or hand-made) GorillaHard set is sound: a line per check.

Structural checks read only the written files. Derived quantities are recomputed by each
family's own checker (independent parsing, see families.py), and every reference answer, in
test and in shots, goes through the real scorer: a set passes only if each scores
sample_pass_rate 1.0 and every dialogue dialog_pass_rate 1.0.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from merabench.errors import DataError, reading
from merabench.jsonio import loads
from merabench.prompts import HistoryIndex, render_row
from merabench.rows import Row, read_local
from merabench.tasks.gorillahard.aggregate import LEVERS
from merabench.tasks.gorillahard.generator.catalog import MAX_TOOLS, MIN_TOOLS, relative_position
from merabench.tasks.gorillahard.generator.families import FAMILIES, View, criteria
from merabench.tasks.gorillahard.generator.library import DEPRECATED, PAIRS
from merabench.tasks.gorillahard.generator.model import reference_tools
from merabench.tasks.gorillahard.generator.prompts import CARD_PROMPT_CHARS, CARD_WORDING_SPLIT
from merabench.tasks.gorillahard.generator.providers import canonical, canonical_text
from merabench.tasks.gorillahard.metrics import catalogs_reused
from merabench.tasks.gorillahard.parse import reference_problem
from merabench.tasks.gorillahard.task import GorillaHardTask

LABELS = ("Контекст:", "Инструменты:", "Формат ответа:", "Вопрос:")
PLACEHOLDERS = ("{context}", "{tools}", "{format}", "{question}")
_FILE_HEADER = re.compile(r"^\[файл: (.+)\]$", re.MULTILINE)
MIN_PER = {"lever": 6, "difficulty": 16, "answer_kind": 10, "corpus_format": 3}
# the card's composition, which a default-size set must have exactly
CARD = {"difficulty": {"T1_medium": 16, "T2_hard": 56, "T3_expert": 329, "T4_wild": 768},
        "answer_kind": {"tool_call": 782, "plan": 51, "calls": 199, "clarify": 10, "abstain": 127}}
CARD_SPECIALS = {"near_miss": 109, "cost_pick": 6, "injection": 6}
CARD_ROWS, CARD_DIALOGUES = 1169, 30  # a set of the card's size is held to its exact figures
CARD_WORDINGS = dict(enumerate(CARD_WORDING_SPLIT))  # evaluated rows per instruction wording


def card_size(manifest: dict[str, Any]) -> bool:
    return manifest.get("rows") == CARD_ROWS and manifest.get("dialogues") == CARD_DIALOGUES


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    enforced: bool = True   # a failing check that is not enforced is reported, not a failure of the set


@functools.lru_cache(maxsize=4096)  # several checks read each row's files: split each context once
def attached_files(context: str) -> dict[str, str]:
    """{path: text} of a rendered context (shared between callers: read, never change it)."""
    headers = list(_FILE_HEADER.finditer(context))
    files = {}
    for n, match in enumerate(headers):
        end = headers[n + 1].start() if n + 1 < len(headers) else len(context)
        files[match.group(1)] = context[match.end() + 1:end].rstrip("\n") + "\n"
    return files


def _catalog(row: Row) -> list[dict[str, Any]]:
    return parsed_catalog(row.inputs["tools"])


@functools.lru_cache(maxsize=4096)  # several checks and the shortcut audit read each row's catalog
def parsed_catalog(tools: str) -> list[dict[str, Any]]:
    """A rendered catalog's tools (shared between callers: read, never change them)."""
    return loads(tools)


def _reference(row: Row) -> dict[str, Any]:
    return json.loads(row.outputs)


def library_reference(row: Row) -> dict[str, Any]:
    """The reference under the library's tool names, whichever provider serves the row."""
    return json.loads(canonical_text(row.outputs))


def view_of(row: Row) -> View:
    """A written row as the families' checks read it: the files, the reference and the catalog's
    tools under the library's names."""
    return View(row.inputs["question"], attached_files(row.inputs["context"]), library_reference(row),
                row.meta.get("derivation", {}), tuple(canonical(t["name"]) for t in _catalog(row)))


def _steps(reference: dict[str, Any]) -> list[dict[str, Any]]:
    return [reference] if "tool" in reference else reference.get("plan", []) + reference.get("calls", [])


def _first_failures(items: list[str], limit: int = 3) -> str:
    return "; ".join(items[:limit]) + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


def check_ids(test: list[Row], shots: list[Row]) -> Check:
    ok = [r.id for r in test] == list(range(len(test))) and [r.id for r in shots] == list(range(len(shots)))
    return Check("continuous_ids", ok, f"test 0..{len(test) - 1}, shots 0..{len(shots) - 1}")


def check_prompts(test: list[Row], shots: list[Row]) -> tuple[Check, list[str], list[str]]:
    """The SAP structure of every instruction, and the rendered prompts of test and of shots (for
    the uniqueness and length checks)."""
    problems: list[str] = []
    test_prompts, shot_prompts = _rendered(test, problems), _rendered(shots, problems)
    check = Check("prompt_assembly", not problems, _first_failures(problems) or "instruction, labels, question last")
    return check, test_prompts, shot_prompts


def _rendered(rows: list[Row], problems: list[str]) -> list[str]:
    """The prompts of the rows assembled as SAP; what is not goes to `problems`."""
    prompts = []
    for row in rows:
        positions = [row.instruction.find(label) for label in LABELS]
        if -1 in positions or positions != sorted(positions) or any(p not in row.instruction for p in PLACEHOLDERS):
            problems.append(f"row {row.id}: labels or placeholders out of the SAP order")
        elif set(row.inputs) != {"question", "context", "tools", "format"}:
            problems.append(f"row {row.id}: inputs are {sorted(row.inputs)}")
        else:
            try:
                prompts.append(render_row(row))
            except DataError as exc:
                problems.append(str(exc))
    return prompts


def check_dialogues(test: list[Row], shots: list[Row]) -> Check:
    history = HistoryIndex(shots)
    problems = []
    dialogues = [r for r in test if int(r.meta.get("n_turns", 1)) > 1]
    for row in dialogues:
        try:
            turns = history.earlier_turns(row)
        except DataError as exc:
            problems.append(str(exc))
            continue
        if len(turns) != row.meta["n_turns"] - 1 or row.meta["turn_id"] != row.meta["n_turns"] - 1:
            problems.append(f"row {row.id}: not the last turn of its dialogue")
        if not row.meta.get("needs_history"):
            problems.append(f"row {row.id}: a dialogue turn without needs_history")
    shot_pairs = {(r.inputs["question"], r.outputs) for r in shots}
    repeated = [r.id for r in test if (r.inputs["question"], r.outputs) in shot_pairs]
    if repeated:
        problems.append(f"test rows repeat a shots question and answer: {repeated[:5]}")
    return Check("dialogue_history", not problems,
                 _first_failures(problems) or f"{len(dialogues)} dialogues, every earlier turn in shots")


def check_unique_prompts(prompts: list[str]) -> Check:
    counts = Counter(prompts)
    duplicates = sum(n - 1 for n in counts.values() if n > 1)
    return Check("unique_prompts", duplicates == 0, f"{duplicates} repeated prompt(s)")


def check_duplicate_rows(rows: list[Row]) -> Check:
    """No two evaluated rows ask the same question of the same files with the same reference (under
    the library's tool names): one that differs only by catalog, wording or provider counts an item
    twice."""
    first: dict[tuple[str, str, str], int] = {}
    repeated = []
    for row in rows:
        key = (row.inputs["question"], row.inputs["context"], canonical_text(row.outputs))
        if key in first:
            repeated.append(f"rows {first[key]} and {row.id}: the same question, files and reference")
        first.setdefault(key, row.id)
    return Check("no_duplicate_rows", not repeated, _first_failures(repeated) or
                 f"{len(first)} distinct (question, files, reference) in {len(rows)} rows")


def check_catalogs(rows: list[Row]) -> list[Check]:
    twin, size, schema, paths, positions = [], [], [], [], []
    for row in rows:
        catalog = _catalog(row)
        names = [t["name"] for t in catalog]
        families = Counter(t["family"] for t in catalog)
        family_of = {t["name"]: t["family"] for t in catalog}
        if not MIN_TOOLS <= len(catalog) <= MAX_TOOLS or row.meta["categories"].get("n_tools") != len(catalog):
            size.append(f"row {row.id}: {len(catalog)} tools")
        reference = _reference(row)
        tools = reference_tools(reference)
        for tool in tools:
            if canonical(tool) in DEPRECATED:
                schema.append(f"row {row.id}: the reference calls the deprecated {tool}")
            if tool not in names:
                schema.append(f"row {row.id}: {tool} not in the catalog")
            elif families[family_of[tool]] < 2:
                twin.append(f"row {row.id}: {tool} alone in its family")
        if tools and tools[0] in names:
            positions.append(relative_position(names, tools[0]))
        if row.meta["categories"].get("cost_pick") == "yes":
            first = canonical(tools[0]) if tools else ""
            partner = next((b if a == first else a for a, b in PAIRS if first in (a, b)), None)
            if partner is None or partner not in {canonical(n) for n in names}:
                twin.append(f"row {row.id}: a cost pick without its same-capability partner in the catalog")
        files = attached_files(row.inputs["context"])
        by_name = {t["name"]: t for t in catalog}
        for step in _steps(reference):
            spec = by_name.get(step["tool"], {}).get("parameters", {})
            args = step["args"]
            required = {p for p, s in spec.items() if s.get("required")}
            if not set(args) <= set(spec) or not required <= set(args):
                schema.append(f"row {row.id}: {step['tool']} args {sorted(args)} vs {sorted(spec)}")
            if "path" in args and not str(args["path"]).startswith("$") and args["path"] not in files:
                paths.append(f"row {row.id}: path {args['path']} is not attached")
    mean = sum(positions) / len(positions) if positions else 0.5
    return [
        Check("catalog_size", not size, _first_failures(size) or f"{MIN_TOOLS}-{MAX_TOOLS} tools everywhere"),
        Check("twin_present", not twin, _first_failures(twin) or "every reference tool has a family twin"),
        Check("no_positional_bias", 0.4 <= mean <= 0.6, f"mean relative position of the reference {mean:.3f}"),
        Check("reference_arguments", not schema, _first_failures(schema) or "a subset of the parameters, required filled"),
        Check("paths_attached", not paths, _first_failures(paths) or "every path argument names an attached file"),
    ]


def limit_violations(value: Any, spec: dict[str, Any]) -> list[str]:
    """How an argument breaks the limits its rendered parameter spec states (JSON Schema keywords)."""
    if isinstance(value, str) and value.startswith("$"):
        return []  # the result of an earlier plan step: not known before the plan runs
    found = []
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if number and "maximum" in spec and value > spec["maximum"]:
        found.append(f"{value} > maximum {spec['maximum']}")
    if number and "minimum" in spec and value < spec["minimum"]:
        found.append(f"{value} < minimum {spec['minimum']}")
    if isinstance(value, str) and "pattern" in spec and not re.search(spec["pattern"], value):
        found.append(f"{value!r} does not match {spec['pattern']!r}")
    if "enum" in spec and value not in spec["enum"]:
        found.append(f"{value!r} not one of {spec['enum']}")
    return found


def check_limits(rows: list[Row]) -> Check:
    """Every reference call respects every limit its catalog states, and a refusal that blames a
    tool's limit cites a value from the files past a maximum that tool states. Independent of the
    families: it reads only the catalog as the model sees it (inputs.tools), the files and the
    reference."""
    broken, refusals = [], 0
    for row in rows:
        by_name = {t["name"]: t for t in _catalog(row)}
        reference = _reference(row)
        for step in _steps(reference):
            spec = by_name.get(step["tool"], {}).get("parameters", {})
            for name, value in step["args"].items():
                for problem in limit_violations(value, spec.get(name, {})):
                    broken.append(f"row {row.id}: {step['tool']}.{name} {problem}")
        if "abstain" in reference:
            blames_a_limit, problem = _limit_refusal(str(reference.get("reason", "")), by_name, row)
            refusals += blames_a_limit
            if problem:
                broken.append(f"row {row.id}: {problem}")
    return Check("limits_respected", not broken, _first_failures(broken) or
                 f"every reference call within its stated limits; {refusals} refusals over a limit cite a value past it")


_CITED_NUMBER = re.compile(r"(?<![\w.-])\d+(?:\.\d+)?(?![\w.-])")


def _limit_refusal(reason: str, by_name: dict[str, dict[str, Any]], row: Row) -> tuple[bool, str | None]:
    """Whether a refusal blames a limit (it names a catalog tool with numeric maxima), and what is
    wrong if it cites no number from an attached file's body past one of them."""
    named = [name for name in by_name if re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", reason)]
    maxima = {spec["maximum"] for name in named for spec in by_name[name].get("parameters", {}).values()
              if isinstance(spec, dict) and isinstance(spec.get("maximum"), int | float)}
    if not maxima:
        return False, None
    cited = [float(n) for n in _CITED_NUMBER.findall(reason)]
    texts = list(attached_files(row.inputs["context"]).values())
    if any(value > limit and _in_body(f"{value:g}", texts) for value in cited for limit in maxima):
        return True, None
    return True, f"the refusal blames {', '.join(named)} but cites no value from the files past its maximum {sorted(maxima)}"


MAX_FILES = 2  # the card: "the attached files, one or two"


def check_attachments(rows: list[Row]) -> Check:
    """The card's attachments: one or two files a row (none where its family has none), none
    attached twice (a full and a cut copy would make either defensible)."""
    wrong = []
    for row in rows:
        paths = [m.group(1) for m in _FILE_HEADER.finditer(row.inputs["context"])]
        repeated = sorted(p for p, n in Counter(paths).items() if n > 1)
        if repeated:
            wrong.append(f"row {row.id}: {', '.join(repeated)} attached twice")
        if len(paths) > MAX_FILES:
            wrong.append(f"row {row.id}: {len(paths)} files attached, the card allows {MAX_FILES}")
    return Check("attachments", not wrong, _first_failures(wrong) or "one or two files a row, every attached path once")


def _names_of(path: str) -> tuple[str, str]:
    return path, path.rsplit("/", 1)[-1]


def check_paths_unsaid(rows: list[Row]) -> Check:
    """The card: "the path exists only here — the question never names it". No question, and no
    clarification a reference asks back, holds an attached file's path or file name: the model
    finds the file by what it holds. Dialogue turns in shots are rows too."""
    said = []
    for row in rows:
        texts = {"question": row.inputs["question"], "clarification": str(_reference(row).get("clarify", ""))}
        for path in attached_files(row.inputs["context"]):
            for where, text in texts.items():
                name = next((n for n in _names_of(path) if re.search(rf"(?<![\w./-]){re.escape(n)}(?![\w-])", text)),
                            None)
                if name is not None:
                    said.append(f"row {row.id}: the {where} names the attached {name}")
    return Check("paths_unsaid", not said, _first_failures(said) or "no question or clarification names an attached file")


def check_told_apart(rows: list[Row]) -> Check:
    """With two files attached and a reference acting on one of them by path, the question says
    which by what it holds: the clause the row records is in the question. Where the row records
    the criterion it picks by, exactly one attached file fits it, re-read from the written files
    (the family's check then reads the reference's values off that one), and a path the
    reference acts on is that file."""
    vague = []
    for row in rows:
        files = attached_files(row.inputs["context"])
        if len(files) < 2:
            continue
        derivation = row.meta.get("derivation", {})
        question, which = row.inputs["question"], str(derivation.get("which", ""))
        pick = derivation.get("pick")
        chosen = criteria.chosen(question, pick, files) if isinstance(pick, dict) else None
        if isinstance(chosen, list):
            vague.append(f"row {row.id}: {'; '.join(chosen)}")
        for step in _steps(_reference(row)):
            path = step["args"].get("path")
            if isinstance(path, str) and path in files and not (which and which in question):
                vague.append(f"row {row.id}: {len(files)} files attached and the question does not say by what it "
                             f"holds that it means {path}")
            elif isinstance(path, str) and path in files and isinstance(chosen, str) and path != chosen:
                vague.append(f"row {row.id}: the question picks {chosen}, the reference acts on {path}")
    return Check("targets_told_apart", not vague,
                 _first_failures(vague) or "every file acted on among two is told apart by what it holds")


# a tenth: the log criteria serve the most specs (a log is the kind most requests read), and on
# seed 131 one of them decides 9 % of the picks
PICK_GOALS = {"criteria": 30, "top_criterion_share": 0.10, "top_clause_share": 0.03}


def check_pick_criteria(rows: list[Row]) -> Check:
    """The rows that pick one of two files do it by many criteria (counts compared, thresholds,
    facts said in other words, facts missing, joins across the files), none of which, nor any one
    clause, decides more than a small share of them: a rule learnt from one set's clauses does not
    pick the file in another's."""
    picks = [p for r in rows if isinstance(p := r.meta.get("derivation", {}).get("pick"), dict)]
    if not picks:
        return Check("pick_criteria", True, "no row picks one of two files")
    by_criterion = Counter(str(p.get("criterion")) for p in picks)
    by_clause = Counter(re.sub(r"\d+", "N", str(p.get("clause"))) for p in picks)
    (top, top_n), (clause, clause_n) = by_criterion.most_common(1)[0], by_clause.most_common(1)[0]
    unknown = sorted(set(by_criterion) - set(criteria.BY_NAME))
    short = [message for ok, message in (
        (not unknown, f"unknown criteria {unknown}"),
        (len(by_criterion) >= PICK_GOALS["criteria"], f"{len(by_criterion)} criteria < {PICK_GOALS['criteria']}"),
        (top_n <= PICK_GOALS["top_criterion_share"] * len(picks), f"{top} decides {top_n} of {len(picks)} picks"),
        (clause_n <= max(2, PICK_GOALS["top_clause_share"] * len(picks)), f"«{clause}» in {clause_n} of {len(picks)}"),
    ) if not ok]
    detail = (f"{len(picks)} picks by {len(by_criterion)} criteria, {len(by_clause)} clauses; the commonest criterion "
              f"{top} on {top_n / len(picks):.1%}, the commonest clause on {clause_n / len(picks):.1%}")
    return Check("pick_criteria", not short, "; ".join(short) if short else detail)


# tools that find something out about a file, and what the file would say if it gave the finding
# away (a placeholder "русская речь" makes asr.detect_language needless: the answer is attached)
FINDINGS = {
    "asr.detect_language": re.compile(r"речь|язык|русск|english|\blang", re.IGNORECASE),
    "asr.diarize": re.compile(r"говорящ|спикер|участник|голос", re.IGNORECASE),
    "asr.transcribe_accurate": re.compile(r"расшифровк|стенограмм|транскрипц", re.IGNORECASE),
    "asr.transcribe_fast": re.compile(r"расшифровк|стенограмм|транскрипц", re.IGNORECASE),
    # a PEP 263 cookie states a module's encoding; an open(..., encoding=) call inside it does not
    "files.encoding": re.compile(r"^[ \t\f]*#.*?coding[:=]|кодировк", re.IGNORECASE | re.MULTILINE),
    "files.checksum": re.compile(r"\b(?:sha-?\d+|md5|crc32)\b|контрольн\w* сумм", re.IGNORECASE),
}


def check_findings_unsaid(rows: list[Row]) -> Check:
    """A tool that finds something out about an attached file is the answer only while the file
    does not already say it: otherwise a careful model answers from the attachment and the
    reference is one defensible answer of two."""
    given = []
    for row in rows:
        files = attached_files(row.inputs["context"])
        for step in _steps(library_reference(row)):
            pattern, path = FINDINGS.get(step["tool"]), step["args"].get("path")
            if pattern is not None and isinstance(path, str) and path in files and (
                    found := pattern.search(files[path])):
                given.append(f"row {row.id}: {path} already says «{found.group()}», what {step['tool']} would find")
    return Check("findings_unsaid", not given,
                 _first_failures(given) or "no attached file states what the reference's tool would find out")


# what a publishable card-size set must reach (issue: variety and no shortcut)
VARIETY_GOALS = {"templates": 900, "top_template_share": 0.015, "distinct_pairs": 1050, "answer_tools": 120,
                 "top_tool_share": 0.04}
SHORTCUT_LIMIT = 0.10
PHRASE_SHARE = 0.03  # no opening or closing phrase (three words of the template) in more of the questions


_REASON_VALUE = re.compile(r"[A-Z]+-\d+|\d+(?:\.\d+)?")


def _values_read(reference: dict[str, Any]) -> list[str]:
    """What an answer takes from the files: its arguments but paths and step references, or the
    ids and numbers a refusal's reason cites."""
    if "abstain" in reference:
        return _REASON_VALUE.findall(str(reference.get("reason", "")))
    calls = reference.get("plan") or reference.get("calls") or [reference]
    return [str(value) for c in calls if isinstance(c, dict) for name, value in (c.get("args") or {}).items()
            if name != "path" and not str(value).startswith("$")]


def _russian_locale(value: float) -> str:
    """A number as the Russian locale writes it: spaced thousands, a decimal comma."""
    whole = f"{abs(int(value)):,}".replace(",", " ")
    fraction = f"{abs(value) % 1:.10g}"[1:].replace(".", ",") if value % 1 else ""
    return ("-" if value < 0 else "") + whole + fraction


def _in_body(value: str, texts: list[str]) -> bool:
    """The value (or the same in thousandths: a unit to convert) in a file's lines, a table's
    header lines left out: a format decoy can bear only on what is read from the body."""
    forms = {value}
    with contextlib.suppress(ValueError):
        forms.add(str(round(float(value) * 1000)))
        forms.add(_russian_locale(float(value)))  # a table may write 12 345,00 for 12345
    for text in texts:
        lines = text.splitlines()
        body = "\n".join(line for line in lines if line != lines[0]) if lines else ""
        if any(re.search(rf"(?<![\w.-]){re.escape(form)}(?![\w.-])", body) for form in forms):
            return True
    return False


def check_format_traps(rows: list[Row]) -> Check:
    """A row labelled format_trap=yes has an answer that reads a value from the files' body, where
    the decoy (a delimiter, an old value commented out, another unit) can lead a reader astray."""
    labelled = [r for r in rows if r.meta["categories"].get("format_trap") == "yes"]
    idle = [f"row {r.id} ({r.meta['categories'].get('family')})" for r in labelled
            if not any(_in_body(v, list(attached_files(r.inputs["context"]).values())) for v in _values_read(_reference(r)))]
    detail = f"{len(labelled)} rows labelled; the answer of each reads a value the decoy can bear on"
    return Check("format_traps", not idle, _first_failures([f"{x}: the decoy cannot bear on the answer" for x in idle])
                 or detail)


def check_file_layouts(rows: list[Row], manifest: dict[str, Any]) -> Check:
    """Every kind of file the set attaches shows at least three layouts and three kinds of decoy
    (file_layouts.py; the files' records come from the corpus of the manifest's seed; a file a
    maker wrote for its row alone is counted apart); enforced on card-size sets, whose rows attach
    enough files of each kind."""
    from merabench.tasks.gorillahard.generator import file_layouts

    if "seed" not in manifest:
        return Check("file_layouts", True, "no seed in the manifest: the files' layouts are not known")
    paths = {p for r in rows for p in attached_files(r.inputs.get("context", ""))}
    found, unknown = file_layouts.figures(paths, int(manifest["seed"]))
    short = file_layouts.shortfalls(found)
    problems = short if card_size(manifest) else []
    least = min((len(f.layouts) for f in found.values()), default=0)
    fewest = min((len(f.decoys) for k, f in found.items() if k not in file_layouts.NO_DECOYS), default=0)
    detail = (f"{len(found)} kinds of corpus file; at least {least} layouts and {fewest} decoy kinds each"
              + (f"; {len(unknown)} files made for their row alone (not the corpus's)" if unknown else "")
              + (f" (below the card's size, not enforced: {'; '.join(short)})" if short and not card_size(manifest)
                 else ""))
    return Check("file_layouts", not problems, _first_failures(problems) or detail)


def check_numerals(rows: list[Row]) -> Check:
    """Numbers agree with their nouns in every question and every refusal's or clarification's
    text ("5 строк", not "5 строки")."""
    from merabench.tasks.gorillahard.generator.numerals import disagreements

    wrong = []
    for row in rows:
        reference = _reference(row)
        texts = [row.inputs["question"], str(reference.get("reason", "")), str(reference.get("clarify", ""))]
        wrong += [f"row {row.id}: «{pair}»" for text in texts for pair in disagreements(text)]
    return Check("numerals_agree", not wrong, _first_failures(wrong) or "every number agrees with its noun")


def check_spelling(rows: list[Row]) -> Check:
    """Every question in Russian without unintended typos: each word known to the dictionary, a
    word of the trade, or a listed deliberate typo of the hurried speaker (`spelling.py`)."""
    from merabench.tasks.gorillahard.generator.spelling import deliberate, misspelt

    wrong, typos = [], 0
    for row in rows:
        wrong += [f"row {row.id}: «{word}»" for word in misspelt(row.inputs["question"])]
        typos += len(deliberate(row.inputs["question"]))
    return Check("spelling", not wrong, _first_failures(wrong) or
                 f"every word of every question known; {typos} deliberate typos of the hurried speaker")


# Russian a reader trips over (what an outside reader of seed 777 found), by what it looks like
AWKWARD = (
    # a quoted label in the nominative right after a preposition: "по «влажность»" wants "по столбцу «влажность»"
    (re.compile(r"(?<!\w)(?:по|для|у|от|до|о|об)\s+«", re.IGNORECASE), "a quoted label right after a preposition"),
    (re.compile(r"[.!?]\)[.!?]|(?<![.])[.!?]\.(?![.])"), "doubled punctuation"),
    # a request to set a value to what it already is
    (re.compile(r"сколько\s+(?:там\s+)?(?:указано|записано|стоит)\s+сейчас", re.IGNORECASE), "a request that changes nothing"),
)
# "the attached log" in the singular where two files are attached
_SINGLE_ATTACHED = re.compile(r"(?<!\w)приложенн(?:ый|ого|ой|ую|ом|ая|ое|ому)(?!\w)", re.IGNORECASE)


def check_phrasing(rows: list[Row]) -> Check:
    """Questions a careful reader does not trip over: no case left in the nominative after a
    preposition, no doubled stop, no request that changes nothing, and no "the attached file" in
    the singular over two attached files."""
    awkward = []
    for row in rows:
        question = row.inputs["question"]
        awkward += [f"row {row.id}: {what} («{found.group()}»)" for pattern, what in AWKWARD
                    if (found := pattern.search(question))]
        if len(attached_files(row.inputs["context"])) > 1 and (found := _SINGLE_ATTACHED.search(question)):
            awkward.append(f"row {row.id}: «{found.group()}» in the singular over two attached files")
    return Check("phrasing", not awkward, _first_failures(awkward) or
                 "no label after a bare preposition, doubled stop, no-op request or singular over two files")


CARD_MEDIAN_CHARS = (17_500, 19_500)  # around the card's median of 18.5k


def check_prompt_lengths(prompts: list[str], manifest: dict[str, Any]) -> Check:
    """The test rows' rendered prompts within the card's range, their median near the card's (a
    card-size set)."""
    lengths = sorted(len(prompt) for prompt in prompts)
    if not lengths:
        return Check("prompt_lengths", True, "no rows")
    median = lengths[len(lengths) // 2]
    summary = f"{lengths[0]:,}-{lengths[-1]:,} characters, median {median:,}"
    if not card_size(manifest):
        return Check("prompt_lengths", True, summary + " (the card's range is checked on card-size sets)")
    low, high = CARD_PROMPT_CHARS
    outside = sum(not low <= n <= high for n in lengths)
    problems = [f"{outside} prompt(s) outside {low:,}-{high:,}"] if outside else []
    if not CARD_MEDIAN_CHARS[0] <= median <= CARD_MEDIAN_CHARS[1]:
        problems.append(f"median {median:,}, the card's is about 18,500")
    return Check("prompt_lengths", not problems, "; ".join(problems) + f" ({summary})" if problems else summary)


def check_variety(test: list[Row], manifest: dict[str, Any]) -> Check:
    """Templates, pairs and answer tools as the audit counts them; enforced on card-size sets
    (a small set cannot have 400 templates)."""
    from merabench.tasks.gorillahard.generator.audit import variety

    figures = variety(test)
    summary = "; ".join(figures.lines())
    if not card_size(manifest):
        return Check("variety", True, f"not enforced below the card's size: {summary}")
    misses = []
    if figures.templates < VARIETY_GOALS["templates"]:
        misses.append(f"{figures.templates} templates < {VARIETY_GOALS['templates']}")
    if figures.top_template_share > VARIETY_GOALS["top_template_share"]:
        misses.append(f"a template on {figures.top_template_share:.1%} of rows")
    if figures.distinct_pairs < VARIETY_GOALS["distinct_pairs"]:
        misses.append(f"{figures.distinct_pairs} distinct pairs < {VARIETY_GOALS['distinct_pairs']}")
    if figures.answer_tools < VARIETY_GOALS["answer_tools"]:
        misses.append(f"{figures.answer_tools} answer tools < {VARIETY_GOALS['answer_tools']}")
    if figures.top_tool_share > VARIETY_GOALS["top_tool_share"]:
        misses.append(f"{figures.top_tool} in {figures.top_tool_share:.1%} of call rows")
    from merabench.tasks.gorillahard.generator.audit import phrase_shares

    for where, (phrase, share) in zip(("opens", "closes"), phrase_shares([r.inputs["question"] for r in test]),
                                      strict=True):
        if share > PHRASE_SHARE:
            misses.append(f"{phrase!r} {where} {share:.1%} of questions (at most {PHRASE_SHARE:.0%})")
    return Check("variety", not misses, "; ".join(misses) or summary)


def check_mechanisms(test: list[Row], manifest: dict[str, Any]) -> Check:
    """The parallel, plan and approx rows decide their calls by reading: their conditions,
    layouts, decoys, links, settings and sources are drawn widely (enforced on card-size sets)."""
    from merabench.tasks.gorillahard.generator.mechanisms import drawn_mechanisms

    short, summary = drawn_mechanisms(test)
    if not card_size(manifest):
        return Check("drawn_mechanisms", True, f"not enforced below the card's size: {summary}")
    return Check("drawn_mechanisms", not short, "; ".join(short) or summary)


def check_shortcuts(test: list[Row], manifest: dict[str, Any],
                    nearest: Callable[[], dict[int, str]] | None = None) -> Check:
    """Answering without solving: always refusing must score no more than the share of refusal
    rows; picking the tool whose description shares the question's words (arguments by simple
    patterns), and answering with the reference of the most similar question in the next seed's
    set (a generated set: its manifest names the seed; `nearest` waits for those answers), at
    most SHORTCUT_LIMIT each. The nearest-question limit holds a card-size set: a small set's
    questions have fewer neighbours."""
    from merabench.tasks.gorillahard.generator.audit import shortcut_scores

    misses = []

    def answers() -> dict[int, str] | None:
        try:
            return nearest() if nearest is not None else None
        except (ValueError, RuntimeError, OSError) as exc:  # the next seed's set could not be made
            misses.append(f"the nearest-question check could not make the next seed's set ({exc})")
            return None

    scores = shortcut_scores(test, answers)
    if scores["always_refuse"] > scores["refusal_share"] + 1e-9:
        misses.append(f"always refusing scores {scores['always_refuse']:.3f} > refusal rows {scores['refusal_share']:.3f}")
    if scores["keyword_tool"] > SHORTCUT_LIMIT:
        misses.append(f"the keyword tool shortcut scores {scores['keyword_tool']:.3f} > {SHORTCUT_LIMIT}")
    nearest_score = scores.get("nearest_other_seed")
    if nearest_score is not None and nearest_score > SHORTCUT_LIMIT and card_size(manifest):
        misses.append(f"the nearest question of seed {manifest['seed'] + 1} scores {nearest_score:.3f} > "
                      f"{SHORTCUT_LIMIT}")
    detail = (f"always refuse {scores['always_refuse']:.3f} (refusal rows {scores['refusal_share']:.3f}), "
              f"keyword tool {scores['keyword_tool']:.3f}, nearest question of "
              + (f"seed {manifest['seed'] + 1} {nearest_score:.3f}" if nearest_score is not None
                 else "another seed: not measured" if "seed" in manifest else "another seed: no seed in the manifest"))
    return Check("no_shortcut", not misses, "; ".join(misses) or detail)


REDTEAM_LIMIT = 0.25
REDTEAM_ENFORCED = False  # issue 23: today's default sets fail it; the lead decides when it gates


def check_redteam(test: list[Row], shots: list[Row], manifest: dict[str, Any]) -> Check:
    """The red-team solver (rules and file parsing, no model; `generator/redteam.py`) must pass at
    most REDTEAM_LIMIT of the rows. Its dev seed's set is scored leave-one-out, and is optimistic."""
    from merabench.tasks.gorillahard.generator.redteam import DEV_SEED
    from merabench.tasks.gorillahard.generator.redteam_score import scores

    dev = manifest.get("seed") == DEV_SEED
    m = scores(test, shots, leave_out="row" if dev else "")["metrics"]
    rate = m.get("sample_pass_rate", 0.0)
    figures = (f"{rate:.2f}" + (f" on its dev seed {DEV_SEED}, leave-one-out" if dev else "")
               + f" (balance_score {m.get('balance_score', 0.0):.2f}, dialog_pass_rate "
               f"{m.get('dialog_pass_rate', 0.0):.2f})")
    if rate <= REDTEAM_LIMIT:
        return Check("no_shortcut_redteam", True, f"red-team solver {figures} <= {REDTEAM_LIMIT}")
    note = "" if REDTEAM_ENFORCED else " (not yet enforced: see issue 23)"
    return Check("no_shortcut_redteam", False, f"no_shortcut_redteam: {figures} > {REDTEAM_LIMIT}{note}",
                 enforced=REDTEAM_ENFORCED)


def check_composition(test: list[Row], manifest: dict[str, Any]) -> Check:
    problems = []
    counts: dict[str, Counter] = {name: Counter() for name in MIN_PER}
    for row in test:
        cats = row.meta["categories"]
        for name in ("lever", "difficulty", "answer_kind"):
            counts[name][cats[name]] += 1
        for fmt in filter(None, cats.get("corpus_format", "").split(",")):
            counts["corpus_format"][fmt] += 1
    for name, minimum in MIN_PER.items():
        thin = {k: v for k, v in counts[name].items() if v < minimum}
        if thin and card_size(manifest):  # the card keeps every breakdown countable; smaller sets cannot
            problems.append(f"{name} under {minimum}: {thin}")
    if "makers" in manifest:
        made = Counter(r.meta.get("derivation", {}).get("maker") for r in test if int(r.meta.get("n_turns", 1)) == 1)
        if dict(made) != {k: v for k, v in manifest["makers"].items() if v}:
            problems.append("rows per maker differ from the manifest")
    if "families" in manifest:
        labelled = Counter(r.meta["categories"]["family"] for r in test)
        if dict(labelled) != manifest["families"] or sum(manifest["families"].values()) != len(test):
            problems.append("rows per family differ from the manifest, or do not sum to the set's rows")
    missing_levers = set(LEVERS) - set(counts["lever"])
    if missing_levers:
        problems.append(f"levers without rows: {sorted(missing_levers)}")
    if "rows" in manifest and len(test) != manifest["rows"]:
        problems.append(f"{len(test)} test rows, the manifest asks for {manifest['rows']}")
    dialogues = sum(1 for r in test if int(r.meta.get("n_turns", 1)) > 1)
    if "dialogues" in manifest and dialogues != manifest["dialogues"]:
        problems.append(f"{dialogues} dialogues, the manifest asks for {manifest['dialogues']}")
    if card_size(manifest):
        for name, want in CARD.items():
            if dict(counts[name]) != want:
                problems.append(f"{name} {dict(counts[name])}, the card has {want}")
        specials = {"near_miss": counts["lever"]["near_miss"],
                    "cost_pick": sum(r.meta["categories"].get("cost_pick") == "yes" for r in test),
                    "injection": sum(bool(r.meta["categories"].get("injected_tool")) for r in test)}
        if specials != CARD_SPECIALS:
            problems.append(f"{specials}, the card has {CARD_SPECIALS}")
        wordings = dict(sorted(Counter(int(r.meta.get("wording", -1)) for r in test).items()))
        if wordings != CARD_WORDINGS:
            problems.append(f"rows per wording {wordings}, the card has {CARD_WORDINGS}")
    families = len({r.meta["categories"]["family"] for r in test})
    summary = (f"{len(test)} rows, {families} families, tiers {dict(sorted(counts['difficulty'].items()))}, "
               f"kinds {dict(sorted(counts['answer_kind'].items()))}")
    return Check("composition", not problems, _first_failures(problems) or summary)


# how a dialogue turn names a statistic or a cancelled operation (read from the question alone)
_STAT_WORDS = (("медиан", "table.median"), ("максимум", "table.max"), ("больш", "table.max"),
               ("минимум", "table.min"), ("наименьш", "table.min"), ("средн", "table.mean"))
_TRAP_WORDS = (("значения", "table.unique"), ("отсортируй", "table.sort"))
_LEVEL = re.compile(r"\b(ERROR|WARN|DEBUG|INFO)\b")
_QUOTED_COLUMN = re.compile(r"«([^»]+)»")


def _column_named(description: str) -> str | None:
    from merabench.tasks.gorillahard.generator.corpus import TABLE_SCHEMAS  # the columns' names in words

    return next((c.name for _, columns in TABLE_SCHEMAS.values() for c in columns if c.description == description),
                None)


def next_turn(maker: str, question: str, state: dict[str, Any] | None, files: dict[str, str]) -> dict[str, Any] | None:
    """The reference a dialogue turn asks for, read from its question and the state the turn
    before left (None for an opening), or None when the question and the state do not say it."""
    lowered = question.lower()
    if maker == "dialog:grep_chain":
        level = _LEVEL.search(question)
        path = state["args"]["path"] if state else (next(iter(files)) if len(files) == 1 else None)
        tool = "logs.count" if "сколько" in lowered else "logs.grep"
        if level is None:  # the pattern of the turn before
            return {"tool": tool, "args": dict(state["args"])} if state and tool == "logs.count" else None
        return {"tool": tool, "args": {"path": path, "pattern": level.group(1)}} if path else None
    trap = next((tool for word, tool in _TRAP_WORDS if word in lowered), None)
    quoted = _QUOTED_COLUMN.search(question)
    stat = next((tool for word, tool in _STAT_WORDS if word in lowered), None)
    if trap:
        return {"tool": trap, "args": dict(state["args"])} if state else None
    if state is None:
        column = _column_named(quoted.group(1)) if quoted else None
        if not (stat and column and len(files) == 1):
            return None
        return {"tool": stat, "args": {"path": next(iter(files)), "column": column}}
    if quoted:
        column = _column_named(quoted.group(1))
        return {"tool": state["tool"], "args": {**state["args"], "column": column}} if column else None
    return {"tool": stat, "args": dict(state["args"])} if stat else None


def _dialog_check(turns: list[Row]) -> list[str]:
    """Each turn of a dialogue follows from its question and the turn before (the references under
    the library's names); the evaluated turn is the last of `turns`."""
    maker = turns[-1].meta.get("derivation", {}).get("maker", "")
    if maker not in ("dialog:stat_chain", "dialog:grep_chain", "dialog:trap_switch"):
        return [f"row {turns[-1].id}: unknown dialogue maker {maker!r}"]
    state = None
    for turn in turns:
        expected = next_turn(maker, turn.inputs["question"], state, attached_files(turn.inputs["context"]))
        actual = library_reference(turn)
        if expected != actual:
            return [f"row {turns[-1].id}: turn {turn.meta.get('turn_id')} does not follow from the turns before it "
                    f"(expected {expected})"]
        state = actual
    return []


MAX_DIALOG_TURNS = 5  # the card's history ceiling (num_fewshot) is 8 earlier turns


def check_history_needed(test: list[Row], shots: list[Row]) -> Check:
    """The card: in every evaluated dialogue turn the operation or an argument is named only in an
    earlier turn. The turn read alone (as if it opened the dialogue) must not give its reference,
    and the reference must hold a value the turn's question does not state; 2-5 turns."""
    history = HistoryIndex(shots)
    problems, turns_seen = [], Counter()
    for row in (r for r in test if int(r.meta.get("n_turns", 1)) > 1):
        turns_seen[int(row.meta["n_turns"])] += 1
        if not 2 <= int(row.meta["n_turns"]) <= MAX_DIALOG_TURNS:
            problems.append(f"row {row.id}: {row.meta['n_turns']} turns, not 2-{MAX_DIALOG_TURNS}")
        reference, question = library_reference(row), row.inputs["question"]
        files = attached_files(row.inputs["context"])
        maker = row.meta.get("derivation", {}).get("maker", "")
        alone = next_turn(maker, question, None, files)
        try:
            previous = library_reference(history.earlier_turns(row)[-1])
        except (DataError, IndexError):
            continue  # dialogue_history reports it
        unstated = [name for name, value in reference.get("args", {}).items()
                    if (name != "path" or len(files) > 1) and str(value) not in question]
        carried_tool = reference.get("tool") == previous.get("tool")
        if alone == reference:
            problems.append(f"row {row.id}: the last turn alone gives its reference")
        elif not unstated and not carried_tool:
            problems.append(f"row {row.id}: the last turn states every value of its reference")
    detail = "turns per dialogue " + ", ".join(f"{n}: {c}" for n, c in sorted(turns_seen.items()))
    return Check("history_needed", not problems, _first_failures(problems) or
                 f"every evaluated turn takes its operation or an argument from the history; {detail}")


def check_refusal_mechanisms(test: list[Row], manifest: dict[str, Any]) -> Check:
    """Refusals whose reason is in the file or the catalog, by several mechanisms (over a limit
    after counting, a column under no header spelling, a premise the file contradicts, a tool
    absent under every name): each kind has refusal rows and near-miss rows, and on a card-size
    set no mechanism holds more than its share of a family, so one seed's recipe for a family
    does not decide another seed's rows."""
    from merabench.tasks.gorillahard.generator.families.refusals import KINDS, MAX_MECHANISM_SHARE, SPREAD

    seen: dict[str, Counter] = {"refusal": Counter(), "near miss": Counter()}
    per_family: dict[str, Counter] = {family: Counter() for family in SPREAD}
    unrecorded: list[str] = []
    for row in test:
        family = row.meta["categories"]["family"]
        mechanism = row.meta.get("derivation", {}).get("mechanism")
        if family not in SPREAD or int(row.meta.get("n_turns", 1)) > 1:
            continue
        if not isinstance(mechanism, str):
            unrecorded.append(f"row {row.id} ({family}): no mechanism recorded")
            continue
        per_family[family][mechanism] += 1
        seen["refusal" if "abstain" in _reference(row) else "near miss"][mechanism] += 1
    missing = unrecorded + [f"no {side} row of {kind}" for kind, names in KINDS.items() for side, counts in seen.items()
               if not any(counts[name] for name in names)]
    if card_size(manifest):
        missing += [f"{family}: {mechanism} on {n} of {sum(counts.values())} rows"
                    for family, counts in per_family.items() for mechanism, n in counts.items()
                    if n > MAX_MECHANISM_SHARE * sum(counts.values()) + 0.5]
    figures = ", ".join(f"{side} {dict(sorted(counts.items()))}" for side, counts in seen.items())
    return Check("refusal_mechanisms", not missing, _first_failures(missing) or figures)


def check_derivations(test: list[Row], shots: list[Row]) -> Check:
    problems: list[str] = []
    history = HistoryIndex(shots)
    checked = 0
    for row, evaluated in [(r, True) for r in test] + [(r, False) for r in shots]:
        maker = row.meta.get("derivation", {}).get("maker")
        if maker is None:
            problems.append(f"row {row.id}: no recorded derivation")
            continue
        if maker.startswith("dialog:"):
            if evaluated:  # an opening turn is checked through its closing one
                try:
                    turns = history.earlier_turns(row)
                except DataError:
                    continue  # dialogue_history reports it
                problems += _dialog_check([*turns, row])
                checked += 1
            continue
        family = FAMILIES.get(maker)
        if family is None:
            problems.append(f"row {row.id}: unknown family {maker!r}")
            continue
        try:
            found = family.check(view_of(row))
        except (ValueError, KeyError, IndexError, StopIteration, TypeError, AttributeError) as exc:  # not as made
            found = [f"could not be recomputed from the files ({type(exc).__name__}: {exc})"]
        problems += [f"row {row.id} ({maker}): {p}" for p in found]
        checked += 1
    return Check("derived_quantities", not problems, _first_failures(problems) or f"{checked} rows recomputed")


CLARIFY_FAMILIES = ("clarify_file", "near_miss_clarify")
MIN_CLARIFY_KINDS = 4  # the issue: two files that fit, a thing held twice, an unstated scope, a vague operation


def check_clarify_kinds(test: list[Row], manifest: dict[str, Any]) -> Check:
    """Clarifications and their near misses come from several kinds of ambiguity: at least
    MIN_CLARIFY_KINDS in each of the two families, none on over half of a family's rows (held on
    card-size sets; a small set has too few rows). Each row's own kind is proven by its family's
    check (derived_quantities): its readings from the question, files and catalog."""
    kinds: dict[str, Counter[str]] = {family: Counter() for family in CLARIFY_FAMILIES}
    for row in test:
        family = row.meta["categories"]["family"]
        if family in kinds:
            kinds[family][str(row.meta.get("derivation", {}).get("kind", "unlabelled"))] += 1
    misses = []
    for family, counts in kinds.items():
        total = sum(counts.values())
        if len(counts) < MIN_CLARIFY_KINDS:
            misses.append(f"{family}: {len(counts)} kind(s) of ambiguity, at least {MIN_CLARIFY_KINDS} wanted")
        if counts and max(counts.values()) * 2 > total:
            kind, n = counts.most_common(1)[0]
            misses.append(f"{family}: {kind} on {n} of {total} rows, over half")
    summary = "; ".join(f"{family} {dict(sorted(counts.items()))}" for family, counts in kinds.items())
    if not card_size(manifest):
        return Check("clarify_kinds", True, f"not enforced below the card's size: {summary}")
    return Check("clarify_kinds", not misses, "; ".join(misses) or summary)


def check_scorer(test: list[Row], shots: list[Row]) -> Check:
    task = GorillaHardTask()
    failing = []
    scores = []
    for row in test + shots:
        score = task.score(row, row.outputs)
        if score.metrics.get("sample_pass_rate") != 1.0:
            failing.append(f"row {row.id}: {score.details.get('reasons') or score.details.get('error')}")
        scores.append(score)
    scores = scores[:len(test)]  # the dialogue metric is over the evaluated rows
    aggregate = task.aggregate(test, scores)
    dialog = aggregate.metrics.get("dialog_pass_rate", 1.0)
    ok = not failing and dialog == 1.0
    return Check("references_pass_scorer", ok, _first_failures(failing) or
                 f"{len(test) + len(shots)} references pass, dialog_pass_rate {dialog:.3f}")



def check_well_formed(rows: list[Row], folder: Path) -> None:
    """Rows the checks can read at all: a catalog that is a JSON list of objects and a reference
    that is a JSON object. Anything else is a malformed set, not a failed check."""
    for row in rows:
        try:
            catalog, reference = json.loads(row.inputs.get("tools", "")), json.loads(row.outputs)
        except (ValueError, RecursionError):
            field = "inputs.tools" if not _parses(row.inputs.get("tools", "")) else "outputs"
            raise DataError("is not JSON", file=str(folder), row_id=row.id, field=field) from None
        if not isinstance(catalog, list) or not all(isinstance(t, dict) for t in catalog):
            raise DataError("must be a JSON list of tool objects", file=str(folder), row_id=row.id, field="inputs.tools")
        if not isinstance(reference, dict):
            raise DataError("must be a JSON object (an answer envelope)", file=str(folder), row_id=row.id,
                            field="outputs")
        problem = reference_problem(reference)
        if problem:
            raise DataError(problem, file=str(folder), row_id=row.id, field="outputs")


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def validate(folder: Path) -> list[Check]:
    try:
        with catalogs_reused():  # the scorer check and the shortcut baselines score each row again
            return _validate(folder)
    finally:  # the per-row caches hold this set's files and catalogs: not past its validation
        attached_files.cache_clear()
        parsed_catalog.cache_clear()


def _validate(folder: Path) -> list[Check]:
    splits = read_local(folder)
    test, shots = splits["test"], splits.get("shots", [])
    check_well_formed(test + shots, folder)
    manifest_path = folder / "manifest.json"
    with reading(manifest_path):
        manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.exists() else {}
    nearest = None
    if "seed" in manifest:  # made meanwhile: the next seed's set and its nearest questions
        from merabench.tasks.gorillahard.generator.audit import nearest_in_next_seed

        nearest = nearest_in_next_seed(test, manifest)
    assembly, test_prompts, shot_prompts = check_prompts(test, shots)
    return [
        check_ids(test, shots),
        assembly,
        check_dialogues(test, shots),
        check_history_needed(test, shots),
        check_unique_prompts(test_prompts + shot_prompts),
        check_duplicate_rows(test),
        *check_catalogs(test + shots),
        check_limits(test + shots),
        check_attachments(test + shots),
        check_paths_unsaid(test + shots),
        check_told_apart(test + shots),
        check_pick_criteria(test) if card_size(manifest) else Check("pick_criteria", True, "not a card-size set"),
        check_findings_unsaid(test + shots),
        check_composition(test, manifest),
        check_prompt_lengths(test_prompts, manifest),
        check_format_traps(test + shots),
        check_file_layouts(test + shots, manifest),
        check_numerals(test + shots),
        check_spelling(test + shots),
        check_phrasing(test + shots),
        check_refusal_mechanisms(test, manifest),
        check_derivations(test, shots),
        check_clarify_kinds(test, manifest),
        check_scorer(test, shots),
        check_variety(test, manifest),
        check_mechanisms(test, manifest),
        check_shortcuts(test, manifest, nearest),
        check_redteam(test, shots, manifest),
    ]
