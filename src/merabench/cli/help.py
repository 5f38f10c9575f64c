"""How the CLI presents itself: options grouped in panels in the plain-text help, and commands
that are another command with some options renamed (`export-requests`, `import-responses` are
`run`), each with its own usage line and help."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import Any

from typer.core import TyperArgument, TyperCommand

# run's panels, in the order the help prints them
MODEL = "Model and endpoints"
GENERATION = "Generation"
DATA = "Data"
CONTROL = "Run control"
JUDGE = "Judge"
COST = "Cost and limits"
SERVING = "Serving"
BATCH = "Batch API"
OUTPUT = "Output"
PANELS = (MODEL, GENERATION, DATA, CONTROL, JUDGE, COST, SERVING, BATCH, OUTPUT)
OTHER = "Other options"  # an option given no panel (--help among them)


def panel_of(param: Any) -> str | None:
    return getattr(param, "rich_help_panel", None)


def grouped(params: Iterable[Any]) -> list[tuple[str, list[Any]]]:
    """Options by panel: the known panels in their order, then any other panel in order of first
    appearance, then the options without one."""
    groups: dict[str, list[Any]] = {}
    for param in params:
        if getattr(param, "param_type_name", "") == "option":
            groups.setdefault(panel_of(param) or OTHER, []).append(param)
    order = [p for p in PANELS if p in groups] + [p for p in groups if p not in PANELS and p != OTHER]
    return [(name, groups[name]) for name in order + ([OTHER] if OTHER in groups else [])]


class PanelledCommand(TyperCommand):
    """typer's plain help (no rich boxes, nothing read as markup) with the options in panels."""

    def format_options(self, ctx: Any, formatter: Any) -> None:
        arguments = [r for p in self.get_params(ctx) if p.param_type_name == "argument"
                     and (r := p.get_help_record(ctx)) is not None]
        if arguments:
            with formatter.section("Arguments"):
                formatter.write_dl(arguments)
        groups = grouped(self.get_params(ctx))
        for name, params in groups:
            records = [r for p in params if (r := p.get_help_record(ctx)) is not None]
            if records:  # a command without panels keeps click's one "Options" section
                with formatter.section("Options" if len(groups) == 1 else name):
                    formatter.write_dl(records)

_KEEP: Any = object()


def renamed_option(param: Any, flag: str, *, help: str | None = None, panel: str | None = None,
                   default: Any = _KEEP) -> Any:
    """The same parameter (same name and type; the same default unless another is given: the
    callback gets it as before) under another flag."""
    clone = copy.copy(param)
    clone.opts, clone.secondary_opts = [flag], []
    if default is not _KEEP:
        clone.default = default
        clone.show_default = False
    if help is not None:
        clone.help = help
    if panel is not None:
        clone.rich_help_panel = panel
    return clone


def as_argument(param: Any, metavar: str, help: str) -> Any:
    """An option of the base command taken as an optional positional argument of the same name."""
    return TyperArgument(param_decls=[param.name], type=param.type, required=False, default=None,
                         metavar=metavar, help=help)


def derived_command(name: str, base: Any, *, help: str, replace: dict[str, Any] | None = None, drop: Iterable[str] = (),
                    check: Callable[[dict[str, Any]], None] | None = None, leading: Iterable[Any] = ()) -> Any:
    """`base` under another name: its parameters with those named in `replace` swapped for the
    given ones and those in `drop` left out; `check` sees the values before base's callback."""
    dropped = set(drop)
    params = list(leading) + [(replace or {}).get(p.name, p) for p in base.params if p.name not in dropped]

    def callback(**values: Any) -> Any:
        if check is not None:
            check(values)
        return base.callback(**values)

    return PanelledCommand(name, callback=callback, params=params, help=help,
                           context_settings=base.context_settings, rich_markup_mode=None)
