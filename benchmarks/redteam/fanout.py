"""The red-team solver's parallel calls that a condition over a file decides: a call per host of
an inventory that meets the question's conditions (an environment, a role, a status, a failed
check; the environment or role of a host it names, or the commonest one), or per environment
of a flag file."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from redteam import files as rf
from redteam import layouts

_QUOTE = re.compile(r"«([^»]*)»")

# --- parallel calls and plans that a condition over the file decides (seed 23's rows) --------

# (v19's seed 23 adds: "в продуктиве", "в продакшен-окружении", "в контуре тестирования", "на которых работает СУБД")
_ENV_CUES = (("production", r"production|\bпрод|боев|продуктив|продакшен"), ("staging", r"staging|стейдж|предрелиз"),
             ("testing", r"testing|тестов|тестир"))
_ROLE_CUES = (("web", r"\bweb\b|веб"), ("db", r"\bdb\b|баз\w* данн|субд"), ("cache", r"\bcache\b|кеш"),
              ("queue", r"\bqueue\b|очеред"))
# "кроме тех", "не считая тех, что", "кроме стоящих"
_EXCEPT = r"кроме тех|не считая тех|кроме стоящих"


_HOSTNAME = re.compile(r"\b(?:[a-z0-9-]+\.)+(?:com|net|org|internal|ru|io)\b")
# "в одном окружении с X", "там же, где он", "та же роль, что у X", "роль такая же, как у него"
_ANCHORED = re.compile(r"одном окружении с|том же окружении|там же, где|в его окружении|(?:ту|та) же рол|"
                       r"роль такая же|с той же ролью|делят с .{0,60}? одну роль")
# "в том окружении, где хостов больше всего", "роль, которая встречается чаще остальных"
_MOST = re.compile(r"больше всего|чаще (?:всего|остальных)|самая частая|самой частой|самое частое|преоблада|"
                   r"больше, чем в любом")


def host_conditions(q: str) -> list[tuple[str, str, bool]]:
    """What the question asks of the hosts, every condition it says (an environment, a role, still
    in service, a failed check), an environment after "кроме тех" negated."""
    q = _HOSTNAME.sub(" ", q)
    q = q[q.find("хост"):] if "хост" in q else q  # the hosts' clause: not "записи живут в кеше" before it
    found = []
    if re.search(r"проверк|контроль состояния", q):
        found.append(("check", "failed", False))
    if re.search(r"не выведен|в работе|кроме выведенных|не сняты с эксплуатации|не списаны", q):
        found.append(("status", "active", False))
    found += [("role", value, False) for value, cue in _ROLE_CUES if re.search(cue, q)][:1]
    found += [("env", value, re.search(_EXCEPT, q) is not None) for value, cue in _ENV_CUES if re.search(cue, q)][:1]
    return found


def record_conditions(q: str, records: list[dict[str, str]]) -> tuple[list[tuple[str, str, bool]], str | None]:
    """The conditions over the inventory itself: the environment or role of a host the question
    names (that host left out), or the one most of the list's hosts share; then the said ones."""
    attr = "role" if re.search(r"\bрол", _HOSTNAME.sub(" ", q)) else "env"
    found, skip = [], None
    named = [h for h in _HOSTNAME.findall(q) if any(r["host"] == h for r in records)]
    if named and _ANCHORED.search(q):
        anchor = next(r for r in records if r["host"] == named[0])
        if anchor.get(attr):
            found.append((attr, anchor[attr], False))
            skip = named[0]
    elif _MOST.search(q):
        tally = Counter(r.get(attr) for r in records if r.get(attr))
        if tally:
            found.append((attr, tally.most_common(1)[0][0], False))
    said = [c for c in host_conditions(q) if not (found and c[0] == attr)]
    return found + said, skip


def fanned_out(step: dict[str, Any], prompt: Any) -> list[dict[str, Any]] | None:
    """A call per host of the inventory that meets the question's condition, or per environment
    of the flag file that its condition picks; None when the row is not of that kind."""
    q = prompt.question.lower()
    args = step["args"]
    if "host" in args:
        for text in prompt.files.values():
            records = layouts.inventory(text)
            conditions, skip = record_conditions(q, records) if records else ([], None)
            if records and conditions:
                hosts = list(dict.fromkeys(r["host"] for r in records if r["host"] != skip and
                                           all((r.get(a) == v) != negated for a, v, negated in conditions)))
                return [{"tool": step["tool"], "args": {**args, "host": h}} for h in hosts] or None
        return None
    if "flag" in args and "environment" in args:
        text = next(iter(prompt.files.values()), "")
        quoted = _QUOTE.findall(prompt.question)
        deed = re.search(r"отвечающ\w+ за (.+?),", prompt.question)
        flag = quoted[0] if quoted else (layouts.flag_described(text, deed.group(1)) if deed else None)
        states = layouts.flag_states(text, flag) if flag else {}
        if not states:
            return None
        op = rf.op_of(prompt.tools, step["tool"])
        if op == "enable":
            envs = [e for e, on in states.items() if not on]
        elif op == "disable" or re.search(r"(?:по файлу|в файле) он включ", q):
            envs = [e for e, on in states.items() if on]
        else:
            skip = re.search(r"кроме (\w+)|, (\w+) не нужен", q)
            envs = [e for e in states if not skip or e not in skip.groups()]
        return [{"tool": step["tool"], "args": {**args, "flag": flag, "environment": e}} for e in envs] or None
    return None
