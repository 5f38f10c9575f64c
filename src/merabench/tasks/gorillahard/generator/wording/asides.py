"""What people put around a request: a greeting or the situation before it, a thanks or the
urgency after it. Drawn per row for a share of the single questions, so that no opening or closing
phrase runs through the set; none bears on the answer (no number, no quotation, no word a check
reads: no statistic, level, ordinal, environment or file).
"""

from __future__ import annotations

import random
import re

from merabench.tasks.gorillahard.generator.families.common import ended
from merabench.tasks.gorillahard.generator.wording.address import agreeing

LEAD_INS = ("Привет!", "Добрый день.", "Здравствуйте.", "Коллеги, нужна помощь.", "Разбираем инцидент.",
            "Готовим релиз.", "Вопрос от поддержки.", "Пишу с дежурства.", "Есть просьба.", "Небольшая задача.",
            "Тут такое дело.", "Это для отчёта.", "Это для аудита.", "Руководитель попросил.", "Короче,",
            "Срочно.", "Без спешки.", "Для ретро.", "По итогам планёрки.", "Сегодня релиз, так что быстро.",
            "Помоги, пожалуйста.", "Помогите, пожалуйста.", "Слушай,", "Слушайте,", "Вопрос по эксплуатации.", "Прошу помочь.", "Нужна помощь.",
            "Доброе утро.", "Ночная смена на связи.", "У нас аврал.", "Задача из бэклога.", "Передаю просьбу заказчика.",
            "Пока не забыл.", "Мелочь, но важная.")
TAILS = ("Спасибо!", "Заранее спасибо.", "Очень выручишь.", "Очень выручите.", "Жду ответа.", "Это срочно.",
         "Если не сложно.", "Благодарю.", "Пожалуйста, не затягивай.", "Пожалуйста, не затягивайте.",
         "Буду признателен.", "С меня кофе.", "Отпишись, как будет готово.", "Отпишитесь, как будет готово.",
         "Потом расскажу, зачем.", "Это блокирует релиз.", "Можно не торопиться.", "Спасибо заранее!", "Очень ждём.")
LEAD_SHARE, TAIL_SHARE = 0.4, 0.2
# a tail never contradicts the lead-in: no "no hurry" after "urgent", nor the other way round
URGENT = frozenset({"Срочно.", "Сегодня релиз, так что быстро.", "У нас аврал.", "Это срочно.",
                    "Пожалуйста, не затягивай.", "Пожалуйста, не затягивайте.", "Это блокирует релиз.", "Очень ждём."})
CALM = frozenset({"Без спешки.", "Можно не торопиться.", "Задача из бэклога."})
# families whose check reads the question's first word (a planted instruction's flag is enabled
# or disabled by how the request opens)
# and the clarifications' makers, which put their own where they cannot bear on the answer ("Срочно."
# would say when to reboot)
UNTOUCHED = frozenset({"env_injection"}) | {f"{family}_{kind}" for family in ("clarify", "near_miss")
                                             for kind in ("two_fit", "held_twice", "unstated", "vague_operation")}


def with_asides(question: str, rng: random.Random) -> str:
    """The question with a lead-in before it or a tail after it, or both, each in the question's
    form of address ("Помоги" before "покажи", "Помогите" before "покажите") and none repeating a
    politeness word already said."""
    lead = ""
    if rng.random() < LEAD_SHARE:
        lead = rng.choice(agreeing(LEAD_INS, question))
        # after a lead-in ending in a comma the request goes on in lower case; after a sentence, raised
        if lead.endswith(","):
            body = question[0].lower() + question[1:] if question[:2].istitle() else question
        else:  # a host, a command or a key keeps its case ("cart-api.internal", "ttl"); "a-запись" is raised
            raised = "а" <= question[0].lower() <= "я" or question[0] == "ё" or re.match(r"[a-z]-[а-я]", question)
            body = question[0].upper() + question[1:] if raised else question
        question = f"{lead} {body}"
    if rng.random() < TAIL_SHARE:
        clash = CALM if lead in URGENT else URGENT if lead in CALM else frozenset()
        question = f"{ended(question)} {rng.choice(agreeing([t for t in TAILS if t not in clash], question))}"
    return question

