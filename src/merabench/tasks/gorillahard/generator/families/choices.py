"""Cost picks: a request's wording (cheap or exact) decides between the two tools of a same-capability pair."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from merabench.tasks.gorillahard.generator.corpus import Corpus
from merabench.tasks.gorillahard.generator.families.common import View, build_question, expect, only
from merabench.tasks.gorillahard.generator.model import Question, call

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
    accurate = any(word in view.question for word in ("точность", "дословн", "каждая фраза"))
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
    cheap = any(word in view.question for word in ("дёшево", "дешевле"))
    return expect(
        view, call("storage.archive_cold" if cheap else "storage.archive_hot", path=path, bucket="archive")
    )
