"""The shape of the code, held where a change would break it: a package laid out by pipeline stage
(few entries per level), no import circle between modules, no long function bodies, the red-team
solver outside the package, and every data file of the package in the wheel's package data."""

from __future__ import annotations

import ast
import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "merabench"
GENERATOR = PACKAGE / "tasks" / "gorillahard" / "generator"
#: where function length and import circles are held: the product and the team's own instruments
CODE = (ROOT / "src", ROOT / "benchmarks", ROOT / "tools")
LONGEST_BODY = 60


def _entries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name != "__pycache__")


def test_the_package_and_the_generator_keep_few_entries_a_level() -> None:
    assert len(_entries(PACKAGE)) <= 16, _entries(PACKAGE)
    assert len(_entries(GENERATOR)) <= 15, _entries(GENERATOR)
    assert {"cli", "rows", "runner", "models", "judging", "scoring", "formats", "report", "tasks"} <= set(_entries(PACKAGE))
    assert {"build", "corpus", "families", "checks"} <= set(_entries(GENERATOR))


def test_no_file_of_the_package_is_the_red_team_solver() -> None:
    assert [p for p in PACKAGE.rglob("*") if "redteam" in p.name] == []


def _modules() -> dict[str, Path]:
    """Dotted name -> file, for every module under CODE (src/ by package, the rest by folder)."""
    found = {}
    for base in CODE:
        for path in base.rglob("*.py"):
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _imports(path: Path, name: str, modules: dict[str, Path]) -> set[str]:
    """The repo's modules that `path` imports anywhere (a function-local import counts too)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:  # `from pkg import module` is the module; `from module import name`, the module
                targets.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    return {t for t in targets if t in modules and t != name}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_circle_finder_finds_a_circle() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_between_modules() -> None:
    modules = _modules()
    graph = {name: _imports(path, name, modules) for name, path in modules.items()}
    assert _circles(graph) == []


#: The pipeline's stages, lowest first (docs/architecture.md, "The stage order"): a module may import
#: its own stage and the stages before it, never one after. `support` is what every stage uses.
STAGES = ("errors", "records", "support", "rows", "models", "tasks", "runner", "judging", "scoring", "formats",
          "report", "pipeline", "cli")


def _stage(module: str) -> int:
    """A package module's place in STAGES (the package's own `__init__` sits below them all)."""
    parts = module.split(".")
    if len(parts) == 1:
        return -1
    assert parts[1] in STAGES, f"{module}: in no stage of STAGES; give its folder a place in the order"
    return STAGES.index(parts[1])


def _imports_against_the_stages(graph: dict[str, set[str]]) -> list[str]:
    return sorted(f"{name} ({STAGES[_stage(name)]}) imports {target} ({STAGES[_stage(target)]})"
                  for name, targets in graph.items() for target in targets
                  if _stage(target) > _stage(name))


def test_the_stage_check_finds_an_import_up_the_pipeline() -> None:
    graph = {"merabench.models.x": {"merabench.runner.y", "merabench.records"}, "merabench.cli.z": {"merabench.rows.w"}}
    assert _imports_against_the_stages(graph) == [
        "merabench.models.x (models) imports merabench.runner.y (runner)"]


def test_every_import_runs_down_the_pipeline() -> None:
    modules = _modules()
    package = {name: path for name, path in modules.items() if name.split(".")[0] == "merabench"}
    graph = {name: {t for t in _imports(path, name, modules) if t in package} for name, path in package.items()}
    assert _imports_against_the_stages(graph) == []


def _body_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """From the first statement after `def ...:` (its docstring included) to the function's end."""
    return node.body[-1].end_lineno - node.body[0].lineno + 1


def test_no_function_body_is_longer_than_sixty_lines() -> None:
    long = []
    for base in CODE:
        for path in sorted(base.rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _body_lines(node) > LONGEST_BODY:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} {_body_lines(node)}")
    assert long == []


def test_every_data_file_of_the_package_is_in_its_package_data() -> None:
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]["merabench"]
    data = [p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*")
            if p.is_file() and p.suffix not in {".py", ".pyc"} and "__pycache__" not in p.parts]
    assert data, "the package ships data files (bundled rows, schemas, the report's assets)"
    # setuptools' `**` also matches no folder at all, which fnmatch's `*` does not
    missed = [d for d in data if not any(fnmatch.fnmatch(d, p) or fnmatch.fnmatch(d, p.replace("**/", "")) for p in patterns)]
    assert missed == []


#: tests/ beside the stage folders: the project's shape, the README, the test session itself, the
#: red-team solver of benchmarks/, the copied data, and the shared servers and builders
TESTS_BESIDE_STAGES = {"data", "redteam", "test_layout.py", "test_imports.py", "test_readme.py",
                       "test_session_signals.py", "conftest.py", "helpers.py", "fakeserver.py", "batchserver.py",
                       "toolmodel.py", "engines.py", "zips.py"}


def test_the_tests_are_laid_out_by_stage_like_the_package() -> None:
    """A test of a module sits under the folder of its stage (tests/runner/ for src/merabench/runner/),
    so the tests of what a change touches are found where it is."""
    tests = ROOT / "tests"
    stray = [name for name in _entries(tests) if name not in STAGES and name not in TESTS_BESIDE_STAGES]
    assert stray == [], f"put these under a stage folder ({', '.join(STAGES)}): {stray}"
    for name in _entries(tests):
        if (tests / name).is_dir() and name in STAGES:
            assert (PACKAGE / name).is_dir() or (PACKAGE / f"{name}.py").is_file(), name
