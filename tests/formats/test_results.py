"""results.json read back: `read_results` and its strict form (`export-requests --run`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from merabench.errors import DataError
from merabench.formats.results import read_results

DOC = b'{"tasks": {"sage": {"n": 3}}, "settings": {"data": ["bundled"]}}'


@pytest.mark.parametrize("strict", [False, True])
def test_a_folder_without_results_json_has_none(tmp_path: Path, strict: bool) -> None:
    assert read_results(tmp_path, strict=strict) is None


@pytest.mark.parametrize("strict", [False, True])
def test_results_json_reads_with_or_without_a_byte_order_mark(tmp_path: Path, strict: bool) -> None:
    for text in (DOC, b"\xef\xbb\xbf" + DOC):
        (tmp_path / "results.json").write_bytes(text)
        assert read_results(tmp_path, strict=strict) == {"tasks": {"sage": {"n": 3}},
                                                        "settings": {"data": ["bundled"]}}


@pytest.mark.parametrize("text", [b"[1]", b'{"tasks": ["sage"]}', b'{"model": "reference"}'])
@pytest.mark.parametrize("strict", [False, True])
def test_json_that_is_no_results_document_is_none(tmp_path: Path, text: bytes, strict: bool) -> None:
    (tmp_path / "results.json").write_bytes(text)
    assert read_results(tmp_path, strict=strict) is None


@pytest.mark.parametrize(("text", "said"), [(b'{"tasks": ', "not valid JSON (Expecting value at line 1, column 11)"),
                                            (b"\xff\xfe", "not UTF-8 text (byte 0xff at offset 0)"),
                                            (b"[" * 5000, "not valid JSON (nested deeper than 1024 levels"),
                                            (b'{"tasks": ' + b"9" * 5000 + b"}",
                                             "not valid JSON (a number of more than 4,300 digits")])
def test_a_broken_results_json_is_none_or_strictly_an_error_naming_it(tmp_path: Path, text: bytes, said: str) -> None:
    path = tmp_path / "results.json"
    path.write_bytes(text)
    assert read_results(tmp_path) is None
    with pytest.raises(DataError) as refused:
        read_results(tmp_path, strict=True)
    assert str(path) in str(refused.value) and said in str(refused.value)


def test_a_folder_named_results_json_is_none_or_strictly_an_error(tmp_path: Path) -> None:
    (tmp_path / "results.json").mkdir()
    assert read_results(tmp_path) is None
    with pytest.raises(DataError, match="is a folder"):
        read_results(tmp_path, strict=True)
