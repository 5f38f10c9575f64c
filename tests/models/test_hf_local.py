"""`hf:` models on the CPU, with a tiny randomly initialised model built here (nothing downloaded)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import read_jsonl, run_cli, sage_rows, write_jsonl

transformers = pytest.importorskip("transformers", reason="the hf extra is installed by `make test`")


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> Path:
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers

    torch.manual_seed(0)
    words = ["[UNK]", "[PAD]", "[EOS]"] + sorted({w for r in sage_rows(6) for w in
                                                  (r["inputs"]["source"] + " " + r["outputs"]).split()})
    vocab = {w: i for i, w in enumerate(words)}
    core = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=core, unk_token="[UNK]", pad_token="[PAD]",
                                                     eos_token="[EOS]")
    tokenizer.chat_template = "{% for m in messages %}{{ m['content'] }} {% endfor %}"
    config = transformers.GPT2Config(vocab_size=len(vocab), n_positions=512, n_embd=32, n_layer=1, n_head=2,
                                     eos_token_id=2, bos_token_id=2, pad_token_id=1)
    folder = tmp_path_factory.mktemp("tiny-model")
    transformers.GPT2LMHeadModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def test_a_local_model_answers_every_row_deterministically(tmp_path: Path, tiny_model: Path) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(3))
    runs = []
    for name in ("a", "b"):
        result = run_cli("run", "--model", f"hf:{tiny_model}", "--tasks", "sage", "--data", str(data), "--out",
                         str(tmp_path / name), "--no-progress", "--max-tokens", "6", "--no-cache")
        assert result.returncode == 0, result.stderr
        runs.append(read_jsonl(tmp_path / name / "samples_sage.jsonl"))
    first, second = runs
    assert all(r["status"] == "ok" and r["completion_tokens"] <= 6 and r["prompt_tokens"] > 0 for r in first)
    assert all(isinstance(r["output"], str) and r["output"] for r in first)
    assert [r["output"] for r in first] == [r["output"] for r in second]  # greedy at temperature 0
    doc = json.loads((tmp_path / "a" / "results.json").read_text())
    assert doc["model"] == f"hf:{tiny_model}" and "errant_f1" in doc["tasks"]["sage"]["metrics"]


def test_a_missing_model_is_one_clear_line(tmp_path: Path) -> None:
    result = run_cli("run", "--model", f"hf:{tmp_path / 'nothing-here'}", "--tasks", "sage", "--out", str(tmp_path / "r"),
                     "--no-progress", "--limit", "1", env={"HF_HUB_OFFLINE": "1"})
    assert result.returncode == 2 and "could not load the model" in result.stderr and "Traceback" not in result.stderr


def test_a_stop_string_ends_generation_itself(tmp_path: Path, tiny_model: Path) -> None:
    """The stop string stops the model (transformers' stop_strings), not a cut after it ran to the limit."""
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(1))
    sampled = ("--temperature", "1", "--seed", "3")  # seeded sampling: varied words, the same every run
    free = run_cli("run", "--model", f"hf:{tiny_model}", "--tasks", "sage", "--data", str(data), "--out",
                   str(tmp_path / "free"), "--no-progress", "--max-tokens", "12", "--no-cache", *sampled)
    assert free.returncode == 0, free.stderr
    (row,) = read_jsonl(tmp_path / "free" / "samples_sage.jsonl")
    words = row["output"].split()
    assert row["finish_reason"] == "length" and row["completion_tokens"] == 12 and len(words) >= 4
    # the first word that was not said before it: generation must end on its token
    first_new = next((i for i in range(1, len(words)) if words[i] not in words[:i]), None)
    assert first_new is not None, words
    stop = words[first_new]
    stopped = run_cli("run", "--model", f"hf:{tiny_model}", "--tasks", "sage", "--data", str(data), "--out",
                      str(tmp_path / "stopped"), "--no-progress", "--max-tokens", "12", "--no-cache", *sampled, "--stop", stop)
    assert stopped.returncode == 0, stopped.stderr
    (cut,) = read_jsonl(tmp_path / "stopped" / "samples_sage.jsonl")
    assert cut["finish_reason"] == "stop"
    assert cut["completion_tokens"] == first_new + 1  # the words before it and its own token, nothing more
    assert cut["output"].split() == words[:first_new]


