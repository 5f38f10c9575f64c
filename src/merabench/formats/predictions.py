"""Saved answers for `merabench score`: {id: answer text, or None where the saved request failed}.

Accepted: JSONL `{"id": <meta.id>, "output": "..."}` or a JSON list of those, merabench's own
samples files (a log: a row answered again appears twice, and its last record counts, as a resumed
run reads it), a MERA submission JSON `{"data": {"test": [{"outputs", "meta": {"id"}}]}}` or a ZIP
of those, and lm-evaluation-harness `samples_*.jsonl` (`doc.meta.id` with `filtered_resps` or
`resps`). An id given twice anywhere else is a mistake and an error, not a silent last-one-wins.
A leading UTF-8 byte order mark is skipped (jsonio.loads).
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from merabench.errors import DataError, reading
from merabench.formats.zipentries import listed, open_zip, read_entry
from merabench.records import Status, ToolMode
from merabench.rows.inputfile import check_readable, is_stream, read_stream
from merabench.rows.jsonio import json_lines, lines_of, loads

if TYPE_CHECKING:
    from merabench.rows.row import TaskData
    from merabench.tasks.base import Task


def _lm_eval_line(obj: dict[str, Any], *, file: str, line: int) -> tuple[Any, Any]:
    doc = obj.get("doc")
    if not isinstance(doc, dict):
        raise DataError("an lm-eval samples line needs doc to be an object", file=file, line=line, field="doc")
    meta = doc.get("meta", {})
    if not isinstance(meta, dict):
        raise DataError(f"doc.meta must be an object, got {type(meta).__name__}", file=file, line=line,
                        field="doc.meta")
    row_id = meta.get("id", obj.get("doc_id"))
    if "filtered_resps" not in obj and "resps" not in obj:
        raise DataError("an lm-eval samples line needs 'filtered_resps' or 'resps' (the answer)", file=file,
                        line=line, field="filtered_resps", row_id=row_id)
    resp = obj.get("filtered_resps") or obj.get("resps") or [None]
    while isinstance(resp, list):
        resp = resp[0] if resp else None
    return row_id, resp


def _from_line(obj: Any, *, file: str, line: int) -> tuple[int, str | None]:
    if not isinstance(obj, dict):
        raise DataError("a prediction must be a JSON object", file=file, line=line)
    if "doc" in obj:
        row_id, text = _lm_eval_line(obj, file=file, line=line)
    else:
        row_id = obj.get("id")
        if row_id is None and isinstance(obj.get("meta"), dict):
            row_id = obj["meta"].get("id")
        text = obj.get("output", obj.get("outputs"))
        if obj.get("status") in (Status.ERROR, Status.UNASKED):  # a merabench samples line without an answer
            text = None
        elif "output" not in obj and "outputs" not in obj:
            others = ", ".join(repr(k) for k in obj if k not in ("id", "meta")) or "none"
            raise DataError(f"has no answer: expected the field 'output' ({{\"id\": ..., \"output\": ...}}) or "
                            f"'outputs' (MERA submission); other fields: {others}", file=file, line=line,
                            field="output", row_id=row_id if isinstance(row_id, int) else None)
    if isinstance(row_id, bool) or not isinstance(row_id, int):
        raise DataError(f"needs an integer id, got {row_id!r}", file=file, line=line, field="id")
    if text is not None and not isinstance(text, str):
        raise DataError(f"the answer must be a string, got {type(text).__name__}", file=file, line=line,
                        field="output", row_id=row_id)
    return row_id, text


def _collect(items: list[tuple[int, str | None]], *, file: str, log: bool) -> dict[int, str | None]:
    answers: dict[int, str | None] = {}
    for row_id, text in items:
        if row_id in answers and not log:
            raise DataError("the same id is answered twice", file=file, field="id", row_id=row_id)
        answers[row_id] = text  # in a log the last record is the row's state, as a resumed run reads it
    return answers


def _from_submission(doc: Any, *, file: str) -> dict[int, str | None]:
    """A MERA submission's answers, or those of a plain JSON list of {id, output} (as --data takes a list)."""
    if isinstance(doc, list):
        return _collect([_from_line(item, file=file, line=i) for i, item in enumerate(doc)], file=file, log=False)
    items = doc.get("data", {}).get("test") if isinstance(doc, dict) and isinstance(doc.get("data"), dict) else None
    if not isinstance(items, list):
        raise DataError('expected {"data": {"test": [...]}} with a list of answers (a MERA submission), or a '
                        'JSON list of {"id", "output"}', file=file, field="data.test")
    return _collect([_from_line(item, file=file, line=i) for i, item in enumerate(items)], file=file, log=False)


