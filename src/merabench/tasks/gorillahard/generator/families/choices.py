"""Cost picks: a request's wording (cheap or exact) decides between the two tools of a same-capability pair."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

from merabench.tasks.gorillahard.generator.corpus import Corpus
from merabench.tasks.gorillahard.generator.families.common import View, build_question, expect, only
from merabench.tasks.gorillahard.generator.model import Question, call

# What a cost-pick request says it needs, beside the wordings that say it: cheapness, or what the
# dear side's caveat alone offers (accuracy, access at once). The validator's checks read the written
# question with these (tiers_by_rule with the catalog's prices, not the maker's choice); every
# wording says exactly one, the other tool's wordings the other (cost_pick_family refuses the rest).
CHEAP_CUES = re.compile(r"д[её]ш[её]в|дешевл|бюджет минимальн|черновую|ошибки не страшны", re.IGNORECASE)
DEAR_CUES = re.compile(r"точност|дословн|каждая фраза|сразу|в любую минуту|по первому запросу", re.IGNORECASE)


def said_need(question: str) -> str | None:
    """The need a question says: "cheap" or "dear" when it says exactly one of them, else None."""
    cheap, dear = bool(CHEAP_CUES.search(question)), bool(DEAR_CUES.search(question))
    return None if cheap == dear else "cheap" if cheap else "dear"


def _cued(needs: dict[str, list[str]], suffix: str) -> None:
    """Raises unless each wording of the pair says one need, each tool's all the same one and the
    two tools' different ones: a wording the cues miss would leave the validator's side unread."""
    sides: dict[str, str] = {}
    for tool, wordings in needs.items():
        unsaid = [w for w in wordings if said_need(w + suffix) is None]
        if unsaid:
            raise ValueError(f"{tool}: {unsaid} say neither or both of the needs CHEAP_CUES and DEAR_CUES read")
        said = {said_need(w + suffix) for w in wordings}
        if len(said) != 1:
            raise ValueError(f"{tool}: its wordings say different needs")
        sides[tool] = said.pop() or ""
    if len(sides) != 2 or len(set(sides.values())) != 2:
        raise ValueError(f"a cost pick needs two tools whose wordings say different needs, not {sides}")


ASR_NEEDS = {
    "asr.transcribe_accurate": [
        "Нужна дословная расшифровка записи для протокола; точность важнее цены.",
        "Расшифруй запись для суда: важна каждая фраза, бюджет не ограничен.",
    ],
    "asr.transcribe_fast": [
        "Набросай черновую расшифровку записи, лишь бы понять общий смысл; бюджет минимальный.",
        "Нужна самая дешёвая расшифровка записи, ошибки не страшны.",
    ],
}


def cost_pick_family(
    name: str, needs: dict[str, list[str]], kind: str, suffix: str = "", **args: Any
) -> Callable[[random.Random, Corpus], Question]:
    """A request whose wording (cheap or exact) decides between the two tools of a pair."""
    _cued(needs, suffix)

    def make(rng: random.Random, corpus: Corpus) -> Question:
        file = corpus.pick(kind, rng)
        tool = rng.choice(list(needs))
        twin = next(t for t in needs if t != tool)
        return build_question(
            name,
            "constraint",
            "T3_expert",
            rng.choice(needs[tool]) + suffix,
            (file,),
            call(tool, path=file.file.path, **args),
            twin,
            cost_pick=True,
        )

    return make


def check_asr_cost(view: View) -> list[str]:
    path, _ = only(view)
    accurate = said_need(view.question) == "dear"
    return expect(view, call("asr.transcribe_accurate" if accurate else "asr.transcribe_fast", path=path))


STORAGE_NEEDS = {
    "storage.archive_cold": [
        "Отправь файл в архив надолго: читать его вряд ли придётся, главное — дёшево.",
        "Заархивируй файл как можно дешевле, он нужен только для отчётности раз в год.",
    ],
    "storage.archive_hot": [
        "Заархивируй файл так, чтобы его можно было сразу открыть по первому запросу.",
        "Отправь файл в архив, но доступ к нему понадобится в любую минуту.",
    ],
}


def check_storage_cost(view: View) -> list[str]:
    path, _ = only(view)
    cheap = said_need(view.question) == "cheap"
    return expect(
        view, call("storage.archive_cold" if cheap else "storage.archive_hot", path=path, bucket="archive")
    )
