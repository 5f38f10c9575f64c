"""Issue 46 part B: a file-bound row's reference takes reading its file. No value is read off the
attached file's name, stated in the question, or a constant of the family across seeds; the
reworked families' checks find a wrong reference."""

from __future__ import annotations

import json
import random
import re
from collections import Counter

import pytest
from helpers import corpus_of

from merabench.tasks.gorillahard.generator.families import FAMILIES, formats
from merabench.tasks.gorillahard.generator.families.categorical import (
    CITY_HEADERS,
    STATE_HEADERS,
    STATE_WORDS,
)
from merabench.tasks.gorillahard.generator.families.columns import recoded, reordered
from merabench.tasks.gorillahard.generator.families.common import View, split_table
from merabench.tasks.gorillahard.generator.families.grounded import _states
from merabench.tasks.gorillahard.generator.model import Question

SEEDS = (0, 1, 2)


@pytest.fixture(scope="module")
def corpora() -> dict:
    return {seed: corpus_of(seed) for seed in SEEDS}


def _view(question: Question) -> View:
    return View(question.question, {f.path: f.text for f in question.files}, question.reference,
                {"maker": question.family, **question.facts})


def _rows(family: str, corpus, n: int = 12) -> list[Question]:
    return [FAMILIES[family].make(random.Random(f"{family}:{corpus.seed}:{k}"), corpus) for k in range(n)]


def test_no_file_is_named_after_the_value_a_request_reads_from_it(corpora: dict) -> None:
    """A ticket's key, a migration's table and a JSON config's service were each the attachment's
    name (`tickets/SUP-3963.md`, `db/migrations/0042_orders.sql` creating orders_042,
    `config/cart-api-8005.json`): the header `[файл: ...]` gave the answer away."""
    for corpus in corpora.values():
        for ticket in corpus.by_kind["ticket"]:
            key = formats.ticket_key(ticket.file.text)
            assert key and key not in ticket.file.path and key.split("-")[1] not in ticket.file.path
        for migration in corpus.by_kind["sql"]:
            table = formats.created_table(migration.file.text)
            words = set(re.split(r"[/_.]", migration.file.path))
            assert table and not set(table.split("_")) <= words, (table, migration.file.path)
        for config in corpus.by_kind["service_json"]:
            assert json.loads(config.file.text)["service"] not in config.file.path


def test_values_a_request_reads_are_no_constants_across_seeds(corpora: dict) -> None:
    """The values a request reads off a file vary from set to set: the commonest of each over
    three corpora is a small share (a ticket's project, a Dockerfile's image and port, a pom's
    libraries, a database host, a values file's service and namespace)."""
    drawn: dict[str, Counter] = {name: Counter() for name in
                                 ("project", "image", "port", "artifact", "db_host", "service", "namespace")}
    for corpus in corpora.values():
        for ticket in corpus.by_kind["ticket"]:
            drawn["project"][formats.ticket_key(ticket.file.text).split("-")[0]] += 1
        for docker in corpus.by_kind["dockerfile"]:
            drawn["image"][docker.facts["base"].split(":")[0]] += 1
            drawn["port"][docker.facts["port"]] += 1
        for pom in corpus.by_kind["pom"]:
            drawn["artifact"].update(list(formats.pom_dependencies(pom.file.text)))
        for config in corpus.by_kind["service_json"]:
            drawn["db_host"][json.loads(config.file.text)["database"]["host"]] += 1
        for values in corpus.by_kind["deploy_yaml"]:
            drawn["service"][values.facts["deployment"]] += 1
            drawn["namespace"][values.facts["namespace"]] += 1
    for name, counts in drawn.items():
        top = counts.most_common(1)[0][1] / sum(counts.values())
        assert top < 0.2, (name, counts.most_common(3))


def test_a_level_count_names_a_time_and_the_file_says_the_level(corpora: dict) -> None:
    """«the records of the level the record at 10:12:37 carries»: the question names no level,
    the levels come out evenly, and the check finds a count of another level."""
    levels = Counter()
    for corpus in corpora.values():
        for question in _rows("log_level_count", corpus):
            pattern = question.reference["args"]["pattern"]
            levels[pattern] += 1
            assert not re.search(r"\b(ERROR|WARN|INFO|DEBUG)\b", question.question)
            view = _view(question)
            assert FAMILIES["log_level_count"].check(view) == []
            other = {"ERROR": "WARN", "WARN": "ERROR", "INFO": "DEBUG", "DEBUG": "INFO"}[pattern]
            wrong = View(view.question, view.files, {**view.reference, "args": {**view.reference["args"],
                                                                                 "pattern": other}}, view.derivation)
            assert FAMILIES["log_level_count"].check(wrong)
    assert len(levels) == 4 and max(levels.values()) < 0.45 * sum(levels.values()), levels


