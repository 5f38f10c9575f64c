"""The per-set surface: a set uses a third of each pool's wordings, the same ones for the same seed."""

from __future__ import annotations

import random

from merabench.tasks.gorillahard.generator.wording import surface

POOL = tuple(f"wording {n}" for n in range(12))


def test_a_set_uses_a_third_of_a_pool_and_the_same_third_for_the_same_seed() -> None:
    surface.begin(23)
    first = surface.share(POOL, "pool")
    assert len(first) == 4 and set(first) <= set(POOL)
    assert surface.share(POOL, "pool") == first
    assert all(surface.choose(random.Random(n), POOL, "pool") in first for n in range(50))


def test_other_seeds_draw_other_wordings() -> None:
    drawn = set()
    for seed in (23, 91, 131, 211):
        surface.begin(seed)
        drawn.add(tuple(surface.share(POOL, "pool")))
    assert len(drawn) > 1


def test_a_small_pool_keeps_two_wordings() -> None:
    surface.begin(5)
    assert len(surface.share(("a", "b", "c"), "small")) == 2
    assert surface.share(("only",), "one") == ["only"]


def test_every_column_request_names_one_statistic_and_the_column_in_one_form_of_address() -> None:
    """The column mechanism's check reads the statistic by its accusative and the column by its
    «quotes»: every wording of the (enlarged) pool must carry both, whatever a set draws."""
    from merabench.tasks.gorillahard.generator.families.common import STATS
    from merabench.tasks.gorillahard.generator.families.refusals import CONCEPTS
    from merabench.tasks.gorillahard.generator.families.tables import COLUMN_ASKS
    from merabench.tasks.gorillahard.generator.wording.address import forms

    assert len(COLUMN_ASKS) >= 21 and len(set(COLUMN_ASKS)) == len(COLUMN_ASKS)
    for concept in CONCEPTS.values():
        assert len(concept.asked) >= 6
        for asked in concept.asked:
            for stat, words in STATS.items():
                for wording in COLUMN_ASKS:
                    question = wording.format(stat=words, column=asked)
                    assert [s for s, w in STATS.items() if w in question] == [stat], question
                    assert f"«{asked}»" in question and len(forms(question)) <= 1, question


def test_a_set_draws_a_third_of_the_column_requests() -> None:
    from merabench.tasks.gorillahard.generator.families.tables import COLUMN_ASKS

    drawn = set()
    for seed in (23, 91, 131, 211):
        surface.begin(seed)
        share = surface.share(COLUMN_ASKS, "column_asks")
        assert len(share) == 7
        drawn.add(tuple(share))
    assert len(drawn) == 4


def test_every_log_window_wording_agrees_and_counts_the_record_it_means() -> None:
    """The window requests of both makers: one form of address, numerals and ordinals agreeing, the
    n-th record said with its ordinal and «по счёту» (what the validator reads), never «последн»."""
    from merabench.tasks.gorillahard.generator.corpus import LOG_EVENTS
    from merabench.tasks.gorillahard.generator.families.logs import (
        LOG_WINDOW_PHRASINGS,
        NTH_PHRASINGS,
        window_question,
    )
    from merabench.tasks.gorillahard.generator.wording.address import forms
    from merabench.tasks.gorillahard.generator.wording.numerals import count, disagreements, ordinal

    assert len(LOG_WINDOW_PHRASINGS) >= 9 and len(NTH_PHRASINGS) >= 9
    for event, (_, name, gender) in LOG_EVENTS.items():
        for phrasing in LOG_WINDOW_PHRASINGS:
            text = window_question(phrasing, 5, event)
            assert not disagreements(text) and len(forms(text)) <= 1 and "последн" not in text, text
        for n, (word, stem) in {2: ("второй", "втор"), 3: ("третий", "трет"), 4: ("четвёртый", "четвёрт")}.items():
            for phrasing in NTH_PHRASINGS:
                text = phrasing.format(lines=count(3, "строка", "accs"), nth=ordinal(word, gender, "gent"), name=name,
                                       pronoun="ней" if gender == "femn" else "ним")
                assert not disagreements(text) and len(forms(text)) <= 1, text
                assert stem in text.lower() and "по счёту" in text and "последн" not in text, (n, text)
