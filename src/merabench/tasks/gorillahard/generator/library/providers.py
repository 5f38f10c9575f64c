"""The same tools served by other providers, as agents meet them: one catalog has `table.mean`,
the next the same capability as `sheet.average` or `tabular.column_mean` from another server, each
provider with its own namespace and its own word for the operation (operations.py).

Each set draws, per library family, which of three providers serves it (the card's set names
each tool one way); a catalog never holds two names of one tool. The reference follows the
catalog, so the answer to a question cannot be recalled from another seed's set: the tool has to
be read off the catalog in front of the model.
The validator reads references back under the library's own names (`canonical_text`), so the
families' checks, the variety figures and the tier rules see one tool under one name.
"""

from __future__ import annotations

import functools
import json
import random
import re
from typing import Any

from merabench.tasks.gorillahard.generator.library.operations import DESCRIPTIONS, OPERATIONS
from merabench.tasks.gorillahard.generator.library.tools import TOOLS, constraints_block, family_of

# the other providers' namespaces for each of the library's
PROVIDER_PREFIXES = (
    {"backup": "snapshot", "billing": "payments", "cache": "kv", "calendar": "meetings", "code": "devtools",
     "config": "settings", "registry": "images", "cron": "scheduler", "db": "sql", "deps": "packages",
     "dns": "resolver", "mail": "email", "files": "fs", "flags": "features", "git": "vcs", "http": "web",
     "k8s": "kube", "logs": "journal", "metrics": "monitoring", "net": "netdiag", "perm": "iam", "queue": "mq",
     "search": "kb", "secrets": "vault", "server": "hosts", "asr": "stt", "tts": "voice", "storage": "objects",
     "table": "sheet", "trace": "tracing", "tracker": "issues"},
    {"backup": "backups", "billing": "finance", "cache": "cachectl", "calendar": "agenda", "code": "pyqa",
     "config": "cfg", "registry": "oci", "cron": "jobs", "db": "dbadmin", "deps": "pkgs", "dns": "nameserver",
     "mail": "smtp", "files": "disk", "flags": "toggles", "git": "repo", "http": "fetch", "k8s": "cluster",
     "logs": "logview", "metrics": "prom", "net": "netops", "perm": "access", "queue": "broker", "search": "wiki",
     "secrets": "secretstore", "server": "fleet", "asr": "transcriber", "tts": "speechgen", "storage": "bucket",
     "table": "tabular", "trace": "apm", "tracker": "tickets"},
)


def _provider_name(name: str, provider: int) -> str:
    prefix = name.split(".", 1)[0]
    return f"{PROVIDER_PREFIXES[provider - 1][prefix]}.{OPERATIONS[name][provider - 1]}"


# provider 0 is the library's own naming
NAMES = {(name, provider): _provider_name(name, provider) for name in TOOLS
         for provider in range(1, len(PROVIDER_PREFIXES) + 1)}
CANONICAL = {served: name for (name, _), served in NAMES.items()}
FAMILIES = sorted({family_of(name) for name in TOOLS})


# a dotted name, not inside a host or a path: looked up in the library (or the providers') names
DOTTED_NAME = re.compile(r"(?<![\w.-])[a-z][a-z0-9]*\.[a-z][a-z0-9_]*(?![\w-]|\.\w)")


def draw_served(rng: random.Random) -> dict[str, int]:
    """Which provider serves each library family in one set: 0 the library's names, 1 or 2 another
    provider's."""
    return {family: rng.randrange(len(PROVIDER_PREFIXES) + 1) for family in FAMILIES}


@functools.cache
def served_tool(name: str, provider: int) -> dict[str, Any]:
    """The tool as a provider lists it: its name, every name of its family in its texts (a
    deprecated tool points to its successor by name), its description in the provider's words and
    the provider's own rate, data, latency and audit terms around the same caveat. Shared: read,
    never change it."""
    family = family_of(name)
    text = DOTTED_NAME.sub(
        lambda m: NAMES[m.group(), provider] if m.group() in TOOLS and family_of(m.group()) == family else m.group(),
        json.dumps(TOOLS[name], ensure_ascii=False))
    listed = json.loads(text)
    listed["description"] = DESCRIPTIONS[name][provider - 1]
    # the standard terms follow from the tool's family and description, as the library's do
    listed["constraints"] = constraints_block(listed["family"], listed["description"],
                                              listed["constraints"]["ограничения"])
    return listed


def serve(catalog: list[dict[str, Any]], reference: dict[str, Any], served: dict[str, int], pinned_text: str,
          facts: dict[str, Any] | None = None) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
    """The catalog, reference and the row's recorded facts (its meta derivation) with each family's
    tools under its provider's names, so that a label naming a tool names the one the catalog
    serves. A family whose tool the question or a file names (an instruction planted in a file,
    say) keeps the library's names, so the text and the catalog agree."""
    facts = facts or {}
    candidates = [t for t in catalog if served[t["family"]]]
    pinned = {t["family"] for t in candidates if t["name"] in pinned_text}
    renamed = {t["family"]: served[t["family"]] for t in candidates if t["family"] not in pinned}
    if not renamed:
        return catalog, reference, facts
    catalog = [served_tool(t["name"], renamed[t["family"]]) if t["family"] in renamed else t for t in catalog]

    def rename(match: re.Match[str]) -> str:
        name = match.group()
        return NAMES[name, renamed[family_of(name)]] if name in TOOLS and family_of(name) in renamed else name

    def renamed_in(value: dict[str, Any]) -> dict[str, Any]:
        return json.loads(DOTTED_NAME.sub(rename, json.dumps(value, ensure_ascii=False)))

    return catalog, renamed_in(reference), renamed_in(facts)


def canonical(name: str) -> str:
    """A tool's library name, whichever provider's name it is given under."""
    return CANONICAL.get(name, name)


def canonical_text(text: str) -> str:
    """A reference (or any text) with every other provider's tool name put back to the library's."""
    return DOTTED_NAME.sub(lambda m: CANONICAL.get(m.group(), m.group()), text)

