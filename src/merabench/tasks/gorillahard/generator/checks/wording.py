"""Checks of the questions' Russian: numbers agreeing with nouns, spelling, phrasing a careful reader
does not trip over.
"""

from __future__ import annotations

import re

from merabench.rows.row import Row
from merabench.tasks.gorillahard.generator.checks.rows import (
    Check,
    attached_files,
    first_failures,
    reference_of,
)


def check_numerals(rows: list[Row]) -> Check:
    """Numbers agree with their nouns in every question and every refusal's or clarification's
    text ("5 строк", not "5 строки")."""
    from merabench.tasks.gorillahard.generator.wording.numerals import disagreements

    wrong = []
    for row in rows:
        reference = reference_of(row)
        texts = [row.inputs["question"], str(reference.get("reason", "")), str(reference.get("clarify", ""))]
        wrong += [f"row {row.id}: «{pair}»" for text in texts for pair in disagreements(text)]
    return Check("numerals_agree", not wrong, first_failures(wrong) or "every number agrees with its noun")


def check_spelling(rows: list[Row]) -> Check:
    """Every question in Russian without unintended typos: each word known to the dictionary, a
    word of the trade, or a listed deliberate typo of the hurried speaker (`spelling.py`)."""
    from merabench.tasks.gorillahard.generator.wording.spelling import deliberate, misspelt

    wrong, typos = [], 0
    for row in rows:
        wrong += [f"row {row.id}: «{word}»" for word in misspelt(row.inputs["question"])]
        typos += len(deliberate(row.inputs["question"]))
    return Check("spelling", not wrong, first_failures(wrong) or
                 f"every word of every question known; {typos} deliberate typos of the hurried speaker")


# Russian a reader trips over (what an outside reader of seed 777 found), by what it looks like
AWKWARD = (
    # a quoted label in the nominative right after a preposition: "по «влажность»" wants "по столбцу «влажность»"
    (re.compile(r"(?<!\w)(?:по|для|у|от|до|о|об)\s+«", re.IGNORECASE), "a quoted label right after a preposition"),
    (re.compile(r"[.!?]\)[.!?]|(?<![.])[.!?]\.(?![.])"), "doubled punctuation"),
    # a request to set a value to what it already is
    (re.compile(r"сколько\s+(?:там\s+)?(?:указано|записано|стоит)\s+сейчас", re.IGNORECASE), "a request that changes nothing"),
    # a lead-in and a request each saying "пожалуйста" (seed 4242, row 705)
    (re.compile(r"(?<!\w)(пожалуйста|спасибо|прошу|благодарю)(?!\w).*(?<!\w)\1(?!\w)", re.IGNORECASE | re.DOTALL),
     "a politeness word twice"),
    # a date is earlier, not older: "дата обновления старше" wants "раньше" (seed 4242, row 486)
    (re.compile(r"(?<!\w)дат[аыуе]\s+(?:\w+\s+){0,2}(?:старше|моложе)(?!\w)", re.IGNORECASE), "a date said to be older"),
    # a version "старше" reads as the newer one as often as the older (seed 4242, row 343)
    (re.compile(r"(?<!\w)верси[яиюей]\w*\s+(?:\w+\s+){0,2}(?:старше|моложе)(?!\w)", re.IGNORECASE), "a version said to be older"),
    # the scope of a count between the servers and their filter: "серверов в любом статусе команды
    # data" wants "серверов команды data в любом статусе" (seed 4242, row 525)
    (re.compile(r"в любом статусе,?\s+(?:команды|в дата-центре|на)\s", re.IGNORECASE), "a status before the filter it scopes"),
)
# "the attached log" in the singular where two files are attached
_SINGLE_ATTACHED = re.compile(r"(?<!\w)приложенн(?:ый|ого|ой|ую|ом|ая|ое|ому)(?!\w)", re.IGNORECASE)


def check_phrasing(rows: list[Row]) -> Check:
    """Questions a careful reader does not trip over: no case left in the nominative after a
    preposition, no doubled stop, no request that changes nothing, no politeness word said twice,
    no date or version older than another, no count's scope cut off from its servers, no "the attached
    file" in the singular over two attached files, and one form of address ("Здравствуйте. Проверь"
    and "Коллеги, … покажи" mix "вы" and "ты")."""
    from merabench.tasks.gorillahard.generator.wording.address import forms

    awkward = []
    for row in rows:
        question = row.inputs["question"]
        if len(forms(question)) > 1:
            awkward.append(f"row {row.id}: «ты» and «вы» in one question («{question[:60]}»)")
        awkward += [f"row {row.id}: {what} («{found.group()}»)" for pattern, what in AWKWARD
                    if (found := pattern.search(question))]
        if len(attached_files(row.inputs["context"])) > 1 and (found := _SINGLE_ATTACHED.search(question)):
            awkward.append(f"row {row.id}: «{found.group()}» in the singular over two attached files")
    return Check("phrasing", not awkward, first_failures(awkward) or
                 "no label after a bare preposition, doubled stop, no-op request, politeness word twice, older date, "
                 "status cut off from its servers, singular over two files or mixed address")
