"""Multi-turn dialogues: 2-5 turns over one file, where every turn after the first names only
what changes and takes the rest from the conversation (the operation, the column, the pattern).

Each turn's reference is the state after it; the evaluated turn is the last, and it never states
its whole answer: a statistic's column, a count's pattern or a cancelled operation's column is
named only in an earlier turn (`needs_history`: args), or the operation is (tool). The
validator replays each dialogue turn by turn from the questions alone (`checks/dialogues.py`'s `dialog_check`)
and checks that the last turn's reference takes a value from the history (`history_needed`).
"""

from __future__ import annotations

import random
from dataclasses import replace

from merabench.tasks.gorillahard.generator.corpus import Corpus
from merabench.tasks.gorillahard.generator.families import formats
from merabench.tasks.gorillahard.generator.model import File, Question, call

KINDS = ("stat_chain", "grep_chain", "trap_switch")
MAX_TURNS = 5  # the card's history ceiling is 8 earlier turns

# a statistic in the accusative for an opening request, and how a later turn asks for it alone
STAT_NAMES = {"mean": "среднее значение", "median": "медиану", "max": "максимум", "min": "минимум"}
STAT_TWINS = {"mean": "table.median", "median": "table.mean", "max": "table.min", "min": "table.max"}
OPENINGS = ("Посчитай {stat} по столбцу «{column}».", "Нужно посчитать {stat} в колонке «{column}» этой таблицы.",
            "Посчитайте, пожалуйста, {stat} столбца «{column}».", "дай {stat} по колонке «{column}»")
# another statistic over the column already in play (the column only in the history)
STAT_MOVES = {
    "median": ("А теперь то же самое, только медиану.", "теперь медиану", "А медиана какая?"),
    "max": ("А максимум?", "Теперь найди самое большое значение.", "а какой там максимум?"),
    "min": ("А минимум какой?", "Покажи ещё наименьшее значение, пожалуйста.", "теперь минимум"),
    "mean": ("А среднее?", "Теперь посчитай среднее значение.", "а в среднем сколько?"),
}
# the same statistic over another column (the statistic only in the history)
COLUMN_MOVES = ("А по столбцу «{column}»?", "Теперь то же для колонки «{column}».", "И ещё по столбцу «{column}», пожалуйста.",
                "а для столбца «{column}»?")
# the operation cancelled, the column kept: (tool, twin, phrasings)
TRAP_CLOSINGS = (
    ("table.unique", "table.group_count", ("Ладно, это не важно — какие вообще значения бывают в этом столбце?",
                                           "Забудь про расчёты: просто покажи значения этого столбца без повторов.")),
    ("table.sort", "table.unique", ("Вместо этого отсортируй таблицу по этому же столбцу.",
                                    "Не надо считать — лучше отсортируй таблицу по тому же столбцу.")),
)
# the operation cancelled, and the column of the dialogue's first request taken up again (the turns
# between moved to another column): the column only in the first turn
BACK_CLOSINGS = {
    "table.unique": ("Ладно, это не важно — какие вообще значения бывают в столбце из моего первого вопроса?",
                     "Забудь про расчёты: просто покажи без повторов значения того столбца, с которого мы начали."),
    "table.sort": ("Вместо этого отсортируй таблицу по тому столбцу, с которого мы начали.",
                   "Не надо считать — отсортируй лучше таблицу по столбцу из моего первого вопроса."),
}
LEVELS = ("ERROR", "WARN", "DEBUG")
GREP_OPENINGS = ("Найди в журнале строки с {level}.", "Покажи строки журнала с {level}.", "вытащи из лога все {level}")
GREP_MOVES = ("А с {level}?", "Теперь строки с {level}.", "а {level} там есть? покажи")
COUNT_CLOSINGS = ("Сколько их там?", "а сколько таких строк?", "Посчитай, сколько их всего, пожалуйста.")
# the count of the level the dialogue opened with (later turns asked for others)
FIRST_COUNT_CLOSINGS = ("А сколько строк с тем уровнем, о котором я спросил первым?",
                        "Посчитай, сколько было строк того уровня, с которого мы начали.")


