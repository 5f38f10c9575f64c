"""The report of a run that asked its rows several times: a stability line (the flip rate, pass at
k, the spread's split), the figure of each wording on the same rows, and in the row table every
asking of a row beside the first, with the rows whose verdict changes marked for the filter."""

from __future__ import annotations

import random
from pathlib import Path

from fakeserver import FakeServer
from helpers import page_data, run_cli

from merabench.rows.prompts import render_row
from merabench.rows.row import read_bundled

ROWS = read_bundled("gorillahard")["test"]


def test_a_coin_model_s_report_shows_each_asking_and_what_flips(tmp_path: Path) -> None:
    references = {render_row(r): r.outputs for r in ROWS}
    coin = random.Random(5)

    def reply(body: dict) -> str:
        prompt = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
        return references[prompt] if coin.random() < 0.5 else '{"tool": "x", "args": {}}'

    out = tmp_path / "out"
    with FakeServer(reply=reply) as server:
        done = run_cli("run", "--model", "openai:coin", "--base-url", server.url, "--tasks", "gorillahard", "--out",
                       str(out), "--no-progress", "--no-cache", "--repeats", "3")
    assert done.returncode == 0, done.stderr
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "<b>asked 3 repeat(s)</b>: flip_rate" in page and "pass_all_k" in page
    assert "of it within rows (what a rerun of the same question changes)" in page
    rows = page_data(page)["rows"]
    assert len(rows) == len(ROWS)  # a row once in the table, its askings inside it
    for row in rows:
        assert [a[0] for a in row["dr"]] == [0, 1, 2] and all(a[1] is None for a in row["dr"])
        scores = {a[2] for a in row["dr"]}
        assert row["fl"] == (len(scores) > 1)
        assert row["v"] == row["dr"][0][2]  # the table shows the first asking
    assert any(row["fl"] for row in rows) and not all(row["fl"] for row in rows)


def test_wordings_all_shows_each_wording_on_the_same_rows(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = run_cli("run", "--model", "random", "--tasks", "gorillahard", "--wordings", "all", "--out", str(out),
                   "--no-progress")
    assert done.returncode == 0, done.stderr
    page = (out / "report.html").read_text(encoding="utf-8")
    assert f"sample_pass_rate by wording, on the same {len(ROWS)} rows" in page
    rows = page_data(page)["rows"]
    assert all(sorted(a[1] for a in row["dr"]) == [0, 1, 2, 3, 4] for row in rows)
