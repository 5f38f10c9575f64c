"""The corpus's files: each kind drawn from several layouts with several kinds of decoy, and the
families' readers finding the live value whatever the layout and the decoys."""

from __future__ import annotations

import json
import random
import re
from collections import Counter

import pytest
from helpers import corpus_of

from merabench.tasks.gorillahard.generator.checks import file_layouts
from merabench.tasks.gorillahard.generator.families import formats
from merabench.tasks.gorillahard.generator.families.common import defined_functions, setting
from merabench.tasks.gorillahard.generator.families.configs import queue_section

SEEDS = (0, 7, 23)


def corpora() -> dict:
    return {seed: corpus_of(seed) for seed in SEEDS}


def _live(kind: str, text: str) -> object:
    """What the families read from a file of the kind."""
    if kind == "deploy_yaml":
        return (setting(text, "namespace"), setting(text, "deployment"), int(setting(text, "replicas") or -1),
                int(setting(text, "client.timeout_ms") or -1), int(setting(text, "client.retries") or -1))
    if kind == "env":
        return setting(text, "FEATURE_FLAG", "="), setting(text, "APP_ENV", "="), formats.env_variables(text)
    if kind == "worker_ini":
        return setting(queue_section(text), "name", "="), int(formats.ini_value(text, "queue", "prefetch") or -1)
    if kind == "pyproject":
        return formats.toml_value(text, "tool.service.schedule"), formats.toml_value(text, "tool.service.command")
    if kind == "service_json":
        database = json.loads(text)["database"]
        return database["host"], database["port"], database["pool"]
    if kind == "ticket":
        return formats.ticket_key(text), formats.ticket_author(text), formats.ticket_url(text), formats.ticket_comments(text)
    if kind == "dockerfile":
        return formats.dockerfile_port(text)
    if kind in ("hosts_md", "hosts_txt"):
        return list(formats.listed_hosts(text))
    if kind == "invoices":
        return [(r[0], int(formats.number(r[2]))) for r in formats.table(text)[1]]
    if kind == "app_log":
        return formats.level_count(text, "ERROR")
    if kind == "events_jsonl":
        traces = formats.traces(text)
        return max(traces, key=lambda t: t[1])[0], len(traces)
    if kind == "sql":
        return formats.created_table(text)
    if kind == "pom":
        return list(formats.pom_dependencies(text).items())
    if kind == "python":
        return formats.assignment_lines(text, "TIMEOUT_S"), defined_functions(text)
    raise KeyError(kind)


def _expected(kind: str, facts: dict) -> object:
    return {
        "deploy_yaml": lambda f: (f["namespace"], f["deployment"], f["replicas"], f["timeout_ms"], f["retries"]),
        "env": lambda f: (f["flag"], f["environment"], f["variables"]),
        "worker_ini": lambda f: (f["queue"], f["prefetch"]),
        "pyproject": lambda f: (f["schedule"], f["command"]),
        "service_json": lambda f: (f["host"], f["port"], f["pool"]),
        "ticket": lambda f: (f["issue"], f["author"], f["url"], f["comments"]),
        "dockerfile": lambda f: f["port"],
        "hosts_md": lambda f: f["hosts"],
        "hosts_txt": lambda f: f["hosts"],
        "invoices": lambda f: f["items"],
        "app_log": lambda f: f["errors"],
        "events_jsonl": lambda f: (f["slowest"], f["traces"]),
        "sql": lambda f: f["table"],
        "pom": lambda f: [tuple(d) for d in f["deps"]],
        "python": lambda f: ([f["timeout_line"]], f["functions"]),
    }[kind](facts)


READ = ("deploy_yaml", "env", "worker_ini", "pyproject", "service_json", "ticket", "dockerfile", "hosts_md",
        "hosts_txt", "invoices", "app_log", "events_jsonl", "sql", "pom", "python")


@pytest.mark.parametrize("kind", READ)
def test_the_readers_find_the_live_value_past_every_decoy(kind: str) -> None:
    seen = Counter()
    for corpus in corpora().values():
        for f in corpus.by_kind[kind]:
            assert _live(kind, f.file.text) == _expected(kind, f.facts), (f.file.path, f.facts["layout"],
                                                                          f.facts["decoys"])
            seen.update(f.facts["decoys"])
    assert len(seen) >= 3, seen


