"""Writes src/merabench/data/russianregions/test.jsonl: merabench's own RussianRegions sample set.

Twelve regionalisms, each asked three ways (task types 1, 2, 3) under one group_id; five prompt
variants per task type, each used at least twice. Deterministic: rerun it after editing the
word list. `python tools/build_bundled_russianregions.py`
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "merabench" / "data" / "russianregions" / "test.jsonl"
LETTERS = ("А", "Б", "В", "Г")


@dataclass(frozen=True)
class Regionalism:
    word: str          # dictionary form, as the answers of types 2 and 3 give it
    region: str        # region label for type 3
    area: str          # a coarse area: type 3 distractors come from other areas
    meaning: str       # the codified word (lang_unit)
    example: str       # a sentence with the codified word (type 2 example_text)
    use: str           # a sentence using the regionalism rightly, in its dictionary form
    use_type1: str     # another right use, for type 1
    misuse: str        # a sentence using it in a meaning it does not have


WORDS = [
    Regionalism("поребрик", "Санкт-Петербург", "spb", "бордюр",
                "Не наступай на бордюр, он скользкий после дождя.",
                "Он присел на поребрик, чтобы завязать шнурок.",
                "Машина заехала колесом на поребрик, и на диске осталась царапина.",
                "Бабушка испекла поребрик с творогом и позвала всех к столу."),
    Regionalism("парадная", "Санкт-Петербург", "spb", "подъезд",
                "Мы договорились встретиться у подъезда в семь вечера.",
                "Парадная нашего дома недавно отремонтирована, и там стало светло.",
                "Соседи снова оставили велосипеды в парадной, и пройти к лифту было трудно.",
                "Он налил в парадную горячего чаю и сел у окна."),
    Regionalism("шаверма", "Санкт-Петербург", "spb", "шаурма",
                "После концерта мы съели по шаурме у метро.",
                "Шаверма из ларька у метро оказалась на удивление вкусной.",
                "После прогулки по Невскому мы купили шаверму и съели её на набережной.",
                "Шаверма громко залаяла на почтальона и спряталась в будку."),
    Regionalism("вехотка", "Урал и Сибирь", "ural", "мочалка",
                "Возьми в баню мыло и мочалку.",
                "Новая вехотка висит в бане на гвозде.",
                "После бани он долго тёр спину жёсткой вехоткой.",
                "Вехотка взлетела над полем и скрылась за лесом."),
    Regionalism("гача", "Урал", "ural", "штанина",
                "Штанина намокла, пока он переходил ручей.",
                "Левая гача у джинсов порвалась о гвоздь.",
                "Пока он шёл по росе, гачи у брюк промокли до колен.",
                "Гача сварилась за полчаса, и мы сели ужинать."),
    Regionalism("бадлон", "Урал", "ural", "водолазка",
                "Под пиджак она надела чёрную водолазку.",
                "Тёплый бадлон под горло спасал его всю зиму.",
                "Под пиджак она надела чёрный бадлон с высоким горлом.",
                "Бадлон разлился по полу, и пришлось вытирать его тряпкой."),
    Regionalism("мультифора", "Сибирь", "ural", "файл (прозрачная папка для бумаг)",
                "Положи справку в прозрачный файл, чтобы она не помялась.",
                "Мультифора с документами лежит в верхнем ящике стола.",
                "Сложи все справки в мультифору, иначе они помнутся в сумке.",
                "Мультифора выросла под окном и зацвела к июлю."),
    Regionalism("жердела", "Юг России (Дон, Кубань)", "south", "абрикос",
                "Абрикос у забора в этом году дал много плодов.",
                "Жердела у забора в этом году дала много плодов.",
                "Бабушка сварила варенье из жердел, собранных в саду.",
                "Жерделы залаяли на прохожих, и те перешли на другую сторону улицы."),
    Regionalism("бурак", "Юг России (Дон, Кубань)", "south", "свёкла",
                "Для борща мама натёрла свёклу и морковь.",
                "Бурак для винегрета нужно сварить заранее.",
                "Для борща мама натёрла бурак и морковь.",
                "Бурак завёл мотор и уехал в город."),
    Regionalism("чилим", "Дальний Восток", "east", "креветка",
                "На ужин мы сварили креветки с укропом.",
                "Варёный чилим — любимая закуска рыбаков во Владивостоке.",
                "На рынке во Владивостоке мы купили килограмм чилимов к ужину.",
                "Чилим постучал в дверь и попросил воды."),
    Regionalism("япошка", "Дальний Восток", "east", "японский автомобиль",
                "Он продал старый японский автомобиль и купил новый седан.",
                "Во дворе у каждого соседа стоит праворульная япошка.",
                "Он продал старую япошку с правым рулём и купил новый седан.",
                "Япошку посадили в горшок и поставили на подоконник."),
    Regionalism("кукса", "Дальний Восток", "east", "корейская холодная лапша",
                "В жару нет ничего лучше холодной корейской лапши.",
                "Холодная кукса с огурцом и яйцом — лучший обед в жару.",
                "В жару во Владивостоке нет ничего лучше тарелки холодной куксы.",
                "Кукса надела пальто и вышла на улицу."),
]

ANSWER_LINE = "В ответе напишите только одну строку, начинающуюся с «Ответ:»."
UNIT_TAIL = ("После буквы поставьте точку с запятой и напишите региональное слово из выбранного текста "
             "в начальной форме.")

TEMPLATE_1A = ("{introduction}\n\nЗадача:\n{task_formulation}\n\nФормат ответа:\n{format_description}\n\n"
               "Варианты ответа:\nА. {option_a}\nБ. {option_b}\nВ. {option_c}\nГ. {option_d}")
TEMPLATE_1B = ("{introduction}\n\nА. {option_a}\nБ. {option_b}\nВ. {option_c}\nГ. {option_d}\n\n"
               "{task_formulation}\n{format_description}")
TEMPLATE_2A = ("{introduction}\n\nЗадача:\n{task_formulation}\n\nОбразец: {example_text}\nСлово: {lang_unit}\n\n"
               "Формат ответа:\n{format_description}\n\nВарианты ответа:\nА. {option_a}\nБ. {option_b}\n"
               "В. {option_c}\nГ. {option_d}")
TEMPLATE_2B = ("{introduction}\n\nСлово «{lang_unit}» в образце: {example_text}\n\n{task_formulation}\n\n"
               "А. {option_a}\nБ. {option_b}\nВ. {option_c}\nГ. {option_d}\n\n{format_description}")
TEMPLATE_3A = ("{introduction}\n\nЗадача:\n{task_formulation}\n\nРегион: {region}\nЗначение: {lang_unit}\n\n"
               "Формат ответа:\n{format_description}\n\nВарианты ответа:\nА. {option_a}\nБ. {option_b}\n"
               "В. {option_c}\nГ. {option_d}")
TEMPLATE_3B = ("{introduction}\n\nРегион — {region}; нужное значение — «{lang_unit}».\n{task_formulation}\n\n"
               "А. {option_a}\nБ. {option_b}\nВ. {option_c}\nГ. {option_d}\n\n{format_description}")

# (instruction, introduction, task_formulation, format_description): five per task type
VARIANTS = {
    1: [
        (TEMPLATE_1A, "Прочитайте тексты внимательно.", "Выберите текст, в котором нет смысловых ошибок.",
         f"{ANSWER_LINE} После двоеточия укажите заглавную букву (А, Б, В или Г) выбранного текста."),
        (TEMPLATE_1A, "Интересно, сможете ли вы найти корректный текст?",
         "Определите, какой текст не содержит смысловых искажений.",
         f"{ANSWER_LINE} После двоеточия — только одна заглавная русская буква: А, Б, В или Г."),
        (TEMPLATE_1B, "В этих текстах встречаются слова, которые говорят не во всех регионах России.",
         "Только в одном тексте все слова употреблены в своём значении. Какой это текст?",
         f"{ANSWER_LINE} Укажите после двоеточия букву текста (А, Б, В или Г) и ничего больше."),
        (TEMPLATE_1B, "Перед вами четыре коротких текста.",
         "Укажите текст, который понятен и логичен от начала до конца.",
         f"{ANSWER_LINE} После двоеточия напишите одну заглавную букву из набора А, Б, В, Г."),
        (TEMPLATE_1A, "Проверим, насколько хорошо вы знаете региональные слова.",
         "Выберите единственный текст, где слова употреблены без ошибок в значении.",
         f"{ANSWER_LINE} После двоеточия укажите заглавную букву правильного варианта: А, Б, В или Г."),
    ],
    2: [
        (TEMPLATE_2A, "Прочитайте тексты внимательно.",
         "Найдите текст с региональным словом, которое значит то же, что указанное слово в образце.",
         f"{ANSWER_LINE} После двоеточия укажите заглавную букву текста (А, Б, В или Г). {UNIT_TAIL}"),
        (TEMPLATE_2A, "В русском языке у многих слов есть региональные синонимы.",
         "Выберите текст, в котором региональное слово можно заменить указанным словом без потери смысла.",
         f"{ANSWER_LINE} После двоеточия — буква варианта (А, Б, В или Г). {UNIT_TAIL}"),
        (TEMPLATE_2B, "Одно и то же в разных городах называют по-разному.",
         "В каком тексте есть региональный синоним этого слова?",
         f"{ANSWER_LINE} Сначала заглавная буква текста (А, Б, В или Г). {UNIT_TAIL}"),
        (TEMPLATE_2B, "Проверим, узнаёте ли вы региональные синонимы.",
         "Укажите текст, где употреблено региональное слово с тем же значением.",
         f"{ANSWER_LINE} После двоеточия укажите букву выбранного текста: А, Б, В или Г. {UNIT_TAIL}"),
        (TEMPLATE_2A, "Сможете ли вы найти синоним?",
         "Выберите текст, в котором региональное слово обозначает то же, что слово из образца.",
         f"{ANSWER_LINE} После двоеточия — одна заглавная буква (А, Б, В, Г). {UNIT_TAIL}"),
    ],
    3: [
        (TEMPLATE_3A, "Речь в разных краях России звучит по-разному.",
         "Выберите текст, в котором есть слово с указанным значением, характерное для указанного региона.",
         f"{ANSWER_LINE} После двоеточия укажите заглавную букву текста (А, Б, В или Г). {UNIT_TAIL}"),
        (TEMPLATE_3A, "Прочитайте тексты внимательно.",
         "Определите, в каком тексте употреблено региональное слово из этого региона в этом значении.",
         f"{ANSWER_LINE} После двоеточия — буква варианта (А, Б, В или Г). {UNIT_TAIL}"),
        (TEMPLATE_3B, "Проверим ваше знание региональной лексики.",
         "В каком тексте есть такое слово?",
         f"{ANSWER_LINE} Сначала заглавная буква текста (А, Б, В или Г). {UNIT_TAIL}"),
        (TEMPLATE_3B, "Путешественники часто слышат незнакомые слова.",
         "Найдите текст со словом, которое услышишь в этом регионе.",
         f"{ANSWER_LINE} После двоеточия укажите букву выбранного текста: А, Б, В или Г. {UNIT_TAIL}"),
        (TEMPLATE_3A, "Узнаете ли вы слово по региону и значению?",
         "Выберите текст, где встречается региональное слово с указанным значением.",
         f"{ANSWER_LINE} После двоеточия — одна заглавная буква (А, Б, В, Г). {UNIT_TAIL}"),
    ],
}


def options_with_answer(rng: random.Random, right: str, wrong: list[str], position: int) -> dict[str, str]:
    texts = list(wrong)
    rng.shuffle(texts)
    texts.insert(position, right)
    return {f"option_{k}": t for k, t in zip("abcd", texts, strict=True)}


def build() -> list[dict]:
    rng = random.Random(2026)
    rows = []
    positions = [i % 4 for i in range(len(WORDS) * 3)]
    rng.shuffle(positions)
    for group_id, w in enumerate(WORDS):
        others = [o for o in WORDS if o is not w]
        for task_type in (1, 2, 3):
            row_index = len(rows)
            instruction, intro, formulation, fmt = VARIANTS[task_type][row_index % 5]
            position = positions[row_index]
            inputs = {"introduction": intro, "task_formulation": formulation, "format_description": fmt}
            if task_type == 1:
                wrong = [o.misuse for o in rng.sample(others, 3)]
                inputs.update(options_with_answer(rng, w.use_type1, wrong, position))
                outputs = LETTERS[position]
            elif task_type == 2:
                wrong = [o.use for o in rng.sample([o for o in others if o.meaning != w.meaning], 3)]
                inputs.update({"lang_unit": w.meaning, "example_text": w.example})
                inputs.update(options_with_answer(rng, w.use, wrong, position))
                outputs = f"{LETTERS[position]}; {w.word}"
            else:
                wrong = [o.use for o in rng.sample([o for o in others if o.area != w.area], 3)]
                inputs.update({"lang_unit": w.meaning, "region": w.region})
                inputs.update(options_with_answer(rng, w.use, wrong, position))
                outputs = f"{LETTERS[position]}; {w.word}"
            rows.append({"instruction": instruction, "inputs": inputs, "outputs": outputs,
                         "meta": {"id": row_index, "group_id": group_id, "task_type": task_type}})
    return rows


if __name__ == "__main__":
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in build()), encoding="utf-8")
    print(f"wrote {OUT}")
