"""report.html at scale (not a test): a 10,000-row run of the three tasks (bundled SAGE and
RussianRegions rows repeated under new ids, a generated GorillaHard set), answered by the
`random` baseline with the prompts logged (the largest page), then the page's size, the seconds
`write_report` takes, and, when a Chromium is installed, how long the page takes to open: the
page records `performance.now()` once its row table is drawn (`data-rows-ready-ms`), read back
with --dump-dom.

    python benchmarks/report_scale.py [FOLDER] [--rows 10000]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from merabench.pipeline import RunConfig, evaluate
from merabench.report.html import write_report
from merabench.rows.row import read_bundled
from merabench.runner.cache import CacheSettings
from merabench.tasks.gorillahard.generator.build.generate import SetPlan, write_set


def repeated(task: str, count: int) -> list[dict]:
    """`count` rows made of the bundled ones, each copy with new ids (and new group ids)."""
    rows = read_bundled(task)["test"]
    groups = 1 + max((int(r.meta.get("group_id", 0)) for r in rows), default=0)
    out = []
    for n in range(count):
        row, copy = rows[n % len(rows)], n // len(rows)
        meta = dict(row.meta, id=n)
        if "group_id" in meta:
            meta["group_id"] = int(meta["group_id"]) + copy * groups
        out.append({"instruction": row.instruction, "inputs": dict(row.inputs), "outputs": row.outputs, "meta": meta})
    return out


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


BASELINE = ('<!doctype html><html><body><script>document.documentElement.setAttribute("data-rows-ready-ms", '
            'String(Math.round(performance.now())))</script></body></html>')


def open_time_ms(page: Path) -> float | None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if browser is None:
        return None
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                               "--disable-component-update", "--disable-sync", "--no-first-run",
                               f"--user-data-dir={profile}", "--dump-dom", page.resolve().as_uri()],
                              capture_output=True, text=True, timeout=120)
    found = re.search(r'data-rows-ready-ms="(\d+)"', done.stdout)
    read = re.search(r'data-page-read-ms="(\d+)"', done.stdout)
    if read:
        print(f"{page.name}: the whole page read (details included) at {read.group(1)} ms")
    return float(found.group(1)) if found else None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", nargs="?", type=Path)
    parser.add_argument("--rows", type=int, default=10_000)
    args = parser.parse_args()
    folder = args.folder or Path(tempfile.mkdtemp(prefix="report-scale-"))
    folder.mkdir(parents=True, exist_ok=True)
    third = args.rows // 3
    sage = write_jsonl(folder / "sage.jsonl", repeated("sage", third))
    regions = write_jsonl(folder / "russianregions.jsonl", repeated("russianregions", third - third % 3))
    gorilla = folder / "gorillahard"
    if not (gorilla / "manifest.json").exists():
        write_set(SetPlan(seed=0, rows=args.rows - 2 * third, dialogues=30), gorilla)
    out = folder / "run"
    evaluate(RunConfig(model="random", tasks=("sage", "russianregions", "gorillahard"),
                       data=(f"sage={sage}", f"russianregions={regions}", f"gorillahard={gorilla}"),
                       out=out, cache=CacheSettings(enabled=False), log_prompts=True))
    started = time.perf_counter()
    page = write_report(out)
    took = time.perf_counter() - started
    rows = sum(1 for name in ("sage", "russianregions", "gorillahard")
               for _ in (out / f"samples_{name}.jsonl").open(encoding="utf-8"))
    opened = open_time_ms(page)
    empty = folder / "empty.html"
    empty.write_text(BASELINE, encoding="utf-8")
    floor = open_time_ms(empty)  # the same browser on an empty page: what this machine adds today
    print(f"rows {rows:,} · report.html {page.stat().st_size / 1e6:.2f} MB · write_report {took:.2f} s · "
          + (f"open in Chromium {opened:.0f} ms to the row table drawn (an empty page: {floor:.0f} ms)"
             if opened is not None and floor is not None else "no Chromium"))


if __name__ == "__main__":
    main()
