"""The five instruction wordings (same substance, different tone), the format block, and the
card's figures for the prompts: how the evaluated rows split over the wordings, how long a
rendered prompt runs.

Every wording carries the card's seven rules; the format block always describes all five
envelopes, so it never hints at the expected one. The rows' wordings follow `wording_schedule`
(dialogue turns share their dialogue's).
"""

from __future__ import annotations

import random

RULES = ("одного инструмента достаточно, если он решает задачу; значения из файлов считай сам; план — только "
         "если нужного значения нет в контексте, а результат предыдущего шага обозначай \"$1\"; несколько "
         "независимых значений — несколько вызовов; необязательные аргументы — только когда они нужны; если "
         "запрос неоднозначен — переспроси; если ответить невозможно — откажись.")
WORDINGS = [
    "Пожалуйста, помоги выполнить запрос пользователя с помощью инструментов из каталога. Будь добр, "
    "соблюдай правила: " + RULES,
    "Выполни запрос пользователя, используя инструменты из каталога. Обязательные правила: " + RULES,
    "Регламент обработки запроса. Запрос выполняется вызовом инструментов каталога. Применяются правила: "
    + RULES,
    "Ты — агент службы эксплуатации: ты не выполняешь действия сам, а выбираешь вызовы инструментов. "
    "Твои правила: " + RULES,
    "Слушай, тут запрос от коллеги, его надо закрыть инструментами из списка ниже. Правила простые: " + RULES,
]
LAYOUT = "\n\nКонтекст:\n{context}\n\nИнструменты:\n{tools}\n\nФормат ответа:\n{format}\n\nВопрос:\n{question}"
FORMAT = (
    "Ответь ровно одним JSON-объектом в одну строку, без пояснений, без текста вокруг и без блоков кода. "
    "Допустимые виды ответа:\n"
    "- вызов: {\"tool\": \"имя\", \"args\": {...}};\n"
    "- план из зависимых шагов по порядку: {\"plan\": [{\"tool\": ..., \"args\": {...}}, ...]}, где \"$1\" — "
    "результат первого шага;\n"
    "- независимые вызовы, порядок неважен: {\"calls\": [{\"tool\": ..., \"args\": {...}}, ...]};\n"
    "- уточняющий вопрос: {\"clarify\": \"вопрос\"};\n"
    "- отказ: {\"abstain\": true, \"reason\": \"причина\"}."
)


CARD_WORDING_SPLIT = (252, 235, 227, 249, 206)  # the card's evaluated rows per wording, of 1,169
CARD_PROMPT_CHARS = (10_600, 34_200)  # the card's shortest and longest rendered prompt


def wording_schedule(rows: int, rng: random.Random) -> list[int]:
    """A wording for each of `rows` evaluated rows, in the card's proportions (largest
    remainders for other sizes), in an order drawn from rng."""
    total = sum(CARD_WORDING_SPLIT)
    exact = [count * rows / total for count in CARD_WORDING_SPLIT]
    counts = [int(x) for x in exact]
    for index in sorted(range(len(exact)), key=lambda i: exact[i] - counts[i], reverse=True)[: rows - sum(counts)]:
        counts[index] += 1
    schedule = [wording for wording, count in enumerate(counts) for _ in range(count)]
    rng.shuffle(schedule)
    return schedule
