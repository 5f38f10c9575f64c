"""The scorer against the reference: per-row scores of the public scorer (shared/data/sage-agreement)
and a plain full-matrix alignment on real pairs."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import oracle_align

from merabench.tasks.sage import align as align_module
from merabench.tasks.sage.align import align, align_matrix
from merabench.tasks.sage.metrics import score_example
from merabench.tasks.sage.tokenize import tokenize

DATA = Path(__file__).resolve().parents[2] / "data"  # copies of shared/data, so a bare clone runs them
AGREEMENT = DATA / "sage-agreement"
RUSPELLRU = DATA / "ruspellru"


def load_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def expected() -> dict:
    return json.loads((AGREEMENT / "expected.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("run", ["gold", "source", "partial", "noisy", "mixed", "leading_space", "empty", "trailing_ws"])
def test_every_row_scores_as_the_reference_scorer(run: str, expected: dict) -> None:
    rows = {r["meta"]["id"]: r for r in load_jsonl(AGREEMENT / "rows.jsonl")}
    answers = {a["id"]: a["output"] for a in load_jsonl(AGREEMENT / f"answers_{run}.jsonl")}
    per_id = expected["runs"][run]["per_id"]
    assert len(per_id) == 400
    wrong = []
    got_rows = []
    for row_id, want in per_id.items():
        row = rows[int(row_id)]
        got = score_example(row["inputs"]["source"], row["outputs"], answers[int(row_id)]).metrics
        got_rows.append(got)
        for name in ("spell_f1", "punct_f1", "errant_f1"):
            if abs(got[name] - want[name]) > 1e-9:  # rounded as the reference rounds: equal, not near
                wrong.append((row_id, name, got[name], want[name]))
    assert not wrong, wrong[:5]
    means = {k: sum(g[k] for g in got_rows) / len(got_rows) for k in ("spell_f1", "punct_f1")}
    # the file writes its means to six decimals
    assert means == pytest.approx({k: expected["runs"][run]["means"][k] for k in means}, abs=5e-7)


def pairs() -> list[tuple[str, str]]:
    sources = (RUSPELLRU / "sources.txt").read_text(encoding="utf-8").splitlines()
    corrections = (RUSPELLRU / "corrections.txt").read_text(encoding="utf-8").splitlines()
    return list(zip(sources, corrections, strict=True))


def test_the_fast_aligner_equals_a_plain_full_matrix_on_real_pairs() -> None:
    rng = random.Random(7)
    sample = rng.sample(pairs(), 400)
    for source, correction in sample:
        for a, b in ((source, correction), (correction, source)):
            o, c = tokenize(a), tokenize(b)
            assert align(o, c) == oracle_align(o, c), (a, b)


def test_the_matrix_fill_equals_a_plain_full_matrix_on_real_pairs_and_rewrites() -> None:
    rng = random.Random(8)
    all_pairs = pairs()
    for n, (source, correction) in enumerate(rng.sample(all_pairs, 200)):
        other = all_pairs[rng.randrange(len(all_pairs))][1] if n % 4 == 0 else correction
        o, c = tokenize(source), tokenize(other)
        assert align_matrix(o, c)[0] == oracle_align(o, c), (source, other)


def test_long_texts_with_adjacent_equal_length_blocks_swapped() -> None:
    """Two blocks of the same length swapped in a long text: transposition and substitution paths
    tie or nearly tie, and the reference breaks the tie by its own order (scoring.md)."""
    rng = random.Random(11)
    words = " ".join(c for _, c in pairs()).split()
    for _ in range(40):
        size = rng.randrange(2, 12)
        a = " ".join(rng.choice(words) for _ in range(size))
        b = " ".join(rng.choice(words) for _ in range(size))
        before = " ".join(rng.choice(words) for _ in range(rng.randrange(120, 200)))
        after = " ".join(rng.choice(words) for _ in range(rng.randrange(0, 60)))
        o, c = tokenize(f"{before} {a} {b} {after}"), tokenize(f"{before} {b} {a} {after}")
        assert len(o) > 120
        assert align(o, c) == oracle_align(o, c), size


def test_long_real_texts_align_as_the_plain_full_matrix() -> None:
    rng = random.Random(12)
    all_pairs = pairs()
    for _ in range(4):
        chosen = rng.sample(all_pairs, 12)
        joiner = rng.choice([" ", "\n"])
        o = tokenize(joiner.join(s for s, _ in chosen))
        c = tokenize(joiner.join(c for _, c in chosen))
        assert len(o) > 120
        assert align(o, c) == oracle_align(o, c)


# few distinct tokens, in both cases: windows of the same multiset everywhere, and ties
SOUP = ["кот", "Кот", "дом", "дома", ",", ".", "и", "не", "знаю", "он", "она"]


@settings(max_examples=200, deadline=None)
@given(a=st.lists(st.sampled_from(SOUP), max_size=30), cuts=st.lists(st.integers(0, 30), max_size=4),
       noise=st.lists(st.sampled_from(SOUP), max_size=4))
def test_the_matrix_fill_equals_a_plain_full_matrix_on_shuffled_soups(a: list[str], cuts: list[int],
                                                                      noise: list[str]) -> None:
    """The other side is the same soup with pieces swapped around (transpositions) and a few
    tokens more: the shortest-window search and its stops are exercised on every cell."""
    b = list(a)
    for cut in cuts:
        b = b[cut % (len(b) or 1):] + b[:cut % (len(b) or 1)] if cut % 3 else b[::-1]
    b[len(b) // 2:len(b) // 2] = noise
    o, c = tokenize(" ".join(a)), tokenize(" ".join(b))
    assert align_matrix(o, c)[0] == oracle_align(o, c)


@pytest.mark.parametrize("collide", ["every cell", "every diagonal"])
def test_hash_collisions_fall_back_to_the_reference_search(collide: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Forced collisions of the grouping hash: all cells in one group (each one's neighbours on
    other diagonals), or each diagonal one group whatever its windows hold: the plain search
    decides where the neighbours are not the cell's own, and the alignment is the reference's."""
    if collide == "every cell":
        monkeypatch.setattr(align_module, "_MIX", np.uint64(0))
    else:
        monkeypatch.setattr(align_module, "_group_hashes", lambda po, pc, diagonal_weight: diagonal_weight.copy())
    rng = random.Random(9)
    cases = [(s, c) for s, c in rng.sample(pairs(), 30)]
    cases += [(" ".join(rng.choices(SOUP, k=25)), " ".join(rng.choices(SOUP, k=22))) for _ in range(20)]
    for a, b in cases:
        o, c = tokenize(a), tokenize(b)
        assert align_matrix(o, c)[0] == oracle_align(o, c), (a, b)


