"""Russian numerals that agree with their nouns ("1 строку", "2 строки", "5 строк", "21 строку"),
by pymorphy3's own agreement rules, and ordinals in the gender and case of their noun."""

from __future__ import annotations

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
