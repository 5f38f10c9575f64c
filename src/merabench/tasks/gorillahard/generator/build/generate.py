"""A whole GorillaHard-style set from a seed: test rows, dialogue history and single shots.

Deterministic: every row draws from its own generator seeded by (seed, slot), so the same seed
gives byte-identical files and a new seed a new set. Rows whose rendered prompt would repeat an
earlier one, or that would ask the same question of the same files with the same answer as an
earlier test row, are drawn again.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from merabench.errors import writing
from merabench.rows.prompts import render
from merabench.tasks.gorillahard.generator.build.dialogues import KINDS as DIALOG_KINDS
from merabench.tasks.gorillahard.generator.build.dialogues import dialogue
from merabench.tasks.gorillahard.generator.card import CARD, CARD_ROWS, VARIETY_GOALS
from merabench.tasks.gorillahard.generator.checks.structure import item_keys
from merabench.tasks.gorillahard.generator.corpus import Corpus, build_corpus
from merabench.tasks.gorillahard.generator.families import FAMILIES, Family
from merabench.tasks.gorillahard.generator.library.catalog import (
    MAX_TOOLS,
    MIN_TOOLS,
    build_catalog,
    catalog_chars,
    catalog_json,
)
from merabench.tasks.gorillahard.generator.library.providers import draw_served, serve
from merabench.tasks.gorillahard.generator.model import Question, kind_of, reference_tools
from merabench.tasks.gorillahard.generator.wording import surface
from merabench.tasks.gorillahard.generator.wording.asides import UNTOUCHED, with_asides
from merabench.tasks.gorillahard.generator.wording.prompts import (
    CARD_PROMPT_CHARS,
    FORMAT,
    LAYOUT,
    WORDINGS,
    wording_schedule,
)

GENERATOR_VERSION = "v27"  # part of cached sets' names: bump when the same seed would give other rows


@dataclass(frozen=True)
class SetPlan:
    seed: int = 0
    rows: int = 1169        # evaluated rows in test, dialogue turns included
    dialogues: int = 30     # evaluated closing turns of 2-5 turn dialogues
    single_shots: int = 5   # questions in shots outside any dialogue (one per wording)

    def manifest(self, test: list[dict[str, Any]]) -> dict[str, Any]:
        """The set's description: rows per family as the rows are labelled (dialogue turns
        included, so the counts sum to `rows`), and per maker (the single-turn generators)."""
        families = Counter(r["meta"]["categories"]["family"] for r in test)
        return {"seed": self.seed, "rows": self.rows, "dialogues": self.dialogues,
                "single_shots": self.single_shots, "generator": GENERATOR,
                "families": dict(sorted(families.items())), "makers": quotas(self.rows - self.dialogues)}


def _context(question: Question) -> str:
    if not question.files:
        return "(файлов нет)"
    return "\n\n".join(f"[файл: {f.path}]\n{f.text.rstrip()}" for f in question.files)


def _fitted_catalog(question: Question, rng: random.Random, fixed_chars: int) -> list[dict[str, Any]]:
    """A catalog of the drawn size, or of the largest (smallest) size when the prompt would be too
    short (long) for the card's range with it; fixed_chars: the prompt without the catalog."""
    catalog = build_catalog(question, rng)
    length = fixed_chars + catalog_chars(catalog)
    if length < CARD_PROMPT_CHARS[0]:
        return build_catalog(question, rng, size=MAX_TOOLS)
    if length > CARD_PROMPT_CHARS[1]:
        return build_catalog(question, rng, size=MIN_TOOLS)
    return catalog


def item_keys_of(row: dict[str, Any]) -> list[tuple[str, ...]]:
    return item_keys(row["meta"]["derivation"]["maker"], row["inputs"]["context"], row["outputs"],
                     row["inputs"]["question"])


def rendered(row: dict[str, Any]) -> str:
    return render(row["instruction"], row["inputs"])


