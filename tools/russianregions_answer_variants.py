"""Model-like RussianRegions answers for a set of rows: the reference and the ways models phrase it.

Each variant is a (label, answer) pair built from the row's reference (`Б` or `Б; вехотка`):
markers (`Ответ:` once, twice, empty, lower-case), explanations after the answer, typographic
quotes and dashes, markdown, Latin look-alike letters, a missing language unit, a wrong letter,
think blocks, empty answers.

    python tools/russianregions_answer_variants.py --out cases.jsonl     # every variant of every bundled row

writes `{"id", "label", "output"}` lines, the input of tests/tasks/russianregions/public_cases.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from merabench.rows.row import Row, read_bundled, read_local  # noqa: E402

LETTERS = "АБВГ"
LATIN = {"А": "A", "В": "B"}


def variants(row: Row) -> Iterator[tuple[str, str]]:
    ref = row.outputs.strip()
    letter, _, unit = (part.strip() for part in ref.partition(";"))
    wrong = next(x for x in LETTERS if x != letter)
    yield "reference", ref
    yield "marker", f"Ответ: {ref}"
    yield "marker_no_space", f"Ответ:{ref}"
    yield "marker_lower", f"ответ: {ref}"
    yield "explanation_after", f"{ref}\nПотому что это слово встречается в этом регионе."
    yield "marker_then_explanation", f"Ответ: {ref}\nПояснение: так говорят местные."
    yield "reasoning_then_marker", f"Рассмотрим варианты. Вариант {wrong} не подходит.\nОтвет: {ref}"
    yield "two_markers", f"Ответ: {wrong}\nНет, подумав ещё раз. Ответ: {ref}"
    yield "empty_tail", f"{ref} Ответ:"
    yield "lower_case", ref.lower()
    yield "upper_case", ref.upper()
    yield "guillemets", f"«{ref}»"
    yield "ascii_quotes", f'"{ref}"'
    yield "markdown_bold", f"**{ref}**"
    yield "leading_space", f"\n\n  {ref}"
    yield "trailing_period", f"{ref}."
    yield "letter_paren", f"{letter}) {unit}".strip()
    yield "wrong_letter", ref.replace(letter, wrong, 1)
    yield "english_article", f"The {ref}"
    yield "think_block", f"<think>Думаю, что {wrong}.</think>\nОтвет: {ref}"
    # think blocks are scored as text on the leaderboard (the harness's filter keeps them)
    yield "think_closed_bare", f"<think>Похоже на {wrong}.</think>\n{ref}"
    yield "think_unclosed_after", f"Ответ: {ref}<think>"
    yield "think_unclosed_trace", f"<think>Сравню варианты: {wrong} или {letter}"
    yield "think_upper_case", f"<THINK>Проверю каждый текст.</THINK>\nОтвет: {ref}"
    yield "think_answer_inside", f"<think>Ответ: {ref}</think>"
    yield "think_answer_inside_then_wrong", f"<think>Ответ: {ref}</think>\nОтвет: {wrong}"
    yield "think_stray_close", f"</think>\n\nОтвет: {ref}"
    yield "think_leading_space", f"\n <think>\nВспомню, где так говорят.\n</think>\n\nОтвет: {ref}"
    yield "think_two_blocks", f"<think>а</think><think>б</think>Ответ: {ref}"
    yield "empty", ""
    yield "whitespace", "  \n "
    if letter in LATIN:
        yield "latin_letter", ref.replace(letter, LATIN[letter], 1)
    if unit:
        yield "letter_only", letter
        yield "no_space_after_semicolon", f"{letter};{unit}"
        yield "em_dash_instead_of_semicolon", f"{letter} — {unit}"
        yield "comma_instead_of_semicolon", f"{letter}, {unit}"
        yield "unit_only", unit
        yield "yo_swapped", ref.replace("е", "ё", 1) if "е" in unit else ref.replace("ё", "е", 1)
        yield "unit_capitalised", f"{letter}; {unit[:1].upper()}{unit[1:]}"
        yield "wrong_unit", f"{letter}; слово"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="bundled", help="bundled, or a file/folder of RussianRegions rows")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    splits = read_bundled("russianregions") if args.data == "bundled" else read_local(Path(args.data))
    lines = []
    for row in splits["test"]:
        seen: set[str] = set()
        for label, answer in variants(row):
            if answer not in seen:
                seen.add(answer)
                lines.append({"id": row.id, "label": label, "output": answer})
    args.out.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    print(f"wrote {len(lines)} answers to {args.out}")


if __name__ == "__main__":
    main()
