"""Answer readings, normalisation and letter extraction for RussianRegions.

Compatible part (the public harness, scoring.md): an answer is read twice — the whole answer
stripped, and the text after the last case-sensitive `Ответ:` stripped — and `exact_match` takes
the better reading. Both sides are normalised: typographic punctuation deleted, then SQuAD-style
lower-casing, ASCII punctuation deleted (not replaced by a space: `Б;вехотка` -> `бвехотка`),
English articles removed, whitespace collapsed. A Latin `B` is not a Cyrillic `В` there.

Our extra, `letter_accuracy`, only looks for the chosen letter and is lenient where the harness
is not: markdown and quotes around the letter are ignored, a lower-case `ответ:` marker counts,
and the Latin look-alikes `A`, `a`, `B` are read as `А`, `а`, `В`. An answer in which no reading
yields a letter at all is a format error.
"""

from __future__ import annotations

import re
import string

MARKER = "Ответ:"
LETTERS = ("А", "Б", "В", "Г")

_TYPOGRAPHIC = "«»‹›„“”‟‘’‚‛—–‒―‐‑−…"
_DELETE = str.maketrans("", "", _TYPOGRAPHIC + string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_LOOKALIKES = str.maketrans({"A": "А", "a": "а", "B": "В"})
_LENIENT_MARKER = re.compile(r"ответ\s*[:：—–-]", re.IGNORECASE)
_LEADING_NOISE = re.compile(r"^[\s*_`\"'«»“”„(\[{>#]+")
_LETTER = re.compile(r"^([АБВГабвг])(?![А-Яа-яЁёA-Za-z0-9])")


def readings(answer: str) -> list[str]:
    """The whole answer stripped, and the text after the last `Ответ:` when that is neither
    empty nor the same (the public harness's answer_candidates)."""
    whole = answer.strip()
    cut = whole.rfind(MARKER)
    if cut == -1:
        return [whole]
    tail = whole[cut + len(MARKER):].strip()
    return [whole] if not tail or tail == whole else [whole, tail]


def normalize(text: str) -> str:
    text = text.lower().translate(_DELETE)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def exact_match(answer: str, reference: str) -> float:
    target = normalize(reference)
    return float(any(normalize(r) == target for r in readings(answer)))


def _letter_of(text: str) -> str | None:
    match = _LETTER.match(_LEADING_NOISE.sub("", text.translate(_LOOKALIKES)))
    return match.group(1).upper() if match else None


def extract_letters(answer: str) -> list[str]:
    """Every letter a reading (or a lenient `ответ:` reading) of the answer starts with."""
    candidates = readings(answer)
    lenient = list(_LENIENT_MARKER.finditer(answer))
    if lenient:
        candidates.append(answer[lenient[-1].end():])
    letters = []
    for text in candidates:
        letter = _letter_of(text)
        if letter and letter not in letters:
            letters.append(letter)
    return letters


def reference_letter(reference: str) -> str:
    return reference.split(";", 1)[0].strip().upper()