def _row(question: Question, family: Family, *, row_id: int, base_id: str, dialog_id: str, turn: int, n_turns: int,
         needs_history: str, wording: int, rng: random.Random, served: dict[str, int]) -> dict[str, Any]:
    """One row; `served`: which provider serves each tool family (one draw per set)."""
    instruction, context = WORDINGS[wording] + LAYOUT, _context(question)
    catalog = _fitted_catalog(question, rng, len(render(instruction, {
        "question": question.question, "context": context, "tools": "", "format": FORMAT})))
    catalog, reference, facts = serve(catalog, question.reference, served, question.question + context,
                                      question.facts)
    formats = sorted({f.fmt for f in question.files})
    return {
        "instruction": instruction,
        "inputs": {"question": question.question, "context": context,
                   "tools": catalog_json(catalog), "format": FORMAT},
        "outputs": json.dumps(reference, ensure_ascii=False),
        "meta": {"id": row_id, "base_id": base_id, "dialog_id": dialog_id, "turn_id": turn, "n_turns": n_turns,
                 "needs_history": needs_history, "wording": wording,
                 "categories": {"language": "ru", "difficulty": question.difficulty, "family": question.family,
                                "lever": question.lever, "answer_kind": kind_of(question.reference),
                                "n_tools": len(catalog), "n_files": len(question.files),
                                "has_context": "yes" if question.files else "no",
                                "corpus_format": ",".join(formats), "format_trap": "yes" if question.format_trap else "no",
                                "cost_pick": "yes" if question.cost_pick else "no",
                                "injected_tool": question.injected_tool},
                 "derivation": {"maker": family.name, **facts}},
    }


DEFAULT_SINGLES = sum(f.count for f in FAMILIES.values())  # 1,139: the card's 1,169 less 30 dialogue turns
MIN_SINGLES = len(FAMILIES)  # a set's fewest single-turn rows: one per question maker
class UniquesExhausted(RuntimeError):
    """A set asked for more rows than its families have distinct questions."""


GENERATOR = f"merabench.gorillahard/{GENERATOR_VERSION}"  # what a set's manifest and a run's run.json name


def quotas(singles: int) -> dict[str, int]:
    """Rows per family: the default counts (which add up to the card's tiers and answer kinds),
    scaled to the asked size by largest remainders, at least one row per family."""
    families = list(FAMILIES.values())
    if singles < MIN_SINGLES:  # the CLI refuses such sizes first (cli/tools.py): here it is a caller's bug
        raise ValueError(f"a set needs at least {MIN_SINGLES} single-turn rows (one per family); asked for {singles}")
    exact = {f.name: f.count * singles / DEFAULT_SINGLES for f in families}
    quota = {name: max(1, int(value)) for name, value in exact.items()}
    spare = singles - sum(quota.values())
    by_remainder = sorted(families, key=lambda f: (exact[f.name] - int(exact[f.name]), f.count), reverse=True)
    step = 1 if spare >= 0 else -1
    while spare:
        for f in by_remainder if step > 0 else reversed(by_remainder):
            if spare and (step > 0 or quota[f.name] > 1):
                quota[f.name] += step
                spare -= step
    return quota


def _schedule(singles: int) -> list[Family]:
    """The families' rows interleaved (smooth weighted round robin), so each spreads over the set."""
    quota = quotas(singles)
    families = list(FAMILIES.values())
    order, credit = [], {f.name: 0.0 for f in families}
    for _ in range(singles):
        for f in families:
            credit[f.name] += quota[f.name]
        best = max((f for f in families if quota[f.name] > 0), key=lambda f: credit[f.name])
        credit[best.name] -= singles
        quota[best.name] -= 1
        order.append(best)
    return order


class Spread:
    """What the set has drawn so far, so that chance does not collapse what the validator holds
    a card-size set to: a row is drawn again, for its first BALANCED_ATTEMPTS drafts (a maker that
    cannot draw otherwise keeps its row after them), when
    - its file is of a layout its kind has shown twice while another layout of the kind is not
      shown yet: the six to nine pyprojects a set attaches showed two layouts of three on seeds 8,
      19, 55, 66 and 79 of 0-99 (v25, v26), and the fifth file of a kind now shows its third;
    - its answer's tool already answers `tool_rows` rows (4 % of the call rows): a set's drawn
      wordings of the column statistics put `table.mean` on 4.1 % of seed 148's call rows."""

    BALANCED_ATTEMPTS = 20

    def __init__(self, corpus: Corpus, tool_rows: int) -> None:
        self._layout = {f.file.path: (f.kind, f.facts["layout"]) for f in corpus.files() if "layout" in f.facts}
        self._kinds: dict[str, set[str]] = {}
        for kind, layout in self._layout.values():
            self._kinds.setdefault(kind, set()).add(layout)
        self._shown: dict[str, Counter[str]] = {kind: Counter() for kind in self._kinds}
        self._tool_rows = tool_rows
        self._answers: Counter[str] = Counter()

    def _drawn(self, question: Question) -> list[tuple[str, str]]:
        return [self._layout[f.path] for f in question.files if f.path in self._layout]

    def fits(self, question: Question, attempt: int) -> bool:
        if attempt >= self.BALANCED_ATTEMPTS:
            return True
        layouts_shown = all(self._shown[kind][layout] < 2 or all(self._shown[kind][other] for other in self._kinds[kind])
                            for kind, layout in self._drawn(question))
        return layouts_shown and all(self._answers[tool] < self._tool_rows
                                     for tool in set(reference_tools(question.reference)))

    def add(self, question: Question) -> None:
        for kind, layout in self._drawn(question):
            self._shown[kind][layout] += 1
        self._answers.update(set(reference_tools(question.reference)))


