"""Each stage of the SAGE scorer on Russian examples with hand-derived expectations."""

from __future__ import annotations

import pytest

from merabench.tasks.sage.align import align
from merabench.tasks.sage.classify import classify
from merabench.tasks.sage.edits import extract
from merabench.tasks.sage.merge import merge
from merabench.tasks.sage.tokenize import tokenize


def texts(text: str) -> list[str]:
    return [t.text for t in tokenize(text)]


@pytest.mark.parametrize(("text", "tokens"), [
    ("Кто-то пришёл", ["Кто", "-", "то", "пришёл"]),
    ("на 50-52 и 50–52", ["на", "50", "-", "52", "и", "50–52"]),
    ("в 1990-х, 5-й и COVID-19", ["в", "1990-х", ",", "5-й", "и", "COVID-19"]),
    ("Ну... ладно?!", ["Ну", "...", "ладно", "?", "!"]),
    ("Так… т.е. вот", ["Так", "…", "т.е", ".", "вот"]),
    ("два  пробела", ["два", " ", "пробела"]),
    ("строка\nвторая", ["строка", "\n", "вторая"]),
    ("конец ", ["конец"]),
    ("конец  ", ["конец", " "]),
    ("«Цитата»", ["«", "Цитата", "»"]),
    ('он сказал "да"', ["он", "сказал", '"', "да", '"']),
    ("см. https://example.org/a-b тут", ["см", ".", "https://example.org/a-b", "тут"]),
])
def test_tokenizer_matches_the_reference_rules(text: str, tokens: list[str]) -> None:
    assert texts(text) == tokens


def test_parts_of_speech_mark_punctuation_and_whitespace() -> None:
    kinds = {t.text: t.pos for t in tokenize("Ну,  да\nконечно")}
    assert kinds[","] == "PUNCT" and kinds[" "] == "SPACE" and kinds["\n"] == "SPACE"
    assert kinds["конечно"] != "PUNCT"


def ops(source: str, target: str) -> str:
    return " ".join(op[0] for op in align(tokenize(source), tokenize(target)))


@pytest.mark.parametrize(("source", "target", "expected"), [
    ("я незнаю что", "я не знаю что", "M I S M"),  # незнаю is nearer знаю (0.699) than не (1.499)
    ("Кто то пришёл", "Кто-то пришёл", "M I M M"),
    ("мы пошли домой", "мы домой пошли", "M T2"),
    ("он пришол домой", "он пришёл домой", "M S M"),
    ("Это, конечно, так", "Это конечно так", "M D M D M"),
    ("а а б", "а б", "D M M"),
])
def test_alignment(source: str, target: str, expected: str) -> None:
    assert ops(source, target) == expected


def spans(source: str, target: str) -> list[tuple[int, int, int, int]]:
    o, c = tokenize(source), tokenize(target)
    return merge(align(o, c), o, c)


def test_a_hyphen_triple_is_one_edit() -> None:
    # Кто - то -> Кто то: the deleted hyphen with its neighbours is one edit (a spelling variant)
    assert spans("Кто-то пришёл", "Кто то пришёл") == [(0, 3, 0, 2)]


def test_a_punctuation_triple_keeps_only_its_middle() -> None:
    assert spans("Я знаю где он", "Я знаю, где он") == [(2, 2, 2, 3)]


def test_case_change_after_punctuation_merges() -> None:
    # ", ведь" -> ". Ведь" is one edit
    assert spans("Он устал, ведь шёл долго", "Он устал. Ведь шёл долго") == [(2, 4, 2, 4)]


def test_split_word_merges_and_adjacent_substitutions_split() -> None:
    assert spans("я незнаю", "я не знаю") == [(1, 2, 1, 3)]
    assert spans("Превет дила", "Привет дела") == [(0, 1, 0, 1), (1, 2, 1, 2)]


def typed(source: str, target: str) -> list[tuple[str, str]]:
    return [(e.type, e.correction) for e in extract(source, target)]


@pytest.mark.parametrize(("source", "target", "expected"), [
    ("Я знаю где он", "Я знаю, где он", [("PUNCT", ",")]),
    ("Дождь закончился и всё", "Дождь закончился, и всё", [("PUNCT", ",")]),
    ("Пошёл дождь и", "Пошёл дождь, и", [("PUNCT", ",")]),
    ("пришол", "пришёл", [("YO", "пришёл")]),
    ("Ее ответ", "Её ответ", [("YO", "Её")]),
    ("Елка стоит", "Ёлка стоит", [("SPELL", "Ёлка")]),
    ("в москве", "в Москве", [("CASE", "Москве")]),
    ("карова идёт", "Корова идёт", [("CASE", "Карова"), ("SPELL", "корова")]),
    ("федор идёт", "Фёдор идёт", [("CASE", "Федор"), ("YO", "фёдор")]),
    ("Москва - столица", "Москва — столица", [("SPELL", "—")]),
    ("сказал \"да\"", "сказал «да»", [("SPELL", "«"), ("SPELL", "»")]),
    ("Ну ...", "Ну …", [("SPELL", "…")]),
    ("на 50-70 мест", "на 50–70 мест", [("PUNCT", ""), ("SPELL", "50–70")]),
    ("Кто то пришёл", "Кто-то пришёл", [("SPELL", "Кто-то")]),
    ("Превет", "Привет", [("SPELL", "Привет")]),
    ("Мы, решили", "Мы решили", [("PUNCT", "")]),
    ("Это так", "Это так\n", [("PUNCT", "\n")]),
    ("Это  так", "Это так", [("PUNCT", "")]),
    ("Это так", "Это так", []),
    ("Да ?!", "Да !?", [("PUNCT", "!?")]),  # a transposition stays one edit
    ("Это так  ", "Это так", [("PUNCT", "")]),  # a whitespace token deleted
    ("Это так", "Это так  ", [("PUNCT", " ")]),  # two trailing spaces in an answer: a false positive
    ("Ну , да", "Ну, да", []),  # spacing only: the tokens are the same
    # a moved comma is a transposition, typed as a SPELL edit of both tokens (a reference quirk)
    ("он сказал ,что придёт", "он сказал что, придёт", [("SPELL", "что ,")]),
    ("в общем то , ладно", "в общем-то, ладно", [("SPELL", "общем-то")]),
])
def test_classification_with_the_reference_quirks(source: str, target: str, expected: list) -> None:
    assert typed(source, target) == expected


def test_inserting_comma_and_word_is_punct_with_only_the_comma() -> None:
    o, c = tokenize("шёл домой"), tokenize("шёл, и домой")
    assert classify((), c[1:3]) == [("PUNCT", ",")]
    assert classify(o[1:1], c[2:3]) == [("SPELL", "и")]


def test_many_token_punctuation_and_spelling() -> None:
    o, c = tokenize("да , , нет"), tokenize("да ; нет")
    assert classify(o[1:3], c[1:2]) == [("PUNCT", ";")]
    o, c = tokenize("в общем то"), tokenize("вообщем-то")
    assert classify(o[0:3], c[0:3]) == [("SPELL", "вообщем-то")]
