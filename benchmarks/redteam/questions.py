"""How the solver reads a question: its word stems (what the dev questions are matched by) and
its tokens of a given shape (a value a recipe takes from the question). The solver learns by them
and the rules apply them, so they sit apart from both."""

from __future__ import annotations

import re

QUOTE = re.compile(r"«([^»]*)»")
_PATHISH = re.compile(r"(?:[\w.-]+/)+[\w.-]+|\b[\w-]+\.(?:csv|tsv|log|py|json|jsonl|yaml|yml|toml|ini|md|sql|xml|env|txt|wav)\b")
_WORD = re.compile(r"[а-яёa-z]{3,}")


def words(question: str) -> list[str]:
    """A question's word stems, and how many quoted names it holds (two columns: two calls)."""
    text = QUOTE.sub(" ", _PATHISH.sub(" ", question.lower()))
    numbers = len(re.findall(r"\d+", text))
    return [w[:6] for w in _WORD.findall(text)] + [f"#quotes{len(QUOTE.findall(question))}", f"#numbers{min(numbers, 3)}"]


_CLASSES = {"d": r"\d+", "A": "[A-Z]+", "a": "[a-z]+", "Я": "[А-ЯЁ]+", "я": "[а-яё]+", "x": r"[^\W\d_]+"}


def _class(ch: str) -> str:
    if ch.isdigit():
        return "d"
    if "a" <= ch.lower() <= "z":
        return "A" if ch.isupper() else "a"
    if ch.isalpha():
        return "Я" if ch.isupper() else "я"
    return ch


def token_shape(value: str) -> str:
    """A token's shape: runs of digits, Latin or Cyrillic letters by case, other characters as are."""
    out, last = [], ""
    for ch in value:
        cls = _class(ch)
        if cls != last or cls not in _CLASSES:
            out.append(_CLASSES.get(cls, re.escape(cls)))
        last = cls
    return "".join(out)


def question_tokens(question: str, shape: str) -> list[str]:
    """The question's tokens of `shape` (a pattern `token_shape` made), paths left out."""
    text = _PATHISH.sub(" ", question)
    before = r"(?<![\w.])(?<![A-Za-z0-9]-)" if shape == r"\d+" else r"(?<![\w.-])"  # "топ-3" is a number
    return [m.group(0) for m in re.finditer(rf"{before}{shape}(?![\w-])", text)]
