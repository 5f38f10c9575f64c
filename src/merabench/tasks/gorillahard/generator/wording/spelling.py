"""A spell check over the questions: every Cyrillic word (outside «quotes») is one pymorphy3's
dictionary knows, a word of the trade it does not (конфиг, бакет, воркер), or one of the
deliberate typos of the speaker who types in a hurry. Anything else is an unintended typo.
"""

from __future__ import annotations

import functools
import re

# words of the trade, and forms the dictionary lacks, that a Russian engineer writes as they are
JARGON = frozenset({
    "аптайм", "бакет", "бакета", "бакете", "бэклога", "бэкап", "воркер", "воркера", "выстави", "деплоя", "диаризация", "дифф",
    "екб", "коммит", "коммита", "конфиг", "конфига", "конфиге", "кредит-нота", "кредит-ноту", "либы", "логи", "мск",
    "пингани", "пропингуй", "просканируй", "ранбука", "ранбуке", "ребут", "ревьюер", "ретраи", "скачался", "тикет",
    "тикета", "урлу", "фича-флаг", "хит-рейт", "цикломатика", "цикломатическую", "чексумма", "ов",  # pod'ов
    "спуль",  # "спулить": pull an image
    "веб-фронт", "предрелизном", "проде", "промо-баннер", "стейджинге", "фича-флага", "фича-флагом",  # environments and flags
    "вебхук", "вебхука", "тикете",
    "перцентиле",  # "на 95-м перцентиле": the dictionary lacks перцентиль
    "дашборд",
    "продакшене", "продакшен-окружении", "продуктиве", "предрелизной", "стейдж-окружении", "фронтенд", "резолвни", "резолвятся", "резолверы", "хопам",  # host lists
    "коннекта",  # "у коннекта к БД": a connection's time-out
})
# the terse speaker's typos, on purpose (what each stands for)
DELIBERATE_TYPOS = {"задчу": "задачу", "медленые": "медленные", "назнач": "назначь", "обслуживанни": "обслуживании",
                    "верисю": "версию"}
_WORD = re.compile(r"[а-яёА-ЯЁ]+(?:-[а-яёА-ЯЁ]+)*")
_QUOTED = re.compile(r"«[^»]*»")


@functools.cache
def _morph():  # loading the dictionaries takes a second: once, and only when asked
    import pymorphy3

    return pymorphy3.MorphAnalyzer()


@functools.lru_cache(maxsize=65536)
def _known(word: str) -> bool:
    return word in JARGON or word in DELIBERATE_TYPOS or _morph().word_is_known(word)


def misspelt(question: str) -> list[str]:
    """The question's words that are neither Russian, nor jargon, nor a deliberate typo."""
    return [w for w in _WORD.findall(_QUOTED.sub(" ", question)) if not _known(w.lower())]


def deliberate(question: str) -> list[str]:
    return [w for w in _WORD.findall(_QUOTED.sub(" ", question)) if w.lower() in DELIBERATE_TYPOS]
