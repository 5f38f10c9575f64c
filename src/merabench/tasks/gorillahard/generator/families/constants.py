"""A plan over a module's history: blame the line that defines a setting, then show that commit.

Which line is drawn per row: the time-out, the batch size, the service's base address or the chat
webhook, named in the question by what it sets, under a constant name drawn per row
(REQUEST_TIMEOUT, HTTP_TIMEOUT_SECONDS; BATCH_SIZE, PAGE_LIMIT; API_ROOT, SERVICE_URL); its old
definition is sometimes left commented out above it, and its name is used in the functions below,
so the line is the live definition, found by reading, not by one name.
"""

from __future__ import annotations

import random
import re

from merabench.tasks.gorillahard.generator.corpus import Corpus, CorpusFile
from merabench.tasks.gorillahard.generator.families import formats
from merabench.tasks.gorillahard.generator.families.common import View, build_question, expect, only, problems
from merabench.tasks.gorillahard.generator.model import File, Question, call

NAMES = {"TIMEOUT_S": ("TIMEOUT_S", "REQUEST_TIMEOUT", "HTTP_TIMEOUT_SECONDS", "DEFAULT_TIMEOUT"),
         "MAX_BATCH": ("MAX_BATCH", "BATCH_SIZE", "PAGE_LIMIT", "CHUNK_SIZE"),
         "BASE_URL": ("BASE_URL", "API_ROOT", "SERVICE_URL", "API_BASE"),
         "WEBHOOK_URL": ("WEBHOOK_URL", "ALERT_HOOK", "CHAT_WEBHOOK")}
# the line as a user names it (accusative: "менял строку с таймаутом")
LINES = {"TIMEOUT_S": ("строку с таймаутом", "строку, где задан таймаут запросов", "определение таймаута"),
         "MAX_BATCH": ("строку с размером пачки", "строку, где задан размер пачки", "определение размера пачки"),
         "BASE_URL": ("строку с адресом API", "строку, где задан базовый адрес сервиса", "определение адреса API"),
         "WEBHOOK_URL": ("строку с адресом вебхука", "строку, где задан вебхук для оповещений", "определение вебхука")}
_ASKS = ("Покажи изменения коммита, который последним менял {line}.",
         "Кто последним трогал {line}? Покажи сам коммит.",
         "Найди коммит, последним менявший {line}, и покажи его изменения.",
         "Какой коммит последним поменял {line}? Покажи, что в нём изменилось.",
         "Покажи дифф коммита, который последним правил {line}.",
         "Мне нужен коммит, в котором последний раз меняли {line}: покажи его.",
         "git blame на {line}, потом покажи найденный коммит")


_HINT = r"(?:: \w+)?"  # a constant's annotation (`TIMEOUT_S: int = 10`)


def respelled_module(rng: random.Random, module: CorpusFile) -> tuple[File, str, str, int] | None:
    """The module with its constants renamed for the row and maybe an old definition of the
    asked one commented out above it: the file, the asked setting, its name here, its line."""
    text = module.file.text
    present = [c for c in NAMES if re.search(rf"^{c}{_HINT} = ", text, re.M)]  # typed or not
    if not present:
        return None
    for constant in present:
        text = re.sub(rf"\b{constant}\b", rng.choice(NAMES[constant]), text) if constant in text else text
    asked = rng.choice(present)
    name = next(n for n in NAMES[asked] if re.search(rf"^{n}{_HINT} = ", text, re.M))
    definition = re.search(rf"^{name}{_HINT} = (.+)$", text, re.M)
    if rng.random() < 0.5 and definition is not None:  # its line matched above: always there
        old = {"TIMEOUT_S": str(rng.choice((3, 20, 60))), "MAX_BATCH": str(rng.choice((25, 200, 1000))),
               "BASE_URL": '"https://legacy.internal/api/v1"',
               "WEBHOOK_URL": '"https://chat.example.org/hooks/old"'}[asked]
        text = text[:definition.start()] + f"# {name} = {old}  # {rng.choice(['было до переезда', 'старое значение'])}\n" \
            + text[definition.start():]
    line = next(n for n, ln in enumerate(text.split("\n"), 1) if re.match(rf"{name}{_HINT} = ", ln))
    folder, filename = module.file.path.rsplit("/", 1)
    path = f"{folder}/{filename.rsplit('_', 1)[0]}_{rng.randint(100, 999)}.py"
    return File(path, "code", text), asked, name, line


def make_blame_then_show(rng: random.Random, corpus: Corpus) -> Question:
    drawn = None
    while drawn is None:
        drawn = respelled_module(rng, corpus.pick("python", rng))
    file, asked, name, line = drawn
    return build_question(
        "blame_then_show", "plan", "T4_wild", rng.choice(_ASKS).format(line=rng.choice(LINES[asked])),
        (CorpusFile(file, "python"),),
        {"plan": [call("git.blame", path=file.path, line=line), call("git.show", commit="$1")]},
        "git.log", facts={"constant": name},
    )


# --- the validator's reading -----------------------------------------------------------------

_MEANS = ((r"таймаут", r"TIMEOUT"), (r"пачк", r"BATCH|LIMIT|CHUNK"), (r"адрес\w* API|базов\w* адрес", r"URL|ROOT|BASE"),
          (r"вебхук", r"HOOK"))


def check_blame_then_show(view: View) -> list[str]:
    path, text = only(view)
    name = view.derivation["constant"]
    cues = [pattern for cue, pattern in _MEANS if re.search(cue, view.question)]
    live = formats.assignment_lines(text, name)
    return problems((len(cues) == 1 and re.search(cues[0], name) is not None, "the question does not name that setting"),
                    (len(live) == 1, "the setting is not defined once")) + \
        expect(view, {"plan": [call("git.blame", path=path, line=live[0] if live else -1), call("git.show", commit="$1")]})
