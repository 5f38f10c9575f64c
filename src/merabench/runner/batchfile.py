"""Batch engines: hand merabench's requests to a batch job and take its answers back.

`merabench run ... --export-requests requests.jsonl` writes every request the run would still send,
one line each in the OpenAI Batch API's input shape: `{"custom_id", "method": "POST", "url":
"/v1/chat/completions", "body"}`, the body exactly as merabench would send it. The custom id is
`<task>/<row id>/<messages hash>/<options tag>`: it names the row and proves, on the way back, that
the answer is for the prompt merabench renders now (else that row is an error) and was made with
the run's model and generation options (else the import is refused: the run.json of the folder
would record options its answers were not made with).

`merabench run ... --import-responses responses.jsonl` answers the run from a batch output instead
of an endpoint: the OpenAI Batch output shape (`{"custom_id", "response": {"status_code", "body":
<chat.completion>}, "error"}`) or a plain `{"custom_id", "text"}` (with optional `reasoning`,
`prompt_tokens`, `completion_tokens`, `finish_reason`) that a Ray Data or vLLM offline job writes
easily. The run folder is then scored and reported like any run. Rows the file does not answer
are recorded as errors, so a later `merabench run` with an endpoint, or another import, asks only
those.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from merabench.errors import BackendError, ConfigError, DataError, reading, writing
from merabench.models.base import Completion, Generating, GenerationOptions, Request
from merabench.models.openai_compat import body_excerpt, reply_fields, with_tools
from merabench.models.shaping import ApiProfile, RequestShaper
from merabench.models.usage import token_counts
from merabench.records import BASE, Draw
from merabench.rows.inputfile import check_readable
from merabench.rows.jsonio import dumps_any_depth, json_lines
from merabench.runner.samples import read_answer_draws, samples_path
from merabench.runner.work import PLAIN, Asking, Drawing, TaskRun, WorkItem, answered_before, prepare
from merabench.support.files import write_atomic

BATCH_URL = "/v1/chat/completions"


def options_tag(model: str, options: GenerationOptions) -> str:
    """A short hash of the served model name and every generation option: what an answer was made with."""
    import hashlib

    canonical = orjson.dumps({"model": model, "options": options.fingerprint()}, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(canonical).hexdigest()[:12]


def custom_id(item: WorkItem, tag: str) -> str:
    """<task>/<row id>/<messages hash>/<options tag>, and for a draw other than the base (a repeat,
    a wording) /r<k> and /w<w>: a base draw's id is what it always was."""
    draw = "" if item.draw == BASE else f"/r{item.draw.repeat}" + (
        f"/w{item.draw.wording}" if item.draw.wording is not None else "")
    return f"{item.task.name}/{item.row.id}/{item.messages_hash}/{tag}{draw}"


def parse_custom_id(text: Any) -> tuple[str, int, str, str, Draw] | None:
    """(task, row id, messages hash, options tag, draw) of a custom id merabench wrote, or None."""
    if not isinstance(text, str):
        return None
    parts = text.split("/")
    if len(parts) < 4 or len(parts) > 6:
        return None
    try:
        return parts[0], int(parts[1]), parts[2], parts[3], _draw_of(parts[4:])
    except ValueError:
        return None


def _draw_of(parts: Sequence[str]) -> Draw:
    """The draw an id's tail names (r<k>, then w<w>); a ValueError for anything else."""
    marks = dict.fromkeys("rw")
    for part, mark in zip(parts, "rw", strict=False):
        if not part.startswith(mark) or not part[1:].isdigit():
            raise ValueError(part)
        marks[mark] = part[1:]
    return Draw(int(marks["r"] or 0), None if marks["w"] is None else int(marks["w"]))


def served_model(model: str) -> str:
    """The model name in the request bodies: a batch job needs the `openai:` form."""
    if not model.startswith("openai:") or not model[len("openai:"):]:
        raise ConfigError(f"--model {model}: batch requests need openai:<model name>, the name the batch "
                          "engine serves")
    return model[len("openai:"):]


def request_lines(runs: Sequence[TaskRun], model: str, options: GenerationOptions, system_prompt: str | None,
                  out_dir: Path | None, asking: Asking = PLAIN) -> Iterator[dict[str, Any]]:
    """The requests still to send: every row, in every draw, not answered in out_dir (when given)
    for the same prompt; a repeat's body carries its own seed (runner/work.py)."""
    for _, line in request_items(runs, model, options, system_prompt, out_dir, asking):
        yield line


