"""`run --repeats K` against a real server whose model is a coin: right with chance 0.5, the coin
thrown once per prompt (a rerun agrees) or afresh for every request (a rerun is a new draw).

What the figures must then be, from a known truth: with the coin thrown once per prompt, every
repeat of a row gets the same verdict, so K repeats narrow nothing (standard error
sqrt(p(1-p)/rows)) and no row flips; thrown afresh, the row means of K independent draws give a
standard error of sqrt(0.25/(K rows)), a row flips unless all K agree (1 - 2 * 0.5^K = 0.875 for
K = 4) and passes all K with chance 0.5^K = 0.0625."""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from pathlib import Path
from statistics import fmean, variance
from typing import Any

import pytest
from fakeserver import FakeServer
from helpers import read_jsonl, run_cli

from merabench.rows.prompts import render_row
from merabench.rows.row import Row, read_local

WRONG = '{"tool": "nothing.here", "args": {}}'


class Coin:
    """A model right with chance 0.5: per prompt (`afresh` False) or per request. Each throw is a
    hash of what was asked (the prompt, the request's seed, how often that pair came before), not
    a draw in arrival order: the runner's threads send in an order of their own, and a test whose
    coin landed by that order passed or failed by the scheduler's luck."""

    def __init__(self, rows: list[Row], *, afresh: bool) -> None:
        self.references = {render_row(r): r.outputs for r in rows}
        self.afresh = afresh
        self.seeds: list[Any] = []
        self.asked: Counter[tuple[str, Any]] = Counter()

    def reply(self, body: dict[str, Any]) -> str:
        self.seeds.append(body.get("seed"))
        prompt = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
        thrown = prompt
        if self.afresh:
            self.asked[prompt, body.get("seed")] += 1
            thrown = f"{prompt}\0{body.get('seed')}\0{self.asked[prompt, body.get('seed')]}"
        right = hashlib.sha256(thrown.encode()).digest()[0] < 128
        return self.references[prompt] if right else WRONG


def run(server: FakeServer, data: Path, out: Path, *extra: str) -> dict[str, Any]:
    done = run_cli("run", "--model", "openai:coin", "--base-url", server.url, "--tasks", "gorillahard",
                   "--data", f"gorillahard={data}", "--out", str(out), "--no-progress", "--seed", "7", *extra)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads((out / "results.json").read_text())["tasks"]["gorillahard"]


def row_draws(folder: Path) -> dict[str, list[float]]:
    """{row id: its sample_pass_rate in each repeat}, from a run's samples file."""
    draws: dict[str, list[float]] = {}
    for line in read_jsonl(folder / "samples_gorillahard.jsonl"):
        draws.setdefault(line["id"], []).append(line["metrics"]["sample_pass_rate"])
    return draws


def within(value: float, target: float, share: float = 0.10) -> bool:
    return abs(value - target) <= share * target


def test_a_coin_thrown_once_per_prompt_narrows_nothing_and_never_flips(generated: Path, tmp_path: Path) -> None:
    rows = read_local(generated)["test"]
    coin = Coin(rows, afresh=False)
    with FakeServer(reply=coin.reply) as server:
        task = run(server, generated, tmp_path / "out", "--repeats", "4", "--no-cache")
        assert len(server.requests) == 4 * len(rows)
    n = len(rows)
    p = task["metrics"]["sample_pass_rate"]
    assert 0.4 < p < 0.6
    assert within(task["se"]["sample_pass_rate"], math.sqrt(p * (1 - p) / n))
    assert task["metrics"]["flip_rate"] == 0.0
    assert task["metrics"]["pass_at_k"] == task["metrics"]["pass_all_k"] == pytest.approx(p, abs=1e-9)
    assert task["repeats"] == 4 and task["rows"] == n and task["n_answered"] == 4 * n
    assert task["variance"]["within_rows"] == 0.0 and task["variance"]["within_share"] == 0.0
    assert sorted(set(coin.seeds)) == [7, 8, 9, 10]  # the k-th repeat sends seed + k
    lines = read_jsonl(tmp_path / "out" / "samples_gorillahard.jsonl")
    assert len(lines) == 4 * n and sorted({line["repeat"] for line in lines}) == [0, 1, 2, 3]

    with FakeServer(reply=coin.reply) as server:  # raising K on a finished folder asks only the new repeats
        more = run(server, generated, tmp_path / "out", "--repeats", "6", "--no-cache")
        assert len(server.requests) == 2 * n
    assert more["repeats"] == 6 and more["n_answered"] == 6 * n


