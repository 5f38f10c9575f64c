"""Russian numerals that agree with their nouns ("1 строку", "2 строки", "5 строк", "21 строку"),
by pymorphy3's own agreement rules, ordinals in the gender and case of their noun, and the check
that finds a number beside a noun form that agrees with it in no case ("5 строки")."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def _morph() -> Any:
    import pymorphy3

    return pymorphy3.MorphAnalyzer()


@lru_cache(maxsize=256)
def _noun(lemma: str) -> Any:
    parses = [p for p in _morph().parse(lemma) if p.tag.POS == "NOUN" and p.normal_form == lemma]
    if not parses:
        raise ValueError(f"not a noun pymorphy3 knows: {lemma}")
    return parses[0]


def count(n: int, lemma: str, case: str = "nomn") -> str:
    """`n` and the noun in the form that agrees with it, in `case` (nomn, accs, gent, ...)."""
    form = _noun(lemma).inflect({case})
    if form is None:
        raise ValueError(f"{lemma} has no {case} form")
    return f"{n} {form.make_agree_with_number(n).word}"


def ordinal(lemma: str, gender: str, case: str) -> str:
    """An ordinal adjective ("первый", "второй") in the gender (masc, femn, neut) and case given."""
    parses = [p for p in _morph().parse(lemma) if p.tag.POS == "ADJF" and p.normal_form == lemma]
    form = parses[0].inflect({gender, case, "sing"}) if parses else None
    if form is None:
        raise ValueError(f"cannot inflect {lemma} to {gender} {case}")
    return form.word


_NUMBER_NOUN = re.compile(r"(?<![\w.,:/-])(\d+) ([а-яё]{2,})")
CASES = ("nomn", "gent", "datv", "accs", "ablt", "loct")


def disagreements(text: str) -> list[str]:
    """Each "number noun" pair of the text whose noun agrees with the number in no case: "5 строки",
    "21 строк". Lenient where only the sentence would tell ("из 3 строк" is right, "по 3 строк" not)."""
    found = []
    for number, word in _NUMBER_NOUN.findall(text):
        lemmas = {p.normal_form for p in _morph().parse(word) if p.tag.POS == "NOUN" and "Abbr" not in p.tag}
        if lemmas and not any(_agrees(int(number), lemma, word) for lemma in sorted(lemmas)):
            found.append(f"{number} {word}")
    return found


@lru_cache(maxsize=4096)
def _agrees(n: int, lemma: str, word: str) -> bool:
    try:
        noun = _noun(lemma)
    except ValueError:
        return True  # not a noun it can inflect: no verdict
    forms = [noun.inflect({case}) for case in CASES]
    agreed = [form.make_agree_with_number(n) for form in forms if form is not None]
    words = {form.word for form in agreed if form is not None}
    return not words or word in words  # a noun without number forms (a mass noun) gets no verdict
