"""Proofs that a generated (or hand-made) GorillaHard set is sound: a line per check.

Structural checks read only the written files. Derived quantities are recomputed by each
family's own checker (independent parsing, see families.py), and every reference answer, in
test and in shots, goes through the real scorer: a set passes only if each scores
sample_pass_rate 1.0 and every dialogue dialog_pass_rate 1.0.

This module runs the checks in their report order; they live in modules named by what they
check (`structure`, `dialogues`, `catalogs`, `files`, `picks`, `composition`, `tiers`,
`wording`, `answers`, `counterfactual`, `shortcuts`, all in `checks/`), over the readers of a written row in `rows`.
"""

from __future__ import annotations

import json
from pathlib import Path

from merabench.errors import reading
from merabench.models.base import SEED_MAX, SEED_MIN
from merabench.rows.row import read_local
from merabench.tasks.gorillahard.generator.build.generate import GENERATOR
from merabench.tasks.gorillahard.generator.checks.answers import check_derivations, check_scorer
from merabench.tasks.gorillahard.generator.checks.catalogs import check_catalogs, check_limits
from merabench.tasks.gorillahard.generator.checks.composition import (
    check_clarify_kinds,
    check_composition,
    check_mechanisms,
    check_prompt_lengths,
    check_refusal_mechanisms,
    check_variety,
)
from merabench.tasks.gorillahard.generator.checks.counterfactual import check_file_needed
from merabench.tasks.gorillahard.generator.checks.dialogues import check_dialogues, check_history_needed
from merabench.tasks.gorillahard.generator.checks.files import (
    check_attachments,
    check_duplicate_keys,
    check_file_layouts,
    check_findings_unsaid,
    check_format_traps,
    check_level_patterns,
    check_paths_unsaid,
)
from merabench.tasks.gorillahard.generator.checks.picks import check_pick_criteria, check_told_apart
from merabench.tasks.gorillahard.generator.checks.rows import (
    Check,
    attached_files,
    card_size,
    parsed_catalog,
)
from merabench.tasks.gorillahard.generator.checks.shortcuts import check_shortcuts
from merabench.tasks.gorillahard.generator.checks.structure import (
    check_duplicate_rows,
    check_ids,
    check_prompts,
    check_unique_prompts,
    check_well_formed,
)
from merabench.tasks.gorillahard.generator.checks.tiers import check_tiers
from merabench.tasks.gorillahard.generator.checks.wording import (
    check_numerals,
    check_phrasing,
    check_spelling,
)
from merabench.tasks.gorillahard.metrics import catalogs_reused


def validate(folder: Path) -> list[Check]:
    try:
        with catalogs_reused():  # the scorer check and the shortcut baselines score each row again
            return _validate(folder)
    finally:  # the per-row caches hold this set's files and catalogs: not past its validation (the
        # seed's corpora stay: what a seed builds never changes, and a second validation of the seed,
        # as after an edit, need not build them again: 1.3 s of the 3.3)
        attached_files.cache_clear()
        parsed_catalog.cache_clear()


def _validate(folder: Path) -> list[Check]:
    splits = read_local(folder)
    test, shots = splits["test"], splits.get("shots", [])
    check_well_formed(test + shots, folder)
    manifest_path = folder / "manifest.json"
    with reading(manifest_path):
        manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.exists() else {}
    known = check_manifest(manifest, manifest_path.exists())
    if not known.ok:  # its seed and sizes say nothing either: checked as a hand-made set
        manifest = {}
    nearest = None
    if "seed" in manifest:  # made meanwhile: the next seed's set and its nearest questions
        from merabench.tasks.gorillahard.generator.checks.audit import nearest_in_next_seed

        nearest = nearest_in_next_seed(test, manifest)
    assembly, test_prompts, shot_prompts = check_prompts(test, shots)
    return [
        known,
        check_ids(test, shots),
        assembly,
        check_dialogues(test, shots),
        check_history_needed(test, shots),
        check_unique_prompts(test_prompts + shot_prompts),
        check_duplicate_rows(test),
        *check_catalogs(test + shots),
        check_limits(test + shots),
        check_tiers(test + shots),
        check_attachments(test + shots),
        check_paths_unsaid(test + shots),
        check_told_apart(test + shots),
        check_pick_criteria(test) if card_size(manifest) else Check("pick_criteria", True, "not a card-size set"),
        check_findings_unsaid(test + shots),
        check_composition(test, manifest),
        check_prompt_lengths(test_prompts, manifest),
        check_format_traps(test + shots),
        check_level_patterns(test + shots),
        check_duplicate_keys(test + shots),
        check_file_layouts(test + shots, manifest),
        check_numerals(test + shots),
        check_spelling(test + shots),
        check_phrasing(test + shots),
        check_refusal_mechanisms(test, manifest),
        check_derivations(test, shots),
        check_file_needed(test, manifest),
        check_clarify_kinds(test, manifest),
        check_scorer(test, shots),
        check_variety(test, manifest),
        check_mechanisms(test, manifest),
        check_shortcuts(test, manifest, nearest),
    ]


def check_manifest(manifest: object, present: bool) -> Check:
    """The set says what made it: this generator (a set of another version has other families and
    rows, so the checks of its composition would judge it by the wrong card) from a seed a
    `generated:SEED` could name. A set without one is hand-made: its rows are still checked."""
    if not present:
        return Check("manifest", False, "no manifest.json: which generator and seed made this set cannot be "
                                        "known; checked as a hand-made set (composition without its plan)")
    if not isinstance(manifest, dict):
        return Check("manifest", False, "manifest.json is not a JSON object")
    problems = []
    if manifest.get("generator") != GENERATOR:
        problems.append(f"made by {manifest.get('generator')!r}, this validator checks {GENERATOR!r} sets "
                        "(generate it again, or validate with that version)")
    seed = manifest.get("seed")
    if not isinstance(seed, int) or isinstance(seed, bool) or not SEED_MIN <= seed <= SEED_MAX:
        problems.append(f"its seed {seed!r} is no seed generate takes ({SEED_MIN} to {SEED_MAX})")
    if problems:
        return Check("manifest", False, "manifest.json " + "; ".join(problems))
    return Check("manifest", True, f"{GENERATOR}, seed {seed}")
