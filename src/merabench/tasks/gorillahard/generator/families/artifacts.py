"""Families over build and code artifacts: Dockerfiles, SQL migrations, pom.xml, trace dumps, Python modules."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from merabench.tasks.gorillahard.generator.corpus import Corpus
from merabench.tasks.gorillahard.generator.families import formats
from merabench.tasks.gorillahard.generator.families.common import (
    View,
    build_question,
    defined_functions,
    expect,
    only,
    phrased,
)
from merabench.tasks.gorillahard.generator.model import Question, call
from merabench.tasks.gorillahard.generator.wording.numerals import ordinal


def make_docker_port(rng: random.Random, corpus: Corpus) -> Question:
    docker = corpus.pick("dockerfile", rng)
    host = f"{docker.facts['service']}.internal"
    return build_question(
        "docker_port_check",
        "grounding",
        "T2_hard",
        rng.choice((f"Проверь, принимает ли {host} соединения на порту, который открывает контейнер из Dockerfile.",
                    f"{host}: открыт ли порт контейнера из Dockerfile?",
                    f"Посмотрите, пожалуйста, слушает ли {host} порт, который объявлен в Dockerfile.")),
        (docker,),
        call("net.check_port", host=host, port=docker.facts["port"]),
        "net.ping",
        format_trap=True,
        facts={"host": host},
    )


def check_docker_port(view: View) -> list[str]:
    _, text = only(view)
    port = formats.dockerfile_port(text)
    return expect(view, call("net.check_port", host=view.derivation["host"], port=port))


def make_image_scan(rng: random.Random, corpus: Corpus) -> Question:
    docker = corpus.pick("dockerfile", rng)
    return build_question(
        "image_scan",
        "grounding",
        "T3_expert",
        rng.choice(("Просканируй на уязвимости базовый образ из Dockerfile.", "скан базового образа из Dockerfile",
                    "Проверьте, пожалуйста, базовый образ из Dockerfile на уязвимости перед релизом.")),
        (docker,),
        call("registry.scan_image", image=docker.facts["base"]),
        "registry.pull",
    )


def dockerfile_base(text: str) -> str:
    """The image of the FROM line, read from the Dockerfile as shown."""
    return next(ln.split()[1] for ln in text.split("\n") if ln.startswith("FROM "))


created_table = formats.created_table


def check_image_scan(view: View) -> list[str]:
    _, text = only(view)
    return expect(view, call("registry.scan_image", image=dockerfile_base(text)))


def pom_version(text: str, artifact: str) -> str:
    """The version of a project dependency, as Maven reads the pom."""
    return formats.pom_dependencies(text)[artifact]


def make_slowest_trace(rng: random.Random, corpus: Corpus) -> Question:
    events = corpus.pick("events_jsonl", rng)
    return build_question(
        "slowest_trace",
        "scan",
        "T3_expert",
        rng.choice(("Открой трассу самого медленного запроса из выгрузки.", "трасса самого долгого запроса из дампа?",
                    "Покажите, пожалуйста, трассу запроса, который в выгрузке шёл дольше всех.")),
        (events,),
        call("trace.get", trace_id=events.facts["slowest"]),
        "trace.search",
    )


def check_slowest_trace(view: View) -> list[str]:
    _, text = only(view)
    return expect(view, call("trace.get", trace_id=max(formats.traces(text), key=lambda t: t[1])[0]))


def make_find_symbol(rng: random.Random, corpus: Corpus) -> Question:
    """The module's n-th function by order of definition: which one that is takes reading the
    whole file (the card's T3, counting over the file)."""
    module = corpus.pick("python", rng)
    position = rng.randrange(min(len(ORDINALS), len(module.facts["functions"])))
    name = module.facts["functions"][position]
    nth = ordinal(ORDINALS[position], "femn", "gent")
    question = rng.choice((f"Найди определение {nth} по счёту функции в этом модуле.",
                           f"где определена {ordinal(ORDINALS[position], 'femn', 'nomn')} функция модуля?",
                           f"Покажите, пожалуйста, где в коде определение {nth} функции этого модуля (по порядку в файле)."))
    return build_question("code_find_symbol", "scan", "T3_expert", question, (module,),
                          call("code.find_symbol", path=module.file.path, name=name), "code.lint",
                          facts={"position": position + 1})


ORDINALS = ("первый", "второй", "третий")


def check_find_symbol(view: View) -> list[str]:
    path, text = only(view)
    defined = defined_functions(text)
    said = [n for n, stem in enumerate(("перв", "втор", "трет"), start=1) if re.search(rf"\b{stem}", view.question)]
    position = said[0] if len(said) == 1 else 0
    if not 1 <= position <= len(defined):
        return [f"the module defines {len(defined)} functions, not a {position}th"]
    return expect(view, call("code.find_symbol", path=path, name=defined[position - 1]))


def pom_call_family(
    name: str, question: str | tuple[str, ...], tool: str, twin: str, with_version: bool
) -> Callable[..., Question]:
    def make(rng: random.Random, corpus: Corpus) -> Question:
        pom = corpus.pick("pom", rng)
        artifact, version = rng.choice(pom.facts["deps"])
        args = {"package": artifact, "version": version} if with_version else {"package": artifact}
        return build_question(
            name,
            "grounding",
            "T3_expert",
            phrased(rng, question).format(artifact=artifact),
            (pom,),
            call(tool, **args),
            twin,
            facts={"artifact": artifact},
        )

    return make


def check_pom_call(view: View) -> list[str]:
    _, text = only(view)
    artifact = view.derivation["artifact"]
    args = {"package": artifact}
    if "version" in view.reference["args"]:
        args["version"] = pom_version(text, artifact)
    return expect(view, call(view.reference["tool"], **args))


POM_LICENSE_PHRASINGS = (
    "Под какой лицензией распространяется {nth} по порядку зависимость из pom?",
    "лицензия {nth_gent} зависимости из pom?",
    "Юристы спрашивают, под какой лицензией {nth} библиотека в списке зависимостей pom. Подскажете?",
)


def make_pom_license(rng: random.Random, corpus: Corpus) -> Question:
    """The licence of the pom's n-th dependency: which library that is, only the file says (a
    library the question named could be looked up without it)."""
    pom = corpus.pick("pom", rng)
    position = rng.randrange(len(pom.facts["deps"]))
    artifact, _ = pom.facts["deps"][position]
    question = rng.choice(POM_LICENSE_PHRASINGS).format(nth=ordinal(ORDINALS[position], "femn", "nomn"),
                                                        nth_gent=ordinal(ORDINALS[position], "femn", "gent"))
    return build_question("pom_license", "grounding", "T3_expert", question, (pom,), call("deps.license", package=artifact),
                          "deps.check_vulns", facts={"position": position + 1})


def check_pom_license(view: View) -> list[str]:
    """The dependency the question counts to, in the project's own list (a profile's or a
    commented-out one is none)."""
    _, text = only(view)
    said = [n for n, stem in enumerate(("перв", "втор", "трет"), start=1) if re.search(rf"\b{stem}", view.question)]
    deps = list(formats.pom_dependencies(text))
    if len(said) != 1 or not 1 <= said[0] <= len(deps):
        return [f"the question counts to {said} of the pom's {len(deps)} dependencies"]
    return expect(view, call("deps.license", package=deps[said[0] - 1]))


def sql_call_family(name: str, question: str | tuple[str, ...], tool: str, twin: str) -> Callable[..., Question]:
    def make(rng: random.Random, corpus: Corpus) -> Question:
        migration = corpus.pick("sql", rng)
        return build_question(
            name,
            "grounding",
            "T3_expert",
            phrased(rng, question),
            (migration,),
            call(tool, table=migration.facts["table"]),
            twin,
        )

    return make


def check_sql_call(view: View) -> list[str]:
    _, text = only(view)
    return expect(view, call(view.reference["tool"], table=created_table(text)))


def make_image_tags(rng: random.Random, corpus: Corpus) -> Question:
    docker = corpus.pick("dockerfile", rng)
    return build_question(
        "image_tags",
        "grounding",
        "T3_expert",
        rng.choice(("Какие метки есть в реестре у базового образа из Dockerfile?", "теги базового образа из Dockerfile?",
                    "Подскажите, какие версии базового образа из Dockerfile лежат в реестре?")),
        (docker,),
        call("registry.list_tags", image=docker.facts["base"].split(":")[0]),
        "registry.delete_tag",
    )


def check_image_tags(view: View) -> list[str]:
    _, text = only(view)
    return expect(view, call("registry.list_tags", image=dockerfile_base(text).split(":")[0]))


def make_trace_compare(rng: random.Random, corpus: Corpus) -> Question:
    events = corpus.pick("events_jsonl", rng)
    slow = sorted(formats.traces(events.file.text), key=lambda t: t[1], reverse=True)[:2]
    return build_question(
        "trace_compare_slowest",
        "scan",
        "T3_expert",
        rng.choice(("Сравни трассы двух самых медленных запросов из выгрузки: сначала самый медленный.",
                    "сравни две самые долгие трассы из дампа, первой — самую долгую",
                    "Посмотрите, чем отличаются два самых медленных запроса из выгрузки: сравните их трассы, "
                    "самый медленный первым.")),
        (events,),
        call("trace.compare", first=slow[0][0], second=slow[1][0]),
        "trace.get",
    )


def check_trace_compare(view: View) -> list[str]:
    _, text = only(view)
    pairs = sorted(((latency, trace) for trace, latency in formats.traces(text)), reverse=True)
    return expect(view, call("trace.compare", first=pairs[0][1], second=pairs[1][1]))
