"""Tokenisation as the reference SAGE scorer does it, with each token's lemma and part of speech.

The reference runs spaCy's rule-based Russian tokenizer rebuilt with: the default prefixes plus a
backslash-quote, the default suffixes plus a backslash, the default infixes without the last one
(the `:<>=/`-between-letters rule) plus `](`, no token_match, url_match `^https?://`, and no
tokenizer exceptions. We apply the same affix patterns (tokenizer_tables.py, read from spaCy by
tools/build_sage_tokenizer_tables.py) with our own splitting, so spaCy (and what it imports) is
not needed to score: single spaces vanish into token whitespace, longer runs of whitespace and
newlines become tokens of their own, `кто-то` splits into `кто - то` while `50–52` (en dash)
stays one token. The tests check every text they have against spaCy's own tokenizer.

Lemmas and parts of speech come from pymorphy3 with the rules of the reference pipeline the
differential tables ran (a light spaCy pipeline tagging with pymorphy3, standing in for the
leaderboard's 500 MB model): whitespace SPACE, tokens without a letter or digit PUNCT,
number-like tokens NUM, proper nouns NOUN. They only decide near-ties in the alignment, two merge rules and whether an insertion
or deletion is PUNCT.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, NamedTuple

from merabench.tasks.sage.tokenizer_tables import INFIXES, NUMBER_WORDS, PREFIXES, SUFFIXES

# OpenCorpora part-of-speech tags -> Universal Dependencies tags, as a Russian spaCy model uses them
_UD = {"NOUN": "NOUN", "ADJF": "ADJ", "ADJS": "ADJ", "COMP": "ADJ", "VERB": "VERB", "INFN": "VERB",
       "PRTF": "VERB", "PRTS": "VERB", "GRND": "VERB", "NUMR": "NUM", "ADVB": "ADV", "NPRO": "PRON",
       "PRED": "ADV", "PREP": "ADP", "CONJ": "CCONJ", "PRCL": "PART", "INTJ": "INTJ"}


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


_URL = re.compile(r"^https?://")


@lru_cache(maxsize=1)
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The prefix (matched at the current start), suffix and infix patterns, compiled when first
    needed (50 KB of character classes: not at import, so `run` starts fast)."""
    return (re.compile("|".join(PREFIXES)), re.compile("|".join(p + "$" for p in SUFFIXES)),
            re.compile("|".join(INFIXES)))
# Every suffix pattern matches at most 16 characters, but for a run of dots (`\.\.+`); so a suffix
# is searched for only near the end: a long run of affixes is peeled in linear time, not quadratic.
_SUFFIX_REACH = 32
_SHORT = 64  # shorter remainders are searched as slices, as the reference slices them


def _suffix_length(suffix: re.Pattern[str], run: str, start: int, end: int) -> int:
    if end - start <= _SHORT:
        match = suffix.search(run[start:end])
    else:  # lookbehinds near the end only ever look inside [start, end)
        dots = end - len(run[start:end].rstrip(".")) - start
        match = suffix.search(run, max(start, end - _SUFFIX_REACH - dots), end)
    return match.end() - match.start() if match else 0


