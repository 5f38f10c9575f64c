"""A written set's manifest.json: read once, judged once, for the validation and the audit alike."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from merabench.errors import reading
from merabench.models.base import SEED_MAX, SEED_MIN
from merabench.tasks.gorillahard.generator.build.generate import GENERATOR
from merabench.tasks.gorillahard.generator.checks.rows import Check


def read_manifest(folder: Path) -> tuple[bool, Any]:
    """Whether the set has a manifest.json, and the file as parsed (any JSON value, a `null` too:
    check_manifest judges it); a hand-made set has none: (False, None)."""
    path = folder / "manifest.json"
    with reading(path):
        return (True, json.loads(path.read_text(encoding="utf-8"))) if path.exists() else (False, None)


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
