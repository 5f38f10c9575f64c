"""Saved answers for `merabench score`: {id: answer text}.

Accepted: JSONL `{"id": <meta.id>, "output": "..."}` (merabench's own samples files too), a MERA
submission JSON `{"data": {"test": [{"outputs", "meta": {"id"}}]}}` or a ZIP of those, and
lm-evaluation-harness `samples_*.jsonl` (`doc.meta.id` with `filtered_resps` or `resps`).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from merabench.errors import DataError


def _from_line(obj: Any, *, file: str, line: int) -> tuple[int, str | None]:
    if not isinstance(obj, dict):
        raise DataError("a prediction must be a JSON object", file=file, line=line)
    if "doc" in obj:  # lm-eval samples line
        doc = obj["doc"] if isinstance(obj["doc"], dict) else {}
        row_id = (doc.get("meta") or {}).get("id", obj.get("doc_id"))
        resp = obj.get("filtered_resps") or obj.get("resps") or [None]
        while isinstance(resp, list):
            resp = resp[0] if resp else None
        text = resp
    else:
        row_id = obj.get("id")
        if row_id is None and isinstance(obj.get("meta"), dict):
            row_id = obj["meta"].get("id")
        text = obj.get("output", obj.get("outputs"))
        if obj.get("status") == "error":  # a merabench samples line whose request failed
            text = None
    if isinstance(row_id, bool) or not isinstance(row_id, int):
        raise DataError(f"needs an integer id, got {row_id!r}", file=file, line=line, field="id")
    if text is not None and not isinstance(text, str):
        raise DataError(f"the answer must be a string, got {type(text).__name__}", file=file, line=line,
                        field="output", row_id=row_id)
    return row_id, text


def _from_submission(doc: Any, *, file: str) -> dict[int, str | None]:
    try:
        items = doc["data"]["test"]
    except (KeyError, TypeError):
        raise DataError('expected {"data": {"test": [...]}}', file=file) from None
    return dict(_from_line(item, file=file, line=i) for i, item in enumerate(items))


def load_predictions(path: Path, task_mera_name: str | None = None) -> dict[int, str | None]:
    """Answers by row id; None where the saved record says the request failed."""
    if not path.exists():
        raise DataError("no such file", file=str(path))
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as zf:
            names = [n for n in zf.namelist() if n.endswith(".json")]
            wanted = f"{task_mera_name}.json" if task_mera_name else None
            if wanted not in names:
                raise DataError(f"the ZIP has no {wanted} (has: {', '.join(names)})", file=str(path))
            return _from_submission(json.loads(zf.read(wanted)), file=f"{path}!{wanted}")
    if path.suffix == ".json":
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise DataError(f"not valid JSON ({exc.msg})", file=str(path), line=exc.lineno) from None
        return _from_submission(doc, file=str(path))
    predictions: dict[int, str | None] = {}
    with path.open(encoding="utf-8") as fh:
        for lineno, text in enumerate(fh, start=1):
            if not text.strip():
                continue
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                raise DataError(f"not valid JSON ({exc.msg})", file=str(path), line=lineno) from None
            row_id, answer = _from_line(obj, file=str(path), line=lineno)
            predictions[row_id] = answer
    return predictions