def test_every_kind_has_three_layouts_and_three_decoy_kinds_in_every_corpus() -> None:
    for seed, corpus in corpora().items():
        found, unknown = file_layouts.figures([f.file.path for f in corpus.files()], seed)
        assert unknown == [] and set(found) == set(corpus.by_kind)
        assert file_layouts.shortfalls(found) == [], seed


def test_a_kind_with_too_few_layouts_or_decoys_is_named() -> None:
    thin = file_layouts.KindFigures(8, Counter({"plain": 8}), Counter({"disabled": 2, "stale": 1}))
    assert file_layouts.shortfalls({"env": thin}) == ["env: 1 layouts < 3", "env: 2 decoy kinds < 3"]
    assert file_layouts.shortfalls({"audio": file_layouts.KindFigures(3, Counter("abc"), Counter())}) == []
    assert file_layouts.shortfalls({"env": file_layouts.KindFigures(2, Counter({"plain": 2}), Counter())}) == []


def test_the_check_reports_the_least_over_the_kinds_held_to_the_rule(monkeypatch) -> None:
    """The passing detail's minimum is taken over the kinds the rule holds, and names the exempt
    ones (few files, no layouts, no decoys), not 'at least 1 layouts and 0 decoy kinds'."""
    from merabench.tasks.gorillahard.generator.checks import files as checks_files

    kf = file_layouts.KindFigures
    found = {"env": kf(8, Counter("abc"), Counter("xyz")), "audio": kf(8, Counter("abcd"), Counter()),
             "flags_yaml": kf(7, Counter({"?": 7}), Counter()), "pom": kf(2, Counter("a"), Counter())}
    monkeypatch.setattr(file_layouts, "figures", lambda paths, seed: (found, []))
    check = checks_files.check_file_layouts([], {"seed": 0, "n_test": 1})
    assert check.ok, check.detail
    assert "the 2 held to the rule show at least 3 layouts and 3 decoy kinds each" in check.detail
    assert "exempt: flags_yaml (drawn without layouts), pom (2 files < 6), audio decoys (" in check.detail


# what each decoy kind leaves in a file's text, for kinds where it is one plain pattern
VISIBLE = {
    ("deploy_yaml", "stale"): lambda t: "\nlegacy:\n" in t,
    ("deploy_yaml", "disabled"): lambda t: re.search(r"^# replicas: \d+", t, re.M),
    ("env", "duplicate"): lambda t: len(re.findall(r"^FEATURE_FLAG=", t, re.M)) == 2,
    ("worker_ini", "stale"): lambda t: "[queue.example]" in t,
    ("table", "duplicate"): lambda t: t.splitlines().count(next(ln for ln in t.splitlines() if not ln.startswith("#"))) == 2,
    ("table", "disabled"): lambda t: re.search(r"^# ", t, re.M),
    ("ticket", "disabled"): lambda t: "<!-- ссылка до переезда" in t,
    ("dockerfile", "stale"): lambda t: "\n# FROM " in t,
    ("sql", "in_string"): lambda t: re.search(r"IS '[^']*CREATE TABLE", t),
    ("pom", "disabled"): lambda t: "<!--\n      <dependency>" in t,
    ("events_jsonl", "unit"): lambda t: '"db_us"' in t or '"dbTimeUs"' in t,
}


def test_a_drawn_decoy_is_in_the_text_and_an_undrawn_one_is_not() -> None:
    for (kind, decoy), visible in VISIBLE.items():
        files = [f for corpus in corpora().values() for f in corpus.by_kind[kind]]
        with_it = [f for f in files if decoy in f.facts["decoys"]]
        assert with_it and all(visible(f.file.text) for f in with_it), (kind, decoy)
        assert not any(visible(f.file.text) for f in files if decoy not in f.facts["decoys"]), (kind, decoy)


