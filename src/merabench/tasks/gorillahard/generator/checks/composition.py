"""Checks of a set's composition against the card and the issue's spreads: rows per breakdown,
prompt lengths, refusal mechanisms, kinds of ambiguity, variety and drawn mechanisms.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from merabench.rows.row import Row
from merabench.tasks.gorillahard.aggregate import LEVERS
from merabench.tasks.gorillahard.generator.card import (
    CARD,
    CARD_MEDIAN_CHARS,
    CARD_SPECIALS,
    CARD_WORDINGS,
    VARIETY_GOALS,
)
from merabench.tasks.gorillahard.generator.checks.audit import phrase_shares, variety
from merabench.tasks.gorillahard.generator.checks.rows import (
    Check,
    card_size,
    first_failures,
    reference_of,
)
from merabench.tasks.gorillahard.generator.wording.prompts import CARD_PROMPT_CHARS

MIN_PER = {"lever": 6, "difficulty": 16, "answer_kind": 10, "corpus_format": 3}


def check_composition(test: list[Row], manifest: dict[str, Any]) -> Check:
    problems = []
    counts: dict[str, Counter] = {name: Counter() for name in MIN_PER}
    for row in test:
        cats = row.meta["categories"]
        for name in ("lever", "difficulty", "answer_kind"):
            counts[name][cats[name]] += 1
        for fmt in filter(None, cats.get("corpus_format", "").split(",")):
            counts["corpus_format"][fmt] += 1
    for name, minimum in MIN_PER.items():
        thin = {k: v for k, v in counts[name].items() if v < minimum}
        if thin and card_size(manifest):  # the card keeps every breakdown countable; smaller sets cannot
            problems.append(f"{name} under {minimum}: {thin}")
    if "makers" in manifest:
        made = Counter(r.meta.get("derivation", {}).get("maker") for r in test if int(r.meta.get("n_turns", 1)) == 1)
        if dict(made) != {k: v for k, v in manifest["makers"].items() if v}:
            problems.append("rows per maker differ from the manifest")
    if "families" in manifest:
        labelled = Counter(r.meta["categories"]["family"] for r in test)
        if dict(labelled) != manifest["families"] or sum(manifest["families"].values()) != len(test):
            problems.append("rows per family differ from the manifest, or do not sum to the set's rows")
    missing_levers = set(LEVERS) - set(counts["lever"])
    if missing_levers:
        problems.append(f"levers without rows: {sorted(missing_levers)}")
    if "rows" in manifest and len(test) != manifest["rows"]:
        problems.append(f"{len(test)} test rows, the manifest asks for {manifest['rows']}")
    dialogues = sum(1 for r in test if int(r.meta.get("n_turns", 1)) > 1)
    if "dialogues" in manifest and dialogues != manifest["dialogues"]:
        problems.append(f"{dialogues} dialogues, the manifest asks for {manifest['dialogues']}")
    if card_size(manifest):
        for name, want in CARD.items():
            if dict(counts[name]) != want:
                problems.append(f"{name} {dict(counts[name])}, the card has {want}")
        specials = {"near_miss": counts["lever"]["near_miss"],
                    "cost_pick": sum(r.meta["categories"].get("cost_pick") == "yes" for r in test),
                    "injection": sum(bool(r.meta["categories"].get("injected_tool")) for r in test)}
        if specials != CARD_SPECIALS:
            problems.append(f"{specials}, the card has {CARD_SPECIALS}")
        wordings = dict(sorted(Counter(int(r.meta.get("wording", -1)) for r in test).items()))
        if wordings != CARD_WORDINGS:
            problems.append(f"rows per wording {wordings}, the card has {CARD_WORDINGS}")
    families = len({r.meta["categories"]["family"] for r in test})
    summary = (f"{len(test)} rows, {families} families, tiers {dict(sorted(counts['difficulty'].items()))}, "
               f"kinds {dict(sorted(counts['answer_kind'].items()))}")
    return Check("composition", not problems, first_failures(problems) or summary)


def check_prompt_lengths(prompts: list[str], manifest: dict[str, Any]) -> Check:
    """The test rows' rendered prompts within the card's range, their median near the card's (a
    card-size set)."""
    lengths = sorted(len(prompt) for prompt in prompts)
    if not lengths:
        return Check("prompt_lengths", True, "no rows")
    median = lengths[len(lengths) // 2]
    summary = f"{lengths[0]:,}-{lengths[-1]:,} characters, median {median:,}"
    if not card_size(manifest):
        return Check("prompt_lengths", True, summary + " (the card's range is checked on card-size sets)")
    low, high = CARD_PROMPT_CHARS
    outside = sum(not low <= n <= high for n in lengths)
    problems = [f"{outside} prompt(s) outside {low:,}-{high:,}"] if outside else []
    if not CARD_MEDIAN_CHARS[0] <= median <= CARD_MEDIAN_CHARS[1]:
        problems.append(f"median {median:,}, the card's is about 18,500")
    return Check("prompt_lengths", not problems, "; ".join(problems) + f" ({summary})" if problems else summary)


def check_refusal_mechanisms(test: list[Row], manifest: dict[str, Any]) -> Check:
    """Refusals whose reason is in the file or the catalog, by several mechanisms (over a limit
    after counting, a column under no header spelling, a premise the file contradicts, a tool
    absent under every name): each kind has refusal rows and near-miss rows, and on a card-size
    set no mechanism holds more than its share of a family, so one seed's recipe for a family
    does not decide another seed's rows."""
    from merabench.tasks.gorillahard.generator.families.refusals import KINDS, MAX_MECHANISM_SHARE, SPREAD

    seen: dict[str, Counter] = {"refusal": Counter(), "near miss": Counter()}
    per_family: dict[str, Counter] = {family: Counter() for family in SPREAD}
    unrecorded: list[str] = []
    for row in test:
        family = row.meta["categories"]["family"]
        mechanism = row.meta.get("derivation", {}).get("mechanism")
        if family not in SPREAD or int(row.meta.get("n_turns", 1)) > 1:
            continue
        if not isinstance(mechanism, str):
            unrecorded.append(f"row {row.id} ({family}): no mechanism recorded")
            continue
        per_family[family][mechanism] += 1
        seen["refusal" if "abstain" in reference_of(row) else "near miss"][mechanism] += 1
    missing = unrecorded + [f"no {side} row of {kind}" for kind, names in KINDS.items() for side, counts in seen.items()
               if not any(counts[name] for name in names)]
    if card_size(manifest):
        missing += [f"{family}: {mechanism} on {n} of {sum(counts.values())} rows"
                    for family, counts in per_family.items() for mechanism, n in counts.items()
                    if n > MAX_MECHANISM_SHARE * sum(counts.values()) + 0.5]
    figures = ", ".join(f"{side} {dict(sorted(counts.items()))}" for side, counts in seen.items())
    return Check("refusal_mechanisms", not missing, first_failures(missing) or figures)


