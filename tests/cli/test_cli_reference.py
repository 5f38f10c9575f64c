"""The CLI explains itself: every command is listed with its own usage line and help, `run`'s
options sit in panels, and docs/cli.md (which the README links to) is exactly what
tools/cli_reference.py writes from the CLI, so an option or environment variable added without
documentation fails here."""

from __future__ import annotations

import ast
import importlib.util
import re

import pytest
from helpers import ROOT

from merabench import __version__
from merabench.cli.help import PANELS
from merabench.cli.main import command_group, main


def _reference():
    spec = importlib.util.spec_from_file_location("cli_reference", ROOT / "tools" / "cli_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cli(capsys: pytest.CaptureFixture, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_docs_cli_md_is_what_the_cli_generates() -> None:
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert page == _reference().render(), "docs/cli.md is stale: run `python tools/cli_reference.py`"


def test_the_reference_names_every_option_of_every_command_in_its_section() -> None:
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    sections = dict(re.findall(r"^## merabench (\S+)\n(.*?)(?=^## |\Z)", page, re.M | re.S))
    group = command_group()
    assert set(sections) == set(group.commands)
    for name, command in group.commands.items():
        for param in command.params:
            for flag in getattr(param, "opts", []) + getattr(param, "secondary_opts", []):
                if param.param_type_name == "option":
                    assert re.search(rf"(`|/ ){re.escape(flag)}[ `]", sections[name]), (name, flag)


def _environment_reads(tree: ast.AST) -> set[str]:
    """The names in os.environ[...], os.environ.get(...) and os.getenv(...) of code (not of text
    the code writes, such as the generator's sample files)."""
    names = set()
    for node in ast.walk(tree):
        target = None
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "environ":
            target = node.slice
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args and (
                node.func.attr == "getenv" or (node.func.attr == "get" and isinstance(node.func.value, ast.Attribute)
                                               and node.func.value.attr == "environ")):
            target = node.args[0]
        if isinstance(target, ast.Constant) and isinstance(target.value, str):
            names.add(target.value)
    return names


def test_every_environment_variable_the_sources_read_is_documented() -> None:
    read = set()
    for path in (ROOT / "src" / "merabench").rglob("*.py"):
        read |= _environment_reads(ast.parse(path.read_text(encoding="utf-8")))
    assert {"OPENAI_API_KEY", "MERABENCH_CACHE", "HF_HOME"} <= read  # the walk finds them
    assert read <= set(_reference().ENVIRONMENT), sorted(read - set(_reference().ENVIRONMENT))


def test_the_readme_links_the_reference() -> None:
    assert "(docs/cli.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_run_option_has_one_of_the_panels() -> None:
    run = command_group().commands["run"]
    panels = {p.name: p.rich_help_panel for p in run.params if p.param_type_name == "option" and p.name != "help"}
    assert {name for name, panel in panels.items() if panel not in PANELS} == set()
    assert set(panels.values()) == set(PANELS)


def test_run_help_prints_the_panels_in_order(capsys: pytest.CaptureFixture) -> None:
    code, out, _ = _cli(capsys, "run", "--help")
    assert code == 0 and out.startswith("Usage: merabench run [OPTIONS]")
    headings = [line[:-1] for line in out.splitlines() if line.endswith(":") and not line.startswith(" ")]
    assert headings[:len(PANELS)] == list(PANELS)


def test_the_command_list_names_every_command(capsys: pytest.CaptureFixture) -> None:
    code, out, _ = _cli(capsys, "--help")
    listed = re.findall(r"^  (\S+)\s", out.split("Commands:", 1)[1], re.M)
    assert code == 0 and listed == list(command_group().commands)
    assert {"export-requests", "import-responses"} <= set(listed)


@pytest.mark.parametrize("name", list(command_group().commands))
def test_each_command_has_its_own_usage_line_and_help(name: str, capsys: pytest.CaptureFixture) -> None:
    code, out, err = _cli(capsys, name, "--help")
    assert (code, err) == (0, "")
    assert out.startswith(f"Usage: merabench {name} ")
    assert command_group().commands[name].help.split()[0] in out


def test_version(capsys: pytest.CaptureFixture) -> None:
    code, out, _ = _cli(capsys, "--version")
    assert code == 0 and out.startswith(f"merabench {__version__}")


def test_bare_merabench_prints_the_help_not_an_error(capsys: pytest.CaptureFixture) -> None:
    code, out, err = _cli(capsys)
    assert code == 0 and "error" not in err
    assert out.startswith("Usage: merabench [OPTIONS] COMMAND") and "Commands:" in out


def test_score_help_names_every_predictions_format_it_reads(capsys: pytest.CaptureFixture) -> None:
    """A JSON list of {id, output} is read (predictions.py), and the help says so."""
    code, out, _ = _cli(capsys, "score", "--help")
    said = " ".join(out.split())
    assert code == 0
    for form in ("JSONL", "a JSON list", "merabench samples file", "MERA submission JSON/ZIP", "lm-eval",
                 "- reads standard input"):
        assert form in said, form
