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
from collections.abc import Callable, Collection
from pathlib import Path

from merabench.errors import ConfigError, reading
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

#: every check's name, in report order (check_catalogs reports five); `only` picks among them
CHECK_NAMES = (
    "manifest", "continuous_ids", "prompt_assembly", "dialogue_history", "history_needed", "unique_prompts",
    "no_duplicate_rows", "catalog_size", "twin_present", "no_positional_bias", "reference_arguments",
    "paths_attached", "limits_respected", "tiers_by_rule", "attachments", "paths_unsaid", "targets_told_apart",
    "pick_criteria", "findings_unsaid", "composition", "prompt_lengths", "format_traps", "level_patterns",
    "duplicate_keys", "file_layouts", "numerals_agree", "spelling", "phrasing", "refusal_mechanisms",
    "derived_quantities", "file_needed", "clarify_kinds", "references_pass_scorer", "variety",
    "drawn_mechanisms", "no_shortcut",
)
_CATALOG_CHECKS = ("catalog_size", "twin_present", "no_positional_bias", "reference_arguments", "paths_attached")


def validate(folder: Path, only: Collection[str] = ()) -> list[Check]:
    """Every check of the set in `folder`, or only those named in `only` (a second look after an
    edit: a whole validation of a card-size set costs a few CPU seconds)."""
    only = (only,) if isinstance(only, str) else only  # one name, not its letters
    unknown = sorted(set(only) - set(CHECK_NAMES))
    if unknown:
        raise ConfigError(f"no check named {', '.join(unknown)}; the checks are {', '.join(CHECK_NAMES)}")
    try:
        with catalogs_reused():  # the scorer check and the shortcut baselines score each row again
            return _validate(folder, set(only))
    finally:  # the per-row caches hold this set's files and catalogs: not past its validation (the
        # seed's corpora stay: what a seed builds never changes, and a second validation of the seed,
        # as after an edit, need not build them again: 1.3 s of the 3.3)
        attached_files.cache_clear()
        parsed_catalog.cache_clear()


def _validate(folder: Path, wanted: set[str]) -> list[Check]:
    """The checks named in `wanted`, or every check when it is empty (all that they report, so a
    check reported under a name CHECK_NAMES lacks is seen, and fails the test of the names)."""
    splits = read_local(folder)
    test, shots = splits["test"], splits.get("shots", [])
    rows = test + shots
    check_well_formed(rows, folder)
    manifest_path = folder / "manifest.json"
    with reading(manifest_path):
        manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.exists() else {}
    known = check_manifest(manifest, manifest_path.exists())
    if not known.ok:  # its seed and sizes say nothing either: checked as a hand-made set
        manifest = {}
    nearest = None
    if "seed" in manifest and (not wanted or "no_shortcut" in wanted):  # made meanwhile: the next seed's set and its nearest questions
        from merabench.tasks.gorillahard.generator.checks.audit import nearest_in_next_seed

        nearest = nearest_in_next_seed(test, manifest)
    assembly, test_prompts, shot_prompts = check_prompts(test, shots)
    # each check as (the names it reports, how to make it): a check not wanted is not run
    checks: list[tuple[tuple[str, ...], Callable[[], Check | list[Check]]]] = [
        (("manifest",), lambda: known),
        (("continuous_ids",), lambda: check_ids(test, shots)),
        (("prompt_assembly",), lambda: assembly),
        (("dialogue_history",), lambda: check_dialogues(test, shots)),
        (("history_needed",), lambda: check_history_needed(test, shots)),
        (("unique_prompts",), lambda: check_unique_prompts(test_prompts + shot_prompts)),
        (("no_duplicate_rows",), lambda: check_duplicate_rows(test)),
        (_CATALOG_CHECKS, lambda: check_catalogs(rows)),
        (("limits_respected",), lambda: check_limits(rows)),
        (("tiers_by_rule",), lambda: check_tiers(rows)),
        (("attachments",), lambda: check_attachments(rows)),
        (("paths_unsaid",), lambda: check_paths_unsaid(rows)),
        (("targets_told_apart",), lambda: check_told_apart(rows)),
        (("pick_criteria",), lambda: check_pick_criteria(test) if card_size(manifest)
                                     else Check("pick_criteria", True, "not a card-size set")),
        (("findings_unsaid",), lambda: check_findings_unsaid(rows)),
        (("composition",), lambda: check_composition(test, manifest)),
        (("prompt_lengths",), lambda: check_prompt_lengths(test_prompts, manifest)),
        (("format_traps",), lambda: check_format_traps(rows)),
        (("level_patterns",), lambda: check_level_patterns(rows)),
        (("duplicate_keys",), lambda: check_duplicate_keys(rows)),
        (("file_layouts",), lambda: check_file_layouts(rows, manifest)),
        (("numerals_agree",), lambda: check_numerals(rows)),
        (("spelling",), lambda: check_spelling(rows)),
        (("phrasing",), lambda: check_phrasing(rows)),
        (("refusal_mechanisms",), lambda: check_refusal_mechanisms(test, manifest)),
        (("derived_quantities",), lambda: check_derivations(test, shots)),
        (("file_needed",), lambda: check_file_needed(test, manifest)),
        (("clarify_kinds",), lambda: check_clarify_kinds(test, manifest)),
        (("references_pass_scorer",), lambda: check_scorer(test, shots)),
        (("variety",), lambda: check_variety(test, manifest)),
        (("drawn_mechanisms",), lambda: check_mechanisms(test, manifest)),
        (("no_shortcut",), lambda: check_shortcuts(test, manifest, nearest)),
    ]
    found: list[Check] = []
    for names, make in checks:
        if not wanted or wanted.intersection(names):
            made = make()
            found.extend(c for c in (made if isinstance(made, list) else [made]) if not wanted or c.name in wanted)
    return found


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
