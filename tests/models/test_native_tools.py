"""GorillaHard through native tool calls (--tool-mode native): the catalog as OpenAI tools, the
replies' tool_calls mapped back to the card's envelope and scored by the same scorer, against a
real HTTP server on 127.0.0.1 answering in real tool_calls shapes (tests/toolmodel.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fakeserver import FakeServer
from helpers import read_jsonl, run_cli
from toolmodel import ToolModel

from merabench.models.base import Completion
from merabench.rows.row import read_bundled, read_local
from merabench.tasks.gorillahard import metrics
from merabench.tasks.gorillahard.native.envelope import envelope_of
from merabench.tasks.gorillahard.native.prompt import native_instruction, native_prompt
from merabench.tasks.gorillahard.native.tools import native_catalog

BUNDLED = read_bundled("gorillahard")
VLLM_REFUSAL = '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'


def _run(server: FakeServer, data: Path, out: Path, *extra: str) -> Any:
    return run_cli("run", "--model", "openai:fake", "--base-url", server.url, "--tasks", "gorillahard",
                   "--data", f"gorillahard={data}", "--out", str(out), "--no-cache", "--no-progress", *extra)


def _metrics(out: Path) -> dict[str, float]:
    return json.loads((out / "results.json").read_text())["tasks"]["gorillahard"]["metrics"]


# -- the tools sent ---------------------------------------------------------------------------------

def test_each_catalog_tool_is_sent_as_a_function_under_an_allowed_name_mapped_back_exactly() -> None:
    row = BUNDLED["test"][0]
    entries = json.loads(row.inputs["tools"])
    catalog = native_catalog(row.inputs["tools"])
    functions = [t["function"] for t in catalog.tools]
    assert [f["name"] for f in functions][-2:] == ["clarify", "abstain"]
    assert sorted(catalog.names.values()) == sorted(e["name"] for e in entries)
    for function in functions[:-2]:
        original = next(e for e in entries if e["name"] == catalog.names[function["name"]])
        assert function["name"] == original["name"].replace(".", "_")
        assert function["description"].startswith(original["description"])
        for caveat in original["constraints"].values():  # the operational constraints travel too
            assert caveat in function["description"]
        params = function["parameters"]
        assert set(params["properties"]) == set(original["parameters"])
        assert params["required"] == [p for p, s in original["parameters"].items() if s["required"]]


def test_names_that_clash_once_made_allowed_stay_apart() -> None:
    tools = json.dumps([{"name": "table.mean", "parameters": {}}, {"name": "table_mean", "parameters": {}},
                        {"name": "clarify", "parameters": {"q": {"type": "array", "required": True}}},
                        {"name": "файлы.читать", "parameters": {}}], ensure_ascii=False)
    catalog = native_catalog(tools)
    assert catalog.names == {"table_mean": "table.mean", "table_mean_2": "table_mean", "clarify_2": "clarify",
                             "_" * 12: "файлы.читать"}
    clash = next(t["function"] for t in catalog.tools if t["function"]["name"] == "clarify_2")
    assert clash["parameters"]["properties"]["q"] == {"type": "array", "items": {}}


@pytest.mark.parametrize("wording", sorted({r.meta["wording"] for r in BUNDLED["test"]}))
def test_the_prompt_keeps_the_wording_files_and_question_but_not_the_catalog_or_format(wording: int) -> None:
    row = next(r for r in BUNDLED["test"] if r.meta["wording"] == wording and r.inputs.get("context"))
    prompt = native_prompt(row)
    assert "Инструменты:" not in prompt and "Формат ответа:" not in prompt
    assert row.inputs["tools"] not in prompt and row.inputs["format"] not in prompt
    assert row.inputs["context"] in prompt and prompt.endswith(row.inputs["question"])
    assert native_instruction(row.instruction).split("\n")[0] == row.instruction.split("\n")[0]  # the rules


# -- tool_calls -> the envelope -----------------------------------------------------------------------

def _reply(*calls: tuple[str, Any], text: str = "") -> Completion:
    return Completion(text=text, tool_calls=tuple({"id": f"c{n}", "name": name, "arguments": args}
                                                  for n, (name, args) in enumerate(calls)))


NAMES = {"table_mean": "table.mean", "table_median": "table.median", "http_download": "http.download",
         "table_row_count": "table.row_count"}
MEAN_ARGS = '{"path": "data/penguins.csv", "column": "body_mass_g"}'


@pytest.mark.parametrize(("replies", "envelope", "via"), [
    pytest.param([_reply(("table_mean", MEAN_ARGS)), _reply(text="Готово.")],
                 {"tool": "table.mean", "args": {"path": "data/penguins.csv", "column": "body_mass_g"}},
                 "tool_calls", id="one call, then text"),
    pytest.param([_reply(("table_mean", MEAN_ARGS), ("table_median", MEAN_ARGS))],
                 {"calls": [{"tool": "table.mean", "args": json.loads(MEAN_ARGS)},
                            {"tool": "table.median", "args": json.loads(MEAN_ARGS)}]},
                 "tool_calls", id="several calls in one reply"),
    pytest.param([_reply(("http_download", '{"url": "https://example.org/a.csv"}')),
                  _reply(("table_row_count", '{"path": "$1"}')), _reply(text="Строк: $2")],
                 {"plan": [{"tool": "http.download", "args": {"url": "https://example.org/a.csv"}},
                           {"tool": "table.row_count", "args": {"path": "$1"}}]},
                 "tool_calls", id="a plan answered step by step"),
    pytest.param([_reply(("table_avg", MEAN_ARGS))], {"tool": "table_avg", "args": json.loads(MEAN_ARGS)},
                 "tool_calls", id="an invented tool keeps its name"),
    pytest.param([_reply(("table_mean", '{"path": "data/penguins.csv", "column": '))],
                 {"tool": "table.mean", "args": '{"path": "data/penguins.csv", "column": '},
                 "tool_calls", id="malformed arguments JSON kept as the string"),
    pytest.param([_reply(("table_mean", {"path": "data/penguins.csv", "column": "body_mass_g"}))],
                 {"tool": "table.mean", "args": {"path": "data/penguins.csv", "column": "body_mass_g"}},
                 "tool_calls", id="arguments as an object"),
    pytest.param([_reply(("table_mean", None))], {"tool": "table.mean", "args": {}}, "tool_calls",
                 id="no arguments"),
    pytest.param([_reply(("clarify", '{"question": "Какой столбец?"}'))], {"clarify": "Какой столбец?"},
                 "clarify tool", id="the clarify tool"),
    pytest.param([_reply(("abstain", '{"reason": "нет такого файла"}'))],
                 {"abstain": True, "reason": "нет такого файла"}, "abstain tool", id="the abstain tool"),
    pytest.param([_reply(("abstain", '{"reason": "нет"}'), ("table_mean", MEAN_ARGS))],
                 {"calls": [{"tool": "abstain", "args": {"reason": "нет"}},
                            {"tool": "table.mean", "args": json.loads(MEAN_ARGS)}]},
                 "tool_calls", id="a meta-tool beside a call is no catalog tool"),
])
def test_replies_map_to_the_cards_envelope(replies: list[Completion], envelope: dict, via: str) -> None:
    text, how = envelope_of(replies, NAMES)
    assert json.loads(text) == envelope and how == via
    assert "\n" not in text


def test_a_text_reply_is_the_answer_read_as_an_envelope() -> None:
    assert envelope_of([_reply(text='{"abstain": true, "reason": "нет данных"}')], NAMES) == (
        '{"abstain": true, "reason": "нет данных"}', "text")


def test_mapped_answers_score_with_the_reasons_models_earn() -> None:
    row = BUNDLED["test"][0]  # table.mean over data/penguins.csv
    invented = envelope_of([_reply(("table_avg", MEAN_ARGS))], NAMES)[0]
    broken = envelope_of([_reply(("table_mean", '{"path": '))], NAMES)[0]
    right = envelope_of([_reply(("table_mean", MEAN_ARGS)), _reply(text="ok")], NAMES)[0]
    fenced_text = envelope_of([_reply(text="```json\n" + row.outputs + "\n```")], NAMES)[0]
    scored = {name: metrics.score_row(row, text, native=True)
              for name, text in (("invented", invented), ("broken", broken), ("right", right), ("text", fenced_text))}
    assert "tool_not_in_catalog" in scored["invented"].details["reasons"]
    assert scored["invented"].metrics["tool_in_catalog_rate"] == 0.0
    assert "args_not_object" in scored["broken"].details["reasons"]
    assert scored["right"].metrics["sample_pass_rate"] == 1.0
    # the format block was never sent: a fenced text envelope is judged on its content, with no format metric
    assert scored["text"].metrics["sample_pass_rate"] == 1.0
    assert "format_pass_rate" not in scored["text"].metrics and "checks" not in scored["text"].details
    assert metrics.score_row(row, fenced_text).metrics["format_pass_rate"] == 0.0  # as text mode judges it


# -- whole runs against a server ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def both_runs(generated: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The generated set run in both modes against one server whose model answers every reference:
    as the envelope's text, or as native tool_calls (step by step for plans)."""
    model = ToolModel(read_local(generated)["test"])
    base = tmp_path_factory.mktemp("runs")
    with FakeServer(reply=model.reply) as server:
        text = _run(server, generated, base / "text")
        native = _run(server, generated, base / "native", "--tool-mode", "native")
    return {"text": text, "native": native, "base": base, "bodies": model.bodies}


