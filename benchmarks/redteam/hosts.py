"""The red-team solver's host inventories in any layout (columns, key=value pairs, [groups],
Markdown bullets, sections or tables): the live records before a stale list, and the hosts a
request keeps by environment, role, status or last check, each said in other words."""

from __future__ import annotations

import re
from typing import Any

_HOST = re.compile(r"\b(?:[a-z0-9-]+\.)+(?:com|net|org|internal|ru|io)\b")
_STALE = re.compile(r"старый список|не использовать|не проверять|устарел", re.I)
_ASIDE = re.compile(r"только упомянут|не путать|не входит|ведут .* у себя", re.I)
_SECTION = re.compile(r"^\s*(?:#{2,}\s*|\[)([\w-]+)\]?\s*$")
# a request's condition -> the words a record says it with
_WHERE = ((r"\btesting\b|\btest\b|тестов|тестир", {"testing", "test", "тест"}),
          (r"staging|стейдж|предрелиз", {"staging", "stage", "стейдж"}),
          (r"production|\bprod\b|продакшн|боев|продуктив|продакшен", {"production", "prod", "прод"}),
          (r"\bcache\b|кеш", {"cache", "redis", "memcached"}),
          (r"\bqueue\b|очеред|брокер", {"queue", "broker", "rabbitmq", "kafka"}),
          (r"\bdb\b|баз\w* данн|\bбаз|субд", {"db", "database", "postgres", "mysql"}),
          (r"\bweb\b|веб|фронт", {"web", "frontend", "nginx"}),
          (r"не прош|провал|\bfailed\b|не прошла|контроль состояния", {"failed", "fail"}),
          (r"активн|\bactive\b|не выведен|в работе|в строю|не сняты с эксплуатации|не списаны", {"active", "in-service"}))


def records(text: str) -> list[tuple[str, set[str]]]:
    """(host, the words of its record and its section), live records only, in order, once each."""
    found: list[tuple[str, set[str]]] = []
    section = ""
    for line in re.sub(r"<!--.*?-->", "", text, flags=re.S).splitlines():
        if _STALE.search(line):
            break
        heading = _SECTION.match(line)
        if heading:
            section = heading.group(1).lower()
            continue
        if line.lstrip().startswith(("#", ";", "//")) or _ASIDE.search(line):
            continue
        host = _HOST.search(line)
        if host and host.group(0) not in {h for h, _ in found}:
            found.append((host.group(0), set(re.findall(r"[\w-]+", line.lower())) | {section}))
    return found


def where(prompt: Any, text: str) -> list[str] | None:
    """The hosts of the inventory the request keeps ("у которых роль cache", "что не прошли
    последнюю проверку"); None when it sets no condition the records hold."""
    clause = re.search(r"хост\w*[^.?!]*?(?:котор\w*|что|где)\s+([^.?!]*)", prompt.question.lower())
    if not clause:
        return None
    wanted = [said for cue, said in _WHERE if re.search(cue, clause.group(1))]
    if not wanted:
        return None
    kept = [host for host, words in records(text) if all(words & said for said in wanted)]
    return kept or None