@pytest.fixture(scope="module")
def afresh(generated: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], int]:
    """The coin thrown afresh, 4 repeats of every row at seed 7: the folder, its results and the
    requests the server got (the run the compare test takes as its first model too)."""
    out = tmp_path_factory.mktemp("afresh") / "out"
    with FakeServer(reply=Coin(read_local(generated)["test"], afresh=True).reply) as server:
        task = run(server, generated, out, "--repeats", "4", "--no-cache")
        return out, task, len(server.requests)


def test_a_coin_thrown_afresh_per_request(generated: Path, afresh: tuple[Path, dict[str, Any], int]) -> None:
    _, task, asked = afresh
    n = len(read_local(generated)["test"])
    assert asked == 4 * n
    assert within(task["se"]["sample_pass_rate"], math.sqrt(0.25 / (4 * n)))
    assert task["metrics"]["flip_rate"] == pytest.approx(0.875, abs=0.04)
    assert task["metrics"]["pass_all_k"] == pytest.approx(0.0625, abs=0.03)
    assert task["metrics"]["pass_at_k"] == pytest.approx(0.9375, abs=0.03)
    assert task["variance"]["within_share"] > 0.9  # nearly all of the spread is the coin, not the question
    low, high = task["ci95"]["sample_pass_rate"]
    assert low < 0.5 < high and within(high - low, 2 * 1.96 * math.sqrt(0.25 / (4 * n)), 0.15)


def test_one_repeat_is_the_run_it_always_was(generated: Path, tmp_path: Path) -> None:
    """--repeats 1 sends the same requests, under the same cache keys, into the same files: a
    cache filled by a plain run answers the base draw of a K = 3 run, which asks only repeats 1, 2."""
    rows = read_local(generated)["test"]
    coin = Coin(rows, afresh=False)
    cache = tmp_path / "cache.sqlite"
    with FakeServer(reply=coin.reply) as server:
        plain = run(server, generated, tmp_path / "plain", "--cache-path", str(cache))
        assert len(server.requests) == len(rows)
        first_bodies = list(server.requests)
        drawn = run(server, generated, tmp_path / "drawn", "--repeats", "3", "--cache-path", str(cache))
        assert len(server.requests) == 3 * len(rows)
    assert all(body.get("seed") == 7 for body in first_bodies)
    lines = read_jsonl(tmp_path / "plain" / "samples_gorillahard.jsonl")
    assert len(lines) == len(rows) and not any("repeat" in line or "wording" in line for line in lines)
    for key in ("repeats", "se", "variance", "by_draw"):
        assert key not in plain
    assert "flip_rate" not in plain["metrics"]
    assert drawn["by_draw"][0]["metrics"]["sample_pass_rate"] == plain["metrics"]["sample_pass_rate"]


def test_repeat_seed_same_keeps_the_seed_but_caches_each_repeat_apart(generated: Path, tmp_path: Path) -> None:
    rows = read_local(generated)["test"][:40]
    coin = Coin(rows, afresh=True)
    cache = tmp_path / "cache.sqlite"
    with FakeServer(reply=coin.reply) as server:
        args = ("--repeats", "2", "--repeat-seed", "same", "--cache-path", str(cache), "--limit", "40")
        first = run(server, generated, tmp_path / "a", *args)
        assert len(server.requests) == 80 and set(coin.seeds) == {7}
        again = run(server, generated, tmp_path / "b", *args)  # another folder, the same cache: nothing asked
        assert len(server.requests) == 80
        refused = run_cli("run", "--model", "openai:coin", "--base-url", server.url, "--tasks", "gorillahard",
                          "--data", f"gorillahard={generated}", "--out", str(tmp_path / "a"), "--no-progress",
                          "--seed", "7", "--repeats", "3", "--limit", "40")
        assert len(server.requests) == 80
    assert first["metrics"] == again["metrics"]
    # the folder's repeats were made with the seed kept: more with seed + k would mix two protocols
    assert refused.returncode == 2 and '--repeat-seed "same" in the folder, "offset" now' in refused.stderr