def _turn(base: Question, question: str, reference: dict, twin: str, first: bool) -> Question:
    return replace(base, family="dialog_first" if first else base.family, question=question, reference=reference,
                   twin=twin)


def _stat_turns(rng: random.Random, corpus: Corpus, turns: int, trap: bool) -> tuple[list[Question], list[str]]:
    table = rng.choice([f for f in corpus.by_kind["table"] if len(f.facts["numeric"]) >= 2])
    path, columns = table.file.path, table.facts["numeric"]
    stat, column = rng.choice(sorted(STAT_NAMES)), rng.choice(columns)
    base = Question("dialog_trap" if trap else "dialog_chain", "dialog", "T4_wild", "", (table.file,), {}, "")
    out = [_turn(base, rng.choice(OPENINGS).format(stat=STAT_NAMES[stat], column=column.description),
                 call(f"table.{stat}", path=path, column=column.name), STAT_TWINS[stat], True)]
    seen, needs = {(stat, column.name)}, [""]
    for _ in range(turns - 1 - trap):
        options = [("stat", s, column) for s in STAT_NAMES if (s, column.name) not in seen]
        options += [("column", stat, c) for c in columns if (stat, c.name) not in seen]
        move, stat, column = rng.choice(options)
        seen.add((stat, column.name))
        question = (rng.choice(STAT_MOVES[stat]) if move == "stat"
                    else rng.choice(COLUMN_MOVES).format(column=column.description))
        needs.append("args" if move == "stat" else "tool")
        out.append(_turn(base, question, call(f"table.{stat}", path=path, column=column.name), STAT_TWINS[stat], False))
    if trap:
        tool, twin, phrasings = rng.choice(TRAP_CLOSINGS)
        first = out[0].reference["args"]["column"]
        if first != column.name and rng.random() < 0.5:  # back to the column the dialogue opened with
            out.append(_turn(base, rng.choice(BACK_CLOSINGS[tool]), call(tool, path=path, column=first), twin, False))
        else:
            out.append(_turn(base, rng.choice(phrasings), call(tool, path=path, column=column.name), twin, False))
        needs.append("trap,args")
    return out, needs


def _grep_turns(rng: random.Random, corpus: Corpus, turns: int) -> tuple[list[Question], list[str]]:
    # a log whose every level's word is on its records' lines only (no DEBUG record quoting "WARN"):
    # the grep and the count by the bare word are the level's records however a reader matches them
    log: File = rng.choice([f for f in corpus.by_kind["app_log"] if formats.level_word_exact(f.file.text, "ERROR")
                            and all(formats.level_word_exact(f.file.text, level) for level in LEVELS
                                    if formats.level_count(f.file.text, level))]).file
    present = [level for level in LEVELS if formats.level_count(log.text, level)]
    level = rng.choice(present)
    base = Question("dialog_chain", "dialog", "T4_wild", "", (log,), {}, "")
    out = [_turn(base, rng.choice(GREP_OPENINGS).format(level=level), call("logs.grep", path=log.path, pattern=level),
                 "logs.count", True)]
    used = {level}
    for _ in range(min(turns, len(present) + 1) - 2):
        level = rng.choice([lv for lv in present if lv not in used])
        used.add(level)
        out.append(_turn(base, rng.choice(GREP_MOVES).format(level=level),
                         call("logs.grep", path=log.path, pattern=level), "logs.count", False))
    opened = out[0].reference["args"]["pattern"]
    if opened != level and rng.random() < 0.5:  # the count of the level asked first, not the last
        closing, level = rng.choice(FIRST_COUNT_CLOSINGS), opened
    else:
        closing = rng.choice(COUNT_CLOSINGS)
    out.append(_turn(base, closing, call("logs.count", path=log.path, pattern=level), "logs.grep", False))
    return out, ["", *("tool" for _ in out[1:-1]), "args"]


def dialogue(kind: str, rng: random.Random, corpus: Corpus) -> tuple[list[Question], list[str]]:
    """The turns of a dialogue (2-5, the last evaluated) and each turn's needs_history."""
    turns = rng.randint(2, MAX_TURNS)
    if kind == "grep_chain":
        return _grep_turns(rng, corpus, turns)
    return _stat_turns(rng, corpus, turns, trap=kind == "trap_switch")
