"""The sentence that says which of two attached files a question means, by what that file holds
(a clause of `criteria.py`), never by a path or a file name, before the request or after it.

This is what makes a grounded request the card's T4 ("counting across two files"): reading the
value off the wrong file gives a well-formed, wrong answer.
"""

from __future__ import annotations

import random
import re

from merabench.tasks.gorillahard.generator.families.common import ended
from merabench.tasks.gorillahard.generator.wording.address import agreeing

# how a question says which of the two attached files it means, by what that file holds and never
# by its path or name ({which} is a kind's clause): before the request or after it, in many
# wordings, so that no frame opens or closes more than a few per cent of the questions; a frame
# that addresses the reader does so in the request's form ("бери" beside "покажи", "берите"
# beside "покажите")
PREFIX_POINTERS = (
    "Из двух приложенных файлов нужен тот, {which}.",
    "Файла два, речь о том, {which}.",
    "Смотри файл, {which}.",
    "Бери тот из двух файлов, {which}.",
    "Интересует только файл, {which}.",
    "Вложений два; мне нужно то, {which}.",
    "Нас интересует файл, {which}, второй не трогай.",
    "Работаем с тем файлом, {which}.",
    "Оба файла похожи, но нужен тот, {which}.",
    "Речь про файл, {which}.",
    "Один из файлов лишний: нужен тот, {which}.",
    "Возьми файл, {which}.",
    "Смотрите файл, {which}.",
    "Берите тот из двух файлов, {which}.",
    "Нас интересует файл, {which}, второй не трогайте.",
    "Возьмите файл, {which}.",
)
SUFFIX_POINTERS = (
    "Речь о файле, {which}.",
    "Только для того файла, {which}.",
    "(Из двух файлов — тот, {which}.)",
    "Имеется в виду файл, {which}.",
    "Второй файл не нужен: бери тот, {which}.",
    "Файл — тот, {which}.",
    "Это про тот из двух, {which}.",
    "Нужен файл, {which}, а не второй.",
    "Смотреть надо в тот файл, {which}.",
    "Не перепутай: файл тот, {which}.",
    "Вложений два, нужно то, {which}.",
    "Из приложенных нужен один — тот, {which}.",
    "Второй файл не нужен: берите тот, {which}.",
    "Не перепутайте: файл тот, {which}.",
)
_POINTER = re.compile("|".join(
    re.escape(frame).replace(re.escape("{which}"), r"[^.]+") for frame in (*PREFIX_POINTERS, *SUFFIX_POINTERS)))


def pointed(rng: random.Random, which: str, request: str) -> str:
    """The request with a sentence saying which file it means, before it or after it."""
    if rng.random() < 0.5:
        # after the sentence naming the file, a terse request's lowercase start is raised
        raised = request[0].upper() + request[1:] if "а" <= request[0] <= "я" else request
        return f"{rng.choice(agreeing([f.format(which=which) for f in PREFIX_POINTERS], request))} {raised}"
    return f"{ended(request)} {rng.choice(agreeing([f.format(which=which) for f in SUFFIX_POINTERS], request))}"


def request_of(question: str, which: str = "") -> str:
    """The question without the sentence that says which file it means (`which`, its clause,
    as recorded: a clause's own numbers, times and names are not the request's)."""
    for frame in (*PREFIX_POINTERS, *SUFFIX_POINTERS) if which else ():
        said = frame.format(which=which)
        for form in (said, said[0].lower() + said[1:]):  # lowered after an aside ("Короче, возьми файл, …")
            if form in question:
                return question.replace(form, "", 1).strip()
    return _POINTER.sub("", question, count=1).strip()
