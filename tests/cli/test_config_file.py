"""`merabench run --config run.toml` and `--dump-config`: the file gives defaults, flags win."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli

CONFIG = '''# a run described by a file
model = "copy"
tasks = ["sage", "russianregions"]
data = "bundled"
max-tokens = 256
stop = ["\\n\\n"]
cache = false
limit = 3
progress = false
'''


def write_config(tmp_path: Path, text: str = CONFIG, **extra: str) -> Path:
    path = tmp_path / "run.toml"
    path.write_text(text + "".join(f"{k} = {v}\n" for k, v in extra.items()), encoding="utf-8")
    return path


def test_a_run_takes_its_options_from_the_file(tmp_path: Path) -> None:
    out = tmp_path / "run"
    config = write_config(tmp_path, out=json.dumps(str(out)))
    done = run_cli("run", "--config", str(config))
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["settings"]["tasks"] == ["sage", "russianregions"]
    assert results["settings"]["generation"]["max_tokens"] == 256
    assert results["settings"]["generation"]["stop"] == ["\n\n"]
    assert results["settings"]["limit"] == 3 and results["tasks"]["sage"]["n"] == 3
    assert results["model"] == "copy"


def test_flags_override_the_file_and_a_repeated_flag_replaces_its_list(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    done = run_cli("run", "--config", str(config), "--tasks", "gorillahard", "--max-tokens", "99", "--stop", "END",
                   "--no-progress", "--dump-config")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert 'tasks = "gorillahard"' in lines and "max-tokens = 99" in lines and 'stop = ["END"]' in lines
    assert 'model = "copy"' in lines and "limit = 3" in lines and "cache = false" in lines


def test_dump_config_reads_back_to_the_same_config(tmp_path: Path) -> None:
    first = run_cli("run", "--config", str(write_config(tmp_path)), "--seed", "7", "--dump-config")
    assert first.returncode == 0, first.stderr
    dumped = tmp_path / "dumped.toml"
    dumped.write_text(first.stdout, encoding="utf-8")
    second = run_cli("run", "--config", str(dumped), "--dump-config")
    assert second.stdout == first.stdout
    assert "seed = 7" in first.stdout and "api-key" not in first.stdout


def test_list_forms_are_equal(tmp_path: Path) -> None:
    as_text = run_cli("run", "--config", str(write_config(tmp_path, 'tasks = "sage,gorillahard"\ndata = "bundled"\n')),
                      "--dump-config")
    (tmp_path / "b").mkdir()
    as_list = run_cli("run", "--config", str(write_config(tmp_path / "b", 'tasks = ["sage", "gorillahard"]\n'
                                                                           'data = ["bundled"]\n')), "--dump-config")
    assert as_text.returncode == as_list.returncode == 0
    assert as_text.stdout == as_list.stdout


def test_config_mistakes_are_one_line_and_exit_2(tmp_path: Path) -> None:
    cases = {
        'max_tokns = 5\n': "unknown key 'max_tokns'; did you mean 'max_tokens'?",
        'api_key = "sk-123"\n': "cannot be set in a config file",
        'model = \n': "not valid TOML",
        '[model]\nname = "x"\n': "must be a value or a list",
        'concurrency = 0\n': "concurrency",
    }
    for n, (text, fragment) in enumerate(cases.items()):
        path = tmp_path / f"bad{n}.toml"
        path.write_text(text, encoding="utf-8")
        done = run_cli("run", "--config", str(path), "--out", str(tmp_path / f"out{n}"), "--no-progress")
        message = (done.stdout + done.stderr).strip()
        assert done.returncode == 2, (text, message)
        assert fragment in message, (text, message)
        assert "Traceback" not in message and len(message.splitlines()) == 1, message
        assert not (tmp_path / f"out{n}").exists()
    missing = run_cli("run", "--config", str(tmp_path / "nope.toml"))
    assert missing.returncode == 2 and "no such file" in missing.stdout + missing.stderr
