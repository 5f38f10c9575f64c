"""Write docs/cli.md, the reference of every command, option and environment variable, from the
CLI itself: `python tools/cli_reference.py` (tests/test_cli_reference.py fails when the page is
not what this script writes, so a new option cannot go undocumented)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "cli.md"

#: every environment variable merabench reads, and what for (the test checks the sources read no other)
ENVIRONMENT = {
    "OPENAI_API_KEY": "the endpoint's API key when `--api-key` is not given (never written to any file)",
    "OPENAI_BASE_URL": "the endpoint when no `--base-url` is given",
    "MERABENCH_CACHE": "the response cache's sqlite file (default `~/.cache/merabench/responses.sqlite`)",
    "LM_EVAL_JUDGE_MODEL": "the judge model when `--judge-model` is not given (the public harness's name)",
    "LM_EVAL_JUDGE_API_BASE": "the judge's server root when `--judge-base-url` is not given (`/v1` is added, as the harness does; the flag takes the URL up to `/v1`)",
    "LM_EVAL_JUDGE_API_KEY": "the judge's API key when `--judge-api-key` is not given",
    "LM_EVAL_JUDGE_PROMPT": "the judge template's text itself (as the harness reads it) when `--judge-prompt` is not given",
    "HF_TOKEN": "the Hugging Face token for `--data hub` (gated datasets)",
    "HF_ENDPOINT": "the hub's address for `--data hub` (default `https://huggingface.co`)",
    "HF_HUB_OFFLINE": "`1`: `--data hub` reads only the local hub cache, without asking the hub (also `HF_DATASETS_OFFLINE`)",
    "HF_DATASETS_OFFLINE": "as `HF_HUB_OFFLINE`",
    "HF_HOME": "where the hub cache is looked for (default `~/.cache/huggingface`)",
    "HF_HUB_CACHE": "the hub's file cache (default `$HF_HOME/hub`)",
    "HF_DATASETS_CACHE": "the datasets cache (default `$HF_HOME/datasets`)",
    "MERABENCH_SCORING_WORKERS": "processes that score a large task (default: the CPUs available, at most 8)",
    "COLUMNS": "the width of tables printed to a pipe or file (default 160; a terminal's own width otherwise)",
    "FORCE_TERMINAL": "show the live progress bars even when stderr is not a terminal",
    "CUDA_VISIBLE_DEVICES": "the GPUs `--serve-replicas` may use (else the NVIDIA driver's list); each replica gets its own",
    "HUGGING_FACE_HUB_TOKEN": "the older name of `HF_TOKEN`; like every credential, masked in what merabench writes",
}


def _cell(text: str) -> str:
    """Help text in a table cell: one line, and `<model>` shown, not read as an HTML tag."""
    return " ".join(text.split()).replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def _flags(param: Any, ctx: Any) -> str:
    """The flags and metavar as `--help` prints them."""
    record = param.get_help_record(ctx)
    return f"`{record[0] if record else param.name}`"


def _default(param: Any) -> str:
    value = param.default
    if param.param_type_name == "option" and param.is_flag:
        chosen = param.opts[0] if value else (param.secondary_opts or ["(off)"])[0]
        return f"`{chosen}`"
    if value is None or value == [] or value == ():
        return ""
    if isinstance(value, list | tuple):
        value = " ".join(str(v) for v in value)
    return f"`{value}`"


def _table(params: list[Any], ctx: Any) -> list[str]:
    lines = ["| option | default | what it does |", "| --- | --- | --- |"]
    for param in params:
        lines.append(f"| {_flags(param, ctx)} | {_default(param)} | {_cell(param.help or '')} |")
    return lines


def _sources() -> list[str]:
    """What `--model` can name, from the one table of sources (models/sources.py)."""
    from merabench.models.sources import SOURCES

    lines = ["## Model sources", "", "`--model` names one of these (a baseline needs no model and sends no request).",
             "", "| `--model` | what answers | needs |", "| --- | --- | --- |"]
    lines += [f"| `{s.spelling}` | {'a baseline: ' if s.is_baseline else ''}{_cell(s.help)} | "
              f"{f'`{s.install}`' if s.install else ''} |" for s in SOURCES]
    return lines + [""]


def render() -> str:
    from merabench.cli.help import OTHER, grouped
    from merabench.cli.main import command_group

    group = command_group()
    lines = ["# merabench command-line reference", "",
             "Written by `python tools/cli_reference.py` from the CLI itself; `merabench COMMAND --help` "
             "prints the same. `merabench --version` prints the version, `merabench` alone this list of "
             "commands.", ""]
    lines += [f"- [`merabench {name}`](#merabench-{name}): {_cell(cmd.help or '').split('. ')[0].rstrip('.')}"
              for name, cmd in group.commands.items()]
    lines += ["- [Model sources](#model-sources): what `--model` can name",
              "- [Environment variables](#environment-variables)", ""]
    for name, cmd in group.commands.items():
        ctx = cmd.make_context(name, [], resilient_parsing=True)
        usage = " ".join(cmd.collect_usage_pieces(ctx))
        lines += [f"## merabench {name}", "", f"`merabench {name} {usage}`", "", _cell(cmd.help or ""), ""]
        arguments = [p for p in cmd.params if p.param_type_name == "argument"]
        if arguments:
            lines += ["| argument | what it is |", "| --- | --- |"]
            lines += [f"| {_flags(p, ctx)} | {_cell(p.help or '')} |" for p in arguments]
            lines.append("")
        panels = grouped(cmd.params)
        for panel, params in panels:
            if len(panels) > 1:
                lines += [f"**{'Options' if panel == OTHER else panel}**", ""]
            lines += _table(params, ctx) + [""]
    lines += _sources()
    lines += ["## Environment variables", "", "| variable | what it sets |", "| --- | --- |"]
    lines += [f"| `{name}` | {what} |" for name, what in ENVIRONMENT.items()]
    return "\n".join(lines) + "\n"


def main() -> None:
    sys.path.insert(0, str(ROOT / "src"))
    PAGE.parent.mkdir(exist_ok=True)
    PAGE.write_text(render(), encoding="utf-8")
    print(f"wrote {PAGE}")


if __name__ == "__main__":
    main()
