"""The multi-call, plan and approx rows need reading: their calls follow from the file, through
mechanisms drawn per row (tests on rows the real makers write)."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from dataclasses import replace

import pytest
from helpers import corpus_of

from merabench.rows.row import Row
from merabench.tasks.gorillahard.generator.checks.mechanisms import drawn_mechanisms
from merabench.tasks.gorillahard.generator.families import FAMILIES
from merabench.tasks.gorillahard.generator.families.common import View
from merabench.tasks.gorillahard.generator.families.durations import seconds_in
from merabench.tasks.gorillahard.generator.families.flagstates import read_flag
from merabench.tasks.gorillahard.generator.families.hostlists import read_inventory


@pytest.fixture(scope="module")
def corpus():
    return corpus_of(5)


def rows_of(name: str, corpus, n: int = 40) -> list:
    return [FAMILIES[name].make(random.Random(f"t{k}"), corpus) for k in range(n)]


def view(q) -> View:
    return View(q.question, {f.path: f.text for f in q.files}, q.reference, q.facts)


@pytest.mark.parametrize("name", ["dns_runbook", "ping_listed_hosts", "flag_both_envs", "flag_off_both_envs",
                                  "flag_state_both_envs", "two_means", "two_maxima", "unit_conversion",
                                  "download_then_count", "download_then_sum", "blame_then_show", "log_window",
                                  "cross_file_scale", "cross_file_hosts_scale", "ttl_runbook_hosts"])
def test_each_reference_is_proven_by_the_check(name, corpus) -> None:
    for q in rows_of(name, corpus):
        assert FAMILIES[name].check(view(q)) == [], q.question


def test_argument_sources_are_drawn_per_row(corpus) -> None:
    """The value a row's calls follow is found by reading, in ways drawn per row: a named host's
    environment or role, the commonest one; another flag's states; two parts' time-outs combined;
    a rack's servers under a threshold, two racks, a named server's rack; an event's last record or
    its first after another event."""
    hosts = [q.facts for q in rows_of("dns_runbook", corpus, 60)]
    assert any(f.get("anchor") for f in hosts) and any(f.get("most") for f in hosts)
    flags = {q.facts["condition"].split(":")[0] for q in rows_of("flag_both_envs", corpus, 60)}
    assert "with" in flags and "off" in flags
    sources = {q.facts["source"].split(":")[0] for q in rows_of("unit_conversion", corpus, 80)}
    assert {"max", "min", "sum", "client"} <= sources
    assert {q.facts["by"] for q in rows_of("cross_file_scale", corpus, 60)} == {"rack", "cpu", "ram", "racks", "host"}
    assert len({(q.facts["per_host"], q.facts["spare"]) for q in rows_of("cross_file_hosts_scale", corpus, 60)}) >= 4
    windows = [q.facts for q in rows_of("log_window", corpus, 60)]
    assert any(f.get("after") for f in windows) and any(f["occurrence"] == -1 for f in windows)


def test_a_question_naming_another_host_fails_the_check(corpus) -> None:
    """The check reads the named host's environment or role from the file, not from the maker: the
    question over another host of another value no longer proves the reference."""
    caught = 0
    for q in rows_of("ping_listed_hosts", corpus, 80):
        anchor = q.facts.get("anchor")
        if not anchor:
            continue
        records = read_inventory(q.files[0].text)
        attribute = q.facts["where"][0]
        other = next((r["host"] for r in records if r.get(attribute) != q.facts["where"][1]), None)
        if other:
            caught += bool(FAMILIES["ping_listed_hosts"].check(replace(view(q), question=q.question.replace(anchor, other))))
    assert caught >= 3


def test_hosts_are_picked_by_the_condition_not_listed_wholesale(corpus) -> None:
    fewer, counts = 0, Counter()
    for q in rows_of("dns_runbook", corpus) + rows_of("whois_listed_hosts", corpus):
        text = q.files[0].text
        called = [c["args"]["host"] for c in q.reference["calls"]]
        live = {r["host"] for r in read_inventory(text)}
        fewer += len(set(called)) < len(live)
        counts[len(called)] += 1
        assert len(called) == len(set(called))  # a host listed twice is called once
        for line in text.splitlines():  # no commented-out or merely mentioned host is called
            if line.lstrip().startswith(("#", "<!--")) or line.startswith(("Не путать", "Письмо", "Коллеги")):
                assert not any(h in line for h in called), line
    assert fewer == 80 and len(counts) >= 3


def test_an_archived_host_is_never_called(corpus) -> None:
    seen = 0
    for q in rows_of("dns_host_list", corpus, 60):
        text = q.files[0].text
        marker = re.search(r"^# === .*$", text, re.M)
        if marker:
            seen += 1
            archived = text[marker.end():]
            assert not any(c["args"]["host"] in archived for c in q.reference["calls"])
    assert seen


def test_flags_change_only_where_not_yet_in_the_asked_state(corpus) -> None:
    sizes = Counter()
    for name, wanted in (("flag_both_envs", False), ("flag_off_both_envs", True)):
        for q in rows_of(name, corpus):
            states = read_flag(q.files[0].text, q.facts["flag"])
            envs = [c["args"]["environment"] for c in q.reference["calls"]]
            assert envs and all(states[e] == wanted for e in envs)
            assert set(states) - set(envs)  # some environment is left as it is
            sizes[len(envs)] += 1
    assert len(sizes) >= 2


def test_columns_are_named_by_meaning_not_by_header(corpus) -> None:
    headers = set()
    for q in rows_of("two_medians", corpus, 60):
        columns = [c["args"]["column"] for c in q.reference["calls"]]
        assert not any(f"«{c}»" in q.question for c in columns)
        headers.update(columns)
    assert len(headers) >= 20


@pytest.mark.parametrize(("key", "value", "seconds"), [
    ("timeout_ms", "1500", 1.5), ("timeout", "1500ms", 1.5), ("timeout", '"2m30s"', 150), ("timeout", '"PT1M30S"', 90),
    ("timeout", "90  # сек", 90), ("timeout", "45000  # мс", 45), ("timeout_min", "1.5", 90), ("timeout", "90", None)])
def test_time_out_notations(key, value, seconds) -> None:
    assert seconds_in(key, value) == seconds


def test_a_collapsed_mechanism_fails_the_guard(corpus) -> None:
    made = []
    for n, name in enumerate(["dns_runbook", "flag_state_both_envs", "flag_both_envs", "two_means", "download_then_sum",
                              "blame_then_show", "unit_conversion"] * 30):
        q = FAMILIES[name].make(random.Random(f"g{n}"), corpus)
        made.append(Row("", {"question": q.question}, json.dumps(q.reference, ensure_ascii=False),
                        {"id": n, "derivation": {"maker": name, **q.facts}}))
    short, _ = drawn_mechanisms(made)
    assert not any(s.startswith(("host conditions", "flag conditions", "export links")) for s in short)
    condition = ("where", "also", "anchor", "most", "negated")  # every host row asking by one environment
    same = [replace(r, meta={**r.meta, "derivation": {**{k: v for k, v in r.meta["derivation"].items()
                                                          if k not in condition}, "where": ["env", "production"]}})
            for r in made]
    short, _ = drawn_mechanisms(same)
    assert any(s.startswith("host conditions") for s in short)


def test_a_dialogue_going_back_to_its_first_request_is_replayed_from_the_history(corpus) -> None:
    """A closing turn may take up the column (the level) of the first request, not the last: the
    replay keeps the opening turn's state, and the last column in its place fails it."""
    from merabench.tasks.gorillahard.generator.build.dialogues import dialogue
    from merabench.tasks.gorillahard.generator.checks.dialogues import dialog_check

    back = 0
    for k in range(80):
        turns, _ = dialogue(("grep_chain", "trap_switch")[k % 2], random.Random(f"b{k}"), corpus)
        if not re.search(r"первым|начали|первого вопроса", turns[-1].question):
            continue
        back += 1
        maker = "dialog:" + ("grep_chain" if "logs" in turns[-1].reference["tool"] else "trap_switch")
        rows = [Row("", {"question": t.question, "context": "".join(f"[файл: {f.path}]\n{f.text}" for f in t.files)},
                    json.dumps(t.reference, ensure_ascii=False), {"id": n, "turn_id": n, "derivation": {"maker": maker}})
                for n, t in enumerate(turns)]
        assert dialog_check(rows) == [], turns[-1].question
        name = "pattern" if maker == "dialog:grep_chain" else "column"
        wrong = {**turns[-1].reference, "args": {**turns[-1].reference["args"], name: turns[-2].reference["args"][name]}}
        rows[-1] = replace(rows[-1], outputs=json.dumps(wrong, ensure_ascii=False))
        assert dialog_check(rows) != []
    assert back >= 10
