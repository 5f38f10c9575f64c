"""RussianRegions answers with judge replies, for the judge's differential table.

Each label is one simulated run: an answer to every row of the set and, per answer, the replies
the judge gives to its readings in the order the harness asks them (the whole answer, then the
text after the last `Ответ:`). A reply is text (with or without a number) or null: the call failed
after its retries. Two kinds of labels:

- designed (`judge_*`): one behaviour each - replies without a number on one or every reading,
  several readings, clamped and decimal scores, think blocks (closed, unclosed, upper case, the
  answer inside the block), an empty answer, failed calls;
- fresh (`fresh_<n>`, `--fresh N --seed S`): realistic mixtures drawn at random - reasoning
  models' think blocks and chatty answers, judges that reason before their score or forget it.

    python tools/russianregions_judged_answers.py --out judged.jsonl --fresh 10 --seed 1

writes `{"id", "label", "output", "judge_plan"}` lines, the input of
tests/tasks/russianregions/public_judge_cases.json (its expected values come from running the
public harness's code on them, outside this repository).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from merabench.rows.row import Row, read_bundled, read_local  # noqa: E402

LETTERS = "АБВГ"
Plan = list  # replies in the order the readings are asked; None: the call failed

WITH_NUMBER = ["Оценка: 2", "2", "**Оценка: 1**", "Ответ модели частично верен.\nОценка: 1", "0",
               "Ответ неверный. Оценка: 0", "Итоговая оценка — 2 балла.", "Оценка 2/2", "1.5",
               "Ответ совпадает с эталоном (вариант 2 из 4). Оценка: 2", "Сначала поставил бы 0, но итог: 1"]
WITHOUT_NUMBER = ["Ответ модели совпадает с эталоном.", "Не могу оценить этот ответ.", "", "Оценка: два",
                  "Верно", "Ответ не соответствует формату задания."]


def parts(row: Row) -> tuple[str, str, str]:
    ref = row.outputs.strip()
    letter = ref.partition(";")[0].strip()
    return ref, letter, next(x for x in LETTERS if x != letter)


def designed(row: Row, n: int) -> Iterator[tuple[str, str, Plan]]:
    ref, letter, wrong = parts(row)
    yield "judge_all_right", f"Ответ: {ref}", ["Оценка: 2", "Оценка: 2"]
    yield "judge_no_number_first", f"Ответ: {ref}", ["Не могу оценить этот ответ.", "1"]
    yield "judge_no_number_all", f"Ответ: {ref}", ["Ответ верный.", "Согласен с эталоном."]
    yield "judge_single_reading_no_number", ref, ["Оценка отсутствует"]
    yield "judge_clamped", ref, ["Балл: 3"]
    yield "judge_decimal", f"Ответ: {ref}", ["Сначала 0, итог 1.5", "0.5"]
    cycle = [["2", "Нет числа"], ["Нет числа", "0"], ["", ""], ["1", "1"], ["Оценка: 2", "Оценка: 0"]]
    yield "judge_mixed_by_row", f"Рассуждаю.\nОтвет: {ref if n % 2 else wrong}", cycle[n % len(cycle)]
    yield "judge_think_closed", f"<think>Ответ: {wrong}</think>\nОтвет: {ref}", ["0", "2"]
    yield "judge_think_unclosed", f"Ответ: {ref}<think>думаю", ["1", "Ответ неверен."]
    yield "judge_think_upper", f"<THINK>Проверю.</THINK>{ref}", ["2"]
    yield "judge_think_answer_inside", f"<think>Ответ: {letter}</think>", ["1", "Оценка: 2"]
    yield "judge_empty_answer", "", ["Ответ отсутствует: 0"]
    failed = [["2", None], [None, "1"], [None, None], ["1", "2"]]
    yield "judge_failed_calls", f"Ответ: {ref}", failed[n % len(failed)]


def think(rng: random.Random, wrong: str) -> str:
    trace = rng.choice([f"Сравню тексты. Вариант {wrong} звучит странно.", "Вспомню, где так говорят.",
                        f"Ответ: {wrong}? Нет, перепроверю.", "Слово встречается на Урале и в Сибири."])
    style = rng.random()
    if style < 0.45:
        return f"<think>\n{trace}\n</think>\n\n"
    if style < 0.6:
        return f"<THINK>{trace}</THINK>\n"
    if style < 0.75:
        return f"<think>{trace}"  # cut by the token limit: everything after is the trace
    return f"<Think>{trace}</Think> "


def fresh_answer(row: Row, rng: random.Random) -> str:
    ref, letter, wrong = parts(row)
    unit = ref.partition(";")[2].strip()
    right = rng.random() < 0.6
    chosen = ref if right else ref.replace(letter, wrong, 1)
    body = rng.choice([f"Ответ: {chosen}", chosen, f"**Ответ: {chosen}**", f"Ответ: {chosen}\nПояснение: так говорят.",
                       f"Во втором тексте слово употреблено верно.\nОтвет: {chosen}", f"Ответ:{chosen}",
                       f"ответ: {chosen}", f"Ответ: «{chosen}»", f"{letter if right else wrong}) {unit}".strip(),
                       f"Ответ: {letter if right else wrong}"])
    prefix = think(rng, wrong) if rng.random() < 0.5 else rng.choice(["", "", " ", "\n"])
    answer = prefix + body
    if prefix.startswith("<think>") and "</think>" not in prefix and rng.random() < 0.5:
        answer = prefix  # the trace never ended: no answer at all
    return answer


def fresh_plan(rng: random.Random) -> Plan:
    return [rng.choice(WITHOUT_NUMBER) if rng.random() < 0.2 else rng.choice(WITH_NUMBER) for _ in range(2)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="bundled", help="bundled, or a file/folder of RussianRegions rows")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--fresh", type=int, default=10, help="fresh simulated runs (each answers every row)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rows = (read_bundled("russianregions") if args.data == "bundled" else read_local(Path(args.data)))["test"]
    lines = [{"id": row.id, "label": label, "output": answer, "judge_plan": plan}
             for n, row in enumerate(rows) for label, answer, plan in designed(row, n)]
    rng = random.Random(args.seed)
    for run in range(args.fresh):
        lines += [{"id": row.id, "label": f"fresh_{run}", "output": fresh_answer(row, rng), "judge_plan": fresh_plan(rng)}
                  for row in rows]
    args.out.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    print(f"wrote {len(lines)} answers to {args.out}")


if __name__ == "__main__":
    main()
