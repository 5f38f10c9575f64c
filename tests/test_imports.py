"""The run and score paths stay light: no spaCy (SAGE tokenises with its own rules) and no torch
(only an `hf:` model needs it), even though the test environment has both installed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HEAVY = ("spacy", "thinc", "torch", "transformers", "datasets")

PROBE = """
import json, sys
from merabench.cli.main import main
args, heavy_names = json.loads(sys.argv[1]), set(json.loads(sys.argv[2]))
sys.argv = ["merabench", *args]
code = main()
heavy = sorted({name.split(".")[0] for name in sys.modules} & heavy_names)
print(json.dumps({"code": code, "heavy": heavy}))
"""


def heavy_modules_after(args: list[str]) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(args), json.dumps(HEAVY)],
                          capture_output=True, text=True, timeout=240)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_installed_heavy_libraries_exist_so_the_check_means_something() -> None:
    import importlib.util

    assert importlib.util.find_spec("spacy") is not None
    assert importlib.util.find_spec("torch") is not None


def test_demo_run_and_score_import_neither_spacy_nor_torch(tmp_path: Path) -> None:
    run = heavy_modules_after(["run", "--out", str(tmp_path / "demo"), "--no-progress", "--no-cache"])
    assert run == {"code": 0, "heavy": []}

    samples = tmp_path / "demo" / "samples_sage.jsonl"
    assert samples.exists()
    scored = heavy_modules_after(["score", "sage", "--predictions", str(samples), "--out", str(tmp_path / "scored")])
    assert scored == {"code": 0, "heavy": []}


def test_the_cli_modules_import_no_private_name_from_another_module() -> None:
    """What the command's modules share has a public name (cli/evaluate.py used to import
    `_judge`, `_print`, `_stderr`, ... from cli/options.py and cli/app.py)."""
    import ast

    package = Path(__file__).parents[1] / "src" / "merabench"
    private = []
    for path in sorted((package / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("merabench"):
                private += [f"{path.name}: {node.module}.{a.name}" for a in node.names
                            if a.name.startswith("_") and not a.name.startswith("__")]
    assert private == []
