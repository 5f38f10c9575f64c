"""What a person sees on a terminal: messages wrap between words at the window's width (the
terminal itself would cut a word in two: "model loade" / "d in 66.6 s"), while piped they stay
one line each; the run's first line says what it will ask."""

from __future__ import annotations

from pathlib import Path

from helpers import OnTerminal, run_cli


def test_on_a_narrow_terminal_messages_wrap_between_words(tmp_path: Path) -> None:
    shown = OnTerminal("run", "--model", "reference", "--tasks", "sage", "--limit", "2", "--out",
                       str(tmp_path / "out"), columns=50)
    assert shown.finish() == 0, shown.text()
    lines = shown.lines()
    first = "reference: 2 row(s) to answer (sage 2); a baseline sends no request"
    assert " ".join(" ".join(lines).split()).count(first) == 1, lines
    words_shown = {word for line in lines for word in line.split()}
    assert set(first.split()) <= words_shown, lines  # no word of it cut at the edge
    assert all(len(line) <= 50 for line in lines), [line for line in lines if len(line) > 50]


def test_piped_a_message_stays_one_line(tmp_path: Path) -> None:
    done = run_cli("run", "--model", "reference", "--tasks", "sage", "--limit", "2", "--out", str(tmp_path / "out"),
                   env={"COLUMNS": "50"})
    assert done.returncode == 0, done.stderr
    assert "reference: 2 row(s) to answer (sage 2); a baseline sends no request\n" in done.stderr
