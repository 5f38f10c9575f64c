"""Hostile ZIPs, round III: submission ZIPs and their logs_public.zip, read by `score --predictions`
and checked by `submission --check`. A ZIP is read in linear time and every entry with a cap on
what it inflates to; an entry that cannot be read (an unknown compression method, corrupt bytes,
a local header naming another file) is a failed check (exit 1) or, given to `score`, one line
and exit 2, naming the ZIP and the entry; names are printed with control characters escaped."""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import run_cli
from zips import (
    LOGS,
    bomb,
    members_of,
    named,
    replaced,
    with_garbage,
    with_local_name,
    with_method,
    zip_bytes,
)

from merabench.formats.zipentries import MAX_ENTRY_BYTES


@pytest.fixture(scope="module")
def real_submission(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A complete submission of the bundled Russian rows (the reference's answers), logs included."""
    folder = tmp_path_factory.mktemp("real")
    run = folder / "run"
    done = run_cli("run", "--model", "reference", "--out", str(run), "--no-progress")
    assert done.returncode == 0, done.stderr
    made = run_cli("submission", "--allow-unofficial", "--run", str(run), "--out", str(folder / "sub.zip"))
    assert made.returncode == 0, made.stderr
    return folder / "sub.zip"


# -- the cases: each builds its ZIP from the real submission --------------------------------------

def logs_of(sub: Path) -> list[tuple[str, bytes]]:
    return members_of(dict(members_of(sub))[LOGS])


def with_logs(sub: Path, inner: bytes) -> bytes:
    return zip_bytes(replaced(members_of(sub), LOGS, inner))


def sample_of(sub: Path) -> str:
    return named(logs_of(sub), "samples_sage")


def extra_entries(sub: Path, n: int, *, without: str = "") -> bytes:
    """The submission and `n` more entries (task-like JSONs inside a folder)."""
    kept = [(name, data) for name, data in members_of(sub) if name != without]
    return zip_bytes(kept + [(f"extra/{i:06d}.json", b"{}") for i in range(n)], zipfile.ZIP_STORED)


def blank_run_then(sub: Path, line: bytes, blanks: int) -> bytes:
    """logs whose SAGE samples start with `blanks` empty lines, then `line`, then the real lines."""
    inner = logs_of(sub)
    name = sample_of(sub)
    return with_logs(sub, zip_bytes(replaced(inner, name, b"\n" * blanks + line + b"\n" + dict(inner)[name])))


ESCAPES = "\x1b[2J\x1b]0;pwned\x07"
OVER_CAP = MAX_ENTRY_BYTES + (1 << 20)


@dataclass
class Case:
    name: str
    build: Callable[[Path], bytes]   # the real submission -> the hostile ZIP's bytes
    command: str                     # "check" (submission --check) or "score" (score sage --predictions)
    code: int
    says: str = ""
    timeout: float = 60              # a quadratic scan of 100,000 entries took 100 s: it would time out


CASES = [
    Case("z-- the real submission's entries (without --allow-unofficial's comment)", lambda s: zip_bytes(
        members_of(s)), "check", 0, "the format is right"),
    Case("z04 100,000 extra entries, checked", lambda s: extra_entries(s, 100_000), "check", 1,
         "extra/000000.json, extra/000001.json, extra/000002.json, extra/000003.json, extra/000004.json and "
         "99,995 more: inside a folder"),
    Case("d03 100,000 extra entries, scored", lambda s: extra_entries(s, 100_000), "score", 0),
    Case("d03 100,000 entries and no SAGE.json, scored", lambda s: extra_entries(s, 100_000, without="SAGE.json"),
         "score", 2, "the ZIP has no SAGE.json (has: RussianRegions.json, GorillaHard.json, extra/000000.json, "
                     "extra/000001.json, extra/000002.json and 99,997 more)"),
    Case("z05 SAGE.json a ZIP bomb, checked", lambda s: bomb(members_of(s), "SAGE.json", OVER_CAP), "check", 1,
         "SAGE.json: inflates to more than 256 MiB"),
    Case("z05 SAGE.json a ZIP bomb, scored", lambda s: bomb(members_of(s), "SAGE.json", OVER_CAP), "score", 2,
         "SAGE.json: inflates to more than 256 MiB"),
    Case("z06 logs samples inflate to a bomb of newlines", lambda s: with_logs(
        s, bomb(logs_of(s), sample_of(s), OVER_CAP, b"\n")), "check", 1, "inflates to more than 256 MiB"),
    Case("z06 logs samples: 10 million blank lines, then a bad line", lambda s: blank_run_then(
        s, b'{"doc": {}}', 10_000_000), "check", 1, "line 10000001 has no doc.meta.id (no doc.meta object)"),
    Case("z07 SAGE.json with compression method 99, checked", lambda s: with_method(
        zip_bytes(members_of(s), zipfile.ZIP_STORED), "SAGE.json", 99), "check", 1,
         "SAGE.json: cannot be read: stored with compression method 99"),
    Case("z07 SAGE.json with compression method 99, scored", lambda s: with_method(
        zip_bytes(members_of(s), zipfile.ZIP_STORED), "SAGE.json", 99), "score", 2,
         "SAGE.json: cannot be read: stored with compression method 99"),
    Case("z08 logs samples with corrupt compressed bytes", lambda s: with_logs(
        s, with_garbage(zip_bytes(logs_of(s)), sample_of(s))), "check", 1,
         "logs_public.zip!samples_sage_"),
    Case("z09 a task file's name with terminal escapes, checked", lambda s: zip_bytes(
        [*members_of(s), (f"extra/{ESCAPES}SAGE.json", b"{}")]), "check", 1,
         "extra/\\x1b[2J\\x1b]0;pwned\\x07SAGE.json: inside a folder"),
    Case("z09 terminal escapes in the names of a ZIP without SAGE.json, scored", lambda s: zip_bytes(
        [(f"{ESCAPES}{n}", d) for n, d in members_of(s)]), "score", 2, "has: \\x1b[2J\\x1b]0;pwned\\x07SAGE.json"),
    Case("z12 logs samples whose local header names another file", lambda s: with_logs(s, with_local_name(
        zip_bytes(logs_of(s)), sample_of(s), sample_of(s).replace("sage", "SAGE"))), "check", 1,
         "its local header names another file"),
    Case("z12 SAGE.json whose local header names another file, scored", lambda s: with_local_name(
        zip_bytes(members_of(s)), "SAGE.json", "EGAS.json"), "score", 2,
         "SAGE.json: cannot be read: its local header names another file"),
    Case("z13 logs results file with a failing CRC", lambda s: with_logs(s, with_garbage(zip_bytes(
        logs_of(s), zipfile.ZIP_STORED), named(logs_of(s), "results_"), flip_one=True)), "check", 1,
         "cannot be read: its bytes are corrupt (their CRC-32 differs"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_hostile_zip(case: Case, real_submission: Path, tmp_path: Path) -> None:
    path = tmp_path / "sub.zip"
    path.write_bytes(case.build(real_submission))
    before = path.read_bytes()
    out = tmp_path / "scored"
    args = ["submission", "--check", "--out", str(path)] if case.command == "check" else \
        ["score", "sage", "--predictions", str(path), "--out", str(out)]
    done = run_cli(*args, timeout=case.timeout)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == case.code, done.stderr[-2000:]
    assert "Traceback" not in done.stderr + done.stdout
    assert case.says in done.stderr, done.stderr[-2000:]
    assert not set("\x1b\x07\x9b") & set(done.stderr + done.stdout), "a raw control character reached the terminal"
    if case.code == 2:  # one line, naming the ZIP
        assert len(lines) == 1 and f"{path}" in lines[0], lines
    if case.code == 1:  # one problem, named, and nothing else
        assert [line for line in lines if line.startswith("problem: ")] == lines and len(lines) == 1, lines
    assert path.read_bytes() == before, "a check never changes the ZIP"
    assert (out / "results.json").exists() == (case.command == "score" and case.code == 0)
    written = {"sub.zip"} | ({"scored"} if case.command == "score" and case.code == 0 else set())
    assert {p.name for p in tmp_path.iterdir()} == written, "nothing else is written, nothing half-written"