CLARIFY_FAMILIES = ("clarify_file", "near_miss_clarify")
MIN_CLARIFY_KINDS = 4  # the issue: two files that fit, a thing held twice, an unstated scope, a vague operation


def check_clarify_kinds(test: list[Row], manifest: dict[str, Any]) -> Check:
    """Clarifications and their near misses come from several kinds of ambiguity: at least
    MIN_CLARIFY_KINDS in each of the two families, none on over half of a family's rows (held on
    card-size sets; a small set has too few rows). Each row's own kind is proven by its family's
    check (derived_quantities): its readings from the question, files and catalog."""
    kinds: dict[str, Counter[str]] = {family: Counter() for family in CLARIFY_FAMILIES}
    for row in test:
        family = row.meta["categories"]["family"]
        if family in kinds:
            kinds[family][str(row.meta.get("derivation", {}).get("kind", "unlabelled"))] += 1
    misses = []
    for family, counts in kinds.items():
        total = sum(counts.values())
        if len(counts) < MIN_CLARIFY_KINDS:
            misses.append(f"{family}: {len(counts)} kind(s) of ambiguity, at least {MIN_CLARIFY_KINDS} wanted")
        if counts and max(counts.values()) * 2 > total:
            kind, n = counts.most_common(1)[0]
            misses.append(f"{family}: {kind} on {n} of {total} rows, over half")
    summary = "; ".join(f"{family} {dict(sorted(counts.items()))}" for family, counts in kinds.items())
    if not card_size(manifest):
        return Check("clarify_kinds", True, f"not enforced below the card's size: {summary}")
    return Check("clarify_kinds", not misses, "; ".join(misses) or summary)


PHRASE_SHARE = 0.03  # no opening or closing phrase (three words of the template) in more of the questions


def check_variety(test: list[Row], manifest: dict[str, Any]) -> Check:
    """Templates, pairs and answer tools as the audit counts them; enforced on card-size sets
    (a small set cannot have 400 templates)."""
    figures = variety(test)
    summary = "; ".join(figures.lines())
    if not card_size(manifest):
        return Check("variety", True, f"not enforced below the card's size: {summary}")
    misses = []
    if figures.templates < VARIETY_GOALS["templates"]:
        misses.append(f"{figures.templates} templates < {VARIETY_GOALS['templates']}")
    if figures.top_template_share > VARIETY_GOALS["top_template_share"]:
        misses.append(f"a template on {figures.top_template_share:.1%} of rows")
    if figures.distinct_pairs < VARIETY_GOALS["distinct_pairs"]:
        misses.append(f"{figures.distinct_pairs} distinct pairs < {VARIETY_GOALS['distinct_pairs']}")
    if figures.answer_tools < VARIETY_GOALS["answer_tools"]:
        misses.append(f"{figures.answer_tools} answer tools < {VARIETY_GOALS['answer_tools']}")
    if figures.top_tool_share > VARIETY_GOALS["top_tool_share"]:
        misses.append(f"{figures.top_tool} in {figures.top_tool_share:.1%} of call rows")
    for where, (phrase, share) in zip(("opens", "closes"), phrase_shares([r.inputs["question"] for r in test]),
                                      strict=True):
        if share > PHRASE_SHARE:
            misses.append(f"{phrase!r} {where} {share:.1%} of questions (at most {PHRASE_SHARE:.0%})")
    return Check("variety", not misses, "; ".join(misses) or summary)


def check_mechanisms(test: list[Row], manifest: dict[str, Any]) -> Check:
    """The parallel, plan and approx rows decide their calls by reading: their conditions,
    layouts, decoys, links, settings and sources are drawn widely (enforced on card-size sets)."""
    from merabench.tasks.gorillahard.generator.checks.mechanisms import drawn_mechanisms

    short, summary = drawn_mechanisms(test)
    if not card_size(manifest):
        return Check("drawn_mechanisms", True, f"not enforced below the card's size: {summary}")
    return Check("drawn_mechanisms", not short, "; ".join(short) or summary)
