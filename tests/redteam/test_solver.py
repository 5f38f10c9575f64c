"""The red-team solver's rules on hand-made prompts, and the gate that reports it."""

from __future__ import annotations

import json

import pytest
from helpers import corpus_of
from redteam import files as redteam_files
from redteam import flags as redteam_flags
from redteam import generic as redteam_generic
from redteam import hosts as redteam_hosts
from redteam import rules as redteam_rules
from redteam import score as redteam_score
from redteam import solver as redteam
from redteam import standin as redteam_standin

from merabench.rows.row import Row

MEDIAN = {"name": "tables.median", "family": "tables", "description": "Медиана числового столбца таблицы.",
          "parameters": {"path": {"type": "string"}, "column": {"type": "string"}}, "constraints": {}}
REFUND = {"name": "billing.refund", "family": "billing", "description": "Возврат по счёту.",
          "parameters": {"invoice_id": {"type": "string", "required": True},
                         "amount": {"type": "number", "required": True, "maximum": 5000}},
          "constraints": {"ограничения": "не больше 5000 ₽"}}
DECOMMISSION = {"name": "fleet.decommission", "family": "servers", "description": "Выводит сервер из эксплуатации.",
                "parameters": {"host": {"type": "string", "required": True}}, "constraints": {}}
INVOICES = "invoice_id;customer;amount_rub;status\nINV-1;ООО «А»;900;paid\nINV-2;ООО «Б»;{big};paid\n"
SERVERS = ("host,rack,cpu_pct,status\n# srv-009,R2,1,maintenance\nsrv-001,R2,40,active\n"
           "srv-002,R2,7,{status}\nhost,rack,cpu_pct,status\nsrv-003,R5,2,maintenance\n")


def prompt(question: str, files: dict[str, str], tools: list[dict]) -> redteam.Prompt:
    context = "\n".join(f"[файл: {path}]\n{text}" for path, text in files.items())
    return redteam.Prompt(question, redteam_files.attached(context), redteam_files.catalog(json.dumps(tools)))


def recipe(op: str, **args: dict) -> dict:
    return {"kind": "call", "words": [], "steps": [{"op": op, "args": args, "desc": ""}]}


def test_tables_skip_comments_and_repeated_headers() -> None:
    table = redteam_files.table(SERVERS.format(status="active"), "s.csv")
    assert table is not None and table.column("host") == ["srv-001", "srv-002", "srv-003"]
    assert redteam_files.table("a\tb\n1\t2\n", "t.tsv").records() == [{"a": "1", "b": "2"}]


def test_the_largest_refund_is_refused_past_the_catalogs_limit_and_made_below_it() -> None:
    refund = recipe("refund", invoice_id={"t": "const", "v": "INV-0"}, amount={"t": "const", "v": 1})
    question = "Верни всю сумму по самому крупному счёту."
    below = prompt(question, {"finance/invoices_1.csv": INVOICES.format(big=4990)}, [REFUND])
    assert redteam_rules.apply(refund, below, {}) == {"tool": "billing.refund",
                                                      "args": {"invoice_id": "INV-2", "amount": 4990}}
    above = prompt(question, {"finance/invoices_1.csv": INVOICES.format(big=16804)}, [REFUND])
    assert redteam_rules.apply(refund, above, {})["abstain"] is True


def test_decommission_picks_the_racks_idlest_server_and_checks_its_status() -> None:
    decommission = recipe("decommission", host={"t": "const", "v": "srv-000"})
    question = "Выведи из эксплуатации самый незагруженный по процессору сервер в стойке R2."
    ready = prompt(question, {"data/servers_1.csv": SERVERS.format(status="maintenance")}, [DECOMMISSION])
    assert redteam_rules.apply(decommission, ready, {}) == {"tool": "fleet.decommission", "args": {"host": "srv-002"}}
    busy = prompt(question, {"data/servers_1.csv": SERVERS.format(status="active")}, [DECOMMISSION])
    assert redteam_rules.apply(decommission, busy, {})["abstain"] is True
    absent = prompt(question, {"data/servers_1.csv": SERVERS.format(status="maintenance")}, [REFUND])
    assert "каталоге нет" in redteam_rules.apply(decommission, absent, {})["reason"]