@lru_cache(maxsize=50_000)
def split_run(run: str) -> tuple[str, ...]:
    """The tokens of one whitespace-free run: prefixes and suffixes peeled off in turns until
    neither matches (a prefix and a suffix together only when they do not overlap), then the
    rest split at its infixes unless it is a URL, in spaCy's tokenizer's order."""
    prefix_pattern, suffix_pattern, infix_pattern = _patterns()
    prefixes: list[str] = []
    suffixes: list[str] = []
    start, end = 0, len(run)
    last_size = -1
    while start < end and end - start != last_size:
        last_size = end - start
        match = prefix_pattern.match(run, start, end)
        pre = match.end() - start if match else 0
        suf = _suffix_length(suffix_pattern, run, start + pre, end)
        if pre and suf and pre + suf <= end - start:
            prefixes.append(run[start:start + pre])
            suffixes.append(run[end - suf:end])
            start, end = start + pre, end - suf
        elif pre:
            prefixes.append(run[start:start + pre])
            start += pre
        elif suf:
            suffixes.append(run[end - suf:end])
            end -= suf
    tokens = prefixes
    rest = run[start:end]
    if rest:
        matches = [] if _URL.match(rest) else list(infix_pattern.finditer(rest))
        start = 0
        for match in matches:
            if match.start() == 0:  # an infix at the very start is no split
                continue
            if match.start() != start:
                tokens.append(rest[start:match.start()])
            if match.end() != match.start():
                tokens.append(rest[match.start():match.end()])
            start = match.end()
        if rest[start:]:
            tokens.append(rest[start:])
    tokens.extend(reversed(suffixes))
    return tuple(tokens)


@lru_cache(maxsize=1)
def _morph() -> Any:
    import pymorphy3

    return pymorphy3.MorphAnalyzer()


def like_number(text: str) -> bool:
    """spaCy's Russian `like_num`: digits (after one leading sign and a trailing `%`, without `,`
    and `.`), a fraction of digits, or a number word (`пяти`, `первый`, `тысяча`)."""
    if text[:1] in ("+", "-", "±", "~"):
        text = text[1:]
    if text.endswith("%"):
        text = text[:-1]
    text = text.replace(",", "").replace(".", "")
    if text.isdigit():
        return True
    if text.count("/") == 1:
        num, denom = text.split("/")
        if num.isdigit() and denom.isdigit():
            return True
    return text.lower() in NUMBER_WORDS


@lru_cache(maxsize=300_000)
def analyze(text: str) -> tuple[str, str]:
    """(lemma, UD part of speech) of one token, out of context, as the reference's tagger gives
    them: whitespace is SPACE; a token without a letter or digit is PUNCT (`<`, `>`, `+`, `|`,
    which the analyser calls unknown: so inserting a think block or an HTML tag is a PUNCT edit);
    a number-like token is NUM with its lower case as lemma; any other token takes the analyser's
    first parse, X when it has no part of speech (Latin words, `1990-х`), proper nouns NOUN."""
    if text.isspace():
        return text, "SPACE"
    if not any(ch.isalnum() for ch in text):
        return text, "PUNCT"
    if like_number(text):
        return text.lower(), "NUM"
    try:
        parse = _morph().parse(text)[0]
    except ValueError:  # pymorphy3 fails on characters without a Unicode name (e.g. Tangut)
        return text, "X"
    return parse.normal_form, _UD.get(str(parse.tag.POS), "X")


_RUNS = re.compile(r"(\s+)")


@lru_cache(maxsize=8192)
def tokenize(text: str) -> tuple[Token, ...]:
    """Tokens as the reference's tokenizer makes them.

    Each whitespace-free run is split on its own (a run of letters never splits). Whitespace as
    spaCy treats it: one space after a token is that token's trailing whitespace; any other
    whitespace run (or the rest of it) is a token of its own.
    """
    tokens: list[Token] = []
    for run in _RUNS.split(text):
        if not run:
            continue
        if run[0].isspace():
            if tokens and run[0] == " ":
                last = tokens[-1]
                tokens[-1] = Token(last.text, " ", last.lower)
                run = run[1:]
            if run:  # whitespace goes through the affix rules too (U+3000 is a CJK "letter" there)
                tokens.extend(Token(word, "", word.lower()) for word in split_run(run))
        elif run.isalpha():
            tokens.append(Token(run, "", run.lower()))
        else:
            tokens.extend(Token(word, "", word.lower()) for word in split_run(run))
    return tuple(tokens)


def warm_up() -> None:
    """Load what scoring needs (the patterns, the morphological dictionaries) in this process,
    so that forked workers share it instead of each loading it."""
    _patterns()
    analyze("прогрев")
