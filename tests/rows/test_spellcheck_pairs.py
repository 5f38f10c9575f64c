"""SAGE rows from the public SAGE benchmark's gold pairs (`--data sage=spellcheck:SUBSET|PATH`),
on a copy in the hub's layout made from real RUSpellRU pairs (tests/data/ruspellru); never the
network."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from helpers import RUSPELLRU, read_jsonl, run_cli

from merabench.rows.row import read_bundled
from merabench.rows.spellcheck import load_spellcheck

PAIRS = RUSPELLRU
N = 30


def _pairs(n: int = N) -> list[dict[str, str]]:
    sources = (PAIRS / "sources.txt").read_text(encoding="utf-8").splitlines()
    corrections = (PAIRS / "corrections.txt").read_text(encoding="utf-8").splitlines()
    return [{"source": s, "correction": c, "domain": "aranea"} for s, c in zip(sources[:n], corrections[:n], strict=True)]


def _hub_layout(folder: Path) -> Path:
    """data/RUSpellRU/{test,train}.json as the hub keeps them (JSON lines)."""
    subset = folder / "RUSpellRU"
    subset.mkdir(parents=True)
    for split, part in (("test", _pairs()), ("train", _pairs(N + 5)[N:])):
        (subset / f"{split}.json").write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in part),
                                              encoding="utf-8")
    return subset


def _run(spec: str, model: str, out: Path, *extra: str):
    return run_cli("run", "--model", model, "--tasks", "sage", "--data", f"sage=spellcheck:{spec}", "--out", str(out),
                   "--no-progress", *extra)


def test_the_reference_scores_one_and_the_copy_baseline_below_with_the_tasks_prompts(tmp_path: Path) -> None:
    subset = _hub_layout(tmp_path / "data")
    runs = {m: _run(str(subset), m, tmp_path / m) for m in ("reference", "copy")}
    for model, done in runs.items():
        assert done.returncode == 0, (model, done.stderr)
        assert "public SAGE benchmark's pairs, not MERA's SAGE test set" in done.stderr
    scores = {m: json.loads((tmp_path / m / "results.json").read_text())["tasks"]["sage"] for m in runs}
    assert scores["reference"]["metrics"]["errant_f1"] == 1.0 and scores["reference"]["n"] == N
    assert scores["copy"]["metrics"]["errant_f1"] < 0.5
    assert scores["copy"]["source"] == f"spellcheck:{subset}"
    prompts = {r.instruction for r in read_bundled("sage")["test"]}
    data = load_spellcheck(f"spellcheck:{subset}")
    assert [r.instruction for r in data.rows[:5]] == [r.instruction for r in data.rows[5:10]]  # in rotation
    assert {r.instruction for r in data.rows} == prompts  # the task's own five
    assert [r.inputs["source"] for r in data.rows] == [p["source"] for p in _pairs()]
    records = read_jsonl(tmp_path / "copy" / "samples_sage.jsonl")
    assert [r["id"] for r in records] == list(range(N))


def test_ids_are_stable_and_a_split_picks_its_file(tmp_path: Path) -> None:
    subset = _hub_layout(tmp_path / "data")
    first, again = load_spellcheck(f"spellcheck:{subset}"), load_spellcheck(f"spellcheck:{subset}")
    assert [(r.id, r.outputs) for r in first.rows] == [(r.id, r.outputs) for r in again.rows]
    assert len(load_spellcheck(f"spellcheck:{subset}", split="train").rows) == 5


@pytest.mark.parametrize("kind", ["jsonl", "json list", "csv", "parquet", "folder of files"])
def test_each_local_form_reads_the_same_rows(tmp_path: Path, kind: str) -> None:
    pairs = _pairs()
    if kind == "jsonl":
        path = tmp_path / "pairs.jsonl"
        path.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pairs), encoding="utf-8")
    elif kind == "json list":
        path = tmp_path / "pairs.json"
        path.write_text(json.dumps(pairs, ensure_ascii=False), encoding="utf-8")
    elif kind == "csv":
        path = tmp_path / "pairs.csv"
        with path.open("w", encoding="utf-8", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=["source", "correction", "domain"])
            writer.writeheader()
            writer.writerows(pairs)
    elif kind == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        path = tmp_path / "0000.parquet"
        pq.write_table(pa.Table.from_pylist(pairs), path)
    else:
        path = tmp_path / "parts"
        path.mkdir()
        for n, chunk in enumerate((pairs[:10], pairs[10:])):
            (path / f"part-{n}.jsonl").write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in chunk),
                                                  encoding="utf-8")
    rows = load_spellcheck(f"spellcheck:{path}").rows
    assert [(r.inputs["source"], r.outputs) for r in rows] == [(p["source"], p["correction"]) for p in pairs]


def _no_correction(tmp_path: Path) -> str:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"source": "превет", "target": "привет"}, ensure_ascii=False) + "\n", encoding="utf-8")
    return f"sage=spellcheck:{path}"


def _two_formats(tmp_path: Path) -> str:
    subset = _hub_layout(tmp_path / "data")
    (subset / "test.jsonl").write_text((subset / "test.json").read_text(encoding="utf-8"), encoding="utf-8")
    return f"sage=spellcheck:{subset}"


@pytest.mark.parametrize(("spec", "said"), [
    pytest.param(_two_formats, "in more than one format", id="one split twice"),
    pytest.param(lambda t: f"sage=spellcheck:{t / 'nowhere'}", "no such file or folder", id="missing"),
    pytest.param(_no_correction, "needs string 'source' and 'correction'", id="no correction column"),
    pytest.param(lambda t: "spellcheck:RUSpellRU", "the spellcheck pairs are SAGE rows", id="for every task"),
    pytest.param(lambda t: "sage=spellcheck:RUSpellRU", "offline mode is on", id="offline, not cached"),
])
def test_what_cannot_be_read_is_one_line_pointing_to_the_local_form(tmp_path: Path, spec, said: str) -> None:
    done = run_cli("run", "--model", "copy", "--data", spec(tmp_path), "--out", str(tmp_path / "o"), "--no-progress",
                   env={"HF_HUB_OFFLINE": "1"})
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "o").exists()
    if "offline" in said:
        assert "--data sage=spellcheck:PATH" in done.stderr


def test_a_submission_refuses_a_run_on_the_public_pairs(tmp_path: Path) -> None:
    subset = _hub_layout(tmp_path / "data")
    assert _run(str(subset), "reference", tmp_path / "r", "--preset", "mera").returncode == 0
    done = run_cli("submission", "--run", str(tmp_path / "r"), "--out", str(tmp_path / "s.zip"), "--allow-incomplete")
    assert done.returncode == 2 and "the public SAGE benchmark's pairs" in done.stderr