def test_a_question_picks_one_of_two_files_by_what_they_hold() -> None:
    files = {"ops/hosts-1.txt": "# хосты\na.example.com\nb.example.com\n", "ops/hosts-2.txt": "c.example.com\n"}
    more = prompt("Файлов два, ops/hosts-1.txt и ops/hosts-2.txt; речь о том, где хостов больше.", files, [])
    fewer = prompt("Файлов два, ops/hosts-1.txt и ops/hosts-2.txt; речь о том, где хостов меньше.", files, [])
    assert redteam_rules.choose(more, "hosts-.txt", "txt") == "ops/hosts-1.txt"
    assert redteam_rules.choose(fewer, "hosts-.txt", "txt") == "ops/hosts-2.txt"


def test_a_live_config_value_is_read_past_its_commented_out_decoy() -> None:
    spec = {"t": "fkey", "prefix": "replicas:", "occ": 0, "shape": r"\d+", "num": True}
    values = prompt("?", {"values.yaml": "# replicas: 11\nreplicas: 12\n"}, [])
    assert redteam_rules.value_of(spec, "replicas", values, "values.yaml", {}) == 12


def row(outputs: str) -> Row:
    return Row("", {"question": "q", "context": "", "tools": "[]", "format": ""}, outputs,
               {"id": 0, "dialog_id": "d", "n_turns": 1, "categories": {"lever": "scan"}})


def test_the_gate_reports_a_failing_share(monkeypatch) -> None:
    monkeypatch.setattr(redteam_score, "scores", lambda *a, **k: {"metrics": {"sample_pass_rate": 0.71}})
    ok, line = redteam_score.gate_line([row("{}")], [], 57)
    assert not ok and line.startswith("red-team solver 0.71") and line.endswith("> 0.25")
    monkeypatch.setattr(redteam_score, "scores", lambda *a, **k: {"metrics": {"sample_pass_rate": 0.2}})
    assert redteam_score.gate_line([row("{}")], [], 57)[0]


SCALE = {"name": "k8s.scale", "family": "k8s", "description": "Меняет число реплик.",
         "parameters": {"namespace": {"type": "string"}, "deployment": {"type": "string"},
                        "replicas": {"type": "integer", "maximum": 20}}, "constraints": {}}


def values_row(row_id: int, namespace: str, deployment: str, replicas: int, tool: str = "k8s.scale") -> Row:
    values = (f"# values for {deployment}\nnamespace: {namespace}\ndeployment: {deployment}\n"
              f"# replicas: {replicas + 4}   # old\nreplicas: {replicas}\n")
    answer = {"tool": tool, "args": {"namespace": namespace, "deployment": deployment, "replicas": replicas}}
    catalog = [dict(SCALE, name=tool)]
    return Row("", {"question": "Выставь сервису из файла столько реплик, сколько там указано.",
                    "context": f"[файл: deploy/values-{row_id}.yaml]\n{values}", "tools": json.dumps(catalog),
                    "format": ""}, json.dumps(answer, ensure_ascii=False),
               {"id": row_id, "dialog_id": f"d{row_id}", "n_turns": 1, "categories": {"lever": "schema"}})


def test_a_recipe_learnt_from_one_row_answers_another_from_its_own_file() -> None:
    bank = redteam.build_bank([values_row(1, "core-prod", "search-api", 7)], [])
    recipe = bank["recipes"][0]
    assert recipe["steps"][0]["op"] == "scale"
    assert {spec["t"] for spec in recipe["steps"][0]["args"].values()} == {"fkey"}
    other = values_row(2, "billing", "cart-api", 3, tool="cluster.scale")
    answer = redteam_rules.apply(recipe, redteam.prompt_of(other), bank["columns"])
    assert answer == json.loads(other.outputs)  # the live value, not the commented-out one


def test_the_index_finds_the_nearest_question_and_can_leave_one_out() -> None:
    index = redteam.Index([{"words": ["посчит", "медиан"], "kind": "call", "steps": []},
                           {"words": ["удали", "журнал"], "kind": "call", "steps": []}])
    assert index.ranked(["медиан", "посчит"])[0][1] == 0
    assert all(i != 0 for _, i in index.ranked(["медиан", "посчит"], skip=frozenset({0})))


def test_the_shipped_bank_holds_the_dev_seeds_recipes() -> None:
    bank = redteam.bank()
    assert bank["seed"] == redteam.DEV_SEED and len(bank["recipes"]) > 1000
    assert {"call", "calls", "plan", "abstain", "clarify"} <= {r["kind"] for r in bank["recipes"]}


@pytest.fixture(scope="module")
def small_set(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Row]]:
    from merabench.rows.row import read_local
    from merabench.tasks.gorillahard.generator.build.generate import SetPlan, write_set

    folder = tmp_path_factory.mktemp("gorillahard_small")
    write_set(SetPlan(seed=5, rows=300, dialogues=10), folder)
    return read_local(folder)