def test_every_reference_answered_as_tool_calls_scores_as_in_text_mode(both_runs: dict[str, Any]) -> None:
    assert both_runs["text"].returncode == 0, both_runs["text"].stderr
    assert both_runs["native"].returncode == 0, both_runs["native"].stderr
    text, native = _metrics(both_runs["base"] / "text"), _metrics(both_runs["base"] / "native")
    assert native["sample_pass_rate"] == text["sample_pass_rate"] == 1.0
    assert native["balance_score"] == native["dialog_pass_rate"] == 1.0
    assert "format_pass_rate" not in native and text["format_pass_rate"] == 1.0  # not applicable, not 1.0 or 0
    result = json.loads((both_runs["base"] / "native" / "results.json").read_text())
    assert result["tasks"]["gorillahard"]["tool_mode"] == "native" and result["settings"]["tool_mode"] == "native"
    kinds = result["tasks"]["gorillahard"]["breakdowns"]["answer_kind"]["rows"]
    assert {k: v["sample_pass_rate"] for k, v in kinds.items()} == dict.fromkeys(
        ("tool_call", "calls", "abstain", "plan", "clarify"), 1.0)
    assert any("not comparable with the leaderboard" in n for n in result["tasks"]["gorillahard"]["notes"])
    assert "not comparable with the leaderboard" in both_runs["native"].stderr


