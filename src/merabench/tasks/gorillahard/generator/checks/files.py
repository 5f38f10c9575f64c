"""Checks of the attached files: one or two a row, never named by the question, not giving away what
a tool would find out, their decoys bearing on the answer, their layouts varied.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from merabench.rows.row import Row
from merabench.tasks.gorillahard.generator.checks.rows import (
    FILE_HEADER,
    Check,
    attached_files,
    card_size,
    first_failures,
    in_body,
    library_reference,
    reference_of,
    steps,
)

MAX_FILES = 2  # the card: "the attached files, one or two"


def check_attachments(rows: list[Row]) -> Check:
    """The card's attachments: one or two files a row (no family makes a row without one), none
    attached twice (a full and a cut copy would make either defensible), and the row's labels
    n_files and has_context saying what is attached."""
    wrong = []
    for row in rows:
        paths = [m.group(1) for m in FILE_HEADER.finditer(row.inputs["context"])]
        repeated = sorted(p for p, n in Counter(paths).items() if n > 1)
        if repeated:
            wrong.append(f"row {row.id}: {', '.join(repeated)} attached twice")
        if not 1 <= len(paths) <= MAX_FILES:
            wrong.append(f"row {row.id}: {len(paths)} files attached, the card asks for 1 to {MAX_FILES}")
        labels = row.meta.get("categories", {})
        if "n_files" in labels and labels["n_files"] != len(paths):
            wrong.append(f"row {row.id}: labelled n_files={labels['n_files']}, {len(paths)} attached")
        if "has_context" in labels and labels["has_context"] != ("yes" if paths else "no"):
            wrong.append(f"row {row.id}: labelled has_context={labels['has_context']}, {len(paths)} files attached")
    return Check("attachments", not wrong, first_failures(wrong) or
                 "one or two files a row, every attached path once, n_files and has_context as attached")


def _names_of(path: str) -> tuple[str, str]:
    return path, path.rsplit("/", 1)[-1]


def check_paths_unsaid(rows: list[Row]) -> Check:
    """The card: "the path exists only here — the question never names it". No question, and no
    clarification a reference asks back, holds an attached file's path or file name: the model
    finds the file by what it holds. Dialogue turns in shots are rows too."""
    said = []
    for row in rows:
        texts = {"question": row.inputs["question"], "clarification": str(reference_of(row).get("clarify", ""))}
        for path in attached_files(row.inputs["context"]):
            for where, text in texts.items():
                name = next((n for n in _names_of(path) if re.search(rf"(?<![\w./-]){re.escape(n)}(?![\w-])", text)),
                            None)
                if name is not None:
                    said.append(f"row {row.id}: the {where} names the attached {name}")
    return Check("paths_unsaid", not said, first_failures(said) or "no question or clarification names an attached file")


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
        for step in steps(library_reference(row)):
            pattern, path = FINDINGS.get(step["tool"]), step["args"].get("path")
            if pattern is not None and isinstance(path, str) and path in files and (
                    found := pattern.search(files[path])):
                given.append(f"row {row.id}: {path} already says «{found.group()}», what {step['tool']} would find")
    return Check("findings_unsaid", not given,
                 first_failures(given) or "no attached file states what the reference's tool would find out")


_REASON_VALUE = re.compile(r"[A-Z]+-\d+|\d+(?:\.\d+)?")
_REFUSED_AMOUNT = re.compile(r"на (\d+(?:\.\d+)?) ₽")
# the argument a format decoy shadows, per tool (library names) a format_trap row calls: an old
# value commented out or a stale block (replicas, the exposed port, the queue's name), a
# repeated header or a disabled row in a table (the amount)
TRAP_ARGUMENTS = {"k8s.scale": "replicas", "net.check_port": "port", "queue.depth": "queue",
                  "billing.refund": "amount"}


def _shadowed_values(reference: dict[str, Any]) -> tuple[list[str], str | None]:
    """The values of the arguments a decoy can shadow that an answer reads from the files (a
    refusal's: the amount it cites), or what keeps them from being known."""
    if "abstain" in reference:
        amounts = _REFUSED_AMOUNT.findall(str(reference.get("reason", "")))
        return amounts, None if amounts else "the refusal cites no amount"
    values, unknown = [], []
    for step in steps(reference):
        name = TRAP_ARGUMENTS.get(step.get("tool", ""))
        if name is None:
            unknown.append(step.get("tool", "?"))
        elif name in (step.get("args") or {}):
            values.append(str(step["args"][name]))
    if not values:
        return [], f"no argument a decoy shadows is known for {', '.join(unknown) or 'its calls'}"
    return values, None


def check_format_traps(rows: list[Row]) -> Check:
    """A row labelled format_trap=yes has an answer whose argument a decoy shadows (TRAP_ARGUMENTS:
    a delimiter, an old value commented out, another unit can lead a reader astray) read from the
    files' body."""
    labelled = [r for r in rows if r.meta["categories"].get("format_trap") == "yes"]
    idle = []
    for r in labelled:
        values, problem = _shadowed_values(library_reference(r))
        texts = list(attached_files(r.inputs["context"]).values())
        if problem is None and not any(in_body(v, texts) for v in values):
            problem = f"{', '.join(values)} is not in the files' body: the decoy cannot bear on the answer"
        if problem:
            idle.append(f"row {r.id} ({r.meta['categories'].get('family')}): {problem}")
    detail = (f"{len(labelled)} rows labelled; the answer of each reads from the body the value a decoy shadows "
              f"({', '.join(f'{t}.{a}' for t, a in TRAP_ARGUMENTS.items())}, a refusal's amount)")
    return Check("format_traps", not idle, first_failures(idle) or detail)


# a comment that tells a key's older assignment from the later one overriding it
_OVERRIDE_SAID = re.compile(r"переопредел|перекрыт|действует последн", re.IGNORECASE)
_KEYED = (".ini", ".cfg", ".env")  # formats of `key = value` lines, a key's last assignment the live one


def _duplicates(path: str, text: str) -> tuple[int, list[str]]:
    """How many keys an INI or .env file assigns twice in one section, and those of them where an
    older assignment has no comment right above it saying it is overridden (option names folded
    to lower case in INI, as configparser reads them; `export` aside in .env)."""
    if not path.endswith(_KEYED):
        return 0, []
    env = path.endswith(".env")
    section, comment = "", ""
    said: dict[tuple[str, str], list[bool]] = {}  # per key, whether each assignment is said to be overridden
    for line in text.splitlines():
        bare = line.strip()
        if not bare or (line[0] in " \t" and not env):  # a blank line, or an INI value's continuation
            continue
        if bare[0] in ";#":
            comment = bare
            continue
        if bare.startswith("[") and bare.endswith("]") and not env:
            section = bare[1:-1].strip()
        elif "=" in bare:
            key = bare.split("=", 1)[0].strip().removeprefix("export ").strip()
            said.setdefault((section, key if env else key.lower()), []).append(bool(_OVERRIDE_SAID.search(comment)))
        comment = ""
    twice = {k: marks for k, marks in said.items() if len(marks) > 1}
    return len(twice), [f"{path}: {key} set {len(marks)} times{f' in [{section}]' if section else ''}, "
                        f"an older assignment not marked overridden"
                        for (section, key), marks in twice.items() if not all(marks[:-1])]


_YAML_KEY = re.compile(r"""(?P<indent>[ ]*)(?P<item>(?:-[ ]+)*)(?P<key>[^\s#'"{\[][^:#]*?|"[^"]*"|'[^']*')[ ]*:(?:[ ]|$)""")
_BLOCK_SCALAR = re.compile(r":[ ]*[|>][-+0-9]*[ ]*(?:#.*)?$")


def _yaml_duplicates(path: str, text: str) -> list[str]:
    """Keys a YAML file's block mapping holds twice. YAML forbids it, and loaders part ways on it
    (PyYAML keeps the last value, ruamel.yaml and the spec refuse the file), so no comment makes a
    duplicate's value one answer: any duplicate is reported. A list item starts a mapping of its
    own; a block scalar's lines and flow collections are not keys; `---` starts a new document."""
    if not path.endswith((".yaml", ".yml")):
        return []
    found: list[str] = []
    open_maps: list[tuple[int, dict[str, int]]] = []  # (indent of the keys, key -> line) from the outermost
    scalar_above = -1  # the indent of a block scalar's key while inside its text
    for number, line in enumerate(text.splitlines(), 1):
        bare = line.strip()
        indent = len(line) - len(line.lstrip(" "))
        if scalar_above >= 0:
            if not bare or indent > scalar_above:
                continue
            scalar_above = -1
        if not bare or bare.startswith("#"):
            continue
        if bare in ("---", "..."):
            open_maps.clear()
            continue
        match = _YAML_KEY.match(line)
        if not match:
            continue
        depth = indent + len(match["item"])
        while open_maps and (open_maps[-1][0] > depth or (match["item"] and open_maps[-1][0] >= depth)):
            open_maps.pop()
        if not open_maps or open_maps[-1][0] < depth:
            open_maps.append((depth, {}))
        key = match["key"].strip().strip("'\"")
        keys = open_maps[-1][1]
        if key in keys:
            found.append(f"{path}: {key} set twice (lines {keys[key]} and {number}), which YAML forbids")
        keys[key] = number
        if _BLOCK_SCALAR.search(line):
            scalar_above = depth
    return found


def check_duplicate_keys(rows: list[Row]) -> Check:
    """No attached INI or .env file assigns a key twice in one section without a comment above the
    older assignment saying it is overridden: the live value is the last one only to a lenient
    parser (configparser's default refuses the file), so a reference reading the key past an
    unmarked duplicate is one defensible answer of two, and a careful model asks back first. No
    attached YAML file holds a key twice in one mapping at all."""
    unmarked, twice = [], 0
    for row in rows:
        for path, text in attached_files(row.inputs["context"]).items():
            n, found = _duplicates(path, text)
            twice += n
            unmarked += [f"row {row.id}: {f}" for f in found + _yaml_duplicates(path, text)]
    return Check("duplicate_keys", not unmarked, first_failures(unmarked) or
                 f"{twice} keys set twice in the attached INI and .env files, the older assignment of each "
                 f"marked overridden; no YAML mapping holds a key twice")


def check_file_layouts(rows: list[Row], manifest: dict[str, Any]) -> Check:
    """Every kind of file the set attaches shows at least three layouts and three kinds of decoy
    (file_layouts.py; the files' records come from the corpus of the manifest's seed; a file a
    maker wrote for its row alone is counted apart); enforced on card-size sets, whose rows attach
    enough files of each kind."""
    from merabench.tasks.gorillahard.generator.checks import file_layouts

    if "seed" not in manifest:
        return Check("file_layouts", True, "no seed in the manifest: the files' layouts are not known")
    paths = {p for r in rows for p in attached_files(r.inputs.get("context", ""))}
    found, unknown = file_layouts.figures(paths, int(manifest["seed"]))
    short = file_layouts.shortfalls(found)
    problems = short if card_size(manifest) else []
    exempt = {k: why for k, f in found.items() if (why := file_layouts.exemption(k, f))}
    held = {k: f for k, f in found.items() if k not in exempt}
    least = min((len(f.layouts) for f in held.values()), default=0)
    fewest = min((len(f.decoys) for k, f in held.items() if k not in file_layouts.NO_DECOYS), default=0)
    unheld = [f"{k} ({why})" for k, why in sorted(exempt.items())] + [
        f"{k} decoys ({file_layouts.NO_DECOYS[k]})" for k in sorted(held) if k in file_layouts.NO_DECOYS]
    detail = (f"{len(found)} kinds of corpus file; the {len(held)} held to the rule show at least {least} layouts and "
              f"{fewest} decoy kinds each" + (f"; exempt: {', '.join(unheld)}" if unheld else "")
              + (f"; {len(unknown)} files made for their row alone (not the corpus's)" if unknown else "")
              + (f" (below the card's size, not enforced: {'; '.join(short)})" if short and not card_size(manifest)
                 else ""))
    return Check("file_layouts", not problems, first_failures(problems) or detail)


# the level field of a log record, in the layouts the logs are written in (a date and time then the
# level; a bracketed stamp then the level in brackets; logfmt's level=; a cron logger's dd.mm.yyyy)
_RECORD_LEVEL = re.compile(r"^(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (\S+)\s|\[[^]]+\] \[([^]]+)\]|ts=\S+ level=(\S+)\s"
                           r"|\d\d\.\d\d\.\d{4} \d\d:\d\d:\d\d (\S+)\s)")
_LEVEL_WORDS = ("ERROR", "WARN", "DEBUG", "INFO")


def _records_of(text: str, level: str) -> int:
    return sum(1 for line in text.split("\n")
               if (found := _RECORD_LEVEL.match(line)) and next(g for g in found.groups() if g) == level)


def check_level_patterns(rows: list[Row]) -> Check:
    """A logs.count or logs.grep whose pattern is a level word (case kept) matches exactly the
    records of that level: no other line of the log (a DEBUG record quoting "WARN", a traceback)
    holds the word, so the level's records and the word's lines are one answer, and a reader
    matching "[WARN]" or "level=WARN" gets the reference's lines."""
    wrong, seen = [], 0
    for r in rows:
        files = attached_files(r.inputs["context"])
        for step in steps(library_reference(r)):
            args = step.get("args") or {}
            if step.get("tool") not in ("logs.count", "logs.grep") or args.get("pattern") not in _LEVEL_WORDS \
                    or args.get("ignore_case") or args.get("path") not in files:
                continue
            seen += 1
            text, level = files[args["path"]], args["pattern"]
            lines = sum(1 for line in text.split("\n") if level in line)
            if lines != _records_of(text, level):
                wrong.append(f"row {r.id} ({r.meta['categories'].get('family')}): {lines} lines of {args['path']} "
                             f"hold {level!r}, {_records_of(text, level)} are {level} records")
    return Check("level_patterns", not wrong, first_failures(wrong) or
                 f"{seen} level-word patterns, each matching exactly its level's records")