SHOT_FAMILIES = ("log_window", "table_stat", "two_means", "log_window_nth", "near_miss_column:column_spelling")
# the evaluated turn's family by what it takes from the history
DIALOG_FAMILIES = {"args": "dialog_args", "tool": "dialog_tool", "trap,args": "dialog_trap"}


class _Uniques:
    """What the rows placed so far ask, so that no prompt repeats, no test row asks what another
    does, and the shots give no test answer away."""

    def __init__(self) -> None:
        self.prompts: set[str] = set()
        # what every test row asks (`item_keys`): a row that differs from another only by its catalog,
        # wording, provider or an aside asks the model the same thing twice
        self.asked: set[tuple[str, ...]] = set()
        # (question, answer) pairs per split: shots must not give an evaluated answer away
        self.pairs: dict[str, set[tuple[str, str]]] = {"test": set(), "shots": set()}

    def admit(self, *placed: tuple[dict, str, str]) -> bool:
        """(row, split, its rendered prompt): whether the rows are new, and if so they are noted."""
        prompts = [prompt for _, _, prompt in placed]
        keys = [((row["inputs"]["question"], row["outputs"]), split) for row, split, _ in placed]
        asked = [key for row, split, _ in placed if split == "test" for key in item_keys_of(row)]
        other = {"test": "shots", "shots": "test"}
        if (any(p in self.prompts for p in prompts) or any(key in self.pairs[other[split]] for key, split in keys)
                or any(key in self.asked for key in asked) or len(set(asked)) < len(asked)):
            return False
        self.prompts.update(prompts)
        self.asked.update(asked)
        for key, split in keys:
            self.pairs[split].add(key)
        return True


def _fits_card(prompt: str, attempt: int) -> bool:
    """Within the card's prompt lengths; a family that cannot get there in 40 drafts keeps its
    row (the validator's prompt_lengths check then says so)."""
    return attempt >= 40 or CARD_PROMPT_CHARS[0] <= len(prompt) <= CARD_PROMPT_CHARS[1]


