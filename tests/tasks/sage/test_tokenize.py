"""merabench's tokenizer against the reference's (spaCy's rule-based Russian tokenizer, built as
the reference builds it): equal on every text the tests have and on random text."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import spacy_tokens

from merabench.rows.row import read_bundled
from merabench.tasks.sage import tokenizer_tables
from merabench.tasks.sage.tokenize import tokenize

DATA = Path(__file__).resolve().parents[2] / "data"


def test_the_tables_are_what_spacy_gives() -> None:
    """tokenizer_tables.py is generated; a spaCy release that changes its rules shows up here."""
    import spacy  # here, not at collection: spaCy imports torch, in every worker that collects the file

    defaults = spacy.blank("ru").Defaults
    assert list(tokenizer_tables.PREFIXES) == [p for p in list(defaults.prefixes) + [r'\\"'] if p.strip()]
    assert list(tokenizer_tables.SUFFIXES) == [p for p in list(defaults.suffixes) + [r"\\"] if p.strip()]
    assert list(tokenizer_tables.INFIXES) == [p for p in list(defaults.infixes)[:-1] + [r"\]\("] if p.strip()]


def test_every_ruspellru_text() -> None:
    for name in ("sources.txt", "corrections.txt"):
        for text in (DATA / "ruspellru" / name).read_text(encoding="utf-8").splitlines():
            assert tokenize(text) == spacy_tokens(text), text


def test_every_agreement_answer_and_bundled_text() -> None:
    texts = [row.inputs["source"] for row in read_bundled("sage")["test"]]
    texts += [row.outputs for row in read_bundled("sage")["test"]]
    for path in sorted((DATA / "sage-agreement").glob("answers_*.jsonl")):
        texts += [json.loads(line)["output"] for line in path.read_text(encoding="utf-8").splitlines()]
    for text in texts:
        for variant in (text, text + "\n", "  " + text + "  \n\n"):
            assert tokenize(variant) == spacy_tokens(variant), variant


_POOL = (" \n\t\u00a0\u3000  абвгдеёжАБВЁ.,!?-—–‐«»\"'`()[]{}<>:;…1234567890%$€₽+=/\\@#№°©®™ hello HTTPS https://x.ru/a "
         "кто-то 50-52 1990-х COVID-19 т.е. км² 5кг US$ 😀🫠 ̆ ́")


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=_POOL, max_size=60))
def test_random_text_over_the_characters_that_matter(text: str) -> None:
    assert tokenize(text) == spacy_tokens(text)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=40))
def test_random_unicode(text: str) -> None:
    assert tokenize(text) == spacy_tokens(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["кто", "-", "то", ".", "..", "...", "(", ")", "[", "](", "\"", "\\", "'", "s", "С",
                                 "5", "%", "+", "км", "тб", "тбكم", ":", "/", "=", "<", ">", "http://", "x.ru", "!", "?"]),
                max_size=12))
def test_random_affix_soups(parts: list[str]) -> None:
    text = "".join(parts)
    assert tokenize(text) == spacy_tokens(text)


def test_long_runs_of_affixes_around_the_search_window() -> None:
    """Long remainders are searched near their end only (linear, where spaCy's own search is
    quadratic); lengths around the switch and past the reach of every suffix pattern."""
    pieces = ["(", "[", "«", '"', ".", "..", "…", "!", "?", ")", "]", "»", "5", "км", "+", "%", "$", "'s", "а.", "Б."]
    for n in (30, 31, 32, 33, 62, 63, 64, 65, 66, 100, 250):
        for left, right in zip(pieces, reversed(pieces), strict=True):
            for text in (left * n + "слово" + right * n, "5" + "." * n, "ТАСС" + "." * n, "кто-то" + right * n,
                         left * n + "5" + "км" + right * (n // 2)):
                assert tokenize(text) == spacy_tokens(text), (n, left, right)