def test_compare_of_two_repeated_runs_says_what_it_could_see(generated: Path, tmp_path: Path,
                                                             afresh: tuple[Path, dict[str, Any], int]) -> None:
    """Two models that are the same coin, each run with 4 repeats: the paired differences of row
    means have variance 2 * 0.25 / 4, so the MDE is 2.80 * sqrt(0.125 / rows); a target of a
    third of it needs 9 times the rows, or, since all of the spread is within rows, 9 times the
    repeats: 36 at the truth, which the noise of the between-rows estimate moves (this coin's
    estimate, a little over one standard error of it, makes 62; the estimate is clipped at 0, so
    never below about 33). The spread itself is checked against the samples: each row's repeats
    and the differences of the row means, read from the two runs' files."""
    rows = read_local(generated)["test"]
    n = len(rows)
    first = afresh[0]  # one model: the coin thrown from seed 7; the other below from seed 100
    with FakeServer(reply=Coin(rows, afresh=True).reply) as server:
        run(server, generated, tmp_path / "b", "--repeats", "4", "--no-cache", "--seed", "100")
    expected = 2.8016 * math.sqrt(0.125 / n)
    target = round(expected / 3, 4)
    done = run_cli("compare", str(first), str(tmp_path / "b"), "--target", str(target),
                   "--json", str(tmp_path / "c.json"), env={"COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    power = json.loads((tmp_path / "c.json").read_text())["power"]["gorillahard"]["sample_pass_rate"]
    assert within(power["mde"], expected, 0.10)
    assert within(power["rows_needed"], 9 * n, 0.25)
    spread = power["spread"]
    assert within(spread["within_first"], 0.25) and within(spread["within_second"], 0.25)
    a, b = row_draws(first), row_draws(tmp_path / "b")
    within_a, within_b = (fmean(variance(values) for values in draws.values()) for draws in (a, b))
    differences = variance([fmean(a[row]) - fmean(b[row]) for row in a])
    assert spread["within_first"] == pytest.approx(within_a) and spread["within_second"] == pytest.approx(within_b)
    assert spread["between_rows"] == pytest.approx(max(0.0, differences - within_a / 4 - within_b / 4), rel=1e-3)
    # the coin's rows share nothing: the part between rows is 0 up to its estimate's noise (the
    # variance of n differences of variance 0.125 has a standard error of 0.125 * sqrt(2 / (n - 1)))
    assert abs(spread["between_rows"]) <= 3 * 0.125 * math.sqrt(2 / (n - 1))
    # at the truth (nothing between rows) a third of the MDE takes 9 times the repeats; the advice
    # divides by what that estimate leaves, so it is read back from the spread the comparison showed
    allowed = n * (target / 2.8016) ** 2
    within_both = spread["within_first"] + spread["within_second"]
    assert within(within_both / allowed, 36)
    assert power["repeats_needed"] == math.ceil(within_both / (allowed - spread["between_rows"]))
    said = " ".join(done.stdout.split())
    assert f"with these {n:,} rows the smallest difference this comparison can detect is" in said
    assert f"or --repeats {power['repeats_needed']} in both runs" in said
    metrics = json.loads((tmp_path / "c.json").read_text())["tasks"]["gorillahard"]
    assert all("mde" in result for result in metrics.values())


def test_each_repeat_is_judged_on_its_own_answers(tmp_path: Path) -> None:
    """RussianRegions with a judge and --repeats 2: the judge is asked once per answer of each
    repeat (twice per row), and the judged metrics are means over the repeats."""
    from merabench.rows.row import read_bundled

    rows = read_bundled("russianregions")["test"]
    references = {render_row(r): r.outputs for r in rows}
    judged: list[str] = []

    def reply(body: dict[str, Any]) -> str:
        prompt = body["messages"][-1]["content"]
        if body["model"] == "judge":
            judged.append(prompt)
            return "Оценка: 2"
        return references[prompt]

    with FakeServer(reply=reply) as server:
        done = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--tasks", "russianregions",
                       "--judge-model", "openai:judge", "--judge-base-url", server.url, "--repeats", "2",
                       "--seed", "3", "--no-cache", "--no-progress", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert len(judged) == 2 * len(rows)
    task = json.loads((tmp_path / "out" / "results.json").read_text())["tasks"]["russianregions"]
    assert task["metrics"]["judge_score"] == 1.0 and task["metrics"]["flip_rate"] == 0.0
    assert [d["metrics"]["judge_score"] for d in task["by_draw"]] == [1.0, 1.0]
    lines = read_jsonl(tmp_path / "out" / "samples_russianregions.jsonl")
    assert sorted({(line["repeat"], "judge" in line) for line in lines}) == [(0, True), (1, True)]


def test_a_batch_is_exported_and_imported_per_repeat(tmp_path: Path) -> None:
    """export-requests with --repeats 2 writes each row's two requests (the second with seed + 1,
    its custom id ending /r1); their answers imported fill both repeats of the folder."""
    from merabench.rows.row import read_bundled

    rows = {render_row(r): r.outputs for r in read_bundled("sage")["test"][:3]}
    flags = ["--model", "openai:m", "--tasks", "sage", "--limit", "3", "--seed", "5", "--repeats", "2"]
    done = run_cli("export-requests", *flags, "--out", str(tmp_path / "requests.jsonl"), "--run", str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr
    requests = read_jsonl(tmp_path / "requests.jsonl")
    assert len(requests) == 6
    assert sorted(r["body"]["seed"] for r in requests) == [5, 5, 5, 6, 6, 6]
    assert sum(r["custom_id"].endswith("/r1") for r in requests) == 3
    answers = [{"custom_id": r["custom_id"], "text": rows[r["body"]["messages"][-1]["content"]]} for r in requests]
    output = tmp_path / "output.jsonl"
    output.write_text("".join(json.dumps(a, ensure_ascii=False) + "\n" for a in answers), encoding="utf-8")
    imported = run_cli("import-responses", str(output), *flags, "--out", str(tmp_path / "run"), "--no-progress")
    assert imported.returncode == 0, imported.stderr
    task = json.loads((tmp_path / "run" / "results.json").read_text())["tasks"]["sage"]
    assert task["repeats"] == 2 and task["n_answered"] == 6 and task["metrics"]["errant_f1"] == 1.0


def test_native_tool_calls_are_asked_per_repeat(tmp_path: Path) -> None:
    """--tool-mode native with --repeats 2: each repeat is its own tool-calling conversation (the
    second with seed + 1 in every request of it), and both score as the model answered."""
    from toolmodel import ToolModel

    from merabench.rows.row import read_bundled

    rows = read_bundled("gorillahard")["test"]
    model = ToolModel(rows)
    with FakeServer(reply=model.reply) as server:
        done = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--tasks", "gorillahard",
                       "--tool-mode", "native", "--repeats", "2", "--seed", "1", "--no-cache", "--no-progress",
                       "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    seeds = [body.get("seed") for body in model.bodies]
    assert seeds.count(1) == seeds.count(2) == len(seeds) // 2
    task = json.loads((tmp_path / "out" / "results.json").read_text())["tasks"]["gorillahard"]
    assert task["metrics"]["sample_pass_rate"] == 1.0 and task["metrics"]["pass_all_k"] == 1.0
    assert task["repeats"] == 2 and task["n_answered"] == 2 * len(rows)


def test_fewer_repeats_into_a_folder_are_refused_not_dropped(tmp_path: Path) -> None:
    """A rerun without --repeats into a folder of 3 repeats would have rewritten its samples file
    with repeat 0 only (the outside reader's case): refused in one line, the file untouched."""
    out = tmp_path / "out"
    args = ["run", "--model", "random", "--tasks", "sage", "--limit", "4", "--out", str(out), "--no-progress"]
    assert run_cli(*args, "--repeats", "3").returncode == 0
    before = (out / "samples_sage.jsonl").read_bytes()
    fewer = run_cli(*args)
    assert fewer.returncode == 2, fewer.stderr
    assert f"{out} holds sage answers of 3 repeats; run with --repeats 3 or more" in fewer.stderr
    assert (out / "samples_sage.jsonl").read_bytes() == before
    assert run_cli(*args, "--repeats", "5").returncode == 0  # more are fine: only the new ones are asked
    assert len(read_jsonl(out / "samples_sage.jsonl")) == 5 * 4