class _SetDraw:
    """One set being drawn: its corpus, wordings and providers, and the rows placed so far. Each
    row's drafts draw from their own seeded generator, so the set depends on the seed alone."""

    def __init__(self, plan: SetPlan) -> None:
        self.plan = plan
        self.corpus = build_corpus(plan.seed)
        surface.begin(plan.seed)  # the set's own wordings of the pools that draw them
        self.test: list[dict] = []
        self.shots: list[dict] = []
        self.uniques = _Uniques()
        self.singles = plan.rows - plan.dialogues
        # the card's split of wordings over the evaluated rows: singles first, then the dialogues
        self.wordings = wording_schedule(plan.rows, random.Random(f"{plan.seed}:wordings"))
        # one provider per tool family for the whole set, as one deployment's catalog would be (the
        # card's set names each of its tools one way); another seed draws other providers
        self.served = draw_served(random.Random(f"{plan.seed}:providers"))
        # 1,032 of the card's 1,169 rows call a tool (the rest refuse or ask back)
        call_rows = plan.rows * sum(CARD["answer_kind"][k] for k in ("tool_call", "plan", "calls")) / CARD_ROWS
        self.spread = Spread(self.corpus, int(VARIETY_GOALS["top_tool_share"] * call_rows))

    def schedule(self) -> list[Family]:
        """The family of every single-turn slot: the test rows', then the single shots' (from families
        whose answers vary with the files, so none repeats a test pair)."""
        shot_families = [FAMILIES[name] for name in SHOT_FAMILIES]
        return _schedule(self.singles) + [shot_families[n % len(shot_families)] for n in range(self.plan.single_shots)]

    def draw_single(self, slot: int, family: Family) -> None:
        """The slot's row, drafted until one fits the spread, the card's lengths and is new."""
        seed, in_shots = self.plan.seed, slot >= self.singles
        target = self.shots if in_shots else self.test
        wording = slot - self.singles if in_shots else self.wordings[slot]
        for attempt in range(50):
            rng = random.Random(f"{seed}:{slot}:{attempt}")
            question = family.make(rng, self.corpus)
            if not self.spread.fits(question, attempt):
                continue
            if family.name not in UNTOUCHED:
                question = replace(question, question=with_asides(question.question, rng))
            base_id = f"s{seed}-q{slot}"
            row = _row(question, family, row_id=len(target), base_id=base_id, dialog_id=base_id, turn=0, n_turns=1,
                       needs_history="", wording=wording % len(WORDINGS), rng=rng, served=self.served)
            prompt = rendered(row)
            if not _fits_card(prompt, attempt):
                continue
            if self.uniques.admit((row, "shots" if in_shots else "test", prompt)):
                target.append(row)
                self.spread.add(question)
                return
        raise UniquesExhausted(f"the generator could not draw a question unlike the others for slot {slot} "
                               f"({family.name}): the families run out of distinct questions")

    def draw_dialogue(self, number: int) -> None:
        """The dialogue's earlier turns into the shots and its closing turn into test, drafted until
        they fit; a dialogue with no fitting draft in 50 is left out."""
        kind = DIALOG_KINDS[number % len(DIALOG_KINDS)]
        for attempt in range(50):
            rng = random.Random(f"{self.plan.seed}:dialog:{number}:{attempt}")
            turns, needs = dialogue(kind, rng, self.corpus)
            if not self.spread.fits(turns[-1], attempt):
                continue
            turns[-1] = replace(turns[-1], family=DIALOG_FAMILIES[needs[-1]])
            rows = self._dialogue_rows(number, kind, turns, needs, rng)
            prompt = rendered(rows[-1])
            placed = [(row, "shots", rendered(row)) for row in rows[:-1]] + [(rows[-1], "test", prompt)]
            if _fits_card(prompt, attempt) and self.uniques.admit(*placed):
                self.shots.extend(rows[:-1])
                self.test.append(rows[-1])
                self.spread.add(turns[-1])
                return

    def _dialogue_rows(self, number: int, kind: str, turns: list[Question], needs: list[str],
                       rng: random.Random) -> list[dict]:
        """A dialogue's rows: the earlier turns numbered on in the shots, the closing turn in test."""
        dialog_id = f"s{self.plan.seed}-d{number}"
        wording = self.wordings[self.singles + number]
        dialog_family = FAMILIES["table_stat"]  # the row builder needs one; the derivation names the dialogue kind
        rows = [_row(turn, dialog_family, row_id=len(self.shots) + n if n < len(turns) - 1 else len(self.test),
                     base_id=f"{dialog_id}-t{n}", dialog_id=dialog_id, turn=n, n_turns=len(turns),
                     needs_history=needs[n], wording=wording, rng=rng, served=self.served)
                for n, turn in enumerate(turns)]
        for row in rows:
            row["meta"]["derivation"] = {"maker": f"dialog:{kind}"}
        return rows


def generate(plan: SetPlan) -> tuple[list[dict], list[dict]]:
    """The set's test rows and shots: the single-turn rows by the families' schedule, then the
    dialogues."""
    draw = _SetDraw(plan)
    for slot, family in enumerate(draw.schedule()):
        draw.draw_single(slot, family)
    for number in range(plan.dialogues):
        draw.draw_dialogue(number)
    return draw.test, draw.shots


SET_FILES = ("test.jsonl", "shots.jsonl", "manifest.json")  # what write_set writes, the manifest last


def existing_set(out: Path) -> str | None:
    """What of a set `out` already holds, in a few words ("seed 5, 200 rows, ..."), or None when
    it holds none of a set's files (a new or empty folder, or one with other files only)."""
    present = [name for name in SET_FILES if (out / name).exists()]
    if not present:
        return None
    try:
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        manifest = None
    if not isinstance(manifest, dict):
        if SET_FILES[2] not in present:
            return f"{' and '.join(present)} but no {SET_FILES[2]} (an unfinished set)"
        return " and ".join([*present[:-1], f"a {SET_FILES[2]} that is no set's manifest"])
    said = [f"{key} {manifest[key]}" if key == "seed" else f"{manifest[key]} {key}"
            for key in ("seed", "rows", "dialogues") if isinstance(manifest.get(key), int)]
    if isinstance(manifest.get("generator"), str):
        said.append(" ".join(manifest["generator"].split()))
    return "a generated set (" + ", ".join(said or ["manifest.json"]) + ")"


def write_set(plan: SetPlan, out: Path) -> tuple[Path, Path]:
    test, shots = generate(plan)
    paths = out / SET_FILES[0], out / SET_FILES[1]
    with writing(out, "--out"):
        out.mkdir(parents=True, exist_ok=True)
        for path, rows in zip(paths, (test, shots), strict=True):
            path.write_text("".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows),
                            encoding="utf-8")
        # the manifest last: a folder with one is complete
        (out / SET_FILES[2]).write_text(json.dumps(plan.manifest(test), indent=1) + "\n", encoding="utf-8")
    return paths