@dataclass(frozen=True)
class PredictionFile:
    """What a predictions file holds: the answers by row id, and for merabench's own samples
    lines the hash of the messages each answer was made for; when the file lies in the run
    folder that wrote it, the data and system prompt that run recorded for its task."""

    answers: dict[int, str | None]
    hashes: dict[int, str] = field(default_factory=dict)
    made_on: str | None = None
    system_prompt: str | None = None
    tool_mode: ToolMode = ToolMode.TEXT   # GorillaHard: how the run beside the file asked


def load_predictions(path: Path, task_mera_name: str | None = None) -> dict[int, str | None]:
    """Answers by row id; None where the saved record says the request failed. `path` may be a
    pipe or `-` (standard input), read once and recognised by its content."""
    return read_predictions(path, task_mera_name).answers


def read_predictions(path: Path, task_mera_name: str | None = None) -> PredictionFile:
    """load_predictions's answers with the messages hashes and the recorded data (PredictionFile)."""
    hashes: dict[int, str] = {}
    with reading(path, "predictions"):
        try:
            check_readable(path)
        except DataError as exc:  # a folder, a device: named as the flag that gave it
            raise DataError(exc.reason, file=f"--predictions {path}") from None
        if is_stream(path):
            answers = _from_bytes(read_stream(path), file=str(path), task_mera_name=task_mera_name, hashes=hashes)
            return PredictionFile(answers, hashes)
        if zipfile.is_zipfile(path):
            return PredictionFile(_from_zip(path, file=str(path), task_mera_name=task_mera_name))
        if path.suffix == ".json":
            _check_task_file(path, task_mera_name)
            return PredictionFile(_from_submission(loads(path.read_bytes()), file=str(path)))
        _check_task_file(path, task_mera_name)
        answers = _from_lines(json_lines(path), file=str(path), hashes=hashes)
    return PredictionFile(answers, hashes, *_recorded_beside(path))


def _recorded_beside(path: Path) -> tuple[str | None, str | None, ToolMode]:
    """(the --data, the system prompt, the tool mode) of the run whose folder holds this samples
    file, from its results.json and run.json; (None, None, TEXT) for a file elsewhere."""
    from merabench.formats.results import read_results, task_settings
    from merabench.tasks.datasource import spec_for

    task = path.name.removeprefix("samples_").removesuffix(".jsonl")
    doc = read_results(path.parent) if path.name.startswith("samples_") else None
    if doc is None or task not in doc["tasks"]:
        return None, None, ToolMode.TEXT
    try:
        identity = loads((path.parent / "run.json").read_bytes())
    except (OSError, ValueError):
        identity = None
    prompt = identity.get("system_prompt") if isinstance(identity, dict) else None
    data = spec_for(list(task_settings(doc, task).data), task)
    result = doc["tasks"][task]
    mode = result.get("tool_mode") if isinstance(result, dict) else None
    return data, prompt if isinstance(prompt, str) else None, ToolMode.NATIVE if mode == ToolMode.NATIVE else ToolMode.TEXT


def _check_task_file(path: Path, task_mera_name: str | None) -> None:
    """A file named for another task (GorillaHard.json, or a run's samples_gorillahard.jsonl,
    scored as SAGE) is refused: its ids overlap, its answers are another task's."""
    from merabench.tasks import TASKS

    named = next((t.mera_name for t in TASKS.values()
                  if path.name in (f"{t.mera_name}.json", f"samples_{t.name}.jsonl")), None)
    if task_mera_name and named and named != task_mera_name:
        kind = "submission" if path.suffix == ".json" else "samples"
        raise DataError(f"is a {kind} file of {named}, not of {task_mera_name}", file=str(path))


def _from_bytes(data: bytes, *, file: str, task_mera_name: str | None,
                hashes: dict[int, str]) -> dict[int, str | None]:
    if data.startswith(b"PK\x03\x04"):
        return _from_zip(io.BytesIO(data), file=file, task_mera_name=task_mera_name)
    try:
        doc = loads(data)
    except json.JSONDecodeError:
        doc = None  # more than one value: JSONL (whose malformed line is named below)
    if (isinstance(doc, dict) and "data" in doc) or isinstance(doc, list):
        return _from_submission(doc, file=file)
    return _from_lines(lines_of(data.splitlines(), file=file), file=file, hashes=hashes)


