"""Write src/merabench/tasks/sage/tokenizer_tables.py: the affix patterns of the reference SAGE
tokenizer, read from spaCy (which this tool needs; merabench itself does not at run time).

The reference builds spaCy's Russian tokenizer with the default prefixes plus a backslash-quote,
the default suffixes plus a backslash, the default infixes without the last one plus `](`, no
token_match, url_match `^https?://` and no exceptions (scoring.md). The pattern lists are data:
character classes and affixes, with the quirks of spaCy's tables (for instance its unit list runs
`тб` into the next entry, so `5тб` keeps its unit), and the number words of its Russian `like_num`. merabench's tokenizer (tokenize.py) applies
them with its own splitting code; tests/tasks/sage/test_tokenize.py checks it against spaCy.

    python tools/build_sage_tokenizer_tables.py
"""

from __future__ import annotations

from pathlib import Path

import spacy
from spacy.lang.ru.lex_attrs import _num_words

TARGET = Path(__file__).resolve().parents[1] / "src" / "merabench" / "tasks" / "sage" / "tokenizer_tables.py"


def main() -> None:
    defaults = spacy.blank("ru").Defaults
    prefixes = [p for p in list(defaults.prefixes) + [r'\\"'] if p.strip()]
    suffixes = [p for p in list(defaults.suffixes) + [r"\\"] if p.strip()]
    infixes = [p for p in list(defaults.infixes)[:-1] + [r"\]\("] if p.strip()]
    lines = [
        '"""The affix patterns of the reference SAGE tokenizer (generated: do not edit).',
        "",
        f"Read from spaCy {spacy.__version__} (`spacy.blank('ru')` defaults, changed as the reference changes",
        "them) by tools/build_sage_tokenizer_tables.py. Each list is in spaCy's order: its alternatives are",
        'tried in that order, and the first that matches wins."""',
        "",
        "# ruff: noqa: E501",
        "",
    ]
    for name, patterns in (("PREFIXES", prefixes), ("SUFFIXES", suffixes), ("INFIXES", infixes)):
        lines.append(f"{name} = (")
        lines += [f"    {pattern!r}," for pattern in patterns]
        lines.append(")")
        lines.append("")
    # the number words of spaCy's Russian `like_num`, by which the reference's tagger calls
    # `первый`, `пяти`, `тысяча` NUM (merabench's tagger follows it: tokenize.analyze)
    lines.append("NUMBER_WORDS = frozenset({")
    lines += [f"    {word!r}," for word in sorted(_num_words)]
    lines.append("})")
    lines.append("")
    TARGET.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {TARGET}: {len(prefixes)} prefixes, {len(suffixes)} suffixes, {len(infixes)} infixes, "
          f"{len(_num_words)} number words")


if __name__ == "__main__":
    main()
