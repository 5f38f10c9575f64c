"""MERA submission ZIPs: write one from a run folder, and check one before it is uploaded.

A submission is a ZIP with one JSON per task at its top level, named SAGE.json,
RussianRegions.json, GorillaHard.json, each `{"data": {"test": [{"outputs": "<answer>",
"meta": {"id": <int>}}, ...]}}` with one entry per test row, ids unique and complete.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from merabench.errors import DataError
from merabench.samples import read_records, samples_path
from merabench.tasks import TASKS


def write_submission(run_dir: Path, out: Path) -> dict[str, int]:
    """Write the ZIP; returns the number of answers per task. Every row must have an answer."""
    entries: dict[str, list[dict]] = {}
    for task in TASKS.values():
        path = samples_path(run_dir, task.name)
        if not path.exists():
            continue
        records = read_records(path)
        failed = sorted(i for i, r in records.items() if r.get("status") != "ok")
        if failed:
            raise DataError(f"{len(failed)} row(s) have no answer (first ids: {failed[:5]}); rerun the same "
                            "command to retry them before submitting", file=str(path))
        # the scored answer (think blocks removed, as the harness's think_end_token does) when it differs
        entries[task.mera_name] = [{"outputs": r.get("answer", r["output"]), "meta": {"id": i}}
                                   for i, r in sorted(records.items())]
    if not entries:
        raise DataError("no samples_<task>.jsonl in this folder: is it a `merabench run` folder?", file=str(run_dir))
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, items in entries.items():
            zf.writestr(f"{name}.json", json.dumps({"data": {"test": items}}, ensure_ascii=False))
    return {name: len(items) for name, items in entries.items()}


def check_submission(path: Path, expected_ids: dict[str, set[int]] | None = None) -> list[str]:
    """Problems with a submission ZIP; `expected_ids` (by MERA name) adds the completeness check."""
    if not zipfile.is_zipfile(path):
        return [f"{path} is not a ZIP file"]
    known = {t.mera_name for t in TASKS.values()}
    problems = []
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        for name in names:
            stem = name.removesuffix(".json")
            if "/" in name or not name.endswith(".json") or stem not in known:
                problems.append(f"{name}: not one of {sorted(f'{k}.json' for k in known)} at the top level")
                continue
            try:
                items = json.loads(zf.read(name))["data"]["test"]
            except (ValueError, KeyError, TypeError):
                problems.append(f'{name}: not {{"data": {{"test": [...]}}}}')
                continue
            ids = []
            for n, item in enumerate(items):
                if not isinstance(item, dict) or not isinstance(item.get("outputs"), str):
                    problems.append(f"{name}: entry {n} has no string outputs")
                    continue
                row_id = (item.get("meta") or {}).get("id")
                if isinstance(row_id, bool) or not isinstance(row_id, int):
                    problems.append(f"{name}: entry {n} has no integer meta.id")
                    continue
                ids.append(row_id)
            duplicates = sorted({i for i in ids if ids.count(i) > 1})
            if duplicates:
                problems.append(f"{name}: duplicate ids {duplicates[:5]}")
            if expected_ids and stem in expected_ids:
                missing = sorted(expected_ids[stem] - set(ids))
                extra = sorted(set(ids) - expected_ids[stem])
                if missing:
                    problems.append(f"{name}: {len(missing)} test row(s) missing (first {missing[:5]})")
                if extra:
                    problems.append(f"{name}: {len(extra)} id(s) not in the test split (first {extra[:5]})")
    if not names:
        problems.append("the ZIP is empty")
    return problems
