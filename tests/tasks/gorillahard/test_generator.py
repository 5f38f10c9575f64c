"""The GorillaHard generator and its validator."""

from __future__ import annotations

import json
import pickle
import random
import re
import shutil
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import corpus_of, generated_set, made_once, read_jsonl, run_cli, write_jsonl

from merabench.rows.row import Row
from merabench.tasks import TASKS
from merabench.tasks.gorillahard.generator.build.generate import SetPlan, _row, generate, write_set
from merabench.tasks.gorillahard.generator.checks.rows import attached_files, view_of
from merabench.tasks.gorillahard.generator.checks.validate import CHECK_NAMES, validate
from merabench.tasks.gorillahard.generator.families import FAMILIES
from merabench.tasks.gorillahard.generator.library.providers import draw_served
from merabench.tasks.gorillahard.generator.model import FORMATS
from merabench.tasks.gorillahard.generator.wording.numerals import disagreements

TASK = TASKS["gorillahard"]


@pytest.fixture(scope="module")
def default_set(generated: Path) -> Path:
    """The default set of seed 3 (conftest.py), and in memory the set of seed 4 that the
    shortcut check compares it with."""
    from merabench.tasks.gorillahard.generator.checks.audit import other_seed_rows

    other_seed_rows(3, 1169, 30)  # made once: each validation's forked worker inherits it
    return generated


def failed(folder: Path, *checks: str) -> dict[str, str]:
    """The failed checks of the set in `folder`: all of them, or only those named (each assertion
    on an edited copy names the check that must catch the edit; a whole validation costs 3 CPU s)."""
    return {c.name: c.detail for c in validate(folder, only=checks) if not c.ok and c.enforced}


def test_a_full_default_set_validates(default_set: Path) -> None:
    checks = validate(default_set)
    assert [c.name for c in checks] == list(CHECK_NAMES)  # the names `only` picks from are every check's
    assert {c.name: c.detail for c in checks if not c.ok and c.enforced} == {}
    test = read_jsonl(default_set / "test.jsonl")
    shots = read_jsonl(default_set / "shots.jsonl")
    dialogues = [r for r in test if r["meta"]["n_turns"] > 1]
    # 5 single shots and every turn before the evaluated one of each 2-5 turn dialogue
    assert len(test) == 1169 and len(dialogues) == 30
    assert len(shots) == 5 + sum(r["meta"]["n_turns"] - 1 for r in dialogues)
    assert {r["meta"]["n_turns"] for r in dialogues} <= {2, 3, 4, 5} and len({r["meta"]["n_turns"] for r in dialogues}) >= 3
    kinds = Counter(r["meta"]["categories"]["answer_kind"] for r in test)
    assert kinds == {"tool_call": 782, "plan": 51, "calls": 199, "clarify": 10, "abstain": 127}
    tiers = Counter(r["meta"]["categories"]["difficulty"] for r in test)
    assert tiers == {"T1_medium": 16, "T2_hard": 56, "T3_expert": 329, "T4_wild": 768}
    formats = {f for r in test for f in r["meta"]["categories"]["corpus_format"].split(",")}
    assert formats == set(FORMATS) and len(formats) == 15


def test_the_same_seed_gives_the_same_bytes_and_another_seed_another_set(tmp_path: Path, default_set: Path) -> None:
    from merabench.tasks.gorillahard.generator.checks.audit import other_seed_rows
    from merabench.tasks.gorillahard.generator.corpus import build_corpus

    corpus = build_corpus(3)  # cached: the sets drawn from it (the default set, perhaps) must leave it as built
    write_set(SetPlan(seed=3), tmp_path / "again")  # the set `merabench generate --seed 3` wrote, byte for byte
    for name in ("test.jsonl", "shots.jsonl", "manifest.json"):
        assert (tmp_path / "again" / name).read_bytes() == (default_set / name).read_bytes()
    assert build_corpus(3) is corpus and pickle.dumps(corpus) == pickle.dumps(build_corpus.__wrapped__(3))
    seed_4 = [(r.inputs["question"], r.outputs) for r in other_seed_rows(3, 1169, 30)]  # made by the fixture
    assert seed_4 != [(r["inputs"]["question"], r["outputs"]) for r in read_jsonl(default_set / "test.jsonl")]


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_each_family_agrees_with_its_files_and_the_scorer(name: str) -> None:
    family = FAMILIES[name]
    for n in range(25):
        rng = random.Random(f"family-test:{name}:{n}")
        question = family.make(rng, corpus_of(5))
        row = Row(**_row(question, family, row_id=0, base_id="b", dialog_id="b", turn=0, n_turns=1,
                         needs_history="", wording=0, rng=rng, served=draw_served(rng)))
        view = view_of(row)
        assert family.check(view) == [], (name, n)
        assert disagreements(row.inputs["question"]) == [], row.inputs["question"]
        assert {f.path: f.text for f in question.files} == view.files
        assert TASK.score(row, row.outputs).metrics["sample_pass_rate"] == 1.0


def copy_set(source: Path, target: Path, edit) -> Path:
    """The set in `source` with `edit(test, shots)` made to its rows, written to `target`."""
    target.mkdir()
    test = read_jsonl(source / "test.jsonl")
    shots = read_jsonl(source / "shots.jsonl")
    edit(test, shots)
    write_jsonl(target / "test.jsonl", test)
    write_jsonl(target / "shots.jsonl", shots)
    (target / "manifest.json").write_text((source / "manifest.json").read_text())
    return target


def test_a_wrong_reference_is_caught(tmp_path: Path, default_set: Path) -> None:
    def shift_window(test, shots):
        row = next(r for r in test if r["meta"]["derivation"]["maker"] == "log_window")
        reference = json.loads(row["outputs"])
        reference["args"]["line"] += 1
        row["outputs"] = json.dumps(reference, ensure_ascii=False)

    assert "derived_quantities" in failed(copy_set(default_set, tmp_path / "s", shift_window), "derived_quantities")


def test_a_missing_twin_is_caught(tmp_path: Path, default_set: Path) -> None:
    def drop_relatives(test, shots):
        row = next(r for r in test if r["meta"]["derivation"]["maker"] == "table_stat")
        tool = json.loads(row["outputs"])["tool"]
        catalog = [t for t in json.loads(row["inputs"]["tools"]) if t["family"] != "tables" or t["name"] == tool]
        row["inputs"]["tools"] = json.dumps(catalog, ensure_ascii=False)
        row["meta"]["categories"]["n_tools"] = len(catalog)

    problems = failed(copy_set(default_set, tmp_path / "s", drop_relatives), "twin_present")
    assert "twin_present" in problems


def test_a_broken_history_is_caught(tmp_path: Path, default_set: Path) -> None:
    def drop_first_turn(test, shots):
        victim = next(i for i, r in enumerate(shots) if r["meta"]["n_turns"] > 1)
        del shots[victim]
        for i, r in enumerate(shots):
            r["meta"]["id"] = i

    problems = failed(copy_set(default_set, tmp_path / "s", drop_first_turn), "dialogue_history")
    assert "dialogue_history" in problems


def test_a_last_turn_that_states_its_whole_answer_or_breaks_the_chain_is_caught(tmp_path: Path,
                                                                                default_set: Path) -> None:
    picked = {}

    def self_contained(test, shots):
        # the count of a grep dialogue asked with its pattern: the history is decoration
        row = next(r for r in test if r["meta"]["derivation"]["maker"] == "dialog:grep_chain")
        pattern = json.loads(row["outputs"])["args"]["pattern"]
        row["inputs"]["question"] = f"Сколько в журнале строк с {pattern}?"
        picked["alone"] = row["meta"]["id"]

    problems = failed(copy_set(default_set, tmp_path / "a", self_contained), "history_needed")
    assert f"row {picked['alone']}: the last turn alone gives its reference" in problems["history_needed"]

    def other_column(test, shots):
        # a statistic over the same column asked, the reference over another one
        row = next(r for r in test if r["meta"]["derivation"]["maker"] == "dialog:stat_chain"
                   and r["meta"]["needs_history"] == "args")
        reference = json.loads(row["outputs"])
        reference["args"]["column"] = "no_such_column"
        row["outputs"] = json.dumps(reference, ensure_ascii=False)
        picked["chain"] = row["meta"]["id"]

    problems = failed(copy_set(default_set, tmp_path / "b", other_column), "derived_quantities")
    assert f"row {picked['chain']}: turn" in problems["derived_quantities"]


def test_an_unintended_typo_and_an_overused_opening_are_caught(tmp_path: Path, default_set: Path) -> None:
    from merabench.tasks.gorillahard.generator.wording.spelling import DELIBERATE_TYPOS, misspelt

    assert misspelt("Очисти очередь воркера, задчу закрой.") == []  # jargon and a listed typo pass
    assert misspelt("Пасчитай строки «Очисть» в жюрнале.") == ["Пасчитай", "жюрнале"]  # quotes are not checked
    assert "задчу" in DELIBERATE_TYPOS
    picked = {}

    def typo(test, shots):
        row = next(r for r in test if r["meta"]["n_turns"] == 1)
        row["inputs"]["question"] += " Зарание спасибо."
        picked["id"] = row["meta"]["id"]

    problems = failed(copy_set(default_set, tmp_path / "a", typo), "spelling")
    assert f"row {picked['id']}: «Зарание»" in problems["spelling"]

    def same_opening(test, shots):
        for row in test[:60]:  # 5 % of the questions open alike
            row["inputs"]["question"] = "Сделай мне одолжение: " + row["inputs"]["question"]

    problems = failed(copy_set(default_set, tmp_path / "b", same_opening), "variety")
    assert "'сделай мне одолжение' opens 5.1% of questions" in problems["variety"]


def test_every_question_keeps_one_form_of_address(default_set: Path) -> None:
    from merabench.tasks.gorillahard.generator.wording.address import agreeing, forms

    assert forms("Помоги, пожалуйста. Посчитайте строки.") == {"ты", "вы"}
    assert forms("Будьте добры, проверьте записи.") == {"вы"} and forms("Слушай, глянь лог.") == {"ты"}
    assert forms("Пожалуйста, нужна свежей выгрузки сумма. Спасибо!") == set()  # "свежей" is an adjective here
    assert forms("Сервис пишет «Сделай бэкап» в лог.") == set()  # a quotation is someone else's
    # seed 6262 (v18) rows 307, 747: a greeting or a call to several people sets the form
    assert forms("Здравствуйте. Верни клиенту всю сумму по самому крупному счёту.") == {"ты", "вы"}
    assert forms("Коллеги, нужна помощь. Проверь по ICMP доступность хостов.") == {"ты", "вы"}
    assert forms("Коллеги из поддержки просили проверить лог.") == set() and forms("Привет! Глянь лог.") == {"ты"}
    assert agreeing(["Отпишись.", "Отпишитесь.", "Спасибо!"], "Удвойте таймаут.") == ["Отпишитесь.", "Спасибо!"]
    mixed = [row["inputs"]["question"] for split in ("test", "shots") for row in read_jsonl(default_set / f"{split}.jsonl")
             if len(forms(row["inputs"]["question"])) > 1]
    assert mixed == []


