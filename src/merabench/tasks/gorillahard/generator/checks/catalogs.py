"""Checks of the catalogs and the reference calls against them: size, twins, position, arguments,
attached paths, and the limits a catalog states (a refusal over a limit cites a value past it).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from merabench.rows.row import Row
from merabench.tasks.gorillahard.generator.checks.rows import (
    Check,
    attached_files,
    catalog_of,
    first_failures,
    in_body,
    reference_of,
    steps,
)
from merabench.tasks.gorillahard.generator.library.catalog import MAX_TOOLS, MIN_TOOLS, relative_position
from merabench.tasks.gorillahard.generator.library.providers import canonical
from merabench.tasks.gorillahard.generator.library.tools import DEPRECATED, PAIRS
from merabench.tasks.gorillahard.generator.model import reference_tools


def check_catalogs(rows: list[Row]) -> list[Check]:
    twin, size, schema, paths, positions = [], [], [], [], []
    for row in rows:
        catalog = catalog_of(row)
        names = [t["name"] for t in catalog]
        families = Counter(t["family"] for t in catalog)
        family_of = {t["name"]: t["family"] for t in catalog}
        if not MIN_TOOLS <= len(catalog) <= MAX_TOOLS or row.meta["categories"].get("n_tools") != len(catalog):
            size.append(f"row {row.id}: {len(catalog)} tools")
        reference = reference_of(row)
        tools = reference_tools(reference)
        for tool in tools:
            if canonical(tool) in DEPRECATED:
                schema.append(f"row {row.id}: the reference calls the deprecated {tool}")
            if tool not in names:
                schema.append(f"row {row.id}: {tool} not in the catalog")
            elif families[family_of[tool]] < 2:
                twin.append(f"row {row.id}: {tool} alone in its family")
        if tools and tools[0] in names:
            positions.append(relative_position(names, tools[0]))
        if row.meta["categories"].get("cost_pick") == "yes":
            first = canonical(tools[0]) if tools else ""
            partner = next((b if a == first else a for a, b in PAIRS if first in (a, b)), None)
            if partner is None or partner not in {canonical(n) for n in names}:
                twin.append(f"row {row.id}: a cost pick without its same-capability partner in the catalog")
        files = attached_files(row.inputs["context"])
        by_name = {t["name"]: t for t in catalog}
        for step in steps(reference):
            spec = by_name.get(step["tool"], {}).get("parameters", {})
            args = step["args"]
            required = {p for p, s in spec.items() if s.get("required")}
            if not set(args) <= set(spec) or not required <= set(args):
                schema.append(f"row {row.id}: {step['tool']} args {sorted(args)} vs {sorted(spec)}")
            if "path" in args and not str(args["path"]).startswith("$") and args["path"] not in files:
                paths.append(f"row {row.id}: path {args['path']} is not attached")
    mean = sum(positions) / len(positions) if positions else 0.5
    return [
        Check("catalog_size", not size, first_failures(size) or f"{MIN_TOOLS}-{MAX_TOOLS} tools everywhere"),
        Check("twin_present", not twin, first_failures(twin) or "every reference tool has a family twin"),
        Check("no_positional_bias", 0.4 <= mean <= 0.6, f"mean relative position of the reference {mean:.3f}"),
        Check("reference_arguments", not schema, first_failures(schema) or "a subset of the parameters, required filled"),
        Check("paths_attached", not paths, first_failures(paths) or "every path argument names an attached file"),
    ]


def limit_violations(value: Any, spec: dict[str, Any]) -> list[str]:
    """How an argument breaks the limits its rendered parameter spec states (JSON Schema keywords)."""
    if isinstance(value, str) and value.startswith("$"):
        return []  # the result of an earlier plan step: not known before the plan runs
    found = []
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if number and "maximum" in spec and value > spec["maximum"]:
        found.append(f"{value} > maximum {spec['maximum']}")
    if number and "minimum" in spec and value < spec["minimum"]:
        found.append(f"{value} < minimum {spec['minimum']}")
    if isinstance(value, str) and "pattern" in spec and not re.search(spec["pattern"], value):
        found.append(f"{value!r} does not match {spec['pattern']!r}")
    if "enum" in spec and value not in spec["enum"]:
        found.append(f"{value!r} not one of {spec['enum']}")
    return found


def check_limits(rows: list[Row]) -> Check:
    """Every reference call respects every limit its catalog states, and a refusal that blames a
    tool's limit cites a value from the files past a maximum that tool states. Independent of the
    families: it reads only the catalog as the model sees it (inputs.tools), the files and the
    reference."""
    broken, refusals = [], 0
    for row in rows:
        by_name = {t["name"]: t for t in catalog_of(row)}
        reference = reference_of(row)
        for step in steps(reference):
            spec = by_name.get(step["tool"], {}).get("parameters", {})
            for name, value in step["args"].items():
                for problem in limit_violations(value, spec.get(name, {})):
                    broken.append(f"row {row.id}: {step['tool']}.{name} {problem}")
        if "abstain" in reference:
            blames_a_limit, refusal_problem = _limit_refusal(str(reference.get("reason", "")), by_name, row)
            refusals += blames_a_limit
            if refusal_problem:
                broken.append(f"row {row.id}: {refusal_problem}")
    return Check("limits_respected", not broken, first_failures(broken) or
                 f"every reference call within its stated limits; {refusals} refusals over a limit cite a value past it")


def _exact(value: float) -> str:
    """A cited number as written, never in exponent form (`:g` makes 1234567 '1.23457e+06')."""
    return str(int(value)) if value.is_integer() else repr(value)


_CITED_NUMBER = re.compile(r"(?<![\w.-])\d+(?:\.\d+)?(?![\w.-])")


def _limit_refusal(reason: str, by_name: dict[str, dict[str, Any]], row: Row) -> tuple[bool, str | None]:
    """Whether a refusal blames a limit (it names a catalog tool with numeric maxima), and what is
    wrong if it cites no number from an attached file's body past one of them."""
    named = [name for name in by_name if re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", reason)]
    maxima = {spec["maximum"] for name in named for spec in by_name[name].get("parameters", {}).values()
              if isinstance(spec, dict) and isinstance(spec.get("maximum"), int | float)}
    if not maxima:
        return False, None
    cited = [float(n) for n in _CITED_NUMBER.findall(reason)]
    texts = list(attached_files(row.inputs["context"]).values())
    if any(value > limit and in_body(_exact(value), texts) for value in cited for limit in maxima):
        return True, None
    return True, f"the refusal blames {', '.join(named)} but cites no value from the files past its maximum {sorted(maxima)}"