def request_items(runs: Sequence[TaskRun], model: str, options: GenerationOptions, system_prompt: str | None,
                  out_dir: Path | None, asking: Asking = PLAIN) -> Iterator[tuple[WorkItem, dict[str, Any]]]:
    """request_lines with each line's work item (`run --batch` asks the cache for it by its key)."""
    shaper = RequestShaper(ApiProfile(options.api_profile), frozenset(options.drop_params))
    tag = options_tag(model, options)
    for run in runs:
        existing = read_answer_draws(samples_path(out_dir, run.task.name)) if out_dir is not None else {}
        for draw in asking.draws:
            answered = existing.get(draw, {})
            done = answered_before(run, answered, system_prompt, draw) if answered else set()
            drawing = Drawing(run, draw)
            for row in drawing.rows:
                if row.id in done:
                    continue
                item = prepare(run.task, drawing.history, row, system_prompt, draw, asking.seed_offset(draw))
                if not isinstance(item, WorkItem):  # a dialogue turn without its history: nothing to ask
                    continue
                yield item, request_line(item, model, options, shaper, tag)


def request_line(item: WorkItem, model: str, options: GenerationOptions, shaper: RequestShaper,
                 tag: str) -> dict[str, Any]:
    """One Batch API input line: the item's body as merabench would send it (its seed, and its
    tools for a native tool-calling request) under its custom id."""
    tools = item.tools.tools if item.tools is not None else ()
    sent = Request(item.messages, tools, seed_offset=item.seed_offset).options(options)
    return {"custom_id": custom_id(item, tag), "method": "POST", "url": BATCH_URL,
            "body": with_tools(shaper.body(model, list(item.messages), sent), tools)}


def write_requests(path: Path, lines: Iterator[dict[str, Any]]) -> int:
    count = 0

    def counted() -> Iterator[str]:
        nonlocal count
        for line in lines:
            count += 1
            yield orjson.dumps(line).decode("utf-8") + "\n"

    with writing(path, "--export-requests"):
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, counted())
    return count


def _error_of(line: dict[str, Any]) -> str | None:
    error = line.get("error")
    if isinstance(error, dict):
        return str(error.get("message") or error)
    return str(error) if error else None


def _completion(line: dict[str, Any], where: str) -> Completion | str:
    """The answer of one output line, or why it has none."""
    response = line.get("response")
    if isinstance(response, dict):  # the OpenAI Batch output shape
        status, body = response.get("status_code"), response.get("body")
        if status != 200:
            message = body.get("error", {}).get("message") if isinstance(body, dict) and isinstance(
                body.get("error"), dict) else None
            return f"the batch request failed with status {status}: {message or _error_of(line) or 'no message'}"
        try:
            return Completion(**reply_fields(body, where, lambda: body_excerpt(dumps_any_depth(body).encode())))
        except BackendError as exc:
            return str(exc)
    if "text" in line:
        text = line["text"]
        if not isinstance(text, str):
            return f"{where}: text must be a string, got {type(text).__name__}"
        counts, note = token_counts(line)
        return Completion(text=text, finish_reason=line.get("finish_reason") if isinstance(
            line.get("finish_reason"), str) else None, reasoning=line.get("reasoning") if isinstance(
            line.get("reasoning"), str) else None, usage_note=note, prompt_tokens=counts["prompt_tokens"],
            completion_tokens=counts["completion_tokens"], reasoning_tokens=counts["reasoning_tokens"])
    return _error_of(line) or f"{where}: neither a response nor a text"