def test_a_tickets_thread_is_read_in_every_layout() -> None:
    """The pick criteria that ask what a ticket's thread said (a dashboard link, a raised priority)
    read the thread under any of the tracker's headings: a reader that knew only "## Обсуждение"
    found no thread in two layouts of three and picked a ticket that did not fit (seed 7, row 173)."""
    from merabench.tasks.gorillahard.generator.families.contents import (
        TICKET_TOPICS,
        ticket_commenters,
        ticket_topics,
    )

    seen: Counter[str] = Counter()
    for corpus in corpora().values():
        for cf in corpus.by_kind["ticket"]:
            text = cf.file.text
            thread = re.split(r"^(?:## Обсуждение|## Комментарии|Комментарии:)$", text, maxsplit=1, flags=re.M)[1]
            said = {name for name, comment in TICKET_TOPICS.items() if comment in thread}
            assert ticket_topics(text) == said, cf.file.path
            assert len(ticket_commenters(text)) >= 2, cf.file.path
            assert formats.ticket_comments(text) == cf.facts["comments"], cf.file.path
            seen[cf.facts["layout"]] += bool(said)
    assert set(seen) == {"fields", "table", "prose"} and min(seen.values()) > 0, seen


def test_no_ticket_field_says_what_only_its_thread_may_say() -> None:
    """A ticket's table of fields never shows a high priority: "where the priority was raised to
    high" and "where it was not" are told apart by the thread alone."""
    tickets = [cf.file.text for corpus in corpora().values() for cf in corpus.by_kind["ticket"]]
    fields = [t for t in tickets if "| Приоритет |" in t]
    assert fields and not any("| Приоритет | высокий |" in t for t in fields)


def test_the_timeout_criterion_reads_every_python_layout() -> None:
    """`TIMEOUT_S: int = 30` (the typed layout) is the module's timeout as much as `TIMEOUT_S = 30`:
    a reader that knew only the untyped form never offered a third of the modules to the criterion."""
    from merabench.tasks.gorillahard.generator.families.contents import python_timeout

    layouts: Counter[str] = Counter()
    for corpus in corpora().values():
        for cf in corpus.by_kind["python"]:
            live = cf.file.text.split("\n")[cf.facts["timeout_line"] - 1]
            assert python_timeout(cf.file.text) == int(live.rsplit("=", 1)[1]), (cf.file.path, live)
            layouts[cf.facts["layout"]] += 1
    assert len(layouts) >= 3, layouts


def _criterion_reads(kind: str, text: str, facts: dict) -> list[tuple[str, object, object]]:
    """(what, the pick criteria's reading, the corpus's own record) for a file of the kind."""
    from merabench.tasks.gorillahard.generator.families import contents as c
    from merabench.tasks.gorillahard.generator.families.criteria import BY_NAME

    if kind == "deploy_yaml":
        return [("replicas", c.as_number(c.yaml_key(text, "replicas")), float(facts["replicas"])),
                ("retries", c.as_number(c.yaml_key(text, "client", "retries")), float(facts["retries"])),
                ("timeout_ms", c.as_number(c.yaml_key(text, "client", "timeout_ms")), float(facts["timeout_ms"])),
                ("namespace", c.yaml_key(text, "namespace"), facts["namespace"]),
                ("deployment", c.yaml_key(text, "deployment"), facts["deployment"])]
    if kind == "service_json":
        return [("pool", c.as_number(c.json_doc(text).get("database", {}).get("pool")), float(facts["pool"]))]
    if kind == "worker_ini":
        return [("prefetch", c.as_number(formats.ini_value(text, "queue", "prefetch")), float(facts["prefetch"])),
                ("queue", formats.ini_value(text, "queue", "name"), facts["queue"])]
    if kind == "app_log":
        events = c.log_events(text)
        named = {"db": "db_refused", "timeout": "upstream_timeout", "disk": "disk_full", "oom": "oom"}
        return ([(f"event {e}", named[e] in events, True) for e in facts["events"]]
                + [("errors", BY_NAME["log.errors"].value(text, {}), facts["errors"])])
    if kind == "audio":
        return [("minutes", c.audio_minutes(text), facts["minutes"])]
    if kind == "dockerfile":
        return [("base", c.docker_from(text), facts["base"])]
    if kind == "hosts_txt":  # v25 read the address of an /etc/hosts line as the host, and an inline note with it
        hosts = facts["hosts"]
        return [("hosts", c.host_lines(text), hosts), ("roles", c.host_roles(text), {h.split(".")[0] for h in hosts})] + \
            [(f"zone {z}", BY_NAME["hosts.zone"].value(text, {"zone": z}), float(sum(h.endswith("." + z) for h in hosts)))
             for z in ("example.org", "example.com", "example.net")]
    if kind == "events_jsonl":  # every trace went to one of the three routes, in every layout (v25 missed `name`)
        routes = sum(BY_NAME["traces.route"].value(text, {"route": r}) for r in ("/orders", "/cart", "/pay"))
        return [("traces by route", routes, float(facts["traces"]))]
    return []


