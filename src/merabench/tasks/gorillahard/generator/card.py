"""The card's figures: what a set of the card's size holds exactly and the variety it must reach.
The generator plans by them and the checks hold a written set to them, so they live here, apart
from both."""

from __future__ import annotations

from merabench.tasks.gorillahard.generator.wording.prompts import CARD_WORDING_SPLIT

CARD_ROWS, CARD_DIALOGUES = 1169, 30  # a set of the card's size is held to its exact figures

# the card's composition, which a default-size set must have exactly
CARD = {"difficulty": {"T1_medium": 16, "T2_hard": 56, "T3_expert": 329, "T4_wild": 768},
        "answer_kind": {"tool_call": 782, "plan": 51, "calls": 199, "clarify": 10, "abstain": 127}}
CARD_SPECIALS = {"near_miss": 109, "cost_pick": 6, "injection": 6}
CARD_WORDINGS = dict(enumerate(CARD_WORDING_SPLIT))  # evaluated rows per instruction wording

CARD_MEDIAN_CHARS = (17_500, 19_500)  # around the card's median of 18.5k

# what a publishable card-size set must reach (issue: variety and no shortcut)
VARIETY_GOALS = {"templates": 900, "top_template_share": 0.015, "distinct_pairs": 1050, "answer_tools": 120,
                 "top_tool_share": 0.04}