@dataclass
class ImportedSource:
    """Answers from a batch output, as an AnswerSource: the run goes through the usual runner,
    samples, scoring and report."""

    name: str
    answers: dict[tuple[str, int, Draw], tuple[str, Completion | str]] = field(default_factory=dict)

    @classmethod
    def read(cls, path: Path, model: str, options: GenerationOptions) -> ImportedSource:
        """Every answer of the file; a custom id given twice, or an answer made with another model
        or other options than the run's, is refused (naming the line)."""
        source = cls(model)
        expected_tag = options_tag(served_model(model), options)
        first_line: dict[tuple[str, int, Draw], int] = {}
        with reading(path, "--import-responses"):
            check_readable(path)
            for lineno, line in json_lines(path):
                key = parse_custom_id(line.get("custom_id")) if isinstance(line, dict) else None
                if key is None:
                    raise DataError("needs a custom_id as merabench wrote it (<task>/<row id>/<hash>/<options tag>)",
                                    file=str(path), line=lineno, field="custom_id")
                task, row_id, messages_hash, tag, draw = key
                if (task, row_id, draw) in first_line:
                    first = first_line[task, row_id, draw]
                    raise DataError(f"answers {task} row {row_id} again (first on line {first}): which answer counts "
                                    "is unclear", file=str(path), line=lineno, field="custom_id")
                if tag != expected_tag:
                    raise DataError("answers a request made with another model or other generation options than "
                                    "this run's (the options tag differs): import with the options of the export, "
                                    "or export again", file=str(path), line=lineno, field="custom_id")
                first_line[task, row_id, draw] = lineno
                source.answers[(task, row_id, draw)] = (messages_hash, _completion(line, f"{path.name} line {lineno}"))
        if not source.answers:
            raise DataError("holds no responses", file=str(path))
        return source

    def cache_key(self, item: WorkItem) -> str | None:
        return None  # a batch's answers are already kept in its output file and in the samples

    async def preflight(self) -> list[str]:
        return []

    async def complete(self, item: WorkItem, may_send: Callable[[], bool]) -> Completion:
        found = self.answers.get((item.task.name, item.row.id, item.draw))
        if found is None:
            raise BackendError("not in the imported responses; ask it with `merabench run` and an endpoint, "
                               "or import a file that has it", retryable=False)
        messages_hash, answer = found
        if messages_hash != item.messages_hash:
            raise BackendError("the imported response answers another prompt than this row's (the data or the "
                               "options changed since the export)", retryable=False)
        if isinstance(answer, str):
            raise BackendError(answer, retryable=False)
        return answer

    def notes(self) -> list[str]:
        return []

    def run_facts(self) -> dict[str, Any]:
        return {}

    def generating(self) -> Generating | None:
        return None  # answers read from a file: nothing is under way

    async def aclose(self) -> None:
        pass


#: the flags of an export that name its own files, not the run, and the model endpoint's key (an
#: import asks no endpoint; the key is masked in what merabench prints): left out of the import's command
EXPORT_ONLY = {"export-requests": ("--out", "--run", "--api-key"), "run": ("--export-requests", "--out", "--api-key")}


def generation_flags(options: GenerationOptions) -> list[str]:
    """`run`'s flags that give exactly these generation options (a preset's values spelt out)."""
    flags = ["--max-tokens", str(options.max_tokens)]
    if options.temperature is not None:
        flags += ["--temperature", repr(options.temperature)]
    if options.seed is not None:
        flags += ["--seed", str(options.seed)]
    for stop in options.stop:
        flags += ["--stop", stop]
    if options.extra_body:
        flags += ["--extra-body", orjson.dumps(dict(options.extra_body)).decode()]
    if options.reasoning_effort is not None:
        flags += ["--reasoning-effort", options.reasoning_effort]
    if options.api_profile != "chat":
        flags += ["--api-profile", options.api_profile]
    for name in options.drop_params:
        flags += ["--drop-param", name]
    return flags


def import_command(argv: Sequence[str], out: Path, extra: Sequence[str] = ()) -> str:
    """The command that answers the run from the batch's output: the export's own arguments
    (`argv`, its subcommand first) as `merabench import-responses OUTPUT ... --out RUN_DIR`, less
    the flags naming the export's files, plus `extra` (what the export took from its run folder)."""
    import shlex

    dropped = EXPORT_ONLY.get(argv[0] if argv else "", ())
    kept: list[str] = []
    skip = False
    for arg in argv[1:]:
        if skip:
            skip = False
            continue
        flag = arg.split("=", 1)[0]
        if flag in dropped:
            skip = "=" not in arg
            continue
        kept.append(arg)
    return shlex.join(["merabench", "import-responses", "OUTPUT.jsonl", *kept, *extra, "--out", str(out)])