def test_the_general_layer_answers_requests_without_any_dev_recipe(small_set) -> None:
    """No lexicon, no recipe: the catalog tool by its description, its parameters by type."""
    shots = small_set.get("shots", [])
    exact = [row for row in small_set["test"]
             if redteam_generic.answer(redteam.prompt_of(row, shots), None) == json.loads(row.outputs)]
    assert len(exact) >= 20
    assert len({row.meta["derivation"]["maker"] for row in exact}) >= 10


def test_the_general_layer_ranks_the_reference_tool_first_on_most_calls(small_set) -> None:
    lexicon = redteam_generic.Lexicon.of(redteam.bank()["recipes"])
    shots, hits, calls = small_set.get("shots", []), 0, 0
    for row in small_set["test"]:
        steps = redteam_rules.steps_of(json.loads(row.outputs))
        if not steps:
            continue
        calls += 1
        ranked = redteam_generic.ranked_tools(redteam.prompt_of(row, shots), lexicon)
        hits += ranked[0][1].name == steps[0]["tool"]
    assert calls > 200 and hits / calls > 0.6


def test_leaving_a_maker_out_leaves_out_every_recipe_of_its_family(small_set, monkeypatch) -> None:
    rows, shots = small_set["test"], small_set.get("shots", [])
    small_bank = redteam.build_bank(rows, shots)
    monkeypatch.setattr(redteam, "bank", lambda: small_bank)
    monkeypatch.setattr(redteam, "index", lambda: redteam.Index(small_bank["recipes"]))
    seen: dict[str, frozenset[int]] = {}

    def spy(prompt: redteam.Prompt, *, skip: frozenset[int], idx: redteam.Index) -> str:
        seen[prompt.question] = skip
        return "{}"
    monkeypatch.setattr(redteam, "solve", spy)
    redteam.answers(rows[:40], shots, leave_out="maker")
    for n, row in enumerate(rows[:40]):
        maker = row.meta["derivation"]["maker"]
        family = {i for i, r in enumerate(small_bank["recipes"]) if r["maker"] == maker}
        assert family and family | {n} == set(seen[row.inputs["question"]])


def test_the_dev_set_teaches_operations_served_under_another_name() -> None:
    idx = redteam.index()
    found = redteam_standin.aliases(idx)
    ordinary = {st["op"] for r in idx.recipes if r.get("lever") != "near_miss" for st in r["steps"]}
    assert found and all(asked in ordinary and not (names & ordinary) for asked, names in found.items())
    everything = frozenset(range(len(idx.recipes)))
    assert redteam_standin.aliases(idx, everything) == {}  # nothing is learnt from recipes left out


def test_two_files_are_told_apart_by_a_count_or_a_date_no_rule_names() -> None:
    logs = {"logs/a.log": "10:00 WARN slow\n10:01 INFO ok\n", "logs/b.log": "10:00 WARN slow\n10:02 WARN disk\n"}
    more = prompt("Файл — тот, где строк с WARN больше. Покажи хвост журнала.", logs, [])
    fewer = prompt("Файл — тот, где строк с WARN меньше. Покажи хвост журнала.", logs, [])
    assert redteam_rules.choose(more, None, "log") == "logs/b.log"
    assert redteam_rules.choose(fewer, None, "log") == "logs/a.log"
    configs = {"cfg/a.yaml": "# updated 2024-05-01\nretries: 3\n", "cfg/b.yaml": "# updated 2024-03-09\nretries: 4\n"}
    newer = prompt("Возьми тот конфиг, что новее. Сколько там повторов?", configs, [])
    older = prompt("Возьми тот конфиг, что старее. Сколько там повторов?", configs, [])
    assert redteam_rules.choose(newer, None, "yaml") == "cfg/a.yaml"
    assert redteam_rules.choose(older, None, "yaml") == "cfg/b.yaml"


def test_two_files_of_one_format_that_nothing_tells_apart_are_asked_about() -> None:
    tables = {"data/a.csv": "host,cpu_pct\nsrv-1,3\n", "data/b.csv": "host,cpu_pct\nsrv-2,4\n"}
    assert "clarify" in redteam_rules.special(prompt("Какая медиана по столбцу «cpu_pct»?", tables, []))
    picked = prompt("Возьми тот, где строк данных больше. Какая медиана по столбцу «cpu_pct»?", tables, [])
    assert redteam_rules.special(picked) is None
    mixed = {"data/a.csv": tables["data/a.csv"], "logs/b.log": "10:00 ERROR x\n"}
    assert redteam_rules.special(prompt("Какая медиана по столбцу «cpu_pct»?", mixed, [])) is None