def test_the_pick_criteria_read_what_the_corpus_wrote() -> None:
    """The validator re-reads a pick with the criteria's own readers, so they are held here against
    what the corpus recorded when it wrote each file, in every layout and past every decoy."""
    read = Counter()
    for corpus in corpora().values():
        for cf in corpus.files():
            for what, got, wrote in _criterion_reads(cf.kind, cf.file.text, cf.facts):
                assert got == wrote, (cf.file.path, cf.facts.get("layout"), what, got, wrote)
                read[cf.kind] += 1
    assert set(read) == {"deploy_yaml", "service_json", "worker_ini", "app_log", "audio", "dockerfile",
                         "hosts_txt", "events_jsonl"}, read


# a layout that does not write what a criterion compares: the criterion is never drawn over it
_NOT_WRITTEN = {("docker.health", "args")}  # the build-argument layout has no HEALTHCHECK


def test_no_count_criterion_reads_nothing_in_a_whole_layout() -> None:
    """A reader that misses one layout's way of writing a value (a trace's route inside an
    OpenTelemetry `name`, v25 seed 9393 row 632) reads 0 or nothing in every file of that layout,
    and picks the wrong file of two: each compared value is read in some file of every layout."""
    from merabench.tasks.gorillahard.generator.families.criteria import CRITERIA, Compare, Threshold

    seen: dict[tuple[str, str], set[object]] = {}
    for corpus in corpora().values():
        for kind, group in CRITERIA.items():
            for cf in corpus.by_kind.get(kind, []):
                for name, criterion in group.items():
                    if isinstance(criterion, Compare):  # its parameters (a minute, a route) drawn for some pair
                        drawn = (criterion.draw(random.Random(0), cf.file.text, o.file.text)
                                 for o in corpus.by_kind[kind] if o is not cf)
                        params = next((d for d in drawn if d is not None), None)
                        if params is None:
                            continue
                        value = criterion.value(cf.file.text, params)
                    elif isinstance(criterion, Threshold):
                        value = criterion.value(cf.file.text)
                    else:
                        continue
                    seen.setdefault((name, str(cf.facts.get("layout"))), set()).add(value)
    empty = sorted(key for key, values in seen.items() if values <= {None, 0} and key not in _NOT_WRITTEN)
    assert empty == [], empty
    assert len(seen) > 100, len(seen)


def test_a_key_set_twice_is_marked_overridden_in_every_layout() -> None:
    """The duplicated-key decoy of worker INIs and .env files says above the older assignment that
    a later one overrides it (seed 4242, v14: `name = reports-old` then `name = reports-195`
    unmarked before a purge); the validator's reader finds one such key exactly where it was drawn."""
    from merabench.tasks.gorillahard.generator.checks.files import _duplicates

    layouts: Counter[tuple[str, str]] = Counter()
    for corpus in corpora().values():
        for kind in ("worker_ini", "env"):
            for cf in corpus.by_kind[kind]:
                twice, unmarked = _duplicates(cf.file.path, cf.file.text)
                assert unmarked == [], unmarked
                assert twice == ("duplicate" in cf.facts["decoys"]), cf.file.path
                layouts[kind, cf.facts["layout"]] += twice
    assert len(layouts) == 6 and min(layouts.values()) > 0, layouts
