"""The fast merge against the reference's own form of the rules (oracle.py): the same edits on
real pairs, on model-like answers, on random token soups and on long rewrites."""

from __future__ import annotations

import json
import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import oracle_merge

from merabench.tasks.sage.align import align
from merabench.tasks.sage.merge import MAX_RUN, VECTOR_RUN, _Run, group_operations, merge
from merabench.tasks.sage.tokenize import tokenize

DATA = Path(__file__).resolve().parents[2] / "data"
SOURCES = (DATA / "ruspellru" / "sources.txt").read_text(encoding="utf-8").splitlines()
CORRECTIONS = (DATA / "ruspellru" / "corrections.txt").read_text(encoding="utf-8").splitlines()


def same_as_oracle(a: str, b: str) -> None:
    o, c = tokenize(a), tokenize(b)
    path = align(o, c)
    assert merge(path, o, c) == oracle_merge(path, o, c), (a, b)


def test_real_pairs_both_ways() -> None:
    rng = random.Random(3)
    for i in rng.sample(range(len(SOURCES)), 500):
        same_as_oracle(SOURCES[i], CORRECTIONS[i])
        same_as_oracle(CORRECTIONS[i], SOURCES[i])


def test_model_like_answers_of_the_agreement_set() -> None:
    rows = {json.loads(line)["meta"]["id"]: json.loads(line) for line in
            (DATA / "sage-agreement" / "rows.jsonl").read_text(encoding="utf-8").splitlines()}
    for run in ("partial", "noisy", "mixed", "source"):
        for line in (DATA / "sage-agreement" / f"answers_{run}.jsonl").read_text(encoding="utf-8").splitlines()[:150]:
            answer = json.loads(line)
            same_as_oracle(rows[answer["id"]]["inputs"]["source"], answer["output"].lstrip())


def test_rewrites_of_whole_sentences() -> None:
    """Long runs of differences, where the rules are tried on many sub-spans."""
    rng = random.Random(5)
    for _ in range(25):
        a, b = rng.sample(range(len(SOURCES)), 2)
        same_as_oracle(SOURCES[a], CORRECTIONS[b])


WORDS = ["кот", "Кот", "кто", "-", "то", "кто-то", ",", ".", "и", "И", "он", "она", "пошёл", "пошел", "дом", "дома",
         "'", "не", "знаю", "незнаю", "по", "этому", "поэтому", "  ", "\n", "ёж", "Еж", "50", "–", "52", "Москва"]


# one-token sides against capitalised ones, equal last words, words of one part of speech
HEADS = ["дом", "Дом", "Дома", "дома", "кот", "Кот", "кота", "Коты", "мама", "Мама", "мамы", ",", ";", "!"]


@settings(max_examples=300, deadline=None)
@given(a=st.lists(st.sampled_from(WORDS), max_size=14), b=st.lists(st.sampled_from(WORDS), max_size=14))
def test_random_token_soups(a: list[str], b: list[str]) -> None:
    same_as_oracle(" ".join(a), " ".join(b))


@settings(max_examples=400, deadline=None)
@given(a=st.lists(st.sampled_from(HEADS), max_size=8), b=st.lists(st.sampled_from(HEADS), max_size=8))
def test_random_soups_of_capitalised_heads_and_nouns(a: list[str], b: list[str]) -> None:
    same_as_oracle(" ".join(a), " ".join(b))


@settings(max_examples=150, deadline=None)
@given(a=st.lists(st.sampled_from(WORDS + HEADS), min_size=VECTOR_RUN, max_size=40),
       b=st.lists(st.sampled_from(WORDS + HEADS), min_size=VECTOR_RUN, max_size=40))
def test_long_random_runs_where_spans_are_sifted_first(a: list[str], b: list[str]) -> None:
    """Runs of VECTOR_RUN ops or more: only the spans where a rule may fire are judged."""
    same_as_oracle(" ".join(a), " ".join(b))


def test_runs_longer_than_the_window_are_merged_in_windows() -> None:
    """The one departure from the reference, on purpose: a run of more than MAX_RUN differences."""
    o = tokenize(" ".join(f"слово{i}" for i in range(MAX_RUN + 50)))
    c = tokenize(" ".join(f"иное{i}" for i in range(MAX_RUN + 50)))
    spans = merge(align(o, c), o, c)
    assert len(spans) == MAX_RUN + 50  # every substitution its own edit, in both windows


def runs_of(a: str, b: str) -> list[_Run]:
    o, c = tokenize(a), tokenize(b)
    return [_Run(group, o, c) for kind, group in group_operations(align(o, c))
            if kind == "DIS" and len(group) >= VECTOR_RUN]


def test_every_span_where_a_rule_fires_is_judged() -> None:
    """The sifting keeps every span `_judge` would act on (fires, or fires as a head) in long
    runs of real rewrites and of random soups, where each rule fires somewhere."""
    rng = random.Random(21)
    texts = [(SOURCES[i], CORRECTIONS[j]) for i, j in (rng.sample(range(len(SOURCES)), 2) for _ in range(40))]
    soup = WORDS + HEADS + ["Быстро", "Зачем"]  # capitalised heads of another part of speech
    texts += [(" ".join(rng.choices(soup, k=30)), " ".join(rng.choices(soup, k=30))) for _ in range(150)]
    # a join only the joined texts show: "Бы не знаю" -> "бы незнаю" in a long run of case changes
    filler = list(dict.fromkeys(w.lower() for line in CORRECTIONS[:20] for w in line.split() if w.isalpha()))[:20]
    texts.append((" ".join([w.capitalize() for w in filler[:10]] + ["Бы", "не", "знаю"] +
                           [w.capitalize() for w in filler[10:]]), " ".join(filler[:10] + ["бы", "незнаю"] + filler[10:])))
    fired: set[str] = set()
    runs = [run for a, b in texts for run in runs_of(a, b)]
    assert len(runs) > 20
    for run in runs:
        size = len(run.ops)
        kept = set(run._candidate_spans())
        for start in range(size):
            for end in range(start + 1, size):
                rule, head_only = run._judge(start, end)
                if rule is not None or head_only:
                    fired.add(rule or "head only")
                    assert (start, end) in kept, (rule, head_only, start, end)
    assert fired >= {_Run.JOIN, _Run.HEAD, _Run.TAIL, _Run.SPLIT, "head only"}
