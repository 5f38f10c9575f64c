"""A GGUF file's layout checked without reading it: the header, every metadata value and tensor
record walked by their lengths, and the tensor data checked to fit in the file.

The gguf package's own reader turns every metadata string into a numpy view (a tokenizer's
vocabulary and merges: some 300,000 of them in a small model), which costs seconds before a run
has even started. Walking the records by their lengths refuses, in a fraction of that, what the
reader refuses on the way to a load: not a GGUF or another version, a record cut short, a count
or a length that runs past the end, an unknown value or tensor type, a key or tensor name twice or
not UTF-8, an alignment that is not a 32-bit power of two, a tensor of more than four dimensions
or whose rows are not whole blocks of its type, tensor data past the end; and a file written for
big-endian machines, which the reader reads but transformers refuses. The format:
https://github.com/ggml-org/ggml/blob/master/docs/gguf.md (versions 2 and 3)."""

from __future__ import annotations

import mmap
import struct
from pathlib import Path

#: the fixed size of each scalar value type, by its type code (8 is a string, 9 an array)
_SCALAR_SIZE = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_STRING, _ARRAY, _UINT32 = 8, 9, 4
_DEFAULT_ALIGNMENT = 32
_MAX_DIMS = 4  # GGML_MAX_DIMS: a record claiming more is damage (and its product could be huge)
#: the record fields, little-endian, by struct code (compiled once: a vocabulary is ~100,000 of them)
_FIELDS = {code: struct.Struct("<" + code) for code in "IQ"}


class GGUFLayoutError(ValueError):
    """The file is not a GGUF whose records and data fit in it."""


def check_gguf_layout(path: Path) -> None:
    """Raise GGUFLayoutError (or OSError) unless `path` is a version 2 or 3 GGUF whose metadata,
    tensor records and tensor data are well formed and lie within the file."""
    with open(path, "rb") as handle:
        if handle.seek(0, 2) < 24:
            raise GGUFLayoutError("shorter than a GGUF header (24 bytes)")
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            _Walk(data).check()


class _Walk:
    def __init__(self, data: mmap.mmap) -> None:
        self.data = data
        self.at = 0

    def take(self, code: str) -> int:
        field = _FIELDS[code]
        if self.at + field.size > len(self.data):
            raise GGUFLayoutError(f"cut short at byte {self.at:,} of {len(self.data):,}")
        (value,) = field.unpack_from(self.data, self.at)
        self.at += field.size
        return int(value)

    def skip(self, size: int) -> None:
        if size < 0 or self.at + size > len(self.data):
            raise GGUFLayoutError(f"a length of {size:,} bytes at byte {self.at:,} runs past the end "
                                  f"({len(self.data):,} bytes)")
        self.at += size

    def name(self, what: str) -> str:
        """A string read as the reader reads keys and tensor names: UTF-8."""
        size = self.take("Q")
        start = self.at
        self.skip(size)
        try:
            return bytes(self.data[start:self.at]).decode("utf-8")
        except UnicodeDecodeError:
            raise GGUFLayoutError(f"a {what} at byte {start:,} is not UTF-8") from None

    def value(self, kind: int) -> None:
        if kind in _SCALAR_SIZE:
            self.skip(_SCALAR_SIZE[kind])
        elif kind == _STRING:
            self.skip(self.take("Q"))
        elif kind == _ARRAY:
            inner, count = self.take("I"), self.take("Q")
            if inner in _SCALAR_SIZE:
                self.skip(_SCALAR_SIZE[inner] * count)  # one jump: the count is checked against the end
            else:
                for _ in range(count):  # each element takes at least 8 bytes: the end stops a false count
                    self.value(inner)
        else:
            raise GGUFLayoutError(f"an unknown value type {kind} at byte {self.at - 4:,}")

    def check(self) -> None:
        if self.data[:4] != b"GGUF":
            raise GGUFLayoutError("does not start with the GGUF magic")
        self.at = 4
        version = self.take("I")
        if version.to_bytes(4, "little") in (b"\0\0\0\2", b"\0\0\0\3"):
            raise GGUFLayoutError("written for big-endian machines: transformers reads only little-endian GGUFs "
                                  "(llama.cpp's gguf-convert-endian.py turns it round)")
        if version not in (2, 3):
            raise GGUFLayoutError(f"GGUF version {version} (versions 2 and 3 are read)")
        tensors, fields = self.take("Q"), self.take("Q")
        alignment = _DEFAULT_ALIGNMENT
        keys: set[str] = set()
        for _ in range(fields):
            key, kind = self.name("key"), self.take("I")
            if key in keys:
                raise GGUFLayoutError(f"the key {key[:80]!r} twice")
            keys.add(key)
            if key == "general.alignment":
                if kind != _UINT32:
                    raise GGUFLayoutError(f"general.alignment of value type {kind}, not a 32-bit unsigned integer")
                alignment = self.take("I")
                if alignment <= 0 or alignment & (alignment - 1):
                    raise GGUFLayoutError(f"an alignment of {alignment}, not a power of two")
            else:
                self.value(kind)
        from gguf.constants import GGML_QUANT_SIZES

        names: set[str] = set()
        ends = [self.tensor_end(names, GGML_QUANT_SIZES) for _ in range(tensors)]
        start = -(-self.at // alignment) * alignment
        needed = start + max(ends, default=0)
        if needed > len(self.data):
            raise GGUFLayoutError(f"its tensors need {needed:,} bytes; the file has {len(self.data):,} (cut short?)")

    def tensor_end(self, names: set[str], blocks: dict) -> int:
        """Read one tensor record; where its data ends, counted from the start of the data
        (`blocks`: gguf's values a block and bytes a block, by quantisation type)."""
        name = self.name("tensor name")
        if name in names:
            raise GGUFLayoutError(f"the tensor {name[:80]!r} twice")
        names.add(name)
        n_dims = self.take("I")
        if n_dims > _MAX_DIMS:
            raise GGUFLayoutError(f"the tensor {name[:80]!r} has {n_dims:,} dimensions (at most {_MAX_DIMS})")
        dims = [self.take("Q") for _ in range(n_dims)]
        kind, offset = self.take("I"), self.take("Q")
        try:
            block, size = blocks[kind]  # keyed by an IntEnum: its plain number finds it
        except KeyError:
            raise GGUFLayoutError(f"the tensor {name[:80]!r} is of unknown type {kind}") from None
        if dims and dims[0] % block:
            raise GGUFLayoutError(f"the tensor {name[:80]!r} has rows of {dims[0]:,} values, not whole "
                                  f"blocks of {block}")
        elements = 1
        for dim in dims:  # at most four factors of 64 bits: exact and quick
            elements *= dim
        return offset + elements // block * size