def test_plans_go_through_the_loop_and_dialogues_replay_as_tool_calls(both_runs: dict[str, Any]) -> None:
    records = read_jsonl(both_runs["base"] / "native" / "samples_gorillahard.jsonl")
    plans = [r for r in records if r["details"]["expected_kind"] == "plan"]
    assert plans and all(r["tool_exchange"]["requests"] == 3 for r in plans)  # two steps, then the last word
    ways = {r["tool_exchange"]["via"] for r in records}
    assert ways == {"tool_calls", "clarify tool", "abstain tool"}
    native = [b for b in both_runs["bodies"] if b.get("tools")]
    assert all(b["tool_choice"] == "auto" for b in native)
    assert not any("tools" in b for b in both_runs["bodies"] if b not in native)  # text mode sends no tools
    replayed = [b for b in native if sum(m["role"] == "user" for m in b["messages"]) > 1]
    assert replayed
    for body in replayed:
        history = body["messages"][:max(i for i, m in enumerate(body["messages"]) if m["role"] == "user")]
        assistants = [m for m in history if m["role"] == "assistant"]
        assert assistants and all(m.get("tool_calls") for m in assistants)
        called = {c["id"] for m in assistants for c in m["tool_calls"]}
        assert called == {m["tool_call_id"] for m in history if m["role"] == "tool"}
        assert not any(m["content"].lstrip().startswith("{") for m in assistants)  # no pasted JSON envelope
    second = [b for b in native if b["messages"][-1]["role"] == "tool"]
    assert {m["content"] for b in second for m in b["messages"] if m["role"] == "tool"} >= {'"$1"', '"$2"'}


