"""The GGUF layout walk that `hf:` runs before a run's folder is made: every file the gguf
package's own writer makes passes, and every cut or damaged copy fails where the package's
reader fails too (the reader costs seconds on a real model: it maps every vocabulary string)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import smollm2_gguf

from merabench.models.gguf_layout import GGUFLayoutError, check_gguf_layout

gguf = pytest.importorskip("gguf", reason="the hf extra is installed by `make test`")


def write_gguf(path: Path, *, alignment: int | None = None, big_endian: bool = False) -> Path:
    """A small GGUF with every kind of value: scalars, strings, arrays of numbers and of strings,
    and tensors of float32, float16 and Q8_0 blocks."""
    writer = gguf.GGUFWriter(str(path), "llama", endianess=gguf.GGUFEndian.BIG if big_endian else gguf.GGUFEndian.LITTLE)
    if alignment:
        writer.add_custom_alignment(alignment)
    writer.add_uint32("llama.block_count", 2)
    writer.add_float32("llama.rope.freq_base", 10000.0)
    writer.add_bool("tokenizer.ggml.add_bos_token", True)
    writer.add_string("general.name", "крошечная модель")
    writer.add_array("tokenizer.ggml.tokens", ["<s>", "</s>", "при", "вет", "мир"])
    writer.add_array("tokenizer.ggml.scores", [0.0, 0.0, -1.5, -2.5, -3.0])
    writer.add_array("tokenizer.ggml.token_type", [3, 3, 1, 1, 1])
    writer.add_tensor("token_embd.weight", np.arange(5 * 8, dtype=np.float32).reshape(5, 8))
    writer.add_tensor("output_norm.weight", np.ones(8, dtype=np.float16))
    quantised = gguf.quants.quantize(np.linspace(-1, 1, 64, dtype=np.float32).reshape(2, 32),
                                     gguf.GGMLQuantizationType.Q8_0)
    writer.add_tensor("output.weight", quantised, raw_dtype=gguf.GGMLQuantizationType.Q8_0)
    return written(writer, path)


def written(writer, path: Path) -> Path:
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def reader_fails(path: Path) -> bool:
    try:
        gguf.GGUFReader(path)
    except Exception:
        return True
    return False


@pytest.mark.parametrize("alignment", [None, 64])
def test_a_written_gguf_passes_and_every_cut_of_it_fails_as_the_reader_does(tmp_path: Path, alignment: int | None) -> None:
    whole = write_gguf(tmp_path / "model.gguf", alignment=alignment)
    check_gguf_layout(whole)
    data = whole.read_bytes()
    data_end = max(int(t.data_offset) + int(t.n_bytes) for t in gguf.GGUFReader(whole).tensors)
    cut_to_the_data = tmp_path / "padding_dropped.gguf"
    cut_to_the_data.write_bytes(data[:data_end])  # the padding after the last tensor is not needed
    check_gguf_layout(cut_to_the_data)
    assert not reader_fails(cut_to_the_data)
    for cut in (0, 3, 23, 24, 40, len(data) // 3, len(data) // 2, data_end - 1):
        damaged = tmp_path / f"cut{cut}.gguf"
        damaged.write_bytes(data[:cut])
        with pytest.raises(GGUFLayoutError):
            check_gguf_layout(damaged)
        assert reader_fails(damaged), cut


@pytest.mark.parametrize(("offset", "patch", "said"), [
    (0, b"GGML", "does not start with the GGUF magic"),
    (4, (7).to_bytes(4, "little"), "GGUF version 7"),
    (16, (10**6).to_bytes(8, "little"), "runs past the end|cut short"),  # a million metadata fields
])
def test_a_damaged_header_is_named(tmp_path: Path, offset: int, patch: bytes, said: str) -> None:
    data = bytearray(write_gguf(tmp_path / "model.gguf").read_bytes())
    data[offset:offset + len(patch)] = patch
    damaged = tmp_path / "damaged.gguf"
    damaged.write_bytes(bytes(data))
    with pytest.raises(GGUFLayoutError, match=said):
        check_gguf_layout(damaged)


def test_a_string_length_past_the_end_is_caught_without_reading_it(tmp_path: Path) -> None:
    data = bytearray(write_gguf(tmp_path / "model.gguf").read_bytes())
    at = data.index(b"general.name") + len(b"general.name") + 4   # past the key and the value's type
    data[at:at + 8] = (2**62).to_bytes(8, "little")
    damaged = tmp_path / "damaged.gguf"
    damaged.write_bytes(bytes(data))
    with pytest.raises(GGUFLayoutError, match="runs past the end"):
        check_gguf_layout(damaged)
    assert reader_fails(damaged)


def test_the_real_models_gguf_passes() -> None:
    check_gguf_layout(smollm2_gguf())


def test_a_load_reads_each_gguf_once_and_leaves_gguf_as_it_was(tmp_path: Path) -> None:
    """gguf_read_once (hf: loads a GGUF within it): one reader per file and one tensor-name table
    per architecture and depth for the length of the load, the package's own functions after.
    That the model read so is the model read without it, test_real_model shows end to end: the
    GGUF run (read once) and the folder converted without it give the same bytes."""
    from merabench.models.gguf_once import gguf_read_once

    first, second = write_gguf(tmp_path / "a.gguf"), write_gguf(tmp_path / "b.gguf")
    reader, name_table = gguf.GGUFReader, gguf.get_tensor_name_map
    with gguf_read_once():
        shared = gguf.GGUFReader(first)
        assert gguf.GGUFReader(str(first)) is shared and gguf.GGUFReader(second) is not shared
        assert [t.name for t in shared.tensors] == ["token_embd.weight", "output_norm.weight", "output.weight"]
        arch = gguf.MODEL_ARCH.LLAMA
        assert gguf.get_tensor_name_map(arch, 2) is gguf.get_tensor_name_map(arch, 2)
        assert gguf.get_tensor_name_map(arch, 2).get_name("model.layers.1.self_attn.q_proj") == "blk.1.attn_q"
    assert (gguf.GGUFReader, gguf.get_tensor_name_map) == (reader, name_table)
    assert gguf.GGUFReader(first) is not gguf.GGUFReader(first)
    with pytest.raises(RuntimeError), gguf_read_once():  # a load that fails part way
        raise RuntimeError("transformers gave up")
    assert (gguf.GGUFReader, gguf.get_tensor_name_map) == (reader, name_table)


def _two_tensors_named_alike(path: Path) -> bytes:
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_tensor("blk.0.a", np.zeros(4, dtype=np.float32))
    writer.add_tensor("blk.0.b", np.ones(4, dtype=np.float32))
    return written(writer, path).read_bytes().replace(b"blk.0.b", b"blk.0.a", 1)


def _alignment_as_uint64(path: Path) -> bytes:
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_uint64("general.alignment", 64)
    writer.add_tensor("blk.0.a", np.zeros(4, dtype=np.float32))
    return written(writer, path).read_bytes()


def _patched(data: bytes, at: int, value: int, size: int) -> bytes:
    return data[:at] + value.to_bytes(size, "little") + data[at + size:]


DAMAGE = {
    "a key twice": (lambda d, p: d.replace(b"tokenizer.ggml.scores", b"tokenizer.ggml.tokens", 1), "twice"),
    "a key not UTF-8": (lambda d, p: d.replace(b"general.name", b"general.nam\xff", 1), "not UTF-8"),
    "a tensor name not UTF-8": (lambda d, p: d.replace(b"output_norm.weight", b"output_norm.weigh\xff", 1),
                                "not UTF-8"),
    "a tensor name twice": (lambda d, p: _two_tensors_named_alike(p), "twice"),
    "an alignment of 48": (lambda d, p: d.replace(b"general.alignment" + (4).to_bytes(4, "little") + (64).to_bytes(4, "little"),
                                                  b"general.alignment" + (4).to_bytes(4, "little") + (48).to_bytes(4, "little")),
                           "not a power of two"),
    "an alignment of 64 bits": (lambda d, p: _alignment_as_uint64(p), "not a 32-bit"),
    "a Q8_0 row of 31 values": (lambda d, p: _patched(d, d.index(b"output.weight") + 13 + 4, 31, 8), "whole blocks"),
}


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_a_record_the_reader_refuses_is_refused(tmp_path: Path, case: str) -> None:
    damage, said = DAMAGE[case]
    data = write_gguf(tmp_path / "model.gguf", alignment=64).read_bytes()
    damaged = tmp_path / "damaged.gguf"
    damaged.write_bytes(damage(data, tmp_path / "other.gguf"))
    assert damaged.read_bytes() != data
    with pytest.raises(GGUFLayoutError, match=said):
        check_gguf_layout(damaged)
    assert reader_fails(damaged)


def test_a_tensor_of_thirty_thousand_dimensions_is_refused_at_once(tmp_path: Path) -> None:
    """Its dimensions' product would take the walk hours in exact integers: more than GGML's four
    is refused as it is read."""
    data = write_gguf(tmp_path / "model.gguf").read_bytes()
    at = data.index(b"token_embd.weight") + len(b"token_embd.weight")
    damaged = tmp_path / "damaged.gguf"
    damaged.write_bytes(_patched(data, at, 30_000, 4) + (2**64 - 1).to_bytes(8, "little") * 30_000)
    with pytest.raises(GGUFLayoutError, match="30,000 dimensions"):
        check_gguf_layout(damaged)


def test_a_big_endian_gguf_is_refused_before_transformers_refuses_it(tmp_path: Path) -> None:
    """gguf's reader reads a file written for big-endian machines, transformers then fails on it
    ("GGUF v50331648") after the run's folder is made (the outside check's find): refused first."""
    swapped = write_gguf(tmp_path / "model.gguf", big_endian=True)
    assert not reader_fails(swapped)
    with pytest.raises(GGUFLayoutError, match="big-endian"):
        check_gguf_layout(swapped)
