"""How a question addresses the reader: "ты" (сделай, тебя), "вы" (сделайте, вас) or neither.

A question keeps one form of address: the parts put together into one (a lead-in, the sentence
that says which file, an optional argument's sentence, a tail) are drawn to agree with the
request's form, so that no question says "Помоги" and then "Посчитайте", nor "пожалуйста" twice.
Words inside «quotes» are someone else's and do not count; "пожалуйста" and "спасибо" fit either form.
A greeting can set it ("Здравствуйте" is "вы", "Здравствуй" "ты"), and so does calling several
people at the start ("Коллеги, …").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Literal

Form = Literal["ты", "вы"]
_PRONOUNS: dict[str, Form] = {
    **{w: "ты" for w in ("ты", "тебя", "тебе", "тобой", "твой", "твоя", "твоё", "твое", "твои", "твоего", "твоей",
                         "твоему", "твоих", "твоим", "твоими")},
    **{w: "вы" for w in ("вы", "вас", "вам", "вами", "ваш", "ваша", "ваше", "ваши", "вашего", "вашей", "вашему",
                         "ваших", "вашим", "вашими")},
    "здравствуй": "ты", "здравствуйте": "вы",  # a greeting that sets the form; "привет", "добрый день" fit either
    # the hurried speaker's jargon verbs, which the dictionary does not know ("Резолвни … Очень выручите"
    # mixed the forms unseen: seed 4242, row 993)
    **{w: "ты" for w in ("резолвни", "пингани", "спуль", "просканируй", "задеплой", "зарезолвь")},
    **{w: "вы" for w in ("резолвните", "пинганите", "спульте", "просканируйте", "задеплойте")},
}
_PLURAL_CALL = re.compile(r"^\s*(?:коллеги|друзья|ребята|все)\s*,", re.IGNORECASE)  # calling several: "вы"
_WORD = re.compile(r"[а-яё]+")
_QUOTED = re.compile(r"«[^»]*»|\"[^\"]*\"")


@functools.cache
def _morph():  # the dictionaries load in about a second: once, and only when asked
    import pymorphy3

    return pymorphy3.MorphAnalyzer()


@functools.lru_cache(maxsize=65536)
def _word_form(word: str) -> Form | None:
    """A word's form of address: a pronoun's, or a verb's in the imperative or the second person
    when most of the dictionary's readings of the word are that verb ("свежей" is mostly an
    adjective, "слушай" mostly a verb)."""
    if word in _PRONOUNS:
        return _PRONOUNS[word]
    weight = {"ты": 0.0, "вы": 0.0}
    for parse in _morph().parse(word):
        tag = parse.tag
        if tag.POS == "VERB" and (tag.mood == "impr" or tag.person == "2per") and tag.number in ("sing", "plur"):
            weight["ты" if tag.number == "sing" else "вы"] += parse.score
    form: Form = "ты" if weight["ты"] >= weight["вы"] else "вы"
    return form if weight[form] >= 0.5 else None


@functools.lru_cache(maxsize=65536)  # `agreeing` asks it of the same text beside every option
def forms(text: str) -> frozenset[Form]:
    """The forms of address the text uses (empty when it uses none, both when it mixes them)."""
    found = [_word_form(w) for w in _WORD.findall(_QUOTED.sub(" ", text).lower())]
    if _PLURAL_CALL.match(text):  # "Коллеги, … проверь" asks several people with one person's verb
        found.append("вы")
    return frozenset(f for f in found if f)


def agrees(text: str, other: str) -> bool:
    """Whether the two texts put together would keep one form of address."""
    return len(forms(text) | forms(other)) < 2


# politeness words, by stem: a part put beside a text never says one the text already says ("Помогите,
# пожалуйста." before "Посчитайте, пожалуйста, ..."; "Дождитесь, пожалуйста, ..." after "обновите, пожалуйста")
_POLITE = re.compile(r"(?<![а-яё])(пожалуйст|спасиб|благодар|прошу|признател)", re.IGNORECASE)


def polite_words(text: str) -> frozenset[str]:
    return frozenset(m.lower() for m in _POLITE.findall(_QUOTED.sub(" ", text)))


def agreeing(options: Sequence[str], text: str) -> list[str]:
    """The options that keep the text's form of address (all of them when none does), and of those
    the ones that repeat none of its politeness words (where any does not)."""
    kept = [option for option in options if agrees(option, text)] or list(options)
    said = polite_words(text)
    return [option for option in kept if not polite_words(option) & said] or kept