def test_the_paired_compare_prints_each_lever_and_kind_with_intervals(both_runs: dict[str, Any],
                                                                        generated: Path) -> None:
    """A model that passes the first step's value instead of "$1" and answers clarifications in
    plain text: the plan and clarify levers drop, the others hold."""
    def sloppy(row: Any, steps: list[list[dict]]) -> list[list[dict]]:
        kind = row.meta["categories"]["answer_kind"]
        if kind == "plan":
            for call in steps[1]:
                call["function"]["arguments"] = call["function"]["arguments"].replace('"$1"', '"result"')
        return [] if kind == "clarify" else steps

    model = ToolModel(read_local(generated)["test"], twist=sloppy, reasoning="Сначала посмотрю каталог.")
    with FakeServer(reply=model.reply) as server:
        done = _run(server, generated, both_runs["base"] / "sloppy", "--tool-mode", "native")
    assert done.returncode == 0, done.stderr
    compared = run_cli("compare", str(both_runs["base"] / "text"), str(both_runs["base"] / "sloppy"),
                       "--json", str(both_runs["base"] / "cmp.json"))
    assert compared.returncode == 0, compared.stderr
    assert "gorillahard sample_pass_rate by lever: B minus A" in compared.stdout
    assert "gorillahard sample_pass_rate by answer kind: B minus A" in compared.stdout
    assert "A (text)" in compared.stdout and "B (native)" in compared.stdout
    within = json.loads((both_runs["base"] / "cmp.json").read_text())["breakdowns"]["gorillahard"]
    assert within["answer_kind"]["plan"]["difference"] == -1.0 and within["answer_kind"]["plan"]["high"] == -1.0
    assert within["answer_kind"]["clarify"]["difference"] == -1.0
    assert within["answer_kind"]["tool_call"]["difference"] == 0.0
    assert within["lever"]["grounding"]["low"] == within["lever"]["grounding"]["high"] == 0.0
    assert "asked in two protocols" in compared.stderr and "fewer than 2" not in compared.stderr
    records = read_jsonl(both_runs["base"] / "sloppy" / "samples_gorillahard.jsonl")
    assert all(r["reasoning"].startswith("Сначала посмотрю каталог.") for r in records)  # apart from the answer
    assert not any("Сначала" in r["output"] for r in records)
    texts = [r for r in records if r["tool_exchange"]["via"] == "text"]
    assert len(texts) == 10 and all(r["metrics"]["clarify_recall"] == 0.0 for r in texts)