@pytest.mark.parametrize(("make", "expected"), [
    (lambda d: (d / "weights.bin").write_bytes(b"x") and d / "weights.bin", "not a .gguf"),
    (lambda d: [(d / n).write_bytes(b"GGUF") for n in ("a.gguf", "b.gguf")] and d, "holds 2 .gguf files"),
    (lambda d: d, "neither config.json nor a .gguf"),
    (lambda d: d / "missing.gguf", "no such file or folder"),
    (lambda d: (d / "broken.gguf").write_bytes(b"GGUF\x03\x00\x00\x00garbage") and d / "broken.gguf",
     "could not read broken.gguf"),
])
def test_every_load_failure_is_one_line_naming_the_path(tmp_path: Path, make, expected: str) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    target = make(folder)
    out = tmp_path / "r"
    result = run_cli("run", "--model", f"hf:{target}", "--tasks", "sage", "--out", str(out), "--no-progress",
                     "--limit", "1", "--no-cache", env={"HF_HUB_OFFLINE": "1"})
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and expected in lines[0] and str(target) in lines[0], result.stderr
    assert "Traceback" not in result.stderr


def test_a_local_model_says_it_loads_and_is_not_loaded_when_every_answer_is_cached(tmp_path: Path,
                                                                                    tiny_model: Path) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(2))
    cache = ["--cache-path", str(tmp_path / "cache.sqlite")]
    first = run_cli("run", "--model", f"hf:{tiny_model}", "--tasks", "sage", "--data", str(data), "--out",
                    str(tmp_path / "a"), "--no-progress", "--max-tokens", "4", *cache)
    assert first.returncode == 0, first.stderr
    assert f"loading hf:{tiny_model} (the first request waits for it)" in first.stderr
    doc = json.loads((tmp_path / "a" / "results.json").read_text())
    load_s = next(float(n.split("loaded in ")[1].split(" s")[0]) for n in doc.get("notes", []) if "model loaded in" in n)
    assert doc["wall_time_s"] >= load_s  # the run's wall time counts the load too
    again = run_cli("run", "--model", f"hf:{tiny_model}", "--tasks", "sage", "--data", str(data), "--out",
                    str(tmp_path / "b"), "--no-progress", "--max-tokens", "4", *cache)
    assert again.returncode == 0, again.stderr
    assert "loading hf:" not in again.stderr  # every answer came from the cache: torch never loaded the weights
    assert not any("model loaded" in n for n in json.loads((tmp_path / "b" / "results.json").read_text()).get("notes", []))


def test_a_relative_model_path_is_recorded_absolute_and_an_older_relative_record_still_resumes(
        tmp_path: Path, tiny_model: Path) -> None:
    """Before: results.json named the model `hf:tiny-model0`, a path that means nothing from
    another folder (compare's pages, a colleague reading the file)."""
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(3))
    relative = tiny_model.name
    out = tmp_path / "out"
    args = ["run", "--model", f"hf:{relative}", "--tasks", "sage", "--data", str(data), "--out", str(out),
            "--no-progress", "--max-tokens", "4"]
    done = run_cli(*args, cwd=tiny_model.parent)
    assert done.returncode == 0, done.stderr
    assert json.loads((out / "results.json").read_text())["model"] == f"hf:{tiny_model}"
    assert json.loads((out / "run.json").read_text())["model"] == f"hf:{tiny_model}"
    # a folder an earlier version made recorded the path as given: the same file, so the same run
    run_json = json.loads((out / "run.json").read_text())
    (out / "run.json").write_text(json.dumps(run_json | {"model": f"hf:{relative}"}))
    again = run_cli(*args, "--no-cache", cwd=tiny_model.parent)
    assert again.returncode == 0, again.stderr
    assert "0 row(s) to ask (sage 0); 3 kept from this folder" in again.stderr