def _from_zip(source: Path | io.BytesIO, *, file: str, task_mera_name: str | None) -> dict[int, str | None]:
    with open_zip(source, file) as zf:
        names = [n for n in zf.namelist() if n.endswith(".json")]
        if not task_mera_name:
            raise DataError(f"a ZIP holds a file per task: name the task to read from it (has: "
                            f"{listed(names) or 'nothing'})", file=file)
        wanted = f"{task_mera_name}.json"
        copies = names.count(wanted)
        if not copies:
            raise DataError(f"the ZIP has no {wanted} (has: {listed(names) or 'nothing'})", file=file)
        if copies > 1:
            raise DataError(f"the ZIP holds {wanted} {copies} times; which one counts is unclear", file=file)
        if zf.getinfo(wanted).flag_bits & 0x1:
            raise DataError(f"{wanted} is encrypted in the ZIP; give it unencrypted", file=file)
        label = f"{file}!{wanted}"
        with reading(label):
            return _from_submission(loads(read_entry(zf, wanted, label)), file=label)


def _from_lines(lines: Iterable[tuple[int, Any]], *, file: str, hashes: dict[int, str]) -> dict[int, str | None]:
    """The answers of JSONL lines; `hashes` gets the messages hash of each merabench samples line."""
    items, log = [], False
    for lineno, obj in lines:
        log = log or (isinstance(obj, dict) and "status" in obj)
        items.append(_from_line(obj, file=file, line=lineno))
        if isinstance(obj, dict) and isinstance(obj.get("messages_hash"), str):
            hashes[items[-1][0]] = obj["messages_hash"]  # a log's last record counts, its hash too
    return _collect(items, file=file, log=log)


def check_made_for(task: Task, data: TaskData, found: PredictionFile, given_data: str, *, file: str) -> None:
    """merabench's own samples carry the hash of each answer's messages: an answer made for
    another prompt than the row's (the predictions were made on other data, or the data changed
    since) is refused, naming the data to pass when the run beside the file recorded it."""
    from merabench.rows.prompts import HistoryIndex
    from merabench.runner.work import WorkItem, prepare

    if not found.hashes:
        return
    history = HistoryIndex(data.shots)
    compared, differ = 0, []
    for row in data.rows:
        made_for = found.hashes.get(row.id)
        if made_for is None or found.answers.get(row.id) is None:
            continue
        prepared = prepare(task, history, row, found.system_prompt)
        if not isinstance(prepared, WorkItem):
            continue
        compared += 1
        if prepared.messages_hash != made_for:
            differ.append(row.id)
    if not differ:
        return
    if found.made_on is not None and found.made_on != given_data:
        hint = f"the run beside them recorded --data {found.made_on}: pass --data {found.made_on}"
    elif found.made_on is not None:
        hint = f"{given_data} changed since they were made: score them against the data as it was"
    else:
        hint = "pass the --data they were made on (or, made with --system-prompt, give them as {id, output} lines)"
    raise DataError(f"{len(differ)} of {compared} answers were made for other prompts than {data.source}'s rows "
                    f"(their messages_hash differs; first ids {differ[:5]}): the predictions were made on other "
                    f"data; {hint}", file=file)


#: answers that are another task's beyond doubt: at least this many, and this share of them
SHAPE_MIN, SHAPE_SHARE = 5, 0.9
_REGION_ANSWER = re.compile(r"^\s*(?:Ответ:\s*)?[АБВГ](?:\s*;[^\n]{0,60})?\s*$")


def shape_of(answer: str) -> str | None:
    """The task an answer's shape gives away: a GorillaHard call object (the answer a JSON object
    with a call, plan, clarify or abstain key, alone or in a code fence), a RussianRegions letter line (`Ответ: Б`,
    `В; поребрик`), or None (prose: any task's answer may be prose)."""
    from merabench.tasks.gorillahard.parse import parse_answer

    if _REGION_ANSWER.match(answer):
        return "russianregions"
    parsed = parse_answer(answer)
    outside = re.sub(r"```(?:json)?", "", parsed.text_around).strip()
    if parsed.kind is not None and not outside:  # the object alone, or in a code fence
        return "gorillahard"
    return None


def check_shape(task: Task, answers: Mapping[int, str | None], *, file: str) -> None:
    """Another task's answers given for this one (a renamed GorillaHard.json, a pipe) are refused
    when their shape says so beyond doubt: nearly all of them in that task's shape."""
    given = [a for a in answers.values() if a and a.strip()]
    if len(given) < SHAPE_MIN:
        return
    shapes = Counter(shape_of(a) for a in given)
    other, count = max(((k, v) for k, v in shapes.items() if k not in (None, task.name)),
                       key=lambda kv: kv[1], default=(None, 0))
    if other is not None and count >= SHAPE_SHARE * len(given):
        from merabench.tasks import TASKS

        raise DataError(f"{count} of {len(given)} answers have the shape of {TASKS[other].mera_name} answers, "
                        f"not of {task.mera_name} ones: are these another task's predictions? (score them with "
                        f"`merabench score {other}`)", file=file)
