"""Checks that a set cannot be answered without solving it: simple shortcut baselines. (The red-team
solver's figure is measured by benchmarks/gorillahard_redteam.py, outside the package.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from merabench.rows.row import Row
from merabench.tasks.gorillahard.generator.checks.rows import (
    Check,
    card_size,
)

SHORTCUT_LIMIT = 0.10


def check_shortcuts(test: list[Row], manifest: dict[str, Any],
                    nearest: Callable[[], dict[int, str]] | None = None) -> Check:
    """Answering without solving: always refusing must score no more than the share of refusal
    rows; picking the tool whose description shares the question's words (arguments by simple
    patterns), and answering with the reference of the most similar question in the next seed's
    set (a generated set: its manifest names the seed; `nearest` waits for those answers), at
    most SHORTCUT_LIMIT each. The nearest-question limit holds a card-size set: a small set's
    questions have fewer neighbours."""
    from merabench.tasks.gorillahard.generator.checks.audit import shortcut_scores

    misses = []

    def answers() -> dict[int, str] | None:
        try:
            return nearest() if nearest is not None else None
        except (ValueError, RuntimeError, OSError) as exc:  # the next seed's set could not be made
            misses.append(f"the nearest-question check could not make the next seed's set ({exc})")
            return None

    scores = shortcut_scores(test, answers)
    if scores["always_refuse"] > scores["refusal_share"] + 1e-9:
        misses.append(f"always refusing scores {scores['always_refuse']:.3f} > refusal rows {scores['refusal_share']:.3f}")
    if scores["keyword_tool"] > SHORTCUT_LIMIT:
        misses.append(f"the keyword tool shortcut scores {scores['keyword_tool']:.3f} > {SHORTCUT_LIMIT}")
    nearest_score = scores.get("nearest_other_seed")
    if nearest_score is not None and nearest_score > SHORTCUT_LIMIT and card_size(manifest):
        # over 130 seeds of v25 two failed (0.105, 0.108): providers drawn alike by chance
        misses.append(f"the nearest question of seed {manifest['seed'] + 1} scores {nearest_score:.3f} > "
                      f"{SHORTCUT_LIMIT} (about one seed in 65 draws its tools' providers like the next seed's: "
                      "generate the set from another seed)")
    detail = (f"always refuse {scores['always_refuse']:.3f} (refusal rows {scores['refusal_share']:.3f}), "
              f"keyword tool {scores['keyword_tool']:.3f}, nearest question of "
              + (f"seed {manifest['seed'] + 1} {nearest_score:.3f}" if nearest_score is not None
                 else "another seed: not measured" if "seed" in manifest else "another seed: no seed in the manifest"))
    return Check("no_shortcut", not misses, "; ".join(misses) or detail)
