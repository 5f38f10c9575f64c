"""Model-like GorillaHard answers for a set of rows: the reference and the ways models get it wrong.

Each variant is a (label, answer) pair built from the row's reference and catalog: formatting
slips (code fences, prose around, several objects, pretty-printing, Python dicts, think blocks in
any case, truncated traces), content slips (twin tools, invented tools, changed or retyped
arguments, reordered plans, wrong envelopes, the OpenAI shape, the injected tool) and hostile text
(empty, NaN, huge numbers, unclosed braces and strings, duplicate keys).

    python tools/gorillahard_answer_variants.py --data DIR --out answers.jsonl          # one per row
    python tools/gorillahard_answer_variants.py --data DIR --out cases.jsonl --all      # every variant

The first writes merabench predictions `{"id", "output"}` (a seeded random variant per row); the
second writes `{"id", "label", "output"}` for every variant of every row, the input of the
differential case tables under tests/.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from merabench.rows.row import Row, read_bundled, read_local  # noqa: E402

Variant = tuple[str, str]


def dumps(value: Any, **kwargs: Any) -> str:
    return json.dumps(value, ensure_ascii=False, **kwargs)


def catalog_names(row: Row) -> list[str]:
    try:
        tools = json.loads(row.inputs.get("tools") or "[]")
    except ValueError:
        return []
    return [t["name"] for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)]


def families(row: Row) -> dict[str, str]:
    tools = json.loads(row.inputs.get("tools") or "[]")
    return {t["name"]: t.get("family", "") for t in tools if isinstance(t, dict) and "name" in t}


def steps_of(ref: dict[str, Any]) -> list[dict[str, Any]]:
    if "tool" in ref:
        return [ref]
    return list(ref.get("plan") or ref.get("calls") or [])


def other_tool(row: Row, tool: str, *, twin: bool) -> str | None:
    fam = families(row)
    pool = [n for n in fam if n != tool and (fam[n] == fam.get(tool)) == twin]
    return sorted(pool)[0] if pool else None


def with_first_step(ref: dict[str, Any], change: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
    if "tool" in ref:
        return change(dict(ref))
    key = "plan" if "plan" in ref else "calls"
    steps = [dict(s) for s in ref[key]]
    steps[0] = change(steps[0])
    return {**ref, key: steps}


def retyped(value: Any) -> Any:
    """The same value as a model might spell it: numbers as strings, booleans in capitals."""
    if isinstance(value, bool):
        return "TRUE" if value else "False"
    if isinstance(value, int | float):
        return str(value) if isinstance(value, int) else f" {value} "
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return " " + value + " "
    return value


def format_variants(reference: str, ref: dict[str, Any]) -> Iterator[Variant]:
    pretty = dumps(ref, indent=2)
    yield "reference", reference
    yield "compact", dumps(ref, separators=(",", ":"))
    yield "reordered_keys", dumps(dict(reversed(list(ref.items()))))
    yield "pretty_printed", pretty
    yield "fenced_json", f"```json\n{reference}\n```"
    yield "fenced_one_line", f"```{reference}```"
    yield "tilde_fence", f"~~~\n{reference}\n~~~"
    yield "prose_before", f"Вот нужный вызов: {reference}"
    yield "prose_after", f"{reference}\nГотово, вызов выше."
    yield "prose_both", f"Ответ:\n{reference}\nЕсли нужно, уточню."
    yield "leading_trailing_space", f"  \n {reference} \n\n"
    yield "note_then_envelope", f'{{"note": "черновик"}} {reference}'
    yield "envelope_then_note", f'{reference} {{"note": "готово"}}'
    yield "twice", f"{reference}\n{reference}"
    yield "think_block", f"<think>Смотрю файл, считаю {{строки}}.</think>\n{reference}"
    yield "think_upper", f"<THINK>рассуждаю</THINK>{reference}"
    yield "think_mixed_case", f"<Think>план</tHiNk> {reference}"
    yield "think_unclosed", f"{reference}<think>а может, другой инструмент"
    yield "think_unclosed_before", f"<think>долго думаю {reference}"
    yield "stray_close", f"</think>{reference}"
    yield "think_in_string", reference.replace("{", '{"_": "<think>x</think>", ', 1)
    yield "array_wrapped", f"[{reference}]"
    yield "string_wrapped", dumps(reference)
    yield "python_dict", repr(ref)
    yield "trailing_comma", reference[:-1] + ", }"
    yield "duplicate_key", reference[:-1] + ', "' + next(iter(ref)) + '": ' + dumps(next(iter(ref.values()))) + "}"
    yield "unclosed", reference[:-1]
    yield "unclosed_then_object", "{ начало " + reference
    yield "brace_in_prose_first", "Формат {tool, args}: " + reference
    yield "tab_in_string", reference.replace('": "', '": "\t', 1)
    yield "crlf_pretty", pretty.replace("\n", "\r\n")


def content_variants(row: Row, ref: dict[str, Any]) -> Iterator[Variant]:
    names = catalog_names(row)
    injected = (row.meta.get("categories") or {}).get("injected_tool") or ""
    steps = steps_of(ref)
    if steps:
        first = steps[0]
        tool, args = first.get("tool"), first.get("args") or {}
        twin = other_tool(row, tool, twin=True)
        if twin:
            yield "twin_tool", dumps(with_first_step(ref, lambda s: {**s, "tool": twin}))
        other = other_tool(row, tool, twin=False)
        if other:
            yield "other_tool", dumps(with_first_step(ref, lambda s: {**s, "tool": other}))
        yield "invented_tool", dumps(with_first_step(ref, lambda s: {**s, "tool": str(s["tool"]) + "_v2"}))
        yield "tool_upper", dumps(with_first_step(ref, lambda s: {**s, "tool": str(s["tool"]).upper()}))
        yield "tool_spaced", dumps(with_first_step(ref, lambda s: {**s, "tool": f" {s['tool']}"}))
        yield "tool_empty", dumps(with_first_step(ref, lambda s: {**s, "tool": ""}))
        yield "tool_null", dumps(with_first_step(ref, lambda s: {**s, "tool": None}))
        yield "args_retyped", dumps(with_first_step(ref, lambda s: {**s, "args": {k: retyped(v) for k, v in args.items()}}))
        yield "args_extra", dumps(with_first_step(ref, lambda s: {**s, "args": {**args, "limit": 10}}))
        if args:
            key = next(iter(args))
            yield "args_missing", dumps(with_first_step(ref, lambda s: {**s, "args": {k: v for k, v in args.items() if k != key}}))
            yield "args_value_changed", dumps(with_first_step(ref, lambda s: {**s, "args": {**args, key: "другое.txt"}}))
            yield "args_null_value", dumps(with_first_step(ref, lambda s: {**s, "args": {**args, key: None}}))
            yield "args_none_string", dumps(with_first_step(ref, lambda s: {**s, "args": {**args, key: "None"}}))
            yield "args_nan", dumps(with_first_step(ref, lambda s: {**s, "args": {**args, key: float("nan")}}))
            yield "args_huge", dumps(with_first_step(ref, lambda s: {**s, "args": {**args, key: 1e400}}))
        yield "args_list", dumps(with_first_step(ref, lambda s: {**s, "args": list(args.values())}))
        yield "args_null", dumps(with_first_step(ref, lambda s: {**s, "args": None}))
        yield "args_string", dumps(with_first_step(ref, lambda s: {**s, "args": dumps(args)}))
        yield "openai_shape", dumps({"name": tool, "arguments": args})
        yield "openai_shape_string_args", dumps({"name": tool, "arguments": dumps(args)})
        yield "note_then_openai_shape", '{"note": "вызов"} ' + dumps({"name": tool, "arguments": args})
        yield "openai_shape_then_note", dumps({"name": tool, "arguments": args}) + ' {"note": "готово"}'
        yield "name_only_then_note", dumps({"name": tool}) + ' {"note": "готово"}'
        yield "function_wrapper", dumps({"function": {"name": tool, "arguments": args}})
        yield "step_extra_key", dumps(with_first_step(ref, lambda s: {**s, "id": 1}))
        if "tool" in ref:
            yield "as_one_step_plan", dumps({"plan": [ref]})
            yield "as_calls", dumps({"calls": [ref, ref]})
        else:
            key = "plan" if "plan" in ref else "calls"
            other_key = "calls" if key == "plan" else "plan"
            yield "reversed_steps", dumps({key: list(reversed(ref[key]))})
            yield "other_envelope", dumps({other_key: ref[key]})
            yield "first_step_only", dumps(steps[0])
            yield "one_step_list", dumps({key: ref[key][:1]})
            yield "duplicated_step", dumps({key: ref[key] + ref[key][:1]})
            yield "non_dict_step", dumps({key: ref[key] + [5]})
            yield "both_envelopes", dumps({"plan": ref[key], "calls": ref[key]})
    if injected:
        yield "injected_call", dumps({"tool": injected, "args": {}})
        yield "injected_in_calls", dumps({"calls": [{"tool": injected, "args": {}}] + steps[:1]})
    if names:
        yield "random_catalog_tool", dumps({"tool": names[-1], "args": {}})


def kind_variants(ref: dict[str, Any]) -> Iterator[Variant]:
    yield "abstain", dumps({"abstain": True, "reason": "Не могу выполнить: в файле нет нужных данных."})
    yield "abstain_false", dumps({"abstain": False, "reason": "могу"})
    yield "abstain_string_true", dumps({"abstain": "true", "reason": "нет"})
    yield "abstain_empty_reason", dumps({"abstain": True, "reason": "  "})
    yield "abstain_no_reason", dumps({"abstain": True})
    yield "abstain_extra_key", dumps({"abstain": True, "reason": "нет", "tool": "x"})
    yield "clarify", dumps({"clarify": "Какой из двух файлов имеется в виду?"})
    yield "clarify_empty", dumps({"clarify": ""})
    yield "clarify_list", dumps({"clarify": ["а?", "б?"]})
    yield "clarify_with_tool", dumps({"clarify": "уточните", "tool": "x", "args": {}})
    yield "unknown_keys", dumps({"answer": "42"})
    yield "empty_object", "{}"


def hostile_variants() -> Iterator[Variant]:
    yield "empty", ""
    yield "whitespace", " \n\t "
    yield "null", "null"
    yield "number", "42"
    yield "nan_literal", "NaN"
    yield "empty_list", "[]"
    yield "prose_only", "Я бы вызвал table.mean по колонке цены."
    yield "nested_unclosed", "{{{"
    yield "deep_nesting", "{" * 50 + "}" * 50
    yield "unclosed_string", '{"tool": "a, "args": {}}'
    yield "only_think", "<think>рассуждение без ответа</think>"
    yield "closing_braces_only", "}}} {"
    yield "escaped_quote_braces", '{"tool": "t\\"}", "args": {}} хвост'


def variants(row: Row) -> list[Variant]:
    reference = row.outputs.strip()
    try:
        ref = json.loads(reference)
    except ValueError:
        ref = None
    out: list[Variant] = []
    if isinstance(ref, dict):
        out += format_variants(reference, ref)
        out += content_variants(row, ref)
        out += kind_variants(ref)
    out += hostile_variants()
    seen: set[str] = set()
    unique = []
    for label, answer in out:
        if answer not in seen:
            seen.add(answer)
            unique.append((label, answer))
    return unique


def load_rows(spec: str) -> list[Row]:
    splits = read_bundled("gorillahard") if spec == "bundled" else read_local(Path(spec))
    return list(splits["test"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="bundled", help="bundled, or a folder/file of GorillaHard rows")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--all", action="store_true", help="every variant of every row")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    lines = []
    for row in load_rows(args.data):
        options = variants(row)
        if args.all:
            lines += [{"id": row.id, "label": label, "output": answer} for label, answer in options]
        else:
            label, answer = rng.choice(options)
            lines.append({"id": row.id, "label": label, "output": answer})
    args.out.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    print(f"wrote {len(lines)} answers to {args.out}")


if __name__ == "__main__":
    main()
