"""SAGE on the public SAGE benchmark's pairs against the same pairs as MERA rows (not a test).

    python benchmarks/spellcheck_loading.py [--pairs 2000] [--runs 5]

The 2,000 RUSpellRU pairs of tests/data, written once in the hub's layout (RUSpellRU/test.json,
JSON lines of source and correction) and once as MERA rows (a JSONL of instruction, inputs,
outputs, meta) with the very rows `spellcheck:` makes of them. Each side is `merabench run --model
copy --tasks sage` into a fresh folder, timed from process start to exit: loading, rendering,
answering, scoring, results.json and report.html. The two run in alternating pairs after one
untimed run of each; the script prints each pair, the medians and the median of the pairs'
ratios (spellcheck over MERA rows: at most 1.0 is what the issue asks).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path

from measure import run_merabench

from merabench.rows.spellcheck import load_spellcheck

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "ruspellru"


def write_sets(folder: Path, n: int) -> tuple[str, str]:
    """(the spellcheck spec, the MERA rows file) of the same n pairs."""
    sources = (DATA / "sources.txt").read_text(encoding="utf-8").splitlines()[:n]
    corrections = (DATA / "corrections.txt").read_text(encoding="utf-8").splitlines()[:n]
    subset = folder / "RUSpellRU"
    subset.mkdir(parents=True)
    (subset / "test.json").write_text("".join(json.dumps({"source": s, "correction": c}, ensure_ascii=False) + "\n"
                                              for s, c in zip(sources, corrections, strict=True)), encoding="utf-8")
    spec = f"spellcheck:{subset}"
    rows = folder / "rows.jsonl"
    rows.write_text("".join(json.dumps(r.to_dict(), ensure_ascii=False) + "\n" for r in load_spellcheck(spec).rows),
                    encoding="utf-8")
    return spec, str(rows)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        spec, rows = write_sets(base / "data", args.pairs)
        sides = {"spellcheck": spec, "MERA rows": rows}

        def once(side: str, n: int) -> float:
            done = run_merabench(["run", "--model", "copy", "--tasks", "sage", "--data", f"sage={sides[side]}",
                                  "--out", str(base / f"{side.replace(' ', '_')}-{n}"), "--no-progress"])
            if done.exit_code != 0:
                raise SystemExit(f"{side}: exit {done.exit_code}: {done.stderr[-500:]}")
            return done.seconds

        for side in sides:
            once(side, -1)  # untimed: files cached, bytecode written
        pairs = []
        for n in range(args.runs):
            pair = (once("spellcheck", n), once("MERA rows", n))
            pairs.append(pair)
            print(f"pair {n + 1}: spellcheck {pair[0]:.2f} s, MERA rows {pair[1]:.2f} s, ratio {pair[0] / pair[1]:.3f}")
        print(f"{args.pairs} pairs, --model copy, process start to exit: spellcheck median "
              f"{statistics.median(p[0] for p in pairs):.2f} s, MERA rows median {statistics.median(p[1] for p in pairs):.2f} s, "
              f"median ratio {statistics.median(p[0] / p[1] for p in pairs):.3f}")


if __name__ == "__main__":
    main()