def test_a_licence_request_counts_to_a_dependency_the_question_does_not_name(corpora: dict) -> None:
    for corpus in corpora.values():
        for question in _rows("pom_license", corpus):
            package = question.reference["args"]["package"]
            assert package not in question.question
            view = _view(question)
            assert FAMILIES["pom_license"].check(view) == []
            text = next(iter(view.files.values()))
            other = next(a for a in formats.pom_dependencies(text) if a != package)
            wrong = View(view.question, view.files, {**view.reference, "args": {**view.reference["args"],
                                                                                 "package": other}}, view.derivation)
            assert FAMILIES["pom_license"].check(wrong)


def test_a_filter_reads_the_column_and_the_state_word_off_the_table(corpora: dict) -> None:
    """The servers under maintenance and a city's sales: the header (and a state's word) is the
    one the attached export writes, drawn per row, never said in the question."""
    headers, words = Counter(), Counter()
    for corpus in corpora.values():
        for family, pool in (("servers_in_maintenance", STATE_HEADERS), ("sales_in_city", CITY_HEADERS)):
            for question in _rows(family, corpus):
                args = question.reference["args"]
                header, _ = split_table(question.files[0].text)
                assert args["column"] in pool and args["column"] in header
                headers[family, args["column"]] += 1
                if family == "servers_in_maintenance":
                    words[args["value"]] += 1
                    assert args["value"] not in question.question
                view = _view(question)
                assert FAMILIES[family].check(view) == []
                for wrong_args in ({**args, "column": "status" if args["column"] != "status" else "state"},
                                   {**args, "value": "maintenance" if args["value"] != "maintenance" else "maint"}):
                    if family == "sales_in_city" and wrong_args["value"] != args["value"]:
                        continue
                    wrong = View(view.question, view.files, {**view.reference, "args": wrong_args}, view.derivation)
                    assert FAMILIES[family].check(wrong)
    assert len({h for f, h in headers if f == "servers_in_maintenance"}) >= 4
    assert len({h for f, h in headers if f == "sales_in_city"}) >= 4
    assert len(words) >= 4 and set(words) <= {m for _, m in STATE_WORDS}


def test_a_recoded_or_reordered_table_keeps_every_other_cell_and_its_decoys(corpora: dict) -> None:
    corpus = corpora[0]
    tables = [t for t in corpus.by_kind["table"] if t.facts["schema"] == "servers"]
    assert {t.facts["layout"] for t in tables} >= {"comma", "semicolon", "tsv", "quoted"}
    for table in tables:
        shown = recoded(table, "status", "lifecycle", {"active": "up", "maintenance": "maint"})
        before, after = table.file.text.split("\n"), shown.file.text.split("\n")
        assert len(before) == len(after)
        assert sum(line.startswith("# ") for line in before) == sum(line.startswith("# ") for line in after)
        header, rows = split_table(shown.file.text)
        old_header, old_rows = split_table(table.file.text)
        at = old_header.index("status")
        assert header == [*old_header[:at], "lifecycle", *old_header[at + 1:]] and len(rows) == len(old_rows)
        for new, old in zip(rows, old_rows, strict=True):
            assert new[:at] + new[at + 1:] == old[:at] + old[at + 1:]
            assert new[at] == {"active": "up", "maintenance": "maint"}[old[at]]
        moved = reordered(random.Random(7), table)
        header, rows = split_table(moved.file.text)
        assert sorted(header) == sorted(old_header) and header[0] != old_header[0] and header[-1] != old_header[-1]
        assert [sorted(r) for r in rows] == [sorted(r) for r in old_rows]


def test_a_pick_clause_never_names_the_answer() -> None:
    """A pom pick "where log4j-core is a dependency" over a request about its first library, which
    is log4j-core: the answer was in the question."""
    assert _states("в котором подключён log4j-core", {"package": "log4j-core"})
    assert not _states("в котором подключён log4j-core", {"package": "guava", "version": "33.0.1-jre"})
