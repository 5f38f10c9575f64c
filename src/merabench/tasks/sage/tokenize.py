"""Tokenisation as the reference SAGE scorer does it, with each token's lemma and part of speech.

The reference runs spaCy's rule-based Russian tokenizer rebuilt with: the default prefixes plus a
backslash-quote, the default suffixes plus a backslash, the default infixes without the last one
(the `:<>=/`-between-letters rule) plus `](`, no token_match, url_match `^https?://`, and no
tokenizer exceptions. We build the same tokenizer from `spacy.blank("ru")` (no model needed), so
single spaces vanish into token whitespace, longer runs of whitespace and newlines become tokens
of their own, `кто-то` splits into `кто - то` while `50–52` (en dash) stays one token.

Lemmas and parts of speech come from pymorphy3 (the reference uses a spaCy model): they only
decide near-ties in the alignment and two merge rules. Whitespace tokens are SPACE, punctuation
PUNCT, as the spaCy tagger labels them.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, NamedTuple

# OpenCorpora part-of-speech tags -> Universal Dependencies tags, as a Russian spaCy model uses them
_UD = {"NOUN": "NOUN", "ADJF": "ADJ", "ADJS": "ADJ", "COMP": "ADJ", "VERB": "VERB", "INFN": "VERB",
       "PRTF": "VERB", "PRTS": "VERB", "GRND": "VERB", "NUMR": "NUM", "ADVB": "ADV", "NPRO": "PRON",
       "PRED": "ADV", "PREP": "ADP", "CONJ": "CCONJ", "PRCL": "PART", "INTJ": "INTJ"}
_PROPER = {"Name", "Surn", "Patr", "Geox", "Orgn", "Trad"}
_NON_WORD = {"PNCT": "PUNCT", "NUMB": "NUM", "ROMN": "NUM", "LATN": "X", "UNKN": "X"}


class Token(NamedTuple):
    """A token and the whitespace after it ("" or " "); a named tuple because texts make many."""

    text: str
    ws: str
    lower: str

    # Analysed only when asked for: most tokens sit in matching stretches and never are.
    @property
    def lemma(self) -> str:
        return analyze(self.text)[0]

    @property
    def pos(self) -> str:
        """UD part of speech; PUNCT for punctuation, SPACE for whitespace tokens."""
        return analyze(self.text)[1]


def span_text(tokens: tuple[Token, ...] | list[Token]) -> str:
    """The text a run of tokens covers, with its inner whitespace (spaCy's Span.text)."""
    if not tokens:
        return ""
    return "".join(t.text + t.ws for t in tokens[:-1]) + tokens[-1].text


@lru_cache(maxsize=1)
def _tokenizer() -> Any:
    import spacy
    from spacy.tokenizer import Tokenizer
    from spacy.util import compile_infix_regex, compile_prefix_regex, compile_suffix_regex
    from spacy.vocab import Vocab

    defaults = spacy.blank("ru").Defaults
    # A bare vocabulary: the lexical attributes the model would use (like_num, shape, ...) are
    # computed for every new word and slow the tokenizer down; splitting does not use them.
    return Tokenizer(
        Vocab(),
        prefix_search=compile_prefix_regex(list(defaults.prefixes) + [r'\\"']).search,
        suffix_search=compile_suffix_regex(list(defaults.suffixes) + [r"\\"]).search,
        infix_finditer=compile_infix_regex(list(defaults.infixes)[:-1] + [r"\]\("]).finditer,
        token_match=None,
        url_match=re.compile(r"^https?://").match,
    )


@lru_cache(maxsize=1)
def _morph() -> Any:
    import pymorphy3

    return pymorphy3.MorphAnalyzer()


@lru_cache(maxsize=300_000)
def analyze(text: str) -> tuple[str, str]:
    """(lemma, UD part of speech) of one token, out of context."""
    if text.isspace():
        return text, "SPACE"
    try:
        parse = _morph().parse(text)[0]
    except ValueError:  # pymorphy3 fails on characters without a Unicode name (e.g. Tangut)
        return text, "X"
    tag = parse.tag
    pos = tag.POS
    if pos is None:
        grammemes = set(tag.grammemes)
        label = next((_NON_WORD[g] for g in _NON_WORD if g in grammemes), "X")
        return parse.normal_form, label
    if pos == "NOUN" and _PROPER & set(tag.grammemes):
        return parse.normal_form, "PROPN"
    return parse.normal_form, _UD.get(pos, "X")


_RUNS = re.compile(r"(\s+)")


@lru_cache(maxsize=100_000)
def spacy_tokens(text: str) -> tuple[Token, ...]:
    """The tokenizer run on the whole text: the definition `tokenize` must agree with."""
    return tuple(Token(t.text, t.whitespace_, t.text.lower()) for t in _tokenizer()(text))


@lru_cache(maxsize=100_000)
def tokenize(text: str) -> tuple[Token, ...]:
    """Tokens as `spacy_tokens` gives them, faster.

    spaCy tokenises each whitespace-free run on its own, so we split the runs ourselves and send
    to spaCy (in one call, joined by single spaces) only those that are not plain words: a run of
    letters never splits, and on new words the tokenizer's affix regexes are most of its cost.
    Whitespace as spaCy treats it: one space after a token is that token's trailing whitespace;
    any other whitespace run (or the rest of it) is a token of its own.
    """
    runs = [run for run in _RUNS.split(text) if run]
    complex_runs = [run for run in runs if not run[0].isspace() and not run.isalpha()]
    pieces: list[list[str]] = []
    if complex_runs:
        current: list[str] = []
        for t in _tokenizer()(" ".join(complex_runs)):
            current.append(t.text)
            if t.whitespace_:
                pieces.append(current)
                current = []
        pieces.append(current)
    pieces.reverse()
    tokens: list[Token] = []
    for run in runs:
        if run[0].isspace():
            if tokens and run[0] == " ":
                last = tokens[-1]
                tokens[-1] = Token(last.text, " ", last.lower)
                run = run[1:]
            if run:
                tokens.append(Token(run, "", run.lower()))
        elif run.isalpha():
            tokens.append(Token(run, "", run.lower()))
        else:
            tokens.extend(Token(word, "", word.lower()) for word in pieces.pop())
    return tuple(tokens)
