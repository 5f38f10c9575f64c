"""Where an `hf:` model comes from: a model folder, a hub id, a `.gguf` file or a folder holding
one; and one line that says why it would not load."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from merabench.errors import ConfigError


@dataclass(frozen=True)
class ModelSource:
    location: str                # what `from_pretrained` is given: a folder or a hub id
    gguf_file: str | None = None  # a GGUF file's name inside that folder
    local: bool = True


def spelt_model(spec: str) -> str:
    """One spelling of a model spec: an `hf:` path on this machine made absolute (a relative
    one would name another file, or none, from another folder, in results.json and on compare's
    pages); hub ids, endpoints' models and baselines as given."""
    kind, _, name = spec.partition(":")
    if kind != "hf" or not name:
        return spec
    try:
        path = Path(name).expanduser()
        if not path.exists():
            return spec
    except (RuntimeError, OSError):  # ~nosuchuser, a path that cannot be read: resolve_source says why
        return spec
    return f"hf:{os.path.abspath(path)}"


def resolve_source(spec: str) -> ModelSource:
    path = _local_path(spec)
    if path.is_file():
        if path.suffix.lower() != ".gguf":
            raise ConfigError(f"could not load the model {spec!r}: it is a file but not a .gguf; give hf: a model "
                              "folder (with config.json), a .gguf file or a hub id")
        return ModelSource(str(path.parent), path.name)
    if path.is_dir():
        if (path / "config.json").is_file():
            return ModelSource(str(path))
        ggufs = sorted(p.name for p in path.glob("*.gguf"))
        if len(ggufs) == 1:
            return ModelSource(str(path), ggufs[0])
        if ggufs:
            raise ConfigError(f"could not load the model {spec!r}: the folder holds {len(ggufs)} .gguf files "
                              f"({', '.join(ggufs[:4])}{', ...' if len(ggufs) > 4 else ''}); name one: "
                              f"hf:{path / ggufs[0]}")
        raise ConfigError(f"could not load the model {spec!r}: the folder has neither config.json nor a .gguf file")
    if spec.lower().endswith(".gguf") or spec.startswith((".", "/", "~")):
        raise ConfigError(f"could not load the model {spec!r}: no such file or folder")
    return ModelSource(spec, local=False)


def _local_path(spec: str) -> Path:
    """The spec as a local path. What names a path but cannot be one (`~nosuchuser/x`, a symlink
    loop named like a hub id) is one line at once: asked of the hub, it would wait there a minute
    and then fail on something else."""
    try:
        path = Path(spec).expanduser()
    except RuntimeError:  # ~user with no such user
        raise ConfigError(f"could not load the model {spec!r}: {spec.split('/', 1)[0]} is no user's home "
                          "folder on this machine") from None
    try:
        path.stat()
    except FileNotFoundError:
        pass
    except OSError as exc:  # ELOOP, EACCES, ENAMETOOLONG: a local path, but one that cannot be read
        raise ConfigError(f"could not load the model {spec!r}: {path} cannot be read ({exc.strerror})") from None
    return path


def describe_load_failure(spec: str, source: ModelSource, exc: BaseException) -> str:
    detail = " ".join(str(exc).split())[:240] or type(exc).__name__
    if isinstance(exc, ImportError) or "gguf" in detail.lower() and "install" in detail.lower():
        cause = "reading GGUF files needs the gguf and accelerate packages: pip install 'merabench[hf]'"
    elif source.gguf_file:
        cause = (f"transformers could not read {source.gguf_file} (it loads GGUFs of the architectures it "
                 "knows, llama, mistral, qwen2, gemma among them, de-quantised to full precision)")
    elif not source.local:
        cause = "not a local file or folder, and the hub could not provide it (offline, a typo, or a gated model)"
    else:
        cause = "the folder is not a complete transformers model (config.json, weights, tokenizer)"
    return f"could not load the model {spec!r}: {cause}; {type(exc).__name__}: {detail}"
