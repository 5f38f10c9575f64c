"""`run --wordings all`: every row asked under every prompt wording its task has (MERA assigns each
row one), so that the spread between wordings is the wording's, on the same rows, and not which
questions happened to get which wording."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fakeserver import FakeServer
from helpers import read_jsonl, run_cli

from merabench.rows.prompts import render_row
from merabench.rows.row import read_bundled
from merabench.tasks import get_task
from merabench.tasks.wordings import task_wordings

SAGE = read_bundled("sage")["test"]
GORILLA = read_bundled("gorillahard")


def run(server: FakeServer, out: Path, tasks: str, *extra: str) -> Any:
    return run_cli("run", "--model", "openai:m", "--base-url", server.url, "--tasks", tasks, "--out", str(out),
                   "--no-progress", "--no-cache", "--wordings", "all", *extra)


def test_every_sage_row_is_asked_under_each_of_the_five_prompts(tmp_path: Path) -> None:
    prompts = task_wordings(get_task("sage"), SAGE).groups[None]
    assert len(prompts) == 5
    with FakeServer() as server:
        done = run(server, tmp_path / "out", "sage")
        assert done.returncode == 0, done.stderr
        bodies = list(server.requests)
    assert len(bodies) == 5 * len(SAGE)
    asked = {}
    for body in bodies:
        text = body["messages"][-1]["content"]
        source = next(r for r in SAGE if text.endswith(r.inputs["source"] + "\n") or r.inputs["source"] in text)
        asked.setdefault(source.id, set()).add(text)
    assert all(len(texts) == 5 for texts in asked.values())
    lines = read_jsonl(tmp_path / "out" / "samples_sage.jsonl")
    assert sorted({line["wording"] for line in lines}) == [0, 1, 2, 3, 4] and len(lines) == 5 * len(SAGE)
    again = run(FakeServer().start(), tmp_path / "out", "sage")  # resumed: nothing asked again
    assert again.returncode == 0 and "0 askings of a row (5 a row) to ask" in again.stderr


def test_a_dialogue_turn_and_its_history_share_the_wording(tmp_path: Path) -> None:
    wordings = task_wordings(get_task("gorillahard"), [*GORILLA["test"], *GORILLA["shots"]]).groups[None]
    turn = next(r for r in GORILLA["test"] if r.meta.get("needs_history"))
    heads = [w.instruction.split("\n")[0][:40] for w in wordings]
    with FakeServer(reply=lambda body: '{"tool": "x", "args": {}}') as server:
        done = run(server, tmp_path / "out", "gorillahard")
        assert done.returncode == 0, done.stderr
        bodies = list(server.requests)
    dialogue = [b for b in bodies if render_row(turn).split("Вопрос:")[-1] in b["messages"][-1]["content"]]
    assert len(dialogue) == 5
    for body in dialogue:
        users = [m["content"] for m in body["messages"] if m["role"] == "user"]
        assert len(users) > 1  # the history is there
        used = {k for k, head in enumerate(heads) for text in users if text.startswith(head)}
        assert len(used) == 1, used  # every turn of it in one wording


def test_a_model_right_under_one_wording_only(tmp_path: Path) -> None:
    """Right under wording 0, wrong under the other four: wording 0 is 1.0 above the mean of the
    others (the whole effect, not shrunk by a mean that holds it), each other one 0.25 below the
    mean of its others, every row's verdict changes with the wording, and the metric itself is
    the mean over the wordings, 0.2."""
    wordings = task_wordings(get_task("gorillahard"), [*GORILLA["test"], *GORILLA["shots"]])
    asked = {render_row(wordings.reworded(row, k)): (k, row.outputs) for row in GORILLA["test"] for k in range(5)}
    assert len(asked) == 5 * len(GORILLA["test"])  # every prompt under every wording is its own

    def reply(body: dict[str, Any]) -> str:
        wording, reference = asked[body["messages"][-1]["content"]]
        return reference if wording == 0 else '{"tool": "x", "args": {}}'

    with FakeServer(reply=reply) as server:
        done = run(server, tmp_path / "out", "gorillahard")
        assert done.returncode == 0, done.stderr
    task = json.loads((tmp_path / "out" / "results.json").read_text())["tasks"]["gorillahard"]
    by = {entry["wording"]: entry for entry in task["by_wording"]["wordings"]}
    assert by[0]["value"] == 1.0 and all(by[w]["value"] == 0.0 for w in (1, 2, 3, 4))
    assert abs(by[0]["vs_others"]["difference"] - 1.0) < 1e-9 and by[0]["vs_others"]["low"] > 0
    assert all(abs(by[w]["vs_others"]["difference"] + 0.25) < 1e-9 for w in (1, 2, 3, 4))
    assert task["metrics"]["wording_flip_rate"] == 1.0
    assert abs(task["metrics"]["sample_pass_rate"] - 0.2) < 1e-9
    assert task["wordings"] == 5 and task["by_wording"]["rows"] == len(GORILLA["test"])


def test_wordings_all_is_kept_apart_from_the_leaderboards_protocol(tmp_path: Path) -> None:
    with FakeServer() as server:
        assert run(server, tmp_path / "out", "sage", "--limit", "5").returncode == 0
        plain = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage", "--out",
                        str(tmp_path / "out"), "--no-progress", "--limit", "5")
    assert plain.returncode == 2 and '--wordings "all" in the folder, "assigned" now' in plain.stderr
    refused = run_cli("submission", "--run", str(tmp_path / "out"), "--allow-unofficial", "--out",
                      str(tmp_path / "s.zip"))
    assert refused.returncode == 2 and "--wordings all" in refused.stderr and not (tmp_path / "s.zip").exists()