def _wire_mistakes(row: Any, steps: list[list[dict]]) -> list[list[dict]]:
    """By row: a call to an invented tool, arguments cut mid-JSON, arguments as an object, and a
    first call without a function name (servers send all of these)."""
    first = steps[0][0]["function"]
    mistake = row.id % 4
    if mistake == 0:
        first["name"] = "table_average"
    elif mistake == 1:
        first["arguments"] = first["arguments"][: len(first["arguments"]) // 2]
    elif mistake == 2:
        first["arguments"] = json.loads(first["arguments"])
    else:
        first["name"] = None
    return steps


def test_tool_calls_as_servers_send_them_are_scored_as_the_model_earned(tmp_path: Path) -> None:
    rows = [r for r in BUNDLED["test"] if json.loads(r.outputs).get("tool") and r.meta.get("n_turns", 1) == 1]
    model = ToolModel(BUNDLED["test"], twist=lambda row, steps: _wire_mistakes(row, steps) if row in rows else steps)
    with FakeServer(reply=model.reply) as server:
        done = run_cli("run", "--model", "openai:fake", "--base-url", server.url, "--tasks", "gorillahard",
                       "--tool-mode", "native", "--out", str(tmp_path / "w"), "--no-cache", "--no-progress")
    assert done.returncode == 0, done.stderr
    records = {r["id"]: r for r in read_jsonl(tmp_path / "w" / "samples_gorillahard.jsonl")}
    want = {0: "tool_not_in_catalog", 1: "args_not_object", 3: "tool_not_in_catalog"}
    for row in rows:
        record = records[row.id]
        if row.id % 4 == 2:  # an object is taken as the arguments it is
            assert record["metrics"]["sample_pass_rate"] == 1.0, record
        else:
            assert want[row.id % 4] in record["details"]["reasons"], record
    assert len({r.id % 4 for r in rows}) == 4


def test_token_counts_are_checked_against_what_each_request_sent_tools_included(tmp_path: Path) -> None:
    """A prompt count past the messages' bytes is right when the tools went too (llama.cpp's real
    counts did that); each request of a conversation is checked against its own size."""
    model = ToolModel(BUNDLED["test"][:4])

    def counted(body: dict[str, Any]) -> Any:
        answer = model.reply(body)
        sent = sum(len(m["content"].encode()) for m in body["messages"] if isinstance(m.get("content"), str))
        answer["usage"] = {"prompt_tokens": sent + len(json.dumps(body["tools"], ensure_ascii=False).encode()),
                           "completion_tokens": 9}
        return answer

    with FakeServer(reply=counted) as server:
        done = run_cli("run", "--model", "openai:fake", "--base-url", server.url, "--tasks", "gorillahard",
                       "--tool-mode", "native", "--out", str(tmp_path / "t"), "--no-cache", "--no-progress", "--limit", "4")
        sent = server.requests
    assert done.returncode == 0, done.stderr
    records = read_jsonl(tmp_path / "t" / "samples_gorillahard.jsonl")
    assert not any(r.get("usage_note") for r in records)
    assert sum(r["prompt_tokens"] for r in records) == sum(
        sum(len(m["content"].encode()) for m in b["messages"] if isinstance(m.get("content"), str))
        + len(json.dumps(b["tools"], ensure_ascii=False).encode()) for b in sent)


def test_a_native_run_resumes_without_a_request_and_a_text_rerun_is_refused(both_runs: dict[str, Any],
                                                                              generated: Path) -> None:
    with FakeServer(reply=lambda body: "ни слова") as server:
        again = _run(server, generated, both_runs["base"] / "native", "--tool-mode", "native")
        assert again.returncode == 0, again.stderr
        assert server.requests == []
        mixed = _run(server, generated, both_runs["base"] / "native")
        assert mixed.returncode == 2 and server.requests == []
    assert "--tool-mode \"native\" in the folder, \"text\" now" in mixed.stderr
    assert len(mixed.stderr.strip().splitlines()) == 1


def test_score_reads_a_native_runs_samples_by_the_native_rules(both_runs: dict[str, Any], generated: Path,
                                                                 tmp_path: Path) -> None:
    done = run_cli("score", "gorillahard", "--data", str(generated), "--predictions",
                   str(both_runs["base"] / "native" / "samples_gorillahard.jsonl"), "--out", str(tmp_path / "s"))
    assert done.returncode == 0, done.stderr
    assert "scored as --tool-mode native" in done.stderr
    result = json.loads((tmp_path / "s" / "results.json").read_text())["tasks"]["gorillahard"]
    assert result["tool_mode"] == "native" and result["metrics"]["sample_pass_rate"] == 1.0
    assert "format_pass_rate" not in result["metrics"]


def test_the_report_shows_the_conversation_and_the_text_runs_answer(both_runs: dict[str, Any]) -> None:
    native, text = both_runs["base"] / "native", both_runs["base"] / "text"
    done = run_cli("report", str(native), "--text-run", str(text))
    assert done.returncode == 0, done.stderr
    page = (native / "report.html").read_text()
    assert "tool mode native (not leaderboard-comparable)" in page
    assert '"tc":"answered by: tool_calls' in page and '#row=gorillahard/' in page
    wrong = run_cli("report", str(text), "--text-run", str(native))
    assert wrong.returncode == 2 and "pairs a --tool-mode native run with a text one" in wrong.stderr


@pytest.mark.parametrize("args", [
    pytest.param(("submission", "--run", "{native}", "--out", "{tmp}/s.zip"), id="submission"),
    pytest.param(("export", "lmeval", "{native}", "--out", "{tmp}/lm"), id="export lmeval"),
])
def test_the_leaderboards_formats_refuse_a_native_run(both_runs: dict[str, Any], tmp_path: Path,
                                                       args: tuple[str, ...]) -> None:
    filled = [a.format(native=both_runs["base"] / "native", tmp=tmp_path) for a in args]
    done = run_cli(*filled)
    assert done.returncode == 2 and "--tool-mode native, which the leaderboard does not take" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and list(tmp_path.iterdir()) == []


# -- what cannot be asked natively ----------------------------------------------------------------------

def test_a_server_that_rejects_tools_stops_the_run_with_one_line_naming_what_to_enable(tmp_path: Path) -> None:
    plan = lambda n, body: "400" if body.get("tools") else "ok"  # noqa: E731
    with FakeServer(plan=plan, error_message=VLLM_REFUSAL) as server:
        done = run_cli("run", "--model", "openai:fake", "--base-url", server.url, "--tasks", "gorillahard",
                       "--tool-mode", "native", "--concurrency", "4", "--out", str(tmp_path / "r"), "--no-cache",
                       "--no-progress")
        sent = len(server.requests)
    assert done.returncode == 3, done.stderr
    assert sent <= 4  # the requests already in flight, not one per row
    last = done.stderr.strip().splitlines()[-1]
    assert "does not take native tool calls" in last and "--enable-auto-tool-choice" in last and "--jinja" in last
    records = read_jsonl(tmp_path / "r" / "samples_gorillahard.jsonl")
    assert all(r["status"] == "unasked" for r in records)  # nothing failed: a rerun asks them


def test_a_server_whose_template_drops_the_tools_is_one_line_before_any_request(tmp_path: Path) -> None:
    """llama.cpp with a model whose chat template has no tool support (SmolLM2) renders the prompt
    without the tools: seen through its /apply-template, before anything is asked or written."""
    for drops in (True, False):
        with FakeServer(reply=ToolModel(BUNDLED["test"]).reply, template_drops_tools=drops) as server:
            done = run_cli("run", "--model", "openai:fake", "--base-url", server.url, "--tasks", "gorillahard",
                           "--tool-mode", "native", "--out", str(tmp_path / str(drops)), "--no-cache", "--no-progress",
                           "--limit", "3")
            sent = len(server.requests)
        if drops:
            assert done.returncode == 2 and sent == 0 and not (tmp_path / "True").exists()
            assert "renders its chat prompt without the tools" in done.stderr
            assert len(done.stderr.strip().splitlines()) == 1
        else:
            assert done.returncode == 0 and sent > 0, done.stderr


@pytest.mark.parametrize(("status", "message", "refused"), [
    (400, VLLM_REFUSAL, True),
    (500, "tools param requires --jinja flag", True),  # llama.cpp without --jinja
    (400, "registry.ollama.ai/library/smollm2 does not support tools", True),
    (400, "Tools are not supported for this model", True),
    (400, "Invalid parameter: tool_call_id call_1 not found in messages", False),  # one request's mistake
    (500, "Error in extracting tool call from response", False),  # a passing failure, retried
    (429, "tools rate limit: not available now", False),
])
def test_only_a_refusal_of_tools_gives_the_endpoint_up(status: int, message: str, refused: bool) -> None:
    from merabench.models.tool_support import refuses_tools

    assert refuses_tools(status, message) is refused


def test_call_ids_a_server_repeats_are_made_unique_before_they_go_back(tmp_path: Path) -> None:
    """A server that numbers every reply's calls from call_0 again: the replayed conversation would
    name one id twice, which APIs refuse; each call is given its own id instead."""
    rows = BUNDLED["test"]

    def same_ids(row: Any, steps: list[list[dict]]) -> list[list[dict]]:
        for calls in steps:
            for call in calls:
                call["id"] = "call_0"
        return steps

    model = ToolModel(rows, twist=same_ids)
    with FakeServer(reply=model.reply) as server:
        done = run_cli("run", "--model", "openai:fake", "--base-url", server.url, "--tasks", "gorillahard",
                       "--tool-mode", "native", "--out", str(tmp_path / "ids"), "--no-cache", "--no-progress")
    assert done.returncode == 0, done.stderr
    answered = [b for b in model.bodies if any(m["role"] == "tool" for m in b["messages"])]
    assert answered
    for body in answered:
        results = [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]
        calls = [c["id"] for m in body["messages"] if m.get("tool_calls") for c in m["tool_calls"]]
        assert len(set(results)) == len(results) and sorted(results) == sorted(calls)
    assert json.loads((tmp_path / "ids" / "results.json").read_text())["tasks"]["gorillahard"]["metrics"][
        "sample_pass_rate"] == 1.0


@pytest.mark.parametrize(("args", "said"), [
    pytest.param(("--model", "hf:some/model"), "an hf: model is asked in the text protocol only", id="hf"),
    pytest.param(("--model", "openai:m", "--base-url", "http://127.0.0.1:9/v1", "--export-requests", "{tmp}/b.jsonl"),
                 "cannot go through a batch job", id="export-requests"),
    pytest.param(("--tasks", "sage"), "applies to gorillahard only", id="no gorillahard"),
    pytest.param(("--tool-mode", "json"), "unknown --tool-mode 'json'; known: text, native", id="unknown mode"),
])
def test_what_cannot_be_asked_natively_is_one_line(tmp_path: Path, args: tuple[str, ...], said: str) -> None:
    filled = [a.format(tmp=tmp_path) for a in args]
    done = run_cli("run", "--tool-mode", "native", "--out", str(tmp_path / "o"), "--no-progress", *filled)
    assert done.returncode == 2 and said in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "o").exists()
