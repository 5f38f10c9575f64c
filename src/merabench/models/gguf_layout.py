"""A GGUF file's layout checked without reading it: the header, every metadata value and tensor
record walked by their lengths, and the tensor data checked to fit in the file.

The gguf package's own reader turns every metadata string into a numpy view (a tokenizer's
vocabulary and merges: some 300,000 of them in a small model), which costs seconds before a run
has even started; skipping them by their lengths finds the same broken files (not a GGUF, cut
short, a count or a length that runs past the end) in a fraction of that. The format:
https://github.com/ggml-org/ggml/blob/master/docs/gguf.md (versions 2 and 3; little-endian)."""

from __future__ import annotations

import mmap
import struct
from pathlib import Path

#: the fixed size of each scalar value type, by its type code (8 is a string, 9 an array)
_SCALAR_SIZE = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_STRING, _ARRAY = 8, 9
_DEFAULT_ALIGNMENT = 32


class GGUFLayoutError(ValueError):
    """The file is not a GGUF whose records and data fit in it."""


def check_gguf_layout(path: Path) -> None:
    """Raise GGUFLayoutError (or OSError) unless `path` is a version 2 or 3 GGUF whose metadata,
    tensor records and tensor data all lie within the file."""
    with open(path, "rb") as handle:
        if handle.seek(0, 2) < 24:
            raise GGUFLayoutError("shorter than a GGUF header (24 bytes)")
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            _Walk(data).check()


class _Walk:
    def __init__(self, data: mmap.mmap) -> None:
        self.data = data
        self.at = 0

    def take(self, fmt: str) -> int:
        size = struct.calcsize(fmt)
        if self.at + size > len(self.data):
            raise GGUFLayoutError(f"cut short at byte {self.at:,} of {len(self.data):,}")
        (value,) = struct.unpack_from(fmt, self.data, self.at)
        self.at += size
        return int(value)

    def skip(self, size: int) -> None:
        if size < 0 or self.at + size > len(self.data):
            raise GGUFLayoutError(f"a length of {size:,} bytes at byte {self.at:,} runs past the end "
                                  f"({len(self.data):,} bytes)")
        self.at += size

    def string(self) -> bytes:
        size = self.take("<Q")
        start = self.at
        self.skip(size)
        return bytes(self.data[start:self.at])

    def value(self, kind: int) -> None:
        if kind in _SCALAR_SIZE:
            self.skip(_SCALAR_SIZE[kind])
        elif kind == _STRING:
            self.skip(self.take("<Q"))
        elif kind == _ARRAY:
            inner, count = self.take("<I"), self.take("<Q")
            if inner in _SCALAR_SIZE:
                self.skip(_SCALAR_SIZE[inner] * count)  # one jump: the count is checked against the end
            else:
                for _ in range(count):
                    self.value(inner)
        else:
            raise GGUFLayoutError(f"an unknown value type {kind} at byte {self.at - 4:,}")

    def check(self) -> None:
        if self.data[:4] != b"GGUF":
            raise GGUFLayoutError("does not start with the GGUF magic")
        self.at = 4
        version = self.take("<I")
        if version not in (2, 3):
            raise GGUFLayoutError(f"GGUF version {version} (versions 2 and 3 are read)")
        tensors, fields = self.take("<Q"), self.take("<Q")
        alignment = _DEFAULT_ALIGNMENT
        for _ in range(fields):
            key, kind = self.string(), self.take("<I")
            if key == b"general.alignment" and kind == 4:
                alignment = self.take("<I")
            else:
                self.value(kind)
        ends = [self.tensor_end() for _ in range(tensors)]
        if alignment <= 0:
            raise GGUFLayoutError(f"an alignment of {alignment}")
        start = -(-self.at // alignment) * alignment
        needed = start + max(ends, default=0)
        if needed > len(self.data):
            raise GGUFLayoutError(f"its tensors need {needed:,} bytes; the file has {len(self.data):,} (cut short?)")

    def tensor_end(self) -> int:
        """Read one tensor record; where its data ends, counted from the start of the data."""
        from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType

        self.string()
        dims = [self.take("<Q") for _ in range(self.take("<I"))]
        kind, offset = self.take("<I"), self.take("<Q")
        try:
            block, size = GGML_QUANT_SIZES[GGMLQuantizationType(kind)]
        except (ValueError, KeyError):
            raise GGUFLayoutError(f"a tensor of unknown type {kind}") from None
        elements = 1
        for dim in dims:
            elements *= dim
        return offset + elements // block * size