def test_no_question_says_a_politeness_word_twice(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The parts put around a request (a lead-in, a tail, an optional argument's sentence, the
    sentence saying which file) never repeat a politeness word it already says: seed 4242 (v14)
    had "Помогите, пожалуйста. Посчитайте, пожалуйста, ..." (row 705) and "обновите, пожалуйста,
    ... Дождитесь, пожалуйста, ..." (row 489). Over seeds 0 and 23, test and shots."""
    from merabench.tasks.gorillahard.generator.wording.address import agreeing, polite_words

    assert polite_words("Помогите, пожалуйста. Спасибо!") == {"пожалуйст", "спасиб"}
    assert agreeing(["Помогите, пожалуйста.", "Добрый день."], "Посчитайте, пожалуйста, строки.") == ["Добрый день."]
    # with no option free of the word, the form of address still decides
    assert agreeing(["Спасибо!", "Спасибо, выручишь."], "Удвойте таймаут, спасибо.") == ["Спасибо!"]
    twice = re.compile(r"(?<!\w)(пожалуйста|спасибо|прошу|благодарю)(?!\w).*(?<!\w)\1(?!\w)", re.I | re.S)
    for seed in (0, 23):
        folder = generated_set(tmp_path_factory, seed)
        said = [row["inputs"]["question"] for split in ("test", "shots") for row in read_jsonl(folder / f"{split}.jsonl")
                if twice.search(row["inputs"]["question"])]
        assert said == [], (seed, said[:3])


def test_a_label_naming_a_tool_names_the_one_the_catalog_serves(default_set: Path) -> None:
    """A tool named in a row's meta (the derivation's request or alias, an injected tool) is named as
    the row's catalog serves it, as its reference is: seed 4242 (v14) row 245 recorded
    config.set_retries where its catalog served settings.set_retries. The families' checks read
    the labels back under the library's names."""
    from merabench.tasks.gorillahard.generator.library.providers import CANONICAL, DOTTED_NAME, canonical
    from merabench.tasks.gorillahard.generator.library.tools import TOOLS

    named = 0
    for split in ("test", "shots"):
        for row in read_jsonl(default_set / f"{split}.jsonl"):
            served = {canonical(t["name"]): t["name"] for t in json.loads(row["inputs"]["tools"])}
            labels = json.dumps([row["meta"].get("derivation", {}), row["meta"]["categories"]], ensure_ascii=False)
            for name in DOTTED_NAME.findall(labels):
                if name in TOOLS or name in CANONICAL:
                    named += 1
                    assert served.get(canonical(name), name) == name, (row["meta"]["id"], name)
    assert named > 20


def test_a_shot_giving_an_answer_away_is_caught(tmp_path: Path, default_set: Path) -> None:
    def leak(test, shots):
        shots[0]["inputs"]["question"] = test[5]["inputs"]["question"]
        shots[0]["outputs"] = test[5]["outputs"]

    assert "dialogue_history" in failed(copy_set(default_set, tmp_path / "s", leak), "dialogue_history")


@pytest.fixture(scope="module")
def small_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`merabench generate --seed 11 --rows 300 --dialogues 6`, made once (a test that changes it
    works on a copy), and in memory the set of seed 12 that its validations compare with (each
    validation's forked worker inherits it)."""
    from merabench.tasks.gorillahard.generator.checks.audit import other_seed_rows

    def make(out: Path) -> None:
        made = run_cli("generate", "gorillahard", "--seed", "11", "--rows", "300", "--dialogues", "6", "--out", str(out))
        assert made.returncode == 0, made.stderr

    folder = made_once(tmp_path_factory, "generated-cli-seed-11-rows-300-dialogues-6", make)
    other_seed_rows(11, 300, 6)
    return folder


def test_generate_validate_and_run_from_the_command_line(tmp_path: Path, small_set: Path) -> None:
    out = Path(shutil.copytree(small_set, tmp_path / "g"))
    checked = run_cli("validate", "gorillahard", str(out))
    assert checked.returncode == 0, checked.stdout
    assert checked.stdout.count("ok ") == 36 and "ok   manifest" in checked.stdout and "FAIL" not in checked.stdout
    one = run_cli("validate", "gorillahard", str(out), "--check", "spelling", "--check", "no_shortcut")
    assert one.returncode == 0 and [line.split()[:2] for line in one.stdout.splitlines()] == [
        ["ok", "spelling"], ["ok", "no_shortcut"]], one.stdout
    assert "2 of 36 checks run (--check)" in one.stderr
    unknown = run_cli("validate", "gorillahard", str(out), "--check", "speling")
    assert unknown.returncode == 2 and "no check named speling; the checks are manifest," in unknown.stderr
    (out / "shots.jsonl").write_text("")
    assert run_cli("validate", "gorillahard", str(out)).returncode == 1
    assert run_cli("generate", "sage", "--out", str(tmp_path / "x")).returncode == 2


def test_run_on_a_generated_set(tmp_path: Path) -> None:
    result = run_cli("run", "--tasks", "gorillahard", "--data", "generated:2", "--limit", "60", "--out",
                     str(tmp_path / "r"), "--no-progress", env={"MERABENCH_CACHE": str(tmp_path / "c" / "r.sqlite")})
    assert result.returncode == 0, result.stderr
    doc = json.loads((tmp_path / "r" / "results.json").read_text())
    assert doc["tasks"]["gorillahard"]["metrics"]["sample_pass_rate"] == 1.0
    assert (tmp_path / "c" / "generated").is_dir()


def test_a_reference_past_a_stated_limit_is_caught_from_the_catalog_alone(tmp_path: Path, default_set: Path) -> None:
    """The constraint checker reads the limit from the rendered catalog (k8s.scale: at most 20
    replicas), not from the family that made the row."""
    victim = {}

    def too_many_replicas(test, shots):
        row = next(r for r in test if r["meta"]["derivation"]["maker"] == "cross_file_scale")
        victim["id"] = row["meta"]["id"]
        reference = json.loads(row["outputs"])
        victim["tool"] = reference["tool"]  # k8s.scale, or its name at another provider
        reference["args"]["replicas"] = 51
        row["outputs"] = json.dumps(reference, ensure_ascii=False)
        row["meta"]["derivation"] = {"maker": "unknown"}  # the family check is out of the way

    problems = failed(copy_set(default_set, tmp_path / "s", too_many_replicas), "limits_respected")
    assert f"row {victim['id']}: {victim['tool']}.replicas 51 > maximum 20" in problems["limits_respected"]


def test_a_login_that_is_a_surname_and_a_tsv_for_table_sum_are_caught(tmp_path: Path, default_set: Path) -> None:
    def surname(test, shots):
        row = next(r for r in test if r["meta"]["derivation"]["maker"] == "ticket_assign_author")
        reference = json.loads(row["outputs"])
        reference["args"]["user"] = "Иванова"
        row["outputs"] = json.dumps(reference, ensure_ascii=False)

    problems = failed(copy_set(default_set, tmp_path / "a", surname), "limits_respected")
    assert "user 'Иванова' does not match" in problems["limits_respected"]

    def tsv(test, shots):
        row = next(r for r in test if r["meta"]["derivation"]["maker"] == "table_sum_deprecated")
        reference = json.loads(row["outputs"])
        victim["tool"] = reference["tool"]
        old = reference["args"]["path"]
        reference["args"]["path"] = old.rsplit(".", 1)[0] + ".tsv"
        row["outputs"] = json.dumps(reference, ensure_ascii=False)
        row["inputs"]["context"] = row["inputs"]["context"].replace(old, reference["args"]["path"])

    victim: dict[str, str] = {}
    problems = failed(copy_set(default_set, tmp_path / "b", tsv), "limits_respected")
    assert f"{victim['tool']}.path" in problems["limits_respected"]


def test_a_file_attached_twice_three_files_a_named_path_and_an_untold_target_are_caught(
        tmp_path: Path, default_set: Path) -> None:
    picked = {}

    def attach_twice(test, shots):
        row = next(r for r in test if r["inputs"]["context"].count("[файл: ") == 1
                   and "path" in json.loads(r["outputs"]).get("args", {}))
        picked["id"] = row["meta"]["id"]
        context = row["inputs"]["context"]
        row["inputs"]["context"] = context + "\n\n" + context[: len(context) // 2]  # a full and a cut copy

    problems = failed(copy_set(default_set, tmp_path / "a", attach_twice), "attachments")
    assert f"row {picked['id']}:" in problems["attachments"] and "attached twice" in problems["attachments"]

    def three_files(test, shots):
        row = next(r for r in test if r["inputs"]["context"].count("[файл: ") == 2)
        picked["three"] = row["meta"]["id"]
        row["inputs"]["context"] += "\n\n[файл: notes/extra.txt]\nпросто заметка"

    problems = failed(copy_set(default_set, tmp_path / "c", three_files), "attachments")
    assert f"row {picked['three']}: 3 files attached, the card asks for 1 to 2" in problems["attachments"]

    def named(test, shots):
        row = next(r for r in test if r["inputs"]["context"].count("[файл: ") == 1)
        picked["named"] = row["meta"]["id"]
        path = next(iter(attached_files(row["inputs"]["context"])))
        row["inputs"]["question"] += f" Файл — {path.rsplit('/', 1)[-1]}."

    problems = failed(copy_set(default_set, tmp_path / "d", named), "paths_unsaid")
    assert f"row {picked['named']}: the question names the attached" in problems["paths_unsaid"]

    def untold(test, shots):
        row = next(r for r in test if r["inputs"]["context"].count("[файл: ") == 2
                   and "path" in json.loads(r["outputs"]).get("args", {}))
        picked["two"] = row["meta"]["id"]
        which = row["meta"]["derivation"]["which"]
        row["inputs"]["question"] = row["inputs"]["question"].replace(which, "который нужен")

    problems = failed(copy_set(default_set, tmp_path / "b", untold), "targets_told_apart")
    assert f"row {picked['two']}: 2 files attached and the question does not say by what it holds" in problems[
        "targets_told_apart"]


def test_no_question_names_an_attached_file_and_no_row_attaches_more_than_two(default_set: Path) -> None:
    rows = read_jsonl(default_set / "test.jsonl") + read_jsonl(default_set / "shots.jsonl")
    counts = Counter(r["inputs"]["context"].count("[файл: ") for r in rows)
    assert set(counts) <= {0, 1, 2} and counts[2] > 300
    for row in rows:
        for path in attached_files(row["inputs"]["context"]):
            assert path not in row["inputs"]["question"] and path.rsplit("/", 1)[-1] not in row["inputs"]["question"]


def test_the_manifest_counts_families_with_dialogue_turns_and_sums_to_the_rows(default_set: Path) -> None:
    manifest = json.loads((default_set / "manifest.json").read_text())
    test = read_jsonl(default_set / "test.jsonl")
    assert sum(manifest["families"].values()) == len(test) == 1169
    assert manifest["families"] == dict(Counter(r["meta"]["categories"]["family"] for r in test))
    assert sum(manifest["makers"].values()) == 1139


def test_numerals_agree_with_their_nouns() -> None:
    from merabench.tasks.gorillahard.generator.wording.numerals import count, ordinal

    assert [count(n, "строка", "accs") for n in (1, 2, 5, 11, 21, 22)] == [
        "1 строку", "2 строки", "5 строк", "11 строк", "21 строку", "22 строки"]
    assert [count(n, "сервер") for n in (1, 2, 5, 11, 21, 22)] == [
        "1 сервер", "2 сервера", "5 серверов", "11 серверов", "21 сервер", "22 сервера"]
    assert [ordinal("первый", g, "gent") for g in ("masc", "femn", "neut")] == ["первого", "первой", "первого"]


def test_a_number_beside_a_noun_that_does_not_agree_is_found() -> None:
    assert disagreements("Покажи 5 строки журнала и 21 строк модуля, 11 строку таблицы.") == [
        "5 строки", "21 строк", "11 строку"]
    # right forms, oblique cases, units and numbers that are no count of the next word pass
    assert disagreements("Покажи 1 строку, 2 строки, 5 строк, 11 строк, 21 строку, 22 строки; за 30 секунд, "
                         "на 2 часа, из 3 строк, в 5 минутах, дольше 500 мс, строки с 3 по 8 этого модуля.") == []


AGREEMENT_NUMBERS = (1, 2, 5, 11, 21, 22)


def test_every_template_with_a_numeral_agrees_for_1_2_5_11_21_22() -> None:
    """Each phrasing that counts something (lines, seconds, minutes, hours, the log window's
    radius), rendered with each number whose noun form differs, reads as Russian."""
    import pymorphy3

    from merabench.tasks.gorillahard.generator.families.grounded import SPECS
    from merabench.tasks.gorillahard.generator.families.logs import (
        LOG_EVENTS,
        LOG_WINDOW_PHRASINGS,
        window_question,
    )
    from merabench.tasks.gorillahard.generator.families.optional import OPTIONAL_CALLS
    from merabench.tasks.gorillahard.generator.wording.numerals import count

    morph = pymorphy3.MorphAnalyzer()
    rendered = [window_question(phrasing, n, event) for phrasing in LOG_WINDOW_PHRASINGS for event in LOG_EVENTS
                for n in AGREEMENT_NUMBERS]
    numeral_specs = 0
    for spec in SPECS:
        values = spec.extra(random.Random(0))
        numerals = {key: value.split()[1] for key, value in values.items()
                    if isinstance(value, str) and re.fullmatch(r"\d+ [а-яё]+", value)}
        numeral_specs += bool(numerals)
        for key, noun in numerals.items():
            lemma = morph.parse(noun)[0].normal_form
            for phrasing in spec.phrasings:
                rendered += [phrasing.format(**{**values, key: count(n, lemma, "accs")}) for n in AGREEMENT_NUMBERS]
    for family in OPTIONAL_CALLS:  # "первые {lines} журнала"
        rendered += [phrasing.format(lines=count(n, "строка", "accs"), level="WARN", what="предупреждений")
                     for phrasing in family.phrasings if "{lines}" in phrasing for n in AGREEMENT_NUMBERS]
    assert numeral_specs >= 5 and len(rendered) > 150
    assert [(text, disagreements(text)) for text in rendered if disagreements(text)] == []
    assert any(text.startswith("Покажи 21 строку до и после первой ") for text in rendered)
    assert any("за 22 секунды" in text for text in rendered) and any("на 11 часов" in text for text in rendered)
    assert any(text.startswith("Покажи первые 21 строку журнала") for text in rendered)


def test_a_numeral_that_does_not_agree_is_caught(tmp_path: Path, default_set: Path) -> None:
    victim = {}

    def misagree(test, shots):
        row = next(r for r in test if " строк" in r["inputs"]["question"]
                   and any(f"{n} строк" in r["inputs"]["question"] for n in (5, 10, 15, 20, 50, 100, 200)))
        victim["id"] = row["meta"]["id"]
        row["inputs"]["question"] = re.sub(r"(\d+) строк\b", r"\1 строки", row["inputs"]["question"], count=1)
        victim["pair"] = re.search(r"\d+ строки", row["inputs"]["question"]).group()

    problems = failed(copy_set(default_set, tmp_path / "s", misagree), "numerals_agree")
    assert f"row {victim['id']}: «{victim['pair']}»" in problems["numerals_agree"]


def test_log_window_questions_read_as_russian(default_set: Path) -> None:
    """Every radius the family draws, in every phrasing: the numeral agrees, the ordinal agrees
    with its event noun, no "по N строк" or "первой ... предупреждения"."""
    questions = [r["inputs"]["question"] for r in read_jsonl(default_set / "test.jsonl")
                 if r["meta"]["derivation"]["maker"] in ("log_window", "log_window_nth")]
    assert questions
    for q in questions:
        assert "по 2 строк" not in q and "по 3 строк " not in q
        assert "первой таймаута" not in q and "первой предупреждения" not in q and "второй предупреждения" not in q
        for bad in ("2 строк ", "3 строк ", "5 строки", "10 строки"):
            assert bad not in q, q
    lower = " ".join(questions)
    assert "по каждому метеостанции" not in lower


def test_the_audit_normalises_templates_and_scores_shortcuts(default_set: Path) -> None:
    from merabench.rows.row import read_local
    from merabench.tasks.gorillahard.generator.checks.audit import keyword_tool, refusal, template, variety

    assert template("Покажи 5 строк журнала logs/api-031.log про «оплату» на db-2.internal") == \
        template("Покажи 12 строк журнала var/log/web.log про «доставку» на cache-1.example.net")
    rows = read_local(default_set)["test"]
    figures = variety(rows)
    assert figures.rows == 1169 and figures.templates > 300 and figures.answer_tools > 90
    assert figures.distinct_pairs <= 1169 and 0 < figures.top_tool_share < 0.2
    refusing = [r for r in rows if '"abstain"' in r.outputs][:5]
    assert all(TASK.score(r, refusal(r)).metrics["sample_pass_rate"] == 1.0 for r in refusing)
    # rows whose only argument is the first attached file: the keyword tool's arguments get some right
    path_only = [r for r in rows if r.meta["derivation"]["maker"] in {"table_columns", "lint_module", "log_checksum",
                                                                      "delete_log", "format_module", "table_json"}
                 and next(iter(attached_files(r.inputs["context"]))) == json.loads(r.outputs)["args"]["path"]]
    assert path_only
    assert any(json.loads(keyword_tool(row))["args"] == json.loads(row.outputs)["args"] for row in path_only)


def test_validate_audit_prints_the_figures(tmp_path: Path, small_set: Path) -> None:
    out = Path(shutil.copytree(small_set, tmp_path / "g"))
    done = run_cli("validate", "gorillahard", str(out), "--audit")
    assert done.returncode == 0, done.stdout
    info = [line for line in done.stdout.splitlines() if line.startswith("info ")]
    assert len(info) > 6 and "question templates" in info[0] and "always refuse" in info[4]
    assert info[5].startswith("info file layouts") and all(" layouts (" in line for line in info[6:])
    assert "seed 12" in info[4]
    # the red-team solver is not part of the package: its figure comes from benchmarks/gorillahard_redteam.py
    assert "red-team" not in done.stdout and "no_shortcut_redteam" not in done.stdout
    manifest = json.loads((out / "manifest.json").read_text())  # edited to a plan no set can have: lines, not a traceback
    (out / "manifest.json").write_text(json.dumps({**manifest, "rows": 20, "dialogues": 2}))
    edited = run_cli("validate", "gorillahard", str(out), "--audit", "--check", "no_shortcut")
    assert "Traceback" not in edited.stderr and edited.returncode == 1, edited.stderr
    assert "FAIL no_shortcut" in edited.stdout and "could not make the next seed's set (a set needs" in edited.stdout
    info = [line for line in edited.stdout.splitlines() if line.startswith("info ")]
    assert "the next seed's set could not be made (a set needs at least 168 single-turn rows" in info[3]
    assert "always refuse" in info[4] and "nearest question" not in info[4]
    for broken, why in (("42", "is not a JSON object"), ("null", "is not a JSON object"),
                        (json.dumps({**manifest, "seed": None}), "its seed None is no seed")):
        (out / "manifest.json").write_text(broken)  # the manifest check says why; the audit goes on
        said = run_cli("validate", "gorillahard", str(out), "--audit", "--check", "manifest")
        assert "Traceback" not in said.stderr and said.returncode == 1, said.stderr
        assert said.stdout.startswith("FAIL manifest") and why in said.stdout.splitlines()[0], said.stdout
        assert "info file layouts: no seed in the manifest" in said.stdout  # measured as a hand-made set's,
        assert "also in seed 1's set" in said.stdout  # as the validation reads it: against seed 1's set
    (out / "manifest.json").unlink()  # a hand-made set: the audit is measured, not a FileNotFoundError
    bare = run_cli("validate", "gorillahard", str(out), "--audit")
    assert "Traceback" not in bare.stderr and bare.returncode in (0, 1), bare.stderr
    assert "seed 1" in "".join(line for line in bare.stdout.splitlines() if line.startswith("info "))


_STAMP = re.compile(r"^(?:\[|ts=)?(\d{4}-\d\d-\d\d)[ T](\d\d):(\d\d):(\d\d)|^(\d\d)\.(\d\d)\.(\d{4}) (\d\d):(\d\d):(\d\d)")


def _stamp(line: str) -> tuple[str, int, int, int] | None:
    """A log line's date and time in any of the corpus's layouts (a cron logger's dd.mm.yyyy too)."""
    found = _STAMP.match(line)
    if not found:
        return None
    g = found.groups()
    if g[0]:
        return g[0], int(g[1]), int(g[2]), int(g[3])
    return f"{g[6]}-{g[5]}-{g[4]}", int(g[7]), int(g[8]), int(g[9])


def test_logs_are_in_time_order_with_varied_lines() -> None:
    """No line out of time order in any layout (the failed download once was: a fingerprint), and
    an import log is not a handful of lines repeated."""
    from merabench.tasks.gorillahard.generator.families.formats import log_levels

    for seed in (0, 11):
        corpus = corpus_of(seed)
        for f in corpus.by_kind["fetch_log"] + corpus.by_kind["app_log"]:
            stamps = [s for s in map(_stamp, f.file.text.splitlines()) if s]
            assert stamps == sorted(stamps), f.file.path
            assert all(0 <= h < 24 and m < 60 and s < 60 for _, h, m, s in stamps)
            records = [ln.split(" ", 2)[-1] for ln in f.file.text.splitlines() if _stamp(ln)]
            assert len(set(records)) > len(records) * 0.6, f.file.path
            levels = Counter(level for _, level in log_levels(f.file.text))
            assert levels["INFO"] > len(records) / 3 and levels["DEBUG"] and levels["WARN"], (f.file.path, levels)


def test_weather_tables_follow_their_stations_and_month() -> None:
    """A weather table is one month of daily readings of a few stations, in date order, each
    temperature near the city's normal for that month (no -25 °C in a Sochi July)."""
    from merabench.tasks.gorillahard.generator.corpus import monthly_mean

    tables = [f for seed in (0, 7) for f in corpus_of(seed).by_kind["table"] if f.facts["schema"] == "weather"]
    assert len(tables) >= 10
    for table in tables:
        rows = table.facts["rows"]
        assert len({r[1][:7] for r in rows}) == 1, table.file.path  # one month
        assert [r[1] for r in rows] == sorted(r[1] for r in rows)
        month = int(rows[0][1][5:7])
        for station, _, temp, humidity, wind, *_ in rows:
            assert abs(float(temp) - monthly_mean(station, month)) < 15, (table.file.path, station, month, temp)
            assert 25 <= int(humidity) <= 99 and 0 <= float(wind) <= 18
        temps = [r[2] for r in rows]
        assert len(set(temps)) == len(temps)  # a maximum is one row
    sochi_july = monthly_mean("Сочи", 7) - monthly_mean("Томск", 1)
    assert sochi_july > 35


def test_the_walk_to_an_unseen_temperature_draws_what_random_choice_draws() -> None:
    """The walk that keeps a table's temperatures distinct steps by its own reading of two random
    bits: it must land where `rng.choice((-1, 1))` at every step lands and leave the generator in
    the same state, or every set's weather tables (and all they feed) would change."""
    from merabench.tasks.gorillahard.generator.corpus.tables import _unseen

    for seed in range(200):
        packed = random.Random(seed)
        seen = set(range(-packed.randint(0, 400), packed.randint(0, 400))) - {packed.randint(-500, 500)}
        start = packed.randint(-50, 50)
        by_choice, by_bits = random.Random(seed * 7), random.Random(seed * 7)
        tenths = start
        while tenths in seen:
            tenths += by_choice.choice((-1, 1))
        assert _unseen(start, seen, by_bits) == tenths
        assert by_bits.getstate() == by_choice.getstate()


def test_a_tables_lines_read_together_give_each_lines_own_cells() -> None:
    """columns.py reads a table's lines with one CSV reader: what each line alone gives, also for
    lines an unclosed quote would run together or make the reader refuse."""
    import csv

    from merabench.tasks.gorillahard.generator.families.columns import _cells

    cases = [['a,"b, c",d', "", '"x""y",z,"w"', "# c,d"], ['"a', "b,c"], ['"a', '"x\r"'], ["ok,1", '"open', "x" * 10]]
    for lines in cases:
        alone = [next(csv.reader([line])) if line else [] for line in lines]
        assert _cells(lines, ",") == alone, lines


def test_python_modules_have_distinct_bodies_and_the_time_out_moves() -> None:
    corpus = corpus_of(0)
    modules = corpus.by_kind["python"]
    lines = set()
    for module in modules:
        text = module.file.text
        functions = text.split("\n\n\ndef ")[1:]
        bodies = ["\n".join(f.splitlines()[2:]) for f in functions]  # without the signature and docstring
        count = len(module.facts["functions"])
        assert 3 <= count <= 9 and len(bodies) == count and len(set(bodies)) == count, module.file.path
        # one live assignment (a commented-out old one or one in the docstring is a decoy), typed or not
        assert len(re.findall(r"^TIMEOUT_S(?:: int)? = ", text, re.M)) == 1
        assert text.splitlines()[module.facts["timeout_line"] - 1].startswith("TIMEOUT_S")
        compile(text, module.file.path, "exec")  # it is Python
        lines.add(module.facts["timeout_line"])
    assert len(lines) >= 3  # not the same line in every module


def test_ticket_threads_run_in_date_order_without_repeats() -> None:
    """In every ticket layout the thread is dated in order from the day the ticket was opened,
    no comment twice, nobody answering themselves; every layout and decoy kind occurs."""
    import re

    from merabench.tasks.gorillahard.generator.families.formats import ticket_comments

    entry = re.compile(r"^(?:\*\*(\w+)\*\*, (\S+): |— (\w+) \((\S+)\): |\[(\S+) \d\d:\d\d\] (\w+): )(.+)$", re.M)
    layouts, kinds = set(), set()
    for seed in (0, 5):
        for ticket in corpus_of(seed).by_kind["ticket"]:
            text = ticket.file.text
            opened = re.search(r"(?:Создана:|\| Создана \||открыта) (\d{4}-\d\d-\d\d)", text).group(1)
            thread = [(g[0] or g[2] or g[5], g[1] or g[3] or g[4], g[6]) for g in entry.findall(text)]
            assert len(thread) >= 4 and len(thread) == ticket_comments(text) == ticket.facts["comments"]
            dates = [date for _, date, _ in thread]
            assert dates == sorted(dates) and dates[0] >= opened, ticket.file.path
            comments = [c for _, _, c in thread]
            assert len(set(comments)) == len(comments)
            speakers = [who for who, _, _ in thread]
            assert all(a != b for a, b in zip(speakers, speakers[1:], strict=False))
            layouts.add(ticket.facts["layout"])
            kinds.update(ticket.facts["decoys"])
    assert len(layouts) == 3 and len(kinds) >= 3


def test_file_numbers_are_drawn_per_seed() -> None:
    """Two seeds' corpora name different files at the same place: a question's nearest twin in
    another seed does not point at the file in the same position."""
    first, second = (sorted(f.file.path for f in corpus_of(seed).files()) for seed in (0, 1))
    assert len(set(first)) == len(first)
    assert len(set(first) & set(second)) < len(first) // 10


def test_a_templated_set_and_a_set_a_shortcut_solves_are_caught(tmp_path: Path, default_set: Path) -> None:
    def one_question(test, shots):
        for row in test:
            row["inputs"]["question"] = "Сделай то, что нужно, с приложенным файлом."

    problems = failed(copy_set(default_set, tmp_path / "a", one_question), "variety")
    assert "templates < 900" in problems["variety"] and "a template on 100.0% of rows" in problems["variety"]

    from merabench.tasks.gorillahard.generator.checks.audit import keyword_tool

    def keyword_references(test, shots):
        for row in test:  # every reference is what the keyword shortcut answers
            row["outputs"] = keyword_tool(Row(row["instruction"], row["inputs"], row["outputs"], row["meta"]))

    problems = failed(copy_set(default_set, tmp_path / "b", keyword_references), "no_shortcut")
    assert "the keyword tool shortcut scores 1.000 > 0.1" in problems["no_shortcut"]


def test_wordings_follow_the_cards_split_and_a_drift_is_caught(tmp_path: Path, default_set: Path) -> None:
    rows = read_jsonl(default_set / "test.jsonl")
    assert Counter(r["meta"]["wording"] for r in rows) == {0: 252, 1: 235, 2: 227, 3: 249, 4: 206}

    def move_one(test, shots):  # a single-turn row to another wording, its instruction with it
        from merabench.tasks.gorillahard.generator.wording.prompts import LAYOUT, WORDINGS

        row = next(r for r in test if r["meta"]["wording"] == 0 and r["meta"]["n_turns"] == 1)
        row["meta"]["wording"] = 1
        row["instruction"] = WORDINGS[1] + LAYOUT

    assert "composition" in failed(copy_set(default_set, tmp_path / "s", move_one), "composition")
    from merabench.tasks.gorillahard.generator.wording.prompts import wording_schedule

    small = Counter(wording_schedule(100, random.Random(1)))
    assert sum(small.values()) == 100 and max(small.values()) - min(small.values()) <= 5


def test_prompts_run_the_cards_lengths_and_a_long_one_is_caught(tmp_path: Path, default_set: Path) -> None:
    from merabench.rows.prompts import render

    rows = read_jsonl(default_set / "test.jsonl")
    lengths = sorted(len(render(r["instruction"], r["inputs"])) for r in rows)
    assert lengths[0] >= 10_600 and lengths[-1] <= 34_200
    assert 17_500 <= lengths[len(lengths) // 2] <= 19_500

    def pad_one(test, shots):  # a context far past the card's longest prompt
        test[0]["inputs"]["context"] += "\n" + "x" * 40_000

    assert "prompt_lengths" in failed(copy_set(default_set, tmp_path / "s", pad_one), "prompt_lengths")


def test_a_format_trap_label_on_an_answer_the_decoy_cannot_touch_is_caught(tmp_path: Path, default_set: Path) -> None:
    """table.mean reads the table itself: a semicolon or a repeated header cannot change the call,
    so such a row is no format trap; a refund read from a `;`-separated file is."""
    rows = read_jsonl(default_set / "test.jsonl")
    assert all(r["meta"]["categories"]["format_trap"] == "no" for r in rows
               if r["meta"]["derivation"]["maker"] == "table_stat")
    assert any(r["meta"]["categories"]["format_trap"] == "yes" for r in rows
               if r["meta"]["categories"]["family"] == "near_miss_refund")

    def mislabel(test, shots):
        row = next(r for r in test if r["meta"]["derivation"]["maker"] == "table_stat")
        row["meta"]["categories"]["format_trap"] = "yes"

    assert "format_traps" in failed(copy_set(default_set, tmp_path / "s", mislabel), "format_traps")


def test_a_catalogs_length_is_counted_without_serialising_it() -> None:
    from merabench.tasks.gorillahard.generator.library.catalog import catalog_chars
    from merabench.tasks.gorillahard.generator.library.tools import TOOLS

    for n in (1, 2, 14, 22):
        catalog = [TOOLS[name] for name in random.Random(n).sample(sorted(TOOLS), n)]
        assert catalog_chars(catalog) == len(json.dumps(catalog, ensure_ascii=False))


def test_every_maker_with_eight_rows_asks_in_more_than_one_phrasing(default_set: Path) -> None:
    from merabench.tasks.gorillahard.generator.checks.audit import template

    phrasings: dict[str, set[str]] = {}
    rows: Counter[str] = Counter()
    for row in read_jsonl(default_set / "test.jsonl"):
        maker, question = row["meta"]["derivation"]["maker"], row["inputs"]["question"]
        for pointer in ("Речь о файле", "Нужен файл", "Имеется в виду", "Файл —"):  # a companion's pointer
            question = question.split(pointer)[0].strip()
        phrasings.setdefault(maker, set()).add(template(question))
        rows[maker] += 1
    single = sorted(m for m, n in rows.items() if n >= 8 and len(phrasings[m]) < 2)
    assert not single, single


def test_tools_come_from_three_providers_and_the_reference_follows_the_catalog(tmp_path: Path,
                                                                                 default_set: Path) -> None:
    """A set names each tool family after one of three providers (one draw per set, as the card's
    set names each tool one way; another seed draws others); the reference names the tool as the
    catalog does, and a reference under another provider's name is caught."""
    from merabench.tasks.gorillahard.generator.library.providers import (
        CANONICAL,
        FAMILIES,
        canonical,
        draw_served,
    )

    rows = read_jsonl(default_set / "test.jsonl")
    namings = Counter()
    names_of: dict[str, set[str]] = {}
    for row in rows:
        names = {t["name"] for t in json.loads(row["inputs"]["tools"])}
        for name in names:
            names_of.setdefault(canonical(name), set()).add(name)
        reference = json.loads(row["outputs"])
        for tool in ([reference["tool"]] if "tool" in reference else
                     [s["tool"] for s in reference.get("plan", []) + reference.get("calls", [])]):
            assert tool in names
            namings["library" if tool == canonical(tool) else "provider"] += 1
        # never two names of one tool in a catalog
        assert len({canonical(n) for n in names}) == len(names)
    assert namings["provider"] > 200 and namings["library"] > 200
    # a second name only where a question or a file names the tool (the text and the catalog agree)
    assert len(names_of) > 180 and sum(len(n) > 1 for n in names_of.values()) <= 8
    draws = [draw_served(random.Random(f"{seed}:providers")) for seed in (0, 1, 2)]
    assert all(set(d.values()) == {0, 1, 2} for d in draws) and draws[0] != draws[1] != draws[2]
    assert set(draws[0]) == set(FAMILIES)
    injected = [r for r in rows if r["meta"]["categories"]["injected_tool"]]
    assert injected and all(r["meta"]["categories"]["injected_tool"] in r["inputs"]["tools"] for r in injected)

    victim = {}

    def back_to_the_library(test, shots):
        row = next(r for r in test if json.loads(r["outputs"]).get("tool") in CANONICAL)
        reference = json.loads(row["outputs"])
        reference["tool"] = victim["tool"] = canonical(reference["tool"])
        victim["id"] = row["meta"]["id"]
        row["outputs"] = json.dumps(reference, ensure_ascii=False)

    problems = failed(copy_set(default_set, tmp_path / "s", back_to_the_library), "reference_arguments")
    assert f"row {victim['id']}: {victim['tool']} not in the catalog" in problems["reference_arguments"]


def test_providers_name_the_operation_their_own_way_and_every_name_reads_back_to_one_tool(
        default_set: Path) -> None:
    """Another provider words the operation too (`table.mean` is `sheet.average`, `tabular.column_mean`)
    and the description: a served name reads back to exactly one library tool, never to another
    tool's library name; a same-capability pair stays alike but for its caveat; a deprecated tool
    names its successor as its own provider serves it; and which operation name a tool has differs
    from set to set."""
    from merabench.tasks.gorillahard.generator.library.operations import OPERATIONS
    from merabench.tasks.gorillahard.generator.library.providers import (
        CANONICAL,
        DOTTED_NAME,
        NAMES,
        canonical,
        canonical_text,
        served_tool,
    )
    from merabench.tasks.gorillahard.generator.library.tools import DEPRECATED, PAIRS, TOOLS

    assert set(OPERATIONS) == set(TOOLS)
    assert len(set(NAMES.values())) == len(NAMES) and not set(CANONICAL) & set(TOOLS)
    for (name, _), served in NAMES.items():
        assert canonical(served) == name and DOTTED_NAME.fullmatch(served)
        assert served.split(".", 1)[1] != name.split(".", 1)[1], served
    # each provider words a tool its own way, a same-capability pair alike, the caveat kept
    for name in TOOLS:
        listed = [TOOLS[name], served_tool(name, 1), served_tool(name, 2)]
        assert len({t["description"] for t in listed}) == 3, name
        assert len({canonical_text(t["constraints"]["ограничения"]) for t in listed}) == 1, name
        assert all(t["parameters"] == TOOLS[name]["parameters"] for t in listed), name
    for a, b in PAIRS:
        for provider in (1, 2):
            assert served_tool(a, provider)["description"] == served_tool(b, provider)["description"]
            assert {k: v for k, v in served_tool(a, provider)["constraints"].items() if k != "ограничения"} == {
                k: v for k, v in served_tool(b, provider)["constraints"].items() if k != "ограничения"}
    for old, new in DEPRECATED.items():
        for provider in (1, 2):
            listed = served_tool(old, provider)
            assert NAMES[new, provider] in json.dumps(listed, ensure_ascii=False) and new not in json.dumps(
                listed, ensure_ascii=False)
    # a set's references read back exactly, and a reference's operation is another set's only by chance
    ops: dict[str, str] = {}
    for row in read_jsonl(default_set / "test.jsonl"):
        for tool in json.loads(row["inputs"]["tools"]):
            assert canonical_text(tool["name"]) == canonical(tool["name"]) in TOOLS
            ops[canonical(tool["name"])] = tool["name"].split(".", 1)[1]
    other = {canonical(t["name"]): t["name"].split(".", 1)[1] for split in generate(SetPlan(seed=23, rows=300))
             for row in split for t in json.loads(row["inputs"]["tools"])}
    shared = set(ops) & set(other)
    assert len(shared) > 100
    same = sum(ops[name] == other[name] for name in shared)
    assert 0 < same < 0.6 * len(shared), (same, len(shared))


def _without_asides(question: str) -> str:
    """The question without the lead-in before it or the tail after it that `with_asides` may put
    there (the request as its family made it, its first letter as the lead-in left it)."""
    from merabench.tasks.gorillahard.generator.wording.asides import LEAD_INS, TAILS

    lead = next((lead for lead in LEAD_INS if question.startswith(lead + " ")), None)
    question = question[len(lead) + 1:] if lead else question
    tail = next((tail for tail in TAILS if question.endswith(" " + tail)), None)
    return question[: -len(tail) - 1] if tail else question


def test_a_no_tool_row_asks_what_call_rows_ask_and_a_catalog_that_can_serve_it_is_caught(
        tmp_path: Path, default_set: Path) -> None:
    from merabench.tasks.gorillahard.generator.families.grounded import WITHHELD_SPECS, withheld_tools
    from merabench.tasks.gorillahard.generator.families.pick import request_of
    from merabench.tasks.gorillahard.generator.library.tools import TOOLS

    rows = read_jsonl(default_set / "test.jsonl")
    withheld = [r for r in rows if r["meta"]["derivation"].get("request") and "abstain" in json.loads(r["outputs"])]
    assert all(r["meta"]["derivation"]["maker"].endswith(":tool_absent") for r in withheld)
    assert len(withheld) > 20
    # the same words as call rows of the same request (the sentence saying which file, a greeting
    # or a thanks aside)
    def request(row: dict) -> str:
        plain = request_of(_without_asides(row["inputs"]["question"]), row["meta"]["derivation"].get("which", ""))
        return plain[0].lower() + plain[1:]

    calls = {request(r) for r in rows if r["meta"]["derivation"]["maker"] in WITHHELD_SPECS}
    assert sum(request(r) in calls for r in withheld) > len(withheld) // 3
    victim = {}

    def add_the_tool(test, shots):
        row = next(r for r in test if r["meta"]["derivation"].get("request") and "abstain" in json.loads(r["outputs"]))
        tool = withheld_tools(WITHHELD_SPECS[row["meta"]["derivation"]["request"]])[0]
        victim["id"], victim["tool"], victim["maker"] = row["meta"]["id"], tool, row["meta"]["derivation"]["maker"]
        catalog = json.loads(row["inputs"]["tools"])
        row["inputs"]["tools"] = json.dumps(catalog[:-1] + [TOOLS[tool]], ensure_ascii=False)

    problems = failed(copy_set(default_set, tmp_path / "s", add_the_tool), "derived_quantities")
    assert f"row {victim['id']} ({victim['maker']}): the catalog can serve the request: ['{victim['tool']}']" in \
        problems["derived_quantities"]


def test_a_set_the_nearest_question_of_another_seed_solves_is_caught(default_set: Path) -> None:
    """The gate itself: fed answers that are right on every row, it fails a card-size set and
    names the shortcut; on the generated set it passes with its figure printed."""
    from merabench.rows.row import read_local
    from merabench.tasks.gorillahard.generator.checks.shortcuts import check_shortcuts

    rows = read_local(default_set)["test"]
    manifest = json.loads((default_set / "manifest.json").read_text())
    copied = check_shortcuts(rows, manifest, lambda: {r.id: r.outputs for r in rows})
    assert not copied.ok and "the nearest question of seed 4 scores 1.000 > 0.1" in copied.detail
    found = {c.name: c for c in validate(default_set, only=("no_shortcut",))}["no_shortcut"]
    assert found.ok and "nearest question of seed 4 0.0" in found.detail


def test_a_server_named_by_its_figures_is_the_racks_extreme_and_a_wrong_one_is_caught(tmp_path: Path,
                                                                                       default_set: Path) -> None:
    rows = read_jsonl(default_set / "test.jsonl")
    by_figure = [r for r in rows if r["meta"]["derivation"]["maker"] in ("near_miss_decommission:decommission",
                                                                          "abstain_policy_server:decommission")
                 and "стойк" in r["inputs"]["question"]]
    assert len(by_figure) > 4 and all("srv-" not in r["inputs"]["question"] for r in by_figure)
    victim = {}

    def other_server(test, shots):  # the question now names the rack's server at the other extreme
        row = next(r for r in test if r["meta"]["derivation"]["maker"] == "near_miss_decommission:decommission"
                   and "стойк" in r["inputs"]["question"])
        victim["id"] = row["meta"]["id"]
        rack = re.search(r"стойк[еи] (R\d+)", row["inputs"]["question"]).group(1)
        figure = "процессору" if "диск" in row["inputs"]["question"] else "диску"
        row["inputs"]["question"] = f"Выведи из эксплуатации самый загруженный по {figure} сервер в стойке {rack}."

    problems = failed(copy_set(default_set, tmp_path / "s", other_server), "derived_quantities")
    assert f"row {victim['id']} (near_miss_decommission:decommission): the question points at" in \
        problems["derived_quantities"]


def test_a_manifest_whose_plan_cannot_be_made_fails_the_nearest_check_without_a_crash(tmp_path: Path,
                                                                                       default_set: Path) -> None:
    folder = copy_set(default_set, tmp_path / "s", lambda test, shots: None)
    manifest = json.loads((folder / "manifest.json").read_text())
    (folder / "manifest.json").write_text(json.dumps({**manifest, "rows": 20, "dialogues": 2}))
    problems = failed(folder)
    assert "could not make the next seed's set (a set needs at least" in problems["no_shortcut"]


def test_a_refusal_blaming_a_limit_the_files_do_not_break_is_caught(tmp_path: Path, default_set: Path) -> None:
    """Read from the catalog and the files alone: a refund within the stated maximum refused "over
    the limit" is no refusal the catalog supports."""
    victim = {}

    def refuse_within_the_limit(test, shots):
        row = next(r for r in test if r["meta"]["derivation"]["maker"] == "near_miss_refund:refund_top")
        call = json.loads(row["outputs"])
        victim["id"], victim["tool"] = row["meta"]["id"], call["tool"]
        row["outputs"] = json.dumps({"abstain": True, "reason": (
            f"самый дорогой счёт {call['args']['invoice_id']} на {call['args']['amount']} ₽, а {call['tool']} "
            "возвращает не больше 5000 ₽")}, ensure_ascii=False)
        row["meta"]["derivation"] = {"maker": "unknown"}

    problems = failed(copy_set(default_set, tmp_path / "s", refuse_within_the_limit), "limits_respected")
    assert f"row {victim['id']}: the refusal blames {victim['tool']} but cites no value from the files past its " \
           "maximum [5000]" in problems["limits_respected"]


def test_every_family_asks_in_at_least_three_phrasings() -> None:
    """Different speakers (plain, polite or chatty, terse): 40 draws of each family show three or
    more question templates once numbers, names and paths are normalised (the draws stop at the
    third template: the rest cannot take it away)."""
    from merabench.tasks.gorillahard.generator.checks.audit import template

    few = {}
    for name, family in FAMILIES.items():
        templates: set[str] = set()
        for n in range(40):
            templates.add(template(family.make(random.Random(f"{name}:{n}"), corpus_of(5)).question))
            if len(templates) == 3:
                break
        else:
            few[name] = sorted(templates)
    assert few == {}


def test_the_pick_readers_agree_with_the_corpus_facts() -> None:
    """What tells two files apart is read from the file's text alone (hosts, comments, ERROR
    records, rows, replicas, a pool, a namespace, an environment, a base image, dependencies);
    where the generator knows the same thing as a fact of the file, both agree on every file of
    several corpora."""
    from merabench.tasks.gorillahard.generator.families import formats
    from merabench.tasks.gorillahard.generator.families.contents import docker_from
    from merabench.tasks.gorillahard.generator.families.criteria import BY_NAME

    by_fact = {
        "log.errors": ("app_log", lambda f: f.facts["errors"]), "ticket.comments": ("ticket", lambda f: f.facts["comments"]),
        "hosts.count": ("hosts_txt", lambda f: len(f.facts["hosts"])), "table.rows": ("table", lambda f: len(f.facts["rows"])),
        "invoices.count": ("invoices", lambda f: len(f.facts["items"])), "env.variables": ("env", lambda f: f.facts["variables"]),
        "traces.count": ("events_jsonl", lambda f: f.facts["traces"]), "yaml.replicas": ("deploy_yaml", lambda f: f.facts["replicas"]),
        "json.pool": ("service_json", lambda f: f.facts["pool"]), "ini.prefetch": ("worker_ini", lambda f: f.facts["prefetch"]),
        "audio.length": ("audio", lambda f: f.facts["minutes"]),
    }
    checked = 0
    for seed in (0, 7, 23):
        corpus = corpus_of(seed)
        for name, (kind, fact) in by_fact.items():
            for f in corpus.by_kind[kind]:
                assert BY_NAME[name].value(f.file.text, {}) == fact(f), (seed, name, f.file.path)
                checked += 1
        for f in corpus.by_kind["deploy_yaml"]:
            assert BY_NAME["yaml.namespace"].marks(f.file.text) == {f.facts["namespace"]}
        for f in corpus.by_kind["env"]:
            assert BY_NAME["env.environment"].marks(f.file.text) == {f.facts["environment"]}
        for f in corpus.by_kind["pom"]:
            assert formats.pom_dependencies(f.file.text) == dict(f.facts["deps"])
        for f in corpus.by_kind["dockerfile"]:
            assert docker_from(f.file.text) == f.facts["base"]
    assert checked > 300


def test_a_pick_criterion_reads_meaning_not_words_and_a_tie_or_a_wrong_clause_picks_nothing() -> None:
    """A log whose database lines are healthy pool reports is not the one where the database
    refused connections; a values file whose autoscaling is on is not one whose ingress is on; a
    tie picks neither file; a clause the criterion does not say with the recorded parameters, or
    one the question lacks, is caught."""
    from merabench.tasks.gorillahard.generator.families.criteria import chosen

    healthy = ("2026-03-01 10:00:00 INFO  db: pool 3/10 connections in use\n"
               "2026-03-01 10:00:05 ERROR api: upstream timeout\n")
    refused = ("2026-03-02 10:00:00 ERROR db: connection refused (host=pg-main:5432)\n"
               "2026-03-02 14:20:05 INFO  api: GET /cart 200 12 ms\n")
    logs = {"a.log": healthy, "b.log": refused}
    said = "где сервис не мог подключиться к базе данных"
    pick = {"criterion": "log.event", "clause": said, "params": {"mark": "db_refused"}}
    assert chosen(f"Нужен файл, {said}.", pick, logs) == "b.log"
    lacking = {"criterion": "log.no_event", "clause": "в котором нет отказов соединения с базой",
               "params": {"mark": "db_refused"}}
    assert chosen("Речь о файле, в котором нет отказов соединения с базой.", lacking, logs) == "a.log"
    tie = {"criterion": "log.errors", "clause": "где записей уровня ERROR больше", "params": {"direction": "more"}}
    assert chosen("Нужен тот, где записей уровня ERROR больше.", tie, logs) == ["0 of the 2 files fit «где записей уровня "
                                                                            "ERROR больше»"]
    assert chosen("Нужен тот, где записей ERROR меньше.", tie, logs) == [
        "the question does not hold the recorded picking clause"]
    wrong = {**pick, "params": {"mark": "oom"}}
    assert chosen(f"Нужен файл, {said}.", wrong, logs)[0].startswith(f"«{said}» is not how log.event")
    values = ("ingress:\n  enabled: false\n  host: a.example.org\nautoscaling:\n  enabled: true\n",
              "ingress:\n  enabled: true\n  host: b.example.org\nautoscaling:\n  enabled: false\n")
    on = {"criterion": "yaml.ingress", "clause": "где ingress включён", "params": {"mark": "on"}}
    assert chosen("Смотри файл, где ingress включён.", on, dict(zip(("a.yaml", "b.yaml"), values, strict=True))) == "b.yaml"
    window = {"criterion": "log.errors_window", "clause": "где после 12:00 больше записей ERROR",
              "params": {"at": 43200, "side": "after", "direction": "more"}}
    assert chosen("Смотри файл, где после 12:00 больше записей ERROR.", window,
                  {"a.log": healthy, "b.log": refused + "2026-03-02 14:21:00 ERROR api: upstream timeout\n"}) == "b.log"


def test_a_grounded_request_chooses_between_two_files_by_what_they_hold_and_a_wrong_or_tied_choice_is_caught(
        tmp_path: Path, default_set: Path) -> None:
    from merabench.tasks.gorillahard.generator.families.grounded import SPECS

    rows = read_jsonl(default_set / "test.jsonl")
    grounded = [r for r in rows if r["meta"]["derivation"]["maker"] in {s.name for s in SPECS}]
    assert len(grounded) == 292 and {r["meta"]["categories"]["difficulty"] for r in grounded} == {"T4_wild"}
    for row in grounded:  # two files attached, neither named: the question says which by what it holds
        attached = re.findall(r"^\[файл: ([^\]]+)\]", row["inputs"]["context"], re.M)
        assert len(attached) == 2 and not [p for p in attached if p in row["inputs"]["question"]]
        assert row["meta"]["derivation"]["which"] in row["inputs"]["question"]
    victim = {}

    def other_file(test, shots):
        row = next(r for r in test if r["meta"]["derivation"]["maker"] == "lint_module")
        reference = json.loads(row["outputs"])
        other = next(p for p in re.findall(r"^\[файл: ([^\]]+)\]", row["inputs"]["context"], re.M)
                     if p != reference["args"]["path"])
        reference["args"]["path"] = other
        row["outputs"] = json.dumps(reference, ensure_ascii=False)
        victim["id"] = row["meta"]["id"]

    problems = failed(copy_set(default_set, tmp_path / "wrong", other_file), "derived_quantities",
                      "targets_told_apart")
    assert f"row {victim['id']} (lint_module): expected" in problems["derived_quantities"]
    assert f"row {victim['id']}: the question picks" in problems["targets_told_apart"]
    # a row whose recorded comparison is turned round picks the other file: caught from the written row
    flipped = {}

    def turned_round(test, shots):
        row = next(r for r in test if r["meta"]["derivation"].get("pick", {}).get("params", {}).get("direction") == "more")
        row["meta"]["derivation"]["pick"]["params"]["direction"] = "fewer"
        flipped["id"] = row["meta"]["id"]

    problems = failed(copy_set(default_set, tmp_path / "flipped", turned_round), "targets_told_apart")
    assert f"row {flipped['id']}: «" in problems["targets_told_apart"]


def test_optional_arguments_are_needed_and_a_reference_without_one_is_caught(tmp_path: Path,
                                                                            default_set: Path) -> None:
    from merabench.tasks.gorillahard.generator.families.optional import OPTIONAL_CALLS
    from merabench.tasks.gorillahard.generator.library.tools import TOOLS

    rows = read_jsonl(default_set / "test.jsonl")
    for family in OPTIONAL_CALLS:
        made = [r for r in rows if r["meta"]["categories"]["family"] == family.name]
        assert made and {r["meta"]["categories"]["difficulty"] for r in made} == {"T3_expert"}
        params = TOOLS[family.tool]["parameters"]
        for row in made:  # each reference fills an argument the tool leaves optional
            args = json.loads(row["outputs"])["args"]
            assert any(not params[name]["required"] for name in args), (family.name, args)
    row_id, problems = without_argument(default_set, tmp_path / "s", "code_run_tests", "match")
    assert f"row {row_id} (code_run_tests): expected" in problems["derived_quantities"]


def without_argument(source: Path, target: Path, family: str, argument: str) -> tuple[int, dict[str, str]]:
    """Validate a copy of the set in which the first row of `family` lacks `argument` in its
    reference: (that row's id, the failed checks)."""
    victim = {}

    def drop(test, shots):
        row = next(r for r in test if r["meta"]["categories"]["family"] == family)
        reference = json.loads(row["outputs"])
        del reference["args"][argument]
        row["outputs"] = json.dumps(reference, ensure_ascii=False)
        victim["id"] = row["meta"]["id"]

    problems = failed(copy_set(source, target, drop), "derived_quantities")
    return victim["id"], problems


def test_a_narrowing_sentence_is_read_back_as_its_own_value_and_a_reference_ignoring_it_is_caught(
        tmp_path: Path, default_set: Path) -> None:
    from merabench.tasks.gorillahard.generator.families.optional import MISSING, NARROWINGS
    from merabench.tasks.gorillahard.generator.library.providers import canonical_text
    from merabench.tasks.gorillahard.generator.library.tools import TOOLS
    from merabench.tasks.gorillahard.generator.wording.address import forms

    rng = random.Random(3)
    for name, narrowing in NARROWINGS.items():
        for n in range(30):  # each drawn sentence, capitalised as a question carries it, reads back as its value
            before = ("Сделай это.", "Сделайте это.", "Это нужно.")[n % 3]  # in the question's form of address
            value, sentence = narrowing.draw(rng, {"version": "2.15.3"}, before)
            said = f"{before} {sentence[0].upper()}{sentence[1:]}"
            assert narrowing.read(said) == value, (name, sentence)
            assert len(forms(said)) < 2, said
        assert narrowing.read("Сделай это.") is MISSING
    rows = read_jsonl(default_set / "test.jsonl")
    for name, narrowing in NARROWINGS.items():
        made = [r for r in rows if r["meta"]["categories"]["family"] == name]
        assert made and {r["meta"]["categories"]["difficulty"] for r in made} == {"T3_expert"}
        for row in made:
            reference = json.loads(canonical_text(row["outputs"]))
            assert narrowing.arg in reference["args"]
            assert not TOOLS[reference["tool"]]["parameters"][narrowing.arg]["required"]
    row_id, problems = without_argument(default_set, tmp_path / "s", "sql_vacuum", "full")
    assert f"row {row_id} (sql_vacuum): expected full=True, as the question asks" in problems["derived_quantities"]


def test_an_attachment_that_states_what_the_tool_would_find_is_caught() -> None:
    """A placeholder saying "русская речь" answers asr.detect_language by itself: the reference is
    then one defensible answer of two."""
    from merabench.tasks.gorillahard.generator.checks.files import check_findings_unsaid

    family = FAMILIES["speech_language"]
    made = _row(family.make(random.Random("findings"), corpus_of(5)), family, row_id=7, base_id="b", dialog_id="b", turn=0,
                n_turns=1, needs_history="", wording=0, rng=random.Random("findings"),
                served=draw_served(random.Random("findings")))
    assert check_findings_unsaid([Row(**made)]).ok
    made["inputs"]["context"] = made["inputs"]["context"].replace(" мин", " мин, русская речь")  # any layout
    check = check_findings_unsaid([Row(**made)])
    assert not check.ok and "row 7:" in check.detail and "asr.detect_language" in check.detail


def test_a_row_asking_what_another_asks_is_caught(tmp_path: Path, default_set: Path) -> None:
    """The same question of the same files with the same reference, under another provider's tool
    name, is the same item twice."""
    from merabench.tasks.gorillahard.generator.library.providers import NAMES

    def repeat(test, shots):
        source = next(r for r in test if "tool" in json.loads(r["outputs"]) and r["meta"]["n_turns"] == 1)
        reference = json.loads(source["outputs"])
        reference["tool"] = NAMES[reference["tool"], 1] if (reference["tool"], 1) in NAMES else reference["tool"]
        target = test[-2]
        target["inputs"]["question"], target["inputs"]["context"] = (source["inputs"]["question"],
                                                                     source["inputs"]["context"])
        target["outputs"] = json.dumps(reference, ensure_ascii=False)
        repeat.ids = source["meta"]["id"], target["meta"]["id"]

    problems = failed(copy_set(default_set, tmp_path / "r", repeat), "no_duplicate_rows")
    first, second = repeat.ids
    assert f"rows {first} and {second}: the same question, files and reference" in problems["no_duplicate_rows"]


def test_one_maker_asking_of_the_same_files_with_the_same_answer_is_caught(tmp_path: Path, default_set: Path) -> None:
    """v21's seed 8181 held 71 rows of a maker whose files and reference another row of that maker
    already had, the question an aside apart («Открой трассу самого медленного запроса из выгрузки.»
    and the same with «Благодарю.»): one item twice. A refusal's reason can be the same words for
    different requests, so two refusals of one maker and one file stay two items."""

    def repeat(test, shots):
        def twin(source, target, question):
            target["inputs"]["question"] = question
            target["inputs"]["context"], target["outputs"] = source["inputs"]["context"], source["outputs"]
            target["meta"]["derivation"] = dict(source["meta"]["derivation"])

        singles = [r for r in test if r["meta"]["n_turns"] == 1]
        call = next(r for r in singles if "tool" in json.loads(r["outputs"]))
        twin(call, test[-2], call["inputs"]["question"].rstrip(".") + ". Благодарю.")
        refusal = next(r for r in singles if "abstain" in json.loads(r["outputs"]))
        other = next(r for r in singles if "abstain" in json.loads(r["outputs"]) and r is not refusal)
        twin(refusal, other, other["inputs"]["question"])
        repeat.ids = call["meta"]["id"], test[-2]["meta"]["id"], refusal["meta"]["id"], other["meta"]["id"]

    problems = failed(copy_set(default_set, tmp_path / "r", repeat), "no_duplicate_rows")
    first, second, refusal, other = repeat.ids
    assert f"rows {first} and {second}: the same maker, files and reference" in problems["no_duplicate_rows"]
    assert f"rows {refusal} and {other}" not in problems["no_duplicate_rows"]


def test_rows_without_a_maker_are_told_apart_by_their_question() -> None:
    """A set this generator did not make names no maker: two of its questions over one file with
    one answer are two items (helper-51's review: all such rows shared the empty maker's key)."""
    from merabench.tasks.gorillahard.generator.checks.structure import item_keys

    answer = '{"tool": "table.max", "args": {"path": "data/t.csv", "column": "t"}}'
    first, second = (item_keys("", "[файл: data/t.csv]", answer, q) for q in ("Максимум?", "Самое большое значение?"))
    assert not set(first) & set(second)
    made = [item_keys("table_stat", "[файл: data/t.csv]", answer, q) for q in ("Максимум?", "Самое большое значение?")]
    assert set(made[0]) & set(made[1])


def test_a_host_list_not_asked_by_status_holds_no_retired_host() -> None:
    """v21's seed 8181 row 1100: «хостов …, которые обслуживают веб-интерфейс» over a list whose web
    hosts include a retired one; the reference kept it, and leaving it out is as right. A question
    that does not ask by status gets a list with none retired; the check fails one that has."""
    from merabench.tasks.gorillahard.generator.families.common import View
    from merabench.tasks.gorillahard.generator.families.hostlists import check_hosts

    def runbook(status: str) -> str:
        return ("# Ранбук\n\n## Хосты\n\n| хост | окружение | роль | статус | последняя проверка |\n| --- | --- | --- | --- | --- |\n"
                "| `docs.example.com` | prod | web | active | ok |\n"
                f"| `status.example.org` | prod | web | {status} | ok |\n"
                "| `db-1.example.com` | prod | db | active | ok |\n")
    reference = {"calls": [{"tool": "dns.lookup", "args": {"host": h}}
                           for h in ("docs.example.com", "status.example.org")]}
    question = "Проверь A-записи хостов из списка, которые обслуживают веб-интерфейс."

    def problems(status: str, condition: dict) -> list[str]:
        return check_hosts(View(question, {"docs/hosts.md": runbook(status)}, reference, condition), "dns.lookup")

    assert problems("active", {"where": ["role", "web"]}) == []
    assert problems("retired", {"where": ["role", "web"]}) == [
        "status.example.org retired, and the question does not ask by status: in or out?"]


@pytest.mark.parametrize(("question", "files", "found"), [
    ("Нужны два средних: по «число проектов» и по «зарплата».", 1, "a quoted label right after a preposition"),
    ("А по «влажность»?", 1, "a quoted label right after a preposition"),
    ("Покажи трассы. (Из двух файлов — тот, где реплик больше.). Это срочно.", 2, "doubled punctuation"),
    ("Выставь для сервиса из файла столько реплик, сколько там указано сейчас.", 1, "a request that changes nothing"),
    ("Файла два, речь о том, где больше ERROR. Посчитай контрольную сумму приложенного журнала.", 2,
     "«приложенного» in the singular over two attached files"),
    # seed 4242 (v14): rows 705, 486, 525
    ("Помогите, пожалуйста. Посчитайте, пожалуйста, минимум в столбце «влажность».", 1, "a politeness word twice"),
    ("Нужен тот, в котором дата обновления старше. Какой TTL у записи первого хоста?", 2, "a date said to be older"),
    ("Число реплик сервиса сделай равным числу серверов в любом статусе команды data.", 2,
     "a status before the filter it scopes"),
    # seed 6262 (v18): row 307
    ("Здравствуйте. Верни клиенту всю сумму по самому крупному счёту из выгрузки.", 1, "«ты» and «вы» in one question"),
    # seed 4242 (v26): rows 343, 993
    ("Удали тег образа из values. Только для того файла, где версия образа старше.", 2, "a version said to be older"),
    ("Резолвни в адреса IPv4 имена хостов из инвентаря. Очень выручите.", 1, "«ты» and «вы» in one question"),
])
def test_a_question_a_reader_trips_over_is_caught(question: str, files: int, found: str) -> None:
    from merabench.tasks.gorillahard.generator.checks.wording import check_phrasing
    from merabench.tasks.gorillahard.generator.families.common import ended

    context = "\n\n".join(f"[файл: logs/a-{n}.log]\nINFO ok" for n in range(files))

    def row(text: str) -> Row:
        return Row(instruction="", inputs={"question": text, "context": context, "tools": "[]", "format": ""},
                   outputs="{}", meta={"id": 4})

    check = check_phrasing([row(question)])
    assert not check.ok and f"row 4: {found}" in check.detail
    assert check_phrasing([row("Посчитай медиану по столбцу «влажность». Файла два: бери тот, где строк больше.")]).ok
    assert ended("Возьми тот. (Из двух файлов — тот, где больше.)").endswith(".)")


def test_refusals_spread_over_mechanisms_each_with_near_misses_and_a_missing_one_is_caught(
        tmp_path: Path, default_set: Path) -> None:
    """Every refusal kind (a limit after counting, a column under no spelling, a contradicted
    premise, a tool under no name) has refusals and near misses in a default set, no mechanism
    over 40 % of a family; a set whose near misses of a kind are gone fails the check."""
    from merabench.tasks.gorillahard.generator.families.refusals import KINDS, SPREAD

    rows = read_jsonl(default_set / "test.jsonl")
    spread: dict[str, Counter] = {}
    for row in rows:
        if row["meta"]["categories"]["family"] in SPREAD:
            spread.setdefault(row["meta"]["categories"]["family"], Counter())[row["meta"]["derivation"]["mechanism"]] += 1
    assert set(spread) == set(SPREAD)
    assert all(max(c.values()) <= 0.4 * sum(c.values()) + 0.5 and len(c) >= 3 for c in spread.values()), spread
    assert "refusal_mechanisms" not in failed(default_set, "refusal_mechanisms")

    def near_misses_to_refusals(test, shots):  # the column kind's near misses turned into refusals
        for row in test:
            if row["meta"]["derivation"].get("mechanism") in KINDS["absent_column"] and \
                    "abstain" not in json.loads(row["outputs"]):
                row["outputs"] = json.dumps({"abstain": True, "reason": "нет столбца"}, ensure_ascii=False)
                row["meta"]["categories"]["answer_kind"] = "abstain"

    problems = failed(copy_set(default_set, tmp_path / "s", near_misses_to_refusals), "refusal_mechanisms",
                      "derived_quantities")
    assert "no near miss row of absent_column" in problems["refusal_mechanisms"]
    assert "derived_quantities" in problems  # and the column check sees the headers hold it


def test_each_refusal_mechanisms_check_decides_from_the_file_not_the_reference() -> None:
    """The refusal and the near miss of one mechanism differ by the file (or catalog) alone: each
    check, fed a row with the other side's reference, says why the file calls for the other."""
    from merabench.tasks.gorillahard.generator.families.refusals import MECHANISMS

    for name, mechanism in MECHANISMS.items():
        for refuse in (True, False):
            for n in range(6):
                rng = random.Random(f"mechanism:{name}:{refuse}:{n}")
                question = replace(mechanism.make(rng, corpus_of(5), refuse), family="f", lever="no_tool",
                                   difficulty="T3_expert")
                family = FAMILIES[next(f for f in FAMILIES if f.endswith(f":{name}"))]
                row = Row(**_row(question, family, row_id=0, base_id="b", dialog_id="b", turn=0, n_turns=1,
                                 needs_history="", wording=0, rng=rng, served=draw_served(rng)))
                view = view_of(row)
                assert mechanism.check(view) == [], (name, refuse, n)
                assert ("abstain" in view.reference) is refuse
                other = {"abstain": True, "reason": "нельзя"} if not refuse else {"tool": "x.y", "args": {}}
                assert mechanism.check(replace(view, reference=other)), (name, refuse, n)


def test_a_column_refusal_holds_only_look_alikes_and_its_near_miss_another_spelling() -> None:
    from merabench.tasks.gorillahard.generator.families.common import split_table
    from merabench.tasks.gorillahard.generator.families.refusals import (
        CONCEPT_ROOTS,
        CONCEPTS,
        concept_root,
        make_column_spelling,
    )

    for schema, concept in CONCEPTS.items():  # the maker's spellings are the concept by the check's own roots
        assert all(concept_root(s) in CONCEPT_ROOTS[schema] for s in (concept.column, *concept.spellings))
        assert not any(concept_root(d) in CONCEPT_ROOTS[schema] for d, _ in concept.decoys)
    renamed = 0
    for n in range(30):
        for refuse in (True, False):
            question = make_column_spelling(random.Random(f"col:{n}:{refuse}"), corpus_of(5), refuse)
            header, _ = split_table(question.files[0].text)
            concept = CONCEPTS[question.facts["concept"]]
            assert any(h in {d for d, _ in concept.decoys} for h in header)  # a look-alike on both sides
            if not refuse:
                renamed += question.reference["args"]["column"] != concept.column
                assert concept.column not in header or question.reference["args"]["column"] == concept.column
    assert renamed >= 20  # mostly under a spelling the corpus's own header does not use


def test_each_set_picks_by_its_own_share_of_the_criteria_and_their_wordings() -> None:
    """A set uses about three quarters of each kind's criteria and of each criterion's wordings,
    drawn by its seed: two seeds differ, every kind keeps two criteria at least, and the validator
    accepts any wording of a criterion (it checks the clause against all of them)."""
    from merabench.tasks.gorillahard.generator.families import criteria

    one, other = criteria.in_set(23), criteria.in_set(91)
    assert set(one) != set(other) and len(one) >= 30 and len(other) >= 30
    assert all(sum(name in one for name in group) >= 2 for group in criteria.CRITERIA.values())
    assert any(isinstance(c, criteria.Compare) and len(c.more) < len(criteria.BY_NAME[n].more) for n, c in one.items())
    logs = {"a.log": "2026-03-01 10:00:00 INFO  api: GET /cart 200 12 ms\n",
            "b.log": "2026-03-01 10:00:00 ERROR api: upstream timeout\n"}
    for said in criteria.BY_NAME["log.errors"].more:  # every wording, whether a set uses it or not
        pick = {"criterion": "log.errors", "clause": said, "params": {"direction": "more"}}
        assert criteria.chosen(f"Нужен файл, {said}.", pick, logs) == "b.log"


def _log(slow: int, records: int, minutes: int) -> str:
    """A plain-layout log of `records` records over `minutes` minutes, `slow` of them slow requests."""
    step = minutes * 60 // (records - 1)
    lines = []
    for i in range(records):
        t = 36_000 + i * step
        stamp = f"2026-03-01 {t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d}"
        lines.append(f"{stamp} WARN  api: slow request GET /cart 1500 ms" if i < slow else f"{stamp} INFO  api: GET /cart 200 12 ms")
    return "\n".join(lines) + "\n"


def test_a_log_is_picked_by_how_often_only_where_the_count_and_the_frequency_agree() -> None:
    """«где реже отвечали с большой задержкой» over 10 slow requests in 216 records (69 minutes)
    and 9 in 125 (40 minutes) (v25 seed 9393 row 165): the count says the second, every frequency
    the first, so the clause picks neither, the generator does not draw it and the validator fails
    a row that says it; where they agree it picks the one file."""
    from merabench.tasks.gorillahard.generator.families import criteria

    slow = criteria.BY_NAME["log.slow"]
    split = {"orders.log": _log(10, 216, 69), "payments.log": _log(9, 125, 40)}
    pick = {"criterion": "log.slow", "clause": slow.fewer[0], "params": {"direction": "fewer"}}
    assert slow.fits(split, pick["params"]) == []
    assert isinstance(criteria.chosen(f"Нужен файл, {slow.fewer[0]}.", pick, split), list)
    assert slow.options(random.Random(0), split["payments.log"], split["orders.log"]) == []
    agreed = {"orders.log": _log(10, 216, 69), "payments.log": _log(4, 125, 40)}
    assert slow.fits(agreed, pick["params"]) == ["payments.log"]
    assert [p["direction"] for _, p in slow.options(random.Random(0), agreed["payments.log"], agreed["orders.log"])] == ["fewer"]


def test_the_busiest_server_to_drain_is_one_in_service(tmp_path_factory: pytest.TempPathFactory) -> None:
    """«Разгрузи сервер с самым высоким CPU» over a table whose busiest server is on maintenance
    (v25 seed 9393 row 1029, srv-034) reads two ways: the corpus keeps every server table's busiest
    server in service, and the check fails a row whose busiest is not."""
    from merabench.tasks.gorillahard.generator.families.common import split_table

    corpus = corpus_of(9393)
    family = FAMILIES["busiest_server"]
    for n in range(20):
        question = family.make(random.Random(n), corpus)
        text, = (f.text for f in question.files)
        header, rows = split_table(text)
        top = max(rows, key=lambda r: int(r[header.index("cpu_pct")]))
        assert top[header.index("status")] == "active" and question.reference["args"]["host"] == top[0]
    row = next(r for r in read_jsonl(generated_set(tmp_path_factory, 0) / "test.jsonl")
               if r["meta"]["derivation"]["maker"] == "busiest_server")
    row = Row(**row)
    busiest = json.loads(row.outputs)["args"]["host"]
    lines = row.inputs["context"].split("\n")
    at = next(i for i, line in enumerate(lines) if re.match(rf'"?{busiest}\b', line))
    lines[at] = lines[at].replace("active", "maintenance", 1)  # the status cell, in any delimiter
    broken = replace(row, inputs={**row.inputs, "context": "\n".join(lines)})
    assert any("not in service" in p for p in family.check(view_of(broken)))
    assert family.check(view_of(row)) == []


def test_a_refusal_citing_a_million_is_read_as_citing_it() -> None:
    """A cited value of a million or more is looked up as written ('1234567'), not in `:g`'s
    exponent form ('1.23457e+06') that no file holds."""
    from merabench.tasks.gorillahard.generator.checks.catalogs import check_limits

    tools = json.dumps([{"name": "refund", "parameters": {"amount": {"type": "integer", "maximum": 5000}}}])
    context = "[файл: invoices.csv]\ninvoice,amount\nINV-1,1234567\n"
    reason = "счёт INV-1 на 1234567 ₽, а refund возвращает не больше 5000 ₽"
    row = Row("", {"question": "q", "context": context, "tools": tools, "format": ""},
              json.dumps({"abstain": True, "reason": reason}, ensure_ascii=False),
              {"id": 0, "dialog_id": "d", "n_turns": 1})
    check = check_limits([row])
    assert check.ok, check.detail
    assert "1 refusals over a limit cite a value past it" in check.detail


def test_ids_that_do_not_run_on_are_named() -> None:
    from merabench.tasks.gorillahard.generator.checks.structure import check_ids

    def rows(*ids: int) -> list[Row]:
        return [Row("", {}, "{}", {"id": i}) for i in ids]

    assert check_ids(rows(0, 1, 2), rows(0)).ok
    check = check_ids(rows(0, 2, 2, 5), rows(1))
    assert not check.ok
    assert check.detail == ("test: ids missing 1, 3; test: ids repeated 2; test: ids outside 0..3 5; "
                            "shots: ids missing 0; shots: ids outside 0..0 1")


def test_a_derivation_failure_names_the_tool_as_served(tmp_path: Path, default_set: Path) -> None:
    """The family's 'expected' finding is in the names of the row's catalog, not the library's."""
    from merabench.tasks.gorillahard.generator.library.providers import canonical

    victim = {}

    def wrong_argument(test, shots):
        row = next(r for r in test if r["meta"]["derivation"]["maker"] in FAMILIES and "tool" in json.loads(r["outputs"])
                   and canonical(json.loads(r["outputs"])["tool"]) != json.loads(r["outputs"])["tool"])
        reference = json.loads(row["outputs"])
        reference["args"]["path"] = "elsewhere.py"
        row["outputs"] = json.dumps(reference, ensure_ascii=False)
        row["meta"]["id"], test[0]["meta"]["id"] = 0, row["meta"]["id"]  # first, so the detail shows it
        test.remove(row)
        test.insert(0, row)
        victim["tool"] = reference["tool"]

    problem = failed(copy_set(default_set, tmp_path / "s", wrong_argument), "derived_quantities")["derived_quantities"]
    mine = next(p for p in problem.split("; ") if p.startswith("row 0 (") and "expected" in p)
    assert victim["tool"] in mine and canonical(victim["tool"]) not in mine.replace(victim["tool"], "")


def test_a_cost_pick_on_the_wrong_side_is_caught(tmp_path: Path, default_set: Path) -> None:
    """tiers_by_rule reads the pair from the row's catalog and the side from the question's words:
    a cheap request answered with the dear tool fails it, whatever the derivation records."""
    from merabench.tasks.gorillahard.generator.checks.tiers import cost_pairs

    victim = {}

    def swapped(test, shots):
        row = next(r for r in test if r["meta"]["categories"]["cost_pick"] == "yes")
        reference = json.loads(row["outputs"])
        low, high = cost_pairs(json.loads(row["inputs"]["tools"]))[reference["tool"]]
        reference["tool"] = high if reference["tool"] == low else low
        row["outputs"] = json.dumps(reference, ensure_ascii=False)
        row["meta"]["derivation"] = {"maker": "unknown"}
        victim["id"], victim["tool"] = row["meta"]["id"], reference["tool"]

    problems = failed(copy_set(default_set, tmp_path / "s", swapped), "tiers_by_rule")
    assert f"the reference calls {victim['tool']}" in problems["tiers_by_rule"]
    assert f"row {victim['id']}:" in problems["tiers_by_rule"]


def test_tiers_by_rule_on_hand_made_rows() -> None:
    from merabench.tasks.gorillahard.generator.checks.tiers import check_tiers

    def tool(name: str, caveat: str) -> dict:
        return {"name": name, "description": "Распознаёт речь в аудиофайле.", "parameters": {"path": {"type": "string"}},
                "constraints": {"ограничения": caveat}}

    tools = json.dumps([tool("stt.fast", "Дёшево (0,2 ₽ за минуту); точность 85 %."),
                        tool("stt.exact", "Дорого (3 ₽ за минуту); точность 98 %.")])

    def row(question: str, called: str, cost_pick: str = "yes") -> Row:
        return Row("", {"question": question, "context": "", "tools": tools, "format": ""},
                   json.dumps({"tool": called, "args": {"path": "a.wav"}}),
                   {"id": 0, "categories": {"cost_pick": cost_pick}})

    assert check_tiers([row("Нужна самая дешёвая расшифровка.", "stt.fast"),
                        row("Нужна дословная расшифровка.", "stt.exact")]).ok
    assert "the card's rule picks stt.fast, the reference calls stt.exact" in check_tiers(
        [row("Нужна самая дешёвая расшифровка.", "stt.exact")]).detail
    assert "for neither" in check_tiers([row("Расшифруй запись.", "stt.fast")]).detail
    assert "labelled cost_pick=no" in check_tiers([row("Нужна дословная расшифровка.", "stt.exact", "no")]).detail


def test_a_cost_pick_wording_without_a_cue_fails_loudly() -> None:
    """tiers_by_rule reads a cost pick's need with the cues kept beside its wordings: a wording the
    cues miss, one that says both needs, or two tools saying the same one stops the family from
    being made, before any set is; the wordings in use each say one."""
    from merabench.tasks.gorillahard.generator.families.choices import (
        ASR_NEEDS,
        STORAGE_NEEDS,
        cost_pick_family,
        said_need,
    )

    assert all(said_need(w) for needs in (ASR_NEEDS, STORAGE_NEEDS) for said in needs.values() for w in said)
    accurate, fast = ASR_NEEDS
    with pytest.raises(ValueError, match=r"asr.transcribe_fast: \['Расшифруй запись побыстрее.'\] say neither"):
        cost_pick_family("asr_cost_pick", {**ASR_NEEDS, fast: [*ASR_NEEDS[fast], "Расшифруй запись побыстрее."]}, "audio")
    with pytest.raises(ValueError, match="say neither or both"):
        cost_pick_family("asr_cost_pick", {**ASR_NEEDS, fast: ["Нужна дешёвая, но дословная расшифровка."]}, "audio")
    with pytest.raises(ValueError, match="different needs"):
        cost_pick_family("asr_cost_pick", {accurate: ASR_NEEDS[accurate], fast: ASR_NEEDS[accurate]}, "audio")


def test_attachments_hold_one_or_two_files_as_labelled() -> None:
    from merabench.tasks.gorillahard.generator.checks.files import check_attachments

    def row(context: str, n_files: int, has_context: str = "yes") -> Row:
        return Row("", {"question": "q", "context": context, "tools": "[]", "format": ""}, "{}",
                   {"id": 0, "categories": {"n_files": n_files, "has_context": has_context}})

    one = "[файл: a.txt]\nx\n"
    assert check_attachments([row(one, 1), row(one + "[файл: b.txt]\ny\n", 2)]).ok
    assert "0 files attached, the card asks for 1 to 2" in check_attachments([row("", 0, "no")]).detail
    assert "3 files attached" in check_attachments([row(one + "[файл: b]\ny\n[файл: c]\nz\n", 3)]).detail
    assert "labelled n_files=2, 1 attached" in check_attachments([row(one, 2)]).detail
    assert "labelled has_context=no" in check_attachments([row(one, 1, "no")]).detail
    assert "a.txt attached twice" in check_attachments([row(one + one, 2)]).detail


def test_a_key_set_twice_needs_its_older_assignment_marked() -> None:
    """A worker INI's [queue] with `name = reports-old` then `name = reports-195` (seed 4242, v14,
    rows 628, 342, 773: a purge's queue) reads the last name only to a lenient parser; the older
    assignment must carry a comment saying it is overridden. .env the same; a key in two sections
    is no duplicate."""
    from merabench.tasks.gorillahard.generator.checks.files import check_duplicate_keys

    def row(path: str, text: str) -> Row:
        return Row("", {"question": "q", "context": f"[файл: {path}]\n{text}", "tools": "[]", "format": ""},
                   "{}", {"id": 3})

    bare = "[general]\nname = worker-195\n\n[queue]\nname = reports-old\nname = reports-195\nprefetch = 4\n"
    marked = bare.replace("name = reports-old", "; старое значение, ниже переопределено\nname = reports-old")
    apart = "; переопределено ниже\n[queue]\nname = reports-old\n; name = x\nName = reports-195\n"
    check = check_duplicate_keys([row("config/worker-195.ini", bare)])
    assert not check.ok and "row 3: config/worker-195.ini: name set 2 times in [queue]" in check.detail
    assert "name set 2 times" in check_duplicate_keys([row("config/w.ini", apart)]).detail  # the mark not above it
    assert check_duplicate_keys([row("config/worker-195.ini", marked)]).ok
    assert check_duplicate_keys([row("config/worker-195.ini", bare.replace("[queue]\nname = reports-old", "[q]\n"
                                                                           "name = reports-old\n[queue]"))]).ok
    env = "APP_ENV=staging\nFEATURE_FLAG=dark-mode\nDB_PORT=5432\nFEATURE_FLAG=smart-cart\n"
    assert "FEATURE_FLAG set 2 times" in check_duplicate_keys([row("config/staging-1.env", env)]).detail
    assert check_duplicate_keys([row("config/staging-1.env", env.replace(
        "FEATURE_FLAG=dark", "# прежнее значение, переопределено ниже\nFEATURE_FLAG=dark"))]).ok
    assert check_duplicate_keys([row("notes.txt", env)]).ok  # not a key = value format


def test_a_yaml_mapping_never_holds_a_key_twice() -> None:
    """YAML forbids a key twice in one mapping and loaders disagree on it (PyYAML keeps the last,
    the spec refuses), so any duplicate in an attached values file fails, marked or not; the same
    key in two list items, two sections, a block scalar's text or two documents is no duplicate.
    (On seeds 0 and 23 the scanner and PyYAML with a refusing constructor agree on all 153 values
    files with one key line copied below itself.)"""
    from merabench.tasks.gorillahard.generator.checks.files import check_duplicate_keys

    def row(text: str) -> Row:
        return Row("", {"question": "q", "context": f"[файл: deploy/helm/values-885.yaml]\n{text}", "tools": "[]",
                        "format": ""}, "{}", {"id": 7})

    values = ("# values for notify-api\nnamespace: shop-prod\nreplicas: 5\nresources:\n  cpu: 250m\n"
              "  memory: 512Mi\ncache:\n  cpu: 1\nenv:\n  - name: LOG_LEVEL\n    value: \"info\"\n"
              "  - name: REGION\n    value: \"ru-2\"\nnotes: |\n  replicas: 4 до переезда\n  namespace: old\n"
              "---\nreplicas: 3\n")
    assert check_duplicate_keys([row(values)]).ok
    twice = values.replace("replicas: 5\n", "replicas: 5\n# переопределено ниже\nreplicas: 4\n", 1)
    check = check_duplicate_keys([row(twice)])
    assert not check.ok and "row 7: deploy/helm/values-885.yaml: replicas set twice (lines 3 and 5)" in check.detail
    nested = values.replace("  memory: 512Mi\n", "  memory: 512Mi\n  cpu: 500m\n")
    assert "cpu set twice (lines 5 and 7)" in check_duplicate_keys([row(nested)]).detail
    in_item = values.replace('    value: "info"\n', '    value: "info"\n    value: "debug"\n')
    assert "value set twice" in check_duplicate_keys([row(in_item)]).detail


def test_a_format_trap_reads_the_value_its_decoy_shadows() -> None:
    """A deploy_scale row passes on its replicas, the value '# replicas: 11' shadows, not on a
    namespace any file names."""
    from merabench.tasks.gorillahard.generator.checks.files import check_format_traps

    context = "[файл: values.yaml]\nnamespace: prod\ndeployment: api\n# replicas: 11\nreplicas: 12\n"

    def row(reference: dict) -> Row:
        return Row("", {"question": "q", "context": context, "tools": "[]", "format": ""},
                   json.dumps(reference, ensure_ascii=False),
                   {"id": 0, "categories": {"format_trap": "yes", "family": "deploy_scale"}})

    def scale(replicas: int) -> dict:
        return {"tool": "k8s.scale", "args": {"namespace": "prod", "deployment": "api", "replicas": replicas}}

    assert check_format_traps([row(scale(12))]).ok
    assert "row 0 (deploy_scale): 7 is not in the files' body" in check_format_traps([row(scale(7))]).detail
    unknown = check_format_traps([row({"tool": "k8s.restart", "args": {"namespace": "prod"}})])
    assert "no argument a decoy shadows is known for k8s.restart" in unknown.detail


def test_a_level_pattern_matches_only_its_records() -> None:
    """Seed 5151 (v17) rows 1152, 1158 (a dialogue's closing count of WARN) and 693, 810 (a single
    count): the log also held `[DEBUG] config - log level for "WARN" records set to file only`, so
    the reference's pattern "WARN" matched 20 lines where 18 are WARN records, and a reader writing
    "[WARN]" failed. A level-word pattern must match exactly the level's records; the generator's
    makers draw such logs only."""
    from merabench.tasks.gorillahard.generator.checks.files import check_level_patterns

    records = "".join(f"[2026-03-14T10:00:{n:02d}.000Z] [WARN] api - slow request\n" for n in range(3))
    quoting = '[2026-03-14T10:01:00.000Z] [DEBUG] config - log level for "WARN" records set to file only\n'

    def row(text: str, reference: dict) -> Row:
        return Row("", {"question": "q", "context": f"[файл: logs/api.log]\n{text}", "tools": "[]", "format": ""},
                   json.dumps(reference), {"id": 4, "categories": {"family": "log_level_count"}})

    def count(pattern: str, **more: object) -> dict:
        return {"tool": "logs.count", "args": {"path": "logs/api.log", "pattern": pattern, **more}}

    assert check_level_patterns([row(records, count("WARN"))]).ok
    check = check_level_patterns([row(records + quoting, count("WARN"))])
    assert not check.ok and "row 4 (log_level_count): 4 lines of logs/api.log hold 'WARN', 3 are WARN" in check.detail
    grep = {"plan": [{"tool": "logs.grep", "args": {"path": "logs/api.log", "pattern": "WARN"}}]}
    assert not check_level_patterns([row(records + quoting, grep)]).ok  # a plan's step too
    assert check_level_patterns([row(records + quoting, count("slow request"))]).ok  # not a level word
    assert check_level_patterns([row(records + quoting, count("WARN", ignore_case=True))]).ok  # another question
    logfmt = 'ts=2026-03-14T10:00:00Z level=WARN logger=api msg="slow"\n'
    assert check_level_patterns([row(logfmt * 2, count("WARN"))]).ok
    corpus = corpus_of(5151)
    from merabench.tasks.gorillahard.generator.families import formats
    from merabench.tasks.gorillahard.generator.families.logs import log_counted

    assert any(not formats.level_word_exact(f.file.text, "WARN") for f in corpus.by_kind["app_log"])  # decoys exist
    rng = random.Random(1)
    assert all(formats.level_word_exact(log_counted(corpus, rng, ("WARN",)).file.text, "WARN") for _ in range(30))


def test_a_role_or_environment_the_question_names_is_written_in_the_file() -> None:
    """Seed 5151 (v17) row 208: "в production и у которых роль queue" of a runbook whose prod
    section has roles redis and broker; the reference read queue as broker. A value the question
    states in Latin letters must be one the file writes; the makers say the file's spelling."""
    from merabench.tasks.gorillahard.generator.families.common import View
    from merabench.tasks.gorillahard.generator.families.hostlists import check_hosts

    runbook = ("# Ранбук\n\n## Хосты\n\n### prod\n\n- `api-2.example.com` (роль: broker; статус: active; проверка: ok)\n"
               "- `status.example.com` (роль: broker; статус: active; проверка: ok)\n"
               "- `ci.example.com` (роль: redis; статус: active; проверка: ok)\n\n### stage\n\n"
               "- `git-1.example.org` (роль: broker; статус: active; проверка: ok)\n")
    reference = {"calls": [{"tool": "dns.lookup", "args": {"host": h}} for h in ("api-2.example.com",
                                                                                   "status.example.com")]}

    def problems(question: str) -> list[str]:
        return check_hosts(View(question, {"docs/hosts.md": runbook}, reference,
                                {"where": ["env", "production"], "also": ["role", "queue"]}), "dns.lookup")

    assert problems("Проверь A-записи хостов из списка, которые стоят в prod и у которых роль broker.") == []
    assert problems("Проверь A-записи хостов из списка, которые стоят в проде и у которых роль broker.") == []
    assert problems("Проверь A-записи хостов из списка, которые стоят в production и у которых роль queue.") == [
        "the question names production, queue, which the file does not write"]


def _blocks(context: str) -> list[str]:
    return re.split(r"(?=^\[файл: )", context, flags=re.M)


def test_a_ticket_to_reopen_is_closed(default_set: Path) -> None:
    """«Задача из файла закрыта зря, переоткрой её» over an open ticket (v26 seed 7171 row 132: the
    corpus's tickets are all open) asks for nothing: the generator closes both attached tickets
    in their own status field, and the check fails a row whose ticket is open."""
    from merabench.tasks.gorillahard.generator.families.tickets import issue_key, status_field, ticket_state

    family = FAMILIES["reopen_ticket"]
    rows = [Row(**r) for r in read_jsonl(default_set / "test.jsonl") if r["meta"]["derivation"]["maker"] == "reopen_ticket"]
    assert rows
    for row in rows:
        assert family.check(view_of(row)) == []
        assert all(ticket_state(text) == "closed" for text in attached_files(row.inputs["context"]).values())
    row = rows[0]
    issue = json.loads(row.outputs)["args"]["issue"]
    blocks = _blocks(row.inputs["context"])
    at = next(i for i, block in enumerate(blocks) if block.startswith("[файл") and issue_key(block.split("\n", 1)[1]) == issue)
    blocks[at] = status_field(blocks[at], "в работе")
    reopened = replace(row, inputs={**row.inputs, "context": "".join(blocks)})
    assert family.check(view_of(reopened)) != []


def test_an_ingress_host_is_asked_for_only_where_the_ingress_is_enabled(default_set: Path) -> None:
    """The TTL of «the ingress host» of a values file whose ingress is `enabled: false` (v26 seed
    7171 row 857) names a host nothing publishes: such files are not used, and the check fails a
    row whose file turned its ingress off."""
    makers = ("ingress_ttl", "ingress_traceroute")
    rows = [Row(**r) for r in read_jsonl(default_set / "test.jsonl") if r["meta"]["derivation"]["maker"] in makers]
    assert rows
    for row in rows:
        family = FAMILIES[row.meta["derivation"]["maker"]]
        assert family.check(view_of(row)) == []
    row = rows[0]
    host = json.loads(row.outputs)["args"]["host"]
    blocks = _blocks(row.inputs["context"])
    at = next(i for i, block in enumerate(blocks) if f"host: {host}" in block)
    blocks[at] = re.sub(r"^(ingress:\n  enabled:) true", r"\1 false", blocks[at], count=1, flags=re.M)
    assert blocks[at] != _blocks(row.inputs["context"])[at]
    disabled = replace(row, inputs={**row.inputs, "context": "".join(blocks)})
    assert FAMILIES[row.meta["derivation"]["maker"]].check(view_of(disabled)) != []


def test_the_longer_module_is_picked_only_where_lines_code_and_characters_agree() -> None:
    """«где модуль длиннее» read as lines counts a changelog header; read as code it does not (v26
    seed 7171 row 150): the clause picks a module only where every reading picks it."""
    from merabench.tasks.gorillahard.generator.families import criteria

    longer = criteria.BY_NAME["python.lines"]
    code = "import os\n\n\ndef main() -> None:\n    print(os.getcwd())\n"
    headed = "# Changelog\n# 2026-03-01: moved to pathlib\n# 2026-02-11: first version\n# owner: platform\n\n" + code
    more_code = code + "\n\ndef other() -> int:\n    return 1\n"
    params = {"direction": "more"}
    assert longer.fits({"a.py": headed, "b.py": more_code}, params) == []  # more lines, less code
    assert longer.options(random.Random(0), headed, more_code) == []
    assert longer.fits({"a.py": code, "b.py": more_code}, params) == ["b.py"]


def test_no_catalog_holds_a_tool_that_answers_a_line_request_as_well(default_set: Path) -> None:
    """«Выведи первые 20 строк файла» is answered by `files.head` and, as well, by
    `files.read_lines` from 1 to 20 (v26 seed 4242 row 161): such tools stay out of the catalogs
    of line requests, and a range of lines starts past the first, where `files.head` would do."""
    from merabench.tasks.gorillahard.generator.library.providers import canonical

    served = {"module_head": {"files.read_lines", "logs.head"}, "tail_log": {"files.read_lines"}}
    rows = [r for r in read_jsonl(default_set / "test.jsonl") if r["meta"]["derivation"]["maker"] in
            (*served, "module_lines")]
    assert {r["meta"]["derivation"]["maker"] for r in rows} == {*served, "module_lines"}
    for row in rows:
        maker = row["meta"]["derivation"]["maker"]
        tools = {canonical(t["name"]) for t in json.loads(row["inputs"]["tools"])}
        assert not tools & served.get(maker, set()), (maker, tools & served[maker])
        if maker == "module_lines":
            assert json.loads(row["outputs"])["args"]["start"] > 1


@pytest.mark.parametrize("seed", [19, 66, 100, 148])
def test_a_fresh_seed_that_chance_failed_now_validates(seed: int) -> None:
    """Fresh seeds `validate` failed by chance, not by a defect of their rows: the six or seven
    pyprojects a set attaches showed two of their three layouts (seeds 19, 55, 66, 79; the host
    runbooks on seed 8); a set's drawn wordings put `table.mean` on 4.1 % of seed 148's call rows;
    the host-list rows of seed 100 drew no condition led by a failed check, though 13 of the 14
    shapes of condition. The build now redraws a row that would collapse a kind's layouts or pass
    the tool share (`Spread`), and the guard counts the shapes of condition."""
    from merabench.tasks.gorillahard.generator.checks.composition import check_mechanisms, check_variety
    from merabench.tasks.gorillahard.generator.checks.files import check_file_layouts

    test, _ = generate(SetPlan(seed=seed))
    rows = [Row(**r) for r in test]
    manifest = {"seed": seed, "rows": 1169, "dialogues": 30}
    for check in (check_file_layouts(rows, manifest), check_variety(rows, manifest), check_mechanisms(rows, manifest)):
        assert check.ok, (check.name, check.detail)
