"""Think blocks: removed and read the same way whatever the case and however they are cut off;
answers without a tag (most of them) pass untouched."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from merabench.support import think
from merabench.support.think import remove_think, strip_think, think_text


def test_real_reasoning_answers() -> None:
    answer = "<think>Ищу ошибку: «превет» → «привет».</think>\n\nПривет, как дела?"
    assert strip_think(answer) == "Привет, как дела?"
    assert think_text(answer) == "Ищу ошибку: «превет» → «привет»."
    cut = "<THINK>Считаю строки в файле, их 12, значит"  # cut off by the token limit
    assert remove_think(cut) == "" and think_text(cut) == "Считаю строки в файле, их 12, значит"
    stray = 'Ответ: {"tool": "table.mean"}</think>'
    assert remove_think(stray) == 'Ответ: {"tool": "table.mean"}' and think_text(stray) is None
    plain = "Привет, как дела? 3 < 5"
    assert remove_think(plain) == plain and think_text(plain) is None


def _by_patterns(text: str) -> tuple[str, str | None]:
    """The three passes without the shortcut for tag-free text."""
    blocks = think._BLOCK.sub("", text)
    unmatched = think._OPEN.search(blocks)
    removed = think._TAG.sub("", blocks[:unmatched.start()] if unmatched else blocks)
    parts = [m.group(0)[7:-8] for m in think._BLOCK.finditer(text)]
    if unmatched:
        parts.append(blocks[unmatched.end():])
    joined = "\n".join(p.strip() for p in parts if p.strip())
    return removed, joined or None


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["<think>", "</think>", "<THINK>", "</Think>", "<", ">", "думаю", " ", "\n", "x"]),
                max_size=12).map("".join))
def test_any_text_reads_as_the_patterns_read_it(text: str) -> None:
    assert (remove_think(text), think_text(text)) == _by_patterns(text)
