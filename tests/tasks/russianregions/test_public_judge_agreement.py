"""merabench's RussianRegions judge scores against the public harness's code, end to end.

public_judge_cases.json holds 828 answers (tools/russianregions_judged_answers.py): 13 designed
labels (replies without a number on one or every reading, clamped and decimal scores, think blocks
closed, unclosed, upper case and with the answer inside, an empty answer, failed calls) and 10
fresh simulated runs with realistic answers and judge replies, every label answering every bundled
row. Each case keeps the replies the judge gave to each text the harness asked about; the expected
values come from running the public harness's code outside this repository against a local judge
replaying those replies. Here `merabench score` runs with the harness's judge template against a
judge on 127.0.0.1 that replays the same replies for the same texts. Every row must agree; where a
call failed (no reply) merabench leaves the row out of the judge metrics instead of scoring the
failure 0, the one deliberate difference.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest
from helpers import read_jsonl, run_cli, write_jsonl

from merabench.rows.row import read_bundled
from merabench.tasks import TASKS
from merabench.tasks.base import SampleScore

TASK = TASKS["russianregions"]
HERE = Path(__file__).parent
TABLE = json.loads((HERE / "public_judge_cases.json").read_text(encoding="utf-8"))
TEMPLATE = next(c["template"] for c in json.loads((HERE / "harness_judge_requests.json").read_text(encoding="utf-8"))
                ["cases"] if c["template_name"] == "harness default")
ROWS = {r.id: r for r in read_bundled("russianregions")["test"]}
LABELS = sorted({c["label"] for c in TABLE["cases"]})
ANSWER_OPEN, ANSWER_CLOSE = "### Ответ для оценки:\n", "\n\n### Критерий оценки:"


def tag(k: int) -> str:
    """Marks case k's task text, so the replaying judge knows which case a request is about (the
    task text reaches only the judge's prompt: no score depends on it)."""
    return f" [случай {k}]"


def judged_text(prompt: str) -> str:
    return prompt[prompt.index(ANSWER_OPEN) + len(ANSWER_OPEN):prompt.rindex(ANSWER_CLOSE)]


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[int, dict], dict, list]:
    from fakeserver import FakeServer

    tmp = tmp_path_factory.mktemp("judged")
    rows, preds, replies = [], [], {}
    for k, case in enumerate(TABLE["cases"]):
        row = ROWS[case["row"]].to_dict()
        row["inputs"] = dict(row["inputs"], introduction=row["inputs"]["introduction"] + tag(k))
        row["meta"] = dict(row["meta"], id=k, group_id=LABELS.index(case["label"]) * 1000 + row["meta"]["group_id"])
        rows.append(row)
        preds.append({"id": k, "output": case["answer"]})
        for text, reply in case["judge_replies"]:
            replies[(k, text)] = reply
    asked: list[tuple[int, str]] = []

    def key(body: dict) -> tuple[int, str]:
        prompt = body["messages"][0]["content"]
        k = int(prompt.split("[случай ", 1)[1].split("]", 1)[0])
        return k, judged_text(prompt)

    def plan(n: int, body: dict) -> str:
        asked.append(key(body))
        return "400" if replies.get(key(body), "") is None else "ok"  # a call that fails for good

    server = FakeServer(reply=lambda body: replies[key(body)], plan=plan).start()
    template = tmp / "judge.txt"
    template.write_text(TEMPLATE, encoding="utf-8")
    try:
        done = run_cli("score", "russianregions", "--data", str(write_jsonl(tmp / "rows.jsonl", rows)),
                       "--predictions", str(write_jsonl(tmp / "p.jsonl", preds)), "--out", str(tmp / "s"),
                       "--judge-model", "openai:judge-model", "--judge-base-url", server.url,
                       "--judge-prompt", str(template), "--no-cache")
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr
    samples = {s["id"]: s for s in read_jsonl(tmp / "s" / "samples_russianregions.jsonl")}
    return samples, json.loads((tmp / "s" / "results.json").read_text(encoding="utf-8")), asked


def test_the_table_covers_what_it_claims() -> None:
    cases = TABLE["cases"]
    assert len(cases) >= 800 and sum(c["label"].startswith("fresh_") for c in cases) >= 300
    no_number = [c for c in cases if any(r is not None and not any(ch.isdigit() for ch in r)
                                         for _, r in c["judge_replies"])]
    assert len(no_number) >= 100 and any(c["judge_failed"] for c in cases)
    assert sum("<think>" in c["answer"].lower() for c in cases) >= 100
    assert len({c["expected"]["judge_score"] for c in cases}) >= 4  # 0, 0.5, 0.75, 1


def test_every_row_equals_the_public_harness(scored) -> None:
    samples, _, asked = scored
    differ = []
    for k, case in enumerate(TABLE["cases"]):
        metrics, expected = samples[k]["metrics"], case["expected"]
        if metrics["exact_match"] != expected["exact_match"]:
            differ.append((k, case["label"], "exact_match", metrics["exact_match"], expected["exact_match"]))
        if "judge_score" in metrics:
            if metrics["judge_score"] != expected["judge_score"]:
                differ.append((k, case["label"], "judge_score", metrics["judge_score"], expected["judge_score"]))
        elif not case["judge_failed"]:  # left out only when a call failed
            differ.append((k, case["label"], "judge_score", None, expected["judge_score"]))
    assert not differ, f"{len(differ)} differ, first: {differ[:5]}"
    # the judge was asked about the same texts, as often as the harness asked (failed calls included)
    harness = sorted((k, text) for k, c in enumerate(TABLE["cases"]) for text, _ in c["judge_replies"])
    assert sorted(set(asked)) == sorted(set(harness))


def test_only_failed_calls_leave_rows_out(scored) -> None:
    samples, doc, _ = scored
    left_out = [k for k, s in samples.items() if "judge_score" not in s["metrics"]]
    assert left_out and all(TABLE["cases"][k]["judge_failed"] for k in left_out)
    # a failed reading beside a full mark on the other keeps the row, as the harness's best reading
    kept = [k for k, c in enumerate(TABLE["cases"]) if c["judge_failed"] and "judge_score" in samples[k]["metrics"]]
    assert kept and all(samples[k]["metrics"]["judge_score"] == 1.0 for k in kept)
    counts = doc["tasks"]["russianregions"]["breakdowns"]["counts"]
    replies = [r for c in TABLE["cases"] for _, r in c["judge_replies"]]
    assert counts["judge_replies_without_number"] == sum(r is not None and not any(ch.isdigit() for ch in r)
                                                         for r in replies)
    assert counts["judge_failed_calls"] == sum(r is None for r in replies)
    assert counts["judge_errors"] == len(left_out)


def test_every_aggregate_equals_the_public_harness(scored) -> None:
    samples, _, _ = scored
    by_label: dict[str, list[int]] = defaultdict(list)
    for k, case in enumerate(TABLE["cases"]):
        by_label[case["label"]].append(k)
    for label, ks in by_label.items():
        if any(TABLE["cases"][k]["judge_failed"] for k in ks):
            continue  # the harness counts a failed call as 0 there (see test_only_failed_calls_leave_rows_out)
        rows = [ROWS[TABLE["cases"][k]["row"]] for k in ks]
        scores = [SampleScore(samples[k]["metrics"], samples[k].get("details") or {}) for k in ks]
        got = TASK.aggregate(rows, scores).metrics
        for name, value in TABLE["aggregates"][label].items():
            assert got[name] == pytest.approx(value, abs=1e-12), (label, name)
