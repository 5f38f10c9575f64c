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

from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from merabench.errors import ConfigError
from merabench.rows.row import Row, read_local
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
from merabench.tasks.gorillahard.generator.checks.manifest import check_manifest, read_manifest
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


def validate(folder: Path, only: Collection[str] = (), keep_next_seed: bool = False) -> list[Check]:
    """Every check of the set in `folder`, or only those named in `only` (a second look after an
    edit: a whole validation of a card-size set costs a few CPU seconds). `keep_next_seed`: the
    caller compares with the next seed's set next (validate --audit), so the set the shortcut
    check compares with is made in this process, where it stays, not only in the forked worker."""
    only = (only,) if isinstance(only, str) else only  # one name, not its letters
    unknown = sorted(set(only) - set(CHECK_NAMES))
    if unknown:
        raise ConfigError(f"no check named {', '.join(unknown)}; the checks are {', '.join(CHECK_NAMES)}")
    try:
        with catalogs_reused():  # the scorer check and the shortcut baselines score each row again
            return _validate(folder, set(only), keep_next_seed)
    finally:  # the per-row caches hold this set's files and catalogs: not past its validation (the
        # seed's corpora stay: what a seed builds never changes, and a second validation of the seed,
        # as after an edit, need not build them again: 1.3 s of the 3.3)
        attached_files.cache_clear()
        parsed_catalog.cache_clear()


@dataclass(frozen=True)
class _SetRead:
    """What the checks read of one set: its splits, its manifest and the prompts as assembled."""

    test: list[Row]
    shots: list[Row]
    manifest: dict[str, Any]
    known: Check                    # the manifest's own check
    assembly: Check                 # the prompts' own check
    test_prompts: list[str]
    shot_prompts: list[str]
    nearest: Any                    # the next seed's nearest answers, being worked out (no_shortcut)

    @property
    def rows(self) -> list[Row]:
        return self.test + self.shots


def _pick_criteria(s: _SetRead) -> Check:
    return check_pick_criteria(s.test) if card_size(s.manifest) else Check("pick_criteria", True, "not a card-size set")


#: every check in report order, as (the names it reports, how to make it): `only` picks among the names
_CHECKS: tuple[tuple[tuple[str, ...], Callable[[_SetRead], Check | list[Check]]], ...] = (
    (("manifest",), lambda s: s.known),
    (("continuous_ids",), lambda s: check_ids(s.test, s.shots)),
    (("prompt_assembly",), lambda s: s.assembly),
    (("dialogue_history",), lambda s: check_dialogues(s.test, s.shots)),
    (("history_needed",), lambda s: check_history_needed(s.test, s.shots)),
    (("unique_prompts",), lambda s: check_unique_prompts(s.test_prompts + s.shot_prompts)),
    (("no_duplicate_rows",), lambda s: check_duplicate_rows(s.test)),
    (("catalog_size", "twin_present", "no_positional_bias", "reference_arguments", "paths_attached"),
     lambda s: check_catalogs(s.rows)),
    (("limits_respected",), lambda s: check_limits(s.rows)),
    (("tiers_by_rule",), lambda s: check_tiers(s.rows)),
    (("attachments",), lambda s: check_attachments(s.rows)),
    (("paths_unsaid",), lambda s: check_paths_unsaid(s.rows)),
    (("targets_told_apart",), lambda s: check_told_apart(s.rows)),
    (("pick_criteria",), _pick_criteria),
    (("findings_unsaid",), lambda s: check_findings_unsaid(s.rows)),
    (("composition",), lambda s: check_composition(s.test, s.manifest)),
    (("prompt_lengths",), lambda s: check_prompt_lengths(s.test_prompts, s.manifest)),
    (("format_traps",), lambda s: check_format_traps(s.rows)),
    (("level_patterns",), lambda s: check_level_patterns(s.rows)),
    (("duplicate_keys",), lambda s: check_duplicate_keys(s.rows)),
    (("file_layouts",), lambda s: check_file_layouts(s.rows, s.manifest)),
    (("numerals_agree",), lambda s: check_numerals(s.rows)),
    (("spelling",), lambda s: check_spelling(s.rows)),
    (("phrasing",), lambda s: check_phrasing(s.rows)),
    (("refusal_mechanisms",), lambda s: check_refusal_mechanisms(s.test, s.manifest)),
    (("derived_quantities",), lambda s: check_derivations(s.test, s.shots)),
    (("file_needed",), lambda s: check_file_needed(s.test, s.manifest)),
    (("clarify_kinds",), lambda s: check_clarify_kinds(s.test, s.manifest)),
    (("references_pass_scorer",), lambda s: check_scorer(s.test, s.shots)),
    (("variety",), lambda s: check_variety(s.test, s.manifest)),
    (("drawn_mechanisms",), lambda s: check_mechanisms(s.test, s.manifest)),
    (("no_shortcut",), lambda s: check_shortcuts(s.test, s.manifest, s.nearest)),
)
CHECK_NAMES = tuple(name for names, _ in _CHECKS for name in names)


def _validate(folder: Path, wanted: set[str], keep_next_seed: bool) -> list[Check]:
    """The checks named in `wanted`, or every check when it is empty (all that they report, so a
    check reported under a name CHECK_NAMES lacks is seen, and fails the test of the names)."""
    splits = read_local(folder)
    test, shots = splits["test"], splits.get("shots", [])
    check_well_formed(test + shots, folder)
    present, manifest = read_manifest(folder)
    known = check_manifest(manifest, present)
    if not known.ok:  # its seed and sizes say nothing either: checked as a hand-made set
        manifest = {}
    nearest = None
    if "seed" in manifest and (not wanted or "no_shortcut" in wanted):  # worked out meanwhile (audit.py)
        from merabench.tasks.gorillahard.generator.checks.audit import nearest_in_next_seed

        nearest = nearest_in_next_seed(test, manifest, made_here=keep_next_seed)
    read = _SetRead(test, shots, manifest, known, *check_prompts(test, shots), nearest)
    found: list[Check] = []
    for names, make in _CHECKS:
        if not wanted or wanted.intersection(names):
            made = make(read)
            found.extend(c for c in (made if isinstance(made, list) else [made]) if not wanted or c.name in wanted)
    return found