def test_a_column_the_table_holds_under_two_spellings_is_asked_about() -> None:
    median = recipe("median", path={"t": "path", "kind": "t.csv", "ext": "csv"}, column={"t": "colq", "i": 0})
    twice = prompt("Медиана по столбцу «скидка»?", {"data/t.csv": "id,discount_pct,Discount\n1,3,4\n"}, [MEDIAN])
    assert "clarify" in redteam_rules.apply(median, twice, {})
    once = prompt("Медиана по столбцу «скидка»?", {"data/t.csv": "id,discount_pct,discount_code\n1,3,A\n"}, [MEDIAN])
    assert redteam_rules.apply(median, once, {})["args"]["column"] == "discount_pct"


PING = {"name": "net.ping", "family": "net", "description": "Проверяет доступность хоста по ICMP.",
        "parameters": {"host": {"type": "string", "required": True, "description": "хост"}}, "constraints": {}}


def test_the_general_layer_asks_the_same_of_every_listed_host_of_the_picked_file() -> None:
    files = {"ops/a.txt": "a.example.com\nb.example.com\n", "ops/b.txt": "c.example.com\n"}
    asked = prompt("Проверь доступность по ICMP всех хостов из файла, где хостов больше.", files, [PING, REFUND])
    assert redteam_generic.answer(asked, None) == {"calls": [{"tool": "net.ping", "args": {"host": "a.example.com"}},
                                                             {"tool": "net.ping", "args": {"host": "b.example.com"}}]}


def test_a_file_is_picked_by_its_month_its_topic_or_a_threshold_in_the_questions_units() -> None:
    tables = {"exports/weather_1.csv": "station,date,temp_c\nОмск,2026-10-01,2.2\n",
              "exports/weather_2.csv": "station,date,temp_c\nТула,2026-04-01,7.3\n"}
    april = prompt("Таблицу в json. Мне нужно то вложение, в котором замеры за апрель.", tables, [])
    assert redteam_rules.choose(april, None, "csv") == "exports/weather_2.csv"
    topics = {"data/sales_1.csv": "city;amount_rub\nУфа;7319\n", "exports/weather_3.csv": tables["exports/weather_1.csv"]}
    sales = prompt("Уникальные значения первой колонки. Нужен тот файл, где есть суммы продаж.", topics, [])
    assert redteam_rules.choose(sales, None, "csv") == "data/sales_1.csv"
    audio = {"audio/a.wav": "(аудиозапись: WAV, 19 мин)", "audio/b.wav": "(аудиозапись: WAV, 52 мин)"}
    long = prompt("Раздели запись по участникам. Нужен файл, в котором запись идёт больше 30 минут.", audio, [])
    assert redteam_rules.choose(long, None, "wav") == "audio/b.wav"


def test_a_module_or_a_log_is_picked_by_what_it_does_or_what_it_lacks() -> None:
    modules = {"src/a.py": "def fetch(url):\n    pass\n", "src/b.py": "# def fetch(url)\ndef retry(call):\n    pass\n"}
    retrying = prompt("Запусти линтер. Нужен тот модуль, где есть повтор упавшей операции.", modules, [])
    assert redteam_rules.choose(retrying, None, "py") == "src/b.py"
    logs = {"logs/a.log": "10:00 ERROR boom\nTraceback (most recent call last):\n", "logs/b.log": "10:00 ERROR boom\n"}
    clean = prompt("Удали журнал. Речь о том, где нет ни одной трассировки стека.", logs, [])
    assert redteam_rules.choose(clean, None, "log") == "logs/b.log"


def test_a_flag_file_is_read_in_any_layout_and_the_request_leaves_its_environments() -> None:
    by_env = ("# gift-cards — подарочные сертификаты\nenvironments:\n  dev:\n    gift-cards: disabled\n"
              "  qa:\n    gift-cards: enabled\n    # gift-cards: disabled\n  preprod:\n    gift-cards: enabled\n")
    keys = "FEATURE_GIFT_CARDS__DEV=off\nFEATURE_GIFT_CARDS__QA=on\nFEATURE_GIFT_CARDS__PREPROD=on\n"
    table = "| флаг | dev | qa | preprod |\n| --- | --- | --- | --- |\n| gift-cards | off | on | on |\n"
    for text in (by_env, keys, table):
        assert redteam_flags.states(text)["gift-cards"] == {"dev": False, "qa": True, "preprod": True}
    files = {"deploy/flags.yaml": by_env}
    on = prompt("Погаси флаг, отвечающий за подарочные сертификаты, везде, где он включён.", files, [])
    assert redteam_flags.environments(on) == ("gift-cards", ["qa", "preprod"])
    but = prompt("Состояние флага «gift-cards» по всем окружениям, qa не нужен.", files, [])
    assert redteam_flags.environments(but) == ("gift-cards", ["dev", "preprod"])


