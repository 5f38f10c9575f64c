"""ZIPs built byte by byte for the submission tests: a submission's entries taken apart and put
back with one thing wrong (a compression method, garbage, a local header naming another file, a
bomb), and the harness's own ZIP as MERA's packer lays it out (MultiQ.json, ruMMLU.json, an old
SAGE.json, and logs_public.zip with a multiq run's and an old sage run's logs)."""

from __future__ import annotations

import io
import json
import subprocess
import warnings
import zipfile
from pathlib import Path

from helpers import run_cli

STAMP, OLD_STAMP = "2026-11-30T10-00-00.000001", "2026-11-29T09-00-00.000001"
MULTIQ_SAMPLES, LOGS = f"samples_multiq_{STAMP}.jsonl", "logs_public.zip"


def members_of(data: bytes | Path) -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(io.BytesIO(data) if isinstance(data, bytes) else data) as zf:
        return [(info.filename, zf.read(info)) for info in zf.infolist()]


def zip_bytes(members: list[tuple[str, bytes]], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=method) as zf:
        for name, data in members:
            zf.writestr(name, data)
    return buffer.getvalue()


def replaced(members: list[tuple[str, bytes]], name: str, data: bytes) -> list[tuple[str, bytes]]:
    return [(n, data if n == name else d) for n, d in members]


def named(members: list[tuple[str, bytes]], prefix: str) -> str:
    return next(n for n, _ in members if n.startswith(prefix))


def headers_of(raw: bytes, name: str) -> tuple[int, int]:
    """The offsets of `name`'s local header and of its central directory record."""
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        local = zf.getinfo(name).header_offset
    central = raw.find(b"PK\x01\x02")
    while raw[central + 46:central + 46 + len(name.encode())] != name.encode():
        central = raw.find(b"PK\x01\x02", central + 4)
        assert central >= 0, name
    return local, central


def data_span(raw: bytes, name: str) -> tuple[int, int]:
    """Where `name`'s compressed bytes are in the ZIP."""
    local, _ = headers_of(raw, name)
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        size = zf.getinfo(name).compress_size
    start = local + 30 + int.from_bytes(raw[local + 26:local + 28], "little") + \
        int.from_bytes(raw[local + 28:local + 30], "little")
    return start, start + size


def with_method(raw: bytes, name: str, method: int) -> bytes:
    """`name` marked as stored with another compression method (in both of its headers)."""
    local, central = headers_of(raw, name)
    out = bytearray(raw)
    out[local + 8:local + 10] = method.to_bytes(2, "little")
    out[central + 10:central + 12] = method.to_bytes(2, "little")
    return bytes(out)


def with_garbage(raw: bytes, name: str, *, flip_one: bool = False) -> bytes:
    """`name`'s compressed bytes overwritten (deflate fails), or one byte flipped (the CRC fails)."""
    start, end = data_span(raw, name)
    out = bytearray(raw)
    if flip_one:
        out[(start + end) // 2] ^= 0x01
    else:
        out[start + 2:end - 2] = b"\xff" * (end - start - 4)
    return bytes(out)


def with_local_name(raw: bytes, name: str, other: str) -> bytes:
    """`name`'s local header naming `other` (as long): a reader that trusts it sees another file."""
    assert len(other.encode()) == len(name.encode())
    local, _ = headers_of(raw, name)
    out = bytearray(raw)
    out[local + 30:local + 30 + len(other.encode())] = other.encode()
    return bytes(out)


def bomb(members: list[tuple[str, bytes]], name: str, size: int, filler: bytes = b" ") -> bytes:
    """The ZIP with `name` inflating to `size` bytes: its JSON, then `filler` (deflate squeezes
    a megabyte of it into about a kilobyte), written a megabyte at a time."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        for member, data in members:
            if member != name:
                zf.writestr(member, data)
                continue
            with zf.open(member, "w", force_zip64=True) as fh:
                fh.write(data)
                chunk, left = filler * (1 << 20), size - len(data)
                while left > 0:
                    fh.write(chunk[:left])
                    left -= len(chunk)
    return buffer.getvalue()


def lm_eval_line(row_id: int, answer: str) -> str:
    """A samples line as lm-eval writes it (what MERA's packer reads: doc.meta.id, filtered_resps)."""
    return json.dumps({"doc_id": row_id, "doc": {"text": "Вопрос", "meta": {"id": row_id}}, "target": "",
                       "arguments": {"gen_args_0": {"arg_0": "Вопрос"}}, "resps": [[answer]],
                       "filtered_resps": [answer]}, ensure_ascii=False) + "\n"


def zip_of(members: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        warnings.simplefilter("ignore")  # a name twice: zipfile warns, and writes both
        for name, data in members:
            zf.writestr(name, data)
    return buffer.getvalue()


def logs_members() -> list[tuple[str, bytes]]:
    """The harness's logs: a multiq run's samples and results, and an older sage run's."""
    return [(MULTIQ_SAMPLES, (lm_eval_line(0, "Москва") + lm_eval_line(1, "1812")).encode()),
            (f"results_{STAMP}.json", json.dumps({"results": {"multiq": {"f1,none": 0.5}}}).encode()),
            (f"samples_sage_{OLD_STAMP}.jsonl", lm_eval_line(0, "старый ответ").encode()),
            (f"results_{OLD_STAMP}.json", json.dumps({"results": {"sage": {"errant_f1,none": 0.1}}}).encode())]


def task_json(answers: list[str]) -> bytes:
    items = [{"outputs": a, "meta": {"id": i}} for i, a in enumerate(answers)]
    return json.dumps({"data": {"test": items}}, ensure_ascii=False, indent=4).encode()


def harness_members(logs: bytes | None = None) -> list[tuple[str, bytes]]:
    return [("MultiQ.json", task_json(["Москва", "1812"])), ("ruMMLU.json", task_json(["A", "B"])),
            ("SAGE.json", task_json(["старый"])), (LOGS, zip_of(logs_members()) if logs is None else logs)]


def write_harness(path: Path, members: list[tuple[str, bytes]] | None = None) -> Path:
    path.write_bytes(zip_of(harness_members() if members is None else members))
    return path


def encrypted_flag(raw: bytes, name: str) -> bytes:
    """`name` flagged encrypted in both of its headers, as a password tool leaves it."""
    out, encoded = bytearray(raw), name.encode()
    local = raw.find(b"PK\x03\x04")
    while raw[local + 30:local + 30 + len(encoded)] != encoded:
        local = raw.find(b"PK\x03\x04", local + 4)
    central = raw.find(b"PK\x01\x02")
    while raw[central + 46:central + 46 + len(encoded)] != encoded:
        central = raw.find(b"PK\x01\x02", central + 4)
    out[local + 6] |= 1
    out[central + 8] |= 1
    return bytes(out)


def bomb_logs(size: int) -> bytes:
    """The harness's logs plus a samples file inflating to `size` bytes of newlines (about a
    megabyte compressed per gigabyte), written a megabyte at a time."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for name, data in logs_members():
            zf.writestr(name, data)
        with zf.open(f"samples_ruopenbookqa_{STAMP}.jsonl", "w", force_zip64=True) as fh:
            for _ in range(size >> 20):
                fh.write(b"\n" * (1 << 20))
    return buffer.getvalue()


def submission_s(run: Path, into: Path | str, out: Path | str, *more: str, cwd: Path | None = None,
                 **kwargs) -> subprocess.CompletedProcess:
    return run_cli("submission", "--run", str(run), "--allow-unofficial", "--into", str(into), "--out", str(out),
                   *more, cwd=cwd, **kwargs)
