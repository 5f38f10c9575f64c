"""The red-team solver is what an outsider writes after reading seed 23's files: none of its
modules may import the generator's families or corpus packages (their readers and checks)."""

from __future__ import annotations

import ast
from pathlib import Path

import redteam
from redteam import readers

_REDTEAM = Path(redteam.__file__).parent
_BARRED = tuple(f"merabench.tasks.gorillahard.generator.{name}" for name in ("families", "corpus"))


def _imported(module: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # a relative import: from its package, redteam/
                base = "redteam" + (f".{base}" if base else "")
            names += [base] + [f"{base}.{alias.name}" for alias in node.names]
    return names


def test_no_redteam_module_imports_the_generators_families_or_corpus() -> None:
    modules = sorted(_REDTEAM.glob("*.py"))
    assert len(modules) > 10
    offending = {m.name: [n for n in _imported(m) if n.startswith(_BARRED)] for m in modules}
    assert {name: found for name, found in offending.items() if found} == {}


def test_the_redteam_readers_read_seed_23s_layouts() -> None:
    runbook = "# Ранбук\n\n## Хосты\n\n| хост | статус |\n| --- | --- |\n| `a.example.org` | ok |\n" \
              "| ~~`b.example.org`~~ | выведен |\n\n## Если что-то пошло не так\n\n- `c.example.org`\n"
    assert readers.listed_hosts(runbook) == ["a.example.org"]
    plain = "# хосты\n10.0.0.1   a.example.org\nb.example.net   # заметка\n# c.example.com\n"
    assert readers.listed_hosts(plain) == ["a.example.org", "b.example.net"]
    ticket = "# OPS-7 · Выгрузка\n\n| Автор | Петров (@d.petrov) |\n\n## Обсуждение\n\n" \
             "**Попова**, 2026-01-02: да.\n\n<!-- **Волков**, 2026-01-03: нет. -->\n\n**Волков**, 2026-01-04: ок.\n"
    assert (readers.ticket_key(ticket), readers.ticket_author(ticket), readers.ticket_comments(ticket)) == \
        ("OPS-7", "d.petrov", 2)
    log = "=== started ===\nts=2026-01-01T00:00:00Z level=ERROR logger=api msg=\"x\"\n" \
          "[2026-01-01T00:00:01.000Z] [info] api - y\nTraceback (most recent call last):\n" \
          "2026-01-01 00:00:02 ERROR api: z\n"
    assert readers.log_levels(log) == [(2, "ERROR"), (3, "info"), (5, "ERROR")]
    assert readers.level_count(log, "ERROR") == 2
    export = '{"export": "requests-1", "schema": "traces/v2"}\n{"trace": "tr-1", "duration": "1.5s"}\n' \
             '{"trace_id": "tr-2", "latency_ms": 20}\n'
    assert readers.traces(export) == [("tr-1", 1500.0), ("tr-2", 20.0)]
    assert readers.yaml_value('description: "было replicas: 5"\n# replicas: 9\nreplicas: 6\n', "replicas") == "6"
    assert readers.ini_value("[queue]\nprefetch = 10\nprefetch = 20\n[other]\nprefetch = 1\n", "queue", "prefetch") == "20"
    assert readers.env_variables("A=1\n# B=2\nA=3\nexport C=4\n") == 2
    pom = ("<project><properties><g.version>1.2</g.version></properties><dependencies>"
           "<!-- <dependency><artifactId>old</artifactId><version>0</version></dependency> -->"
           "<dependency><artifactId>g</artifactId><version>${g.version}</version></dependency></dependencies>"
           "<profiles><profile><dependencies><dependency><artifactId>p</artifactId><version>9</version>"
           "</dependency></dependencies></profile></profiles></project>")
    assert readers.pom_dependencies(pom) == [("g", "1.2")]