def test_an_inventory_keeps_the_hosts_the_request_says_in_other_words() -> None:
    pairs = ("# host=old.example.com role=redis status=in-service\nhost=a.example.com env=прод role=redis status=in-service\n"
             "host=b.example.com env=тест role=broker status=retired\nhost=c.example.org env=тест role=redis status=retired\n"
             "# === всё, что ниже, — старый список, не использовать ===\nhost=d.example.com env=прод role=redis\n")
    cache = prompt("Узнай владельцев доменов хостов из списка, у которых роль cache.", {"ops/i.txt": pairs}, [])
    assert redteam_hosts.where(cache, pairs) == ["a.example.com", "c.example.org"]
    testing = prompt("ttl записей хостов из списка, которые стоят в testing?", {"ops/i.txt": pairs}, [])
    assert redteam_hosts.where(testing, pairs) == ["b.example.com", "c.example.org"]
    assert redteam_hosts.where(prompt("Пропингуй все хосты из списка.", {"ops/i.txt": pairs}, []), pairs) is None


def test_the_clause_rules_read_what_the_dev_clauses_said_from_the_files() -> None:
    """A rule per kind of picking clause the dev set showed: a health check run more often is the
    shorter interval, a log without refused database connections is the one whose database lines
    are healthy, a limit in seconds is compared with milliseconds; a clause no rule knows is left
    to the general picking."""
    from redteam import clause_rules as redteam_clause_rules

    docker = {"a/Dockerfile": "FROM python:3.12-slim\nHEALTHCHECK --interval=30s --timeout=3s CMD true\n",
              "b/Dockerfile": "FROM node:20-alpine\nHEALTHCHECK --interval=15s --timeout=3s CMD true\n"}
    assert redteam_clause_rules.pick("где проверка здоровья идёт чаще", docker) == "b/Dockerfile"
    assert redteam_clause_rules.pick("где образ построен на Alpine", docker) == "b/Dockerfile"
    logs = {"a.log": "2026-03-01 10:00:00 INFO  db: pool 3/10 connections in use\n",
            "b.log": "2026-03-02 10:00:00 ERROR db: connection refused (host=pg-main:5432)\n"}
    assert redteam_clause_rules.pick("где база ни разу не отказала в соединении", logs) == "a.log"
    assert redteam_clause_rules.pick("в котором видно, что база отказывала в соединении", logs) == "b.log"
    values = {"a.yaml": "client:\n  timeout_ms: 1500\n", "b.yaml": "client:\n  timeout_ms: 2500\n"}
    assert redteam_clause_rules.pick("где клиент ждёт ответа дольше 2 секунд", values) == "b.yaml"
    assert redteam_clause_rules.pick("где сервис описан стихами", values) is None


def test_the_clause_readers_count_log_records_in_every_layout() -> None:
    """The red team's clause readers once knew only the plain `date time LEVEL` layout: in a logfmt
    or bracketed log they found no refused connection and no ERROR, and picked the wrong file of
    two. Held against what the corpus wrote, in all three layouts."""
    from redteam import clause_rules as clauses


    layouts = set()
    for seed in (0, 7):
        for cf in corpus_of(seed).by_kind["app_log"]:
            text, facts = cf.file.text, cf.facts
            assert clauses._log_event("где база ни разу не отказала в соединении", text) == ("db" in facts["events"])
            assert clauses._log_event("где памяти всем хватало", text) == ("oom" in facts["events"])
            assert sum(level == "ERROR" for _, _, level in clauses._stamped(text)) == facts["errors"]
            layouts.add(facts["layout"])
    assert layouts == {"plain", "logfmt", "bracketed"}


def test_the_clause_readers_read_an_annotated_timeout() -> None:
    """`TIMEOUT_S: int = 5` under a commented-out `# TIMEOUT_S = 30`: the live value is 5."""
    from redteam import clause_rules as clauses

    rule = next(r for r in clauses.RULES if r.when.pattern.startswith("запрос ждут"))
    assert rule.when.search("где таймаут запросов больше 7 секунд")
    assert rule.value("", "# TIMEOUT_S = 30  # было до переезда\nTIMEOUT_S: int = 5\n") == 5.0
