"""SAGE answers with the markup models wrap their corrections in, built from the agreement rows.

Each variant takes a row's answer from one of the agreement runs (the reference, the source, a
partial correction, a noisy one) and wraps or breaks it the way model answers come: think blocks
(closed, unclosed, upper or mixed case, only the closing tag, reasoning that quotes the text),
HTML-like tags (`<b>Текст:</b>`, `<br>` in place of spaces, `<p>`), preambles (`Ответ:`,
`Исправленный текст:`), code fences, and combinations of these.

    python tools/sage_markup_variants.py --data tests/data/sage-agreement --out cases.jsonl
    python tools/sage_markup_variants.py --data DIR --out cases.jsonl --kind think_upper --base gold

The first writes a seeded sample (every kind on many rows and bases); the second one kind on
every row; `--rounding` writes answers meant to score 2/3, 1/3 or 1/7 (F1s the reference rounds). Each line is `{"id", "kind", "base", "source", "reference", "hypothesis"}`: the input
of the reference scorer (shared/peers/sage/score.py) and of tests/tasks/sage/markup_cases.json.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable
from pathlib import Path

BASES = ("gold", "source", "partial", "noisy", "mixed")
GAPS = (" ", "\n", "\n\n")  # what separates a think block from the answer


def reasoning(source: str, rng: random.Random) -> str:
    """What a reasoning model writes before its answer: sometimes it quotes the text itself."""
    words = source.split()
    word = rng.choice(words) if words else "текст"
    return rng.choice([
        "Ищу ошибки",
        "x",
        "Ищу ошибки.",
        f"Пользователь просит исправить текст: «{source}». Проверю орфографию, затем запятые.",
        f"Слово «{word}» написано с ошибкой? Проверю, нужна ли запятая перед «что».",
        f"Исходный текст:\n{source}\n\nИсправляю по порядку, ничего не добавляю.",
        "Okay, let me check the spelling and punctuation — step by step.",
    ])


def think_closed(answer: str, source: str, rng: random.Random) -> str:
    return f"<think>{reasoning(source, rng)}</think>{rng.choice(GAPS)}{answer}"


def think_upper(answer: str, source: str, rng: random.Random) -> str:
    return f"<THINK>{reasoning(source, rng)}</THINK>{rng.choice(GAPS[:2])}{answer}"


def think_mixed_case(answer: str, source: str, rng: random.Random) -> str:
    return f"<Think>{reasoning(source, rng)}</tHiNk>\n{answer}"


def think_unclosed_lead(answer: str, source: str, rng: random.Random) -> str:
    return f"<think>{reasoning(source, rng)}{rng.choice(GAPS[::2])}{answer}"


def think_unclosed_tail(answer: str, source: str, rng: random.Random) -> str:
    return rng.choice([f"{answer}<think>", f"{answer} <think>{reasoning(source, rng)}", f"{answer}\n<THINK>"])


def think_close_only(answer: str, source: str, rng: random.Random) -> str:
    return f"{reasoning(source, rng)}</think>{rng.choice(GAPS[::2])}{answer}"


def think_empty(answer: str, source: str, rng: random.Random) -> str:
    return rng.choice([f"<think></think> {answer}", f"<think>\n\n</think>\n\n{answer}"])


def bold_tag_preamble(answer: str, source: str, rng: random.Random) -> str:
    return rng.choice([f"<b>Текст:</b> {answer}", f"<b>Исправленный текст:</b>\n{answer}", f"<strong>Ответ</strong>: {answer}"])


def tag_around_word(answer: str, source: str, rng: random.Random) -> str:
    words = answer.split(" ")
    if not answer.strip():
        return answer
    i = rng.randrange(len(words))
    tag = rng.choice(["b", "i", "u", "em"])
    words[i] = f"<{tag}>{words[i]}</{tag}>"
    return " ".join(words)


def tag_around_text(answer: str, source: str, rng: random.Random) -> str:
    tag = rng.choice(["p", "b", "div", "span"])
    return f"<{tag}>{answer}</{tag}>"


def br_for_space(answer: str, source: str, rng: random.Random) -> str:
    br = rng.choice(["<br>", "<br/>", "<br />", "<BR>"])
    spaces = [i for i, ch in enumerate(answer) if ch == " "]
    if not spaces:
        return answer + br
    if rng.random() < 0.3:
        return answer.replace(" ", br)
    i = rng.choice(spaces)
    return answer[:i] + br + answer[i + 1:]


def br_added(answer: str, source: str, rng: random.Random) -> str:
    spaces = [i for i, ch in enumerate(answer) if ch == " "]
    i = rng.choice(spaces) if spaces else len(answer)
    return answer[:i] + rng.choice(["<br>", " <br> ", "<br>\n"]) + answer[i:]


def preamble_answer(answer: str, source: str, rng: random.Random) -> str:
    return rng.choice([f"Ответ: {answer}", f"Ответ:\n{answer}", f"**Ответ:** {answer}", f"ОТВЕТ: {answer}"])


def preamble_corrected(answer: str, source: str, rng: random.Random) -> str:
    return rng.choice([f"Исправленный текст:\n{answer}", f"Исправленный текст: {answer}",
                       f"Исправленный текст: «{answer}»", f"Вот исправленный текст:\n\n{answer}"])


def code_fence(answer: str, source: str, rng: random.Random) -> str:
    return rng.choice([f"```\n{answer}\n```", f"```text\n{answer}\n```", f"```{answer}```", f"```\n{answer}"])


def inline_code(answer: str, source: str, rng: random.Random) -> str:
    return f"`{answer}`"


def combo_think_preamble(answer: str, source: str, rng: random.Random) -> str:
    return think_closed(preamble_corrected(answer, source, rng), source, rng)


def combo_think_fence(answer: str, source: str, rng: random.Random) -> str:
    return think_upper(code_fence(answer, source, rng), source, rng)


def combo_tags_br(answer: str, source: str, rng: random.Random) -> str:
    return bold_tag_preamble(br_for_space(answer, source, rng), source, rng)


def combo_all(answer: str, source: str, rng: random.Random) -> str:
    inner = code_fence(preamble_answer(tag_around_word(answer, source, rng), source, rng), source, rng)
    return think_unclosed_lead(inner, source, rng) if rng.random() < 0.5 else think_mixed_case(inner, source, rng)


KINDS: dict[str, Callable[[str, str, random.Random], str]] = {f.__name__: f for f in (
    think_closed, think_upper, think_mixed_case, think_unclosed_lead, think_unclosed_tail, think_close_only,
    think_empty, bold_tag_preamble, tag_around_word, tag_around_text, br_for_space, br_added,
    preamble_answer, preamble_corrected, code_fence, inline_code,
    combo_think_preamble, combo_think_fence, combo_tags_br, combo_all)}


def with_commas(answer: str, count: int, rng: random.Random) -> str:
    """`count` spurious commas after words (each a PUNCT insertion of its own)."""
    words = answer.split(" ")
    slots = [i for i, w in enumerate(words[:-1]) if w[-1:].isalpha()]
    for i in rng.sample(slots, min(count, len(slots))):
        words[i] += ","
    return " ".join(words)


def with_typos(answer: str, count: int, rng: random.Random) -> str:
    """`count` words of five letters or more with two inner letters swapped (SPELL edits)."""
    words = answer.split(" ")
    slots = [i for i, w in enumerate(words) if len(w) >= 5 and w.isalpha() and w[1] != w[2]]
    for i in rng.sample(slots, min(count, len(slots))):
        w = words[i]
        words[i] = w[0] + w[2] + w[1] + w[3:]
    return " ".join(words)


# F1 = 2TP / (2TP + FP + FN): with no missed edit, FP = TP gives 2/3, 4 TP gives 1/3, 12 TP 1/7
ROUNDING_FP = {"2/3": 1, "1/3": 4, "1/7": 12}


def rounding_cases(data: Path, seed: int) -> list[dict]:
    """Answers whose SPELL or PUNCT F1 is 2/3, 1/3 or 1/7 before rounding: the reference with
    spurious commas or typos added, as many as the reference's own edits of that type times the
    ratio, some wrapped in a think block. Candidates only: the reference scorer says what they
    score, and rows that miss the fraction (an added edit merged with another) still test."""
    rows = load_jsonl(data / "rows.jsonl")
    rng = random.Random(seed)
    cases = []
    for row in rows:
        row_id, source, reference = row["meta"]["id"], row["inputs"]["source"], row["outputs"]
        for label, per_edit in ROUNDING_FP.items():
            for kind, add in (("punct", with_commas), ("spell", with_typos)):
                edits = rng.choice([1, 1, 2])
                hypothesis = add(reference, per_edit * edits, rng)
                if rng.random() < 0.3:
                    hypothesis = think_closed(hypothesis, source, rng)
                cases.append({"id": row_id, "kind": f"rounding_{kind}_{label}", "base": "gold", "source": source,
                              "reference": reference, "hypothesis": hypothesis})
    return cases


def load_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def build(data: Path, kinds: list[str], bases: list[str], per_kind: int | None, seed: int) -> list[dict]:
    rows = load_jsonl(data / "rows.jsonl")
    answers = {base: {a["id"]: a["output"] for a in load_jsonl(data / f"answers_{base}.jsonl")} for base in bases}
    rng = random.Random(seed)
    cases = []
    for kind in kinds:
        chosen = rows if per_kind is None else rng.sample(rows, per_kind)
        for row in chosen:
            base = rng.choice(bases)
            row_id, source = row["meta"]["id"], row["inputs"]["source"]
            hypothesis = KINDS[kind](answers[base][row_id], source, rng)
            cases.append({"id": row_id, "kind": kind, "base": base, "source": source,
                          "reference": row["outputs"], "hypothesis": hypothesis})
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a folder like tests/data/sage-agreement")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--kind", choices=sorted(KINDS), help="one kind on every row (default: a sample of all)")
    parser.add_argument("--base", choices=BASES, help="answers of this run only (default: any)")
    parser.add_argument("--per-kind", type=int, default=30, help="rows per kind in the sample")
    parser.add_argument("--rounding", action="store_true",
                        help="candidates whose F1 is 2/3, 1/3 or 1/7 (every row, both types) instead")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    kinds = [args.kind] if args.kind else list(KINDS)
    bases = [args.base] if args.base else list(BASES)
    if args.rounding:
        cases = rounding_cases(args.data, args.seed)
    else:
        cases = build(args.data, kinds, bases, None if args.kind else args.per_kind, args.seed)
    with args.out.open("w", encoding="utf-8") as out:
        for case in cases:
            out.write(json.dumps(case, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