def test_reversed_and_shuffled_texts_align_as_the_plain_full_matrix() -> None:
    """Every window a permutation somewhere: many transpositions win and each is checked."""
    rng = random.Random(13)
    words = " ".join(c for _, c in pairs()).split()
    for n in range(8):
        chosen = words[n * 60:n * 60 + rng.randrange(30, 60)]
        other = list(reversed(chosen)) if n % 2 else rng.sample(chosen, len(chosen))
        o, c = tokenize(" ".join(chosen)), tokenize(" ".join(other))
        assert align_matrix(o, c)[0] == oracle_align(o, c)
        assert align(o, c) == oracle_align(o, c)


def test_window_multisets_are_compared_exactly() -> None:
    rng = np.random.default_rng(5)
    o_low, c_low = rng.integers(0, 4, 300), rng.integers(0, 4, 300)
    size = rng.integers(1, 12, 500)
    o_start, c_start = rng.integers(0, 288, 500), rng.integers(0, 288, 500)
    got = align_module._same_multisets(o_low, c_low, o_start, c_start, size)
    want = [sorted(o_low[a:a + k]) == sorted(c_low[b:b + k]) for a, b, k in zip(o_start, c_start, size, strict=True)]
    assert got.tolist() == want and 0 < sum(want) < len(want)


@pytest.mark.parametrize("shape", [(1, 500), (500, 1), (2, 300), (300, 2), (0, 3), (3, 0)])
def test_thin_and_empty_matrices(shape: tuple[int, int]) -> None:
    rng = random.Random(sum(shape))
    o, c = (tokenize(" ".join(rng.choices(SOUP, k=size))) for size in shape)
    assert align_matrix(o, c)[0] == oracle_align(o, c)
    assert align(o, c) == oracle_align(o, c)
