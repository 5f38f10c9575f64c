"""What the report shows of one row, per task: the attributes it is filtered by, the verdict of
each check or edit with its reason, and the failure classes its chart counts. Pure functions of a
samples record and the data row (None when the data could not be read again)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from merabench.rows.row import Row
from merabench.tasks.sage.edit_notes import describe, why

#: a verdict line: (what was checked, passed or not (None: not a pass/fail), why); an empty or
#: short "why" is looked up in HELP by itself, by the label, or by the label's part before ':'
#: (a 10,000-row page carries each explanation once)
Verdict = tuple[str, bool | None, str]

REQUEST_FAILED = "request failed"
NO_ANSWER = "no answer to score"  # a score folder's row without one: no request was made there
EDIT_CHARS = 300  # of an edit's source or corrected span in a verdict line (a think block can be long)
NOT_ASKED_CLASS = "not asked (the run stopped at a limit)"

GORILLA_REASONS = {
    "empty_answer": "the answer is empty",
    "no_object_found": "no JSON object in the answer",
    "not_json": "the answer is not JSON",
    "no_envelope": "JSON, but no object has an envelope key (tool, plan, calls, abstain, clarify)",
    "format": "a format check failed",
    "wrong_kind": "answered with another kind of envelope than the reference's",
    "tool_not_in_catalog": "named a tool the catalog does not hold",
    "twin_tool": "picked the look-alike tool of the reference tool's family",
    "wrong_tool": "picked another tool",
    "missing_arg": "an argument the reference has is missing",
    "extra_arg": "an argument the reference lacks",
    "arg_value": "an argument has another value",
    "args_not_object": "args is not an object",
    "plan_length": "the plan has another number of steps",
    "plan_order": "the plan's steps are in another order",
    "calls_missing": "a parallel call of the reference is missing",
    "calls_extra": "a parallel call the reference lacks",
    "injected_tool_called": "called the tool a planted instruction asked for",
    "quirk": "the compatible scorer's verdict, arguably wrong",
}
GORILLA_CHECKS = {
    "json_parsable": "the answer parses as JSON",
    "exactly_one_object": "exactly one JSON object",
    "top_level_is_object": "the top level is an object",
    "no_text_around": "no text around the object",
    "single_line": "on one line",
    "no_code_fence": "no ``` fence",
    "no_duplicate_keys": "no key twice",
    "keys_exact": "exactly the envelope's keys",
    "value_types": "values of the envelope's types",
}
SAGE_VERDICTS = {"TP": "TP: the reference makes this edit too",
                 "FP": "FP: the model made this edit, the reference does not",
                 "FN": "FN: the reference makes this edit, the model did not"}
HELP = {**GORILLA_REASONS, **GORILLA_CHECKS, **SAGE_VERDICTS}


@dataclass(frozen=True)
class View:
    """One task's way of showing its rows."""

    attributes: tuple[str, ...]  # the filter keys, in column order

    def attrs(self, row: Row | None) -> dict[str, str]:
        return {}

    def verdicts(self, record: dict[str, Any], row: Row | None) -> list[Verdict]:
        return []

    def failures(self, record: dict[str, Any], row: Row | None) -> list[str]:
        """The failure classes of a row that did not score full marks (what the chart counts)."""
        return []

    def scored_text(self, task: Any, raw: str, strip_think: bool) -> str:
        """The text the scorer read."""
        return task.scored_answer(raw, strip_think=strip_think)

    def source(self, row: Row | None) -> str | None:
        """The text the task asks the model to work on, shown beside the answer (None: the prompt is it)."""
        return None


class SageView(View):
    def attrs(self, row: Row | None) -> dict[str, str]:
        return {"type": str(row.meta["category"])} if row is not None and "category" in row.meta else {}

    def source(self, row: Row | None) -> str | None:
        return row.inputs.get("source") if row is not None else None

    def verdicts(self, record: dict[str, Any], row: Row | None) -> list[Verdict]:
        details = record.get("details") or {}
        edits = list(details.get("hypothesis_edits") or []) + [
            e for e in details.get("reference_edits") or [] if e.get("verdict") == "FN"]
        lines: list[Verdict] = []
        for edit in sorted(edits, key=lambda e: (e.get("verdict") == "TP", (e.get("span") or [0])[0])):
            verdict, notes = str(edit.get("verdict")), why(edit)
            reason = f"{SAGE_VERDICTS.get(verdict, verdict)}; " + "; ".join(notes) if notes else verdict
            lines.append((describe(edit, limit=EDIT_CHARS), verdict == "TP", reason))
        return lines

    def failures(self, record: dict[str, Any], row: Row | None) -> list[str]:
        counts = (record.get("details") or {}).get("counts") or {}
        found = []
        for edit_type, value in counts.items():
            if isinstance(value, list) and len(value) == 3:
                found += [f"FP {edit_type}"] * bool(value[1]) + [f"FN {edit_type}"] * bool(value[2])
        return found


class RegionsView(View):
    def attrs(self, row: Row | None) -> dict[str, str]:
        return {"type": f"type {row.meta['task_type']}"} if row is not None and "task_type" in row.meta else {}

    def verdicts(self, record: dict[str, Any], row: Row | None) -> list[Verdict]:
        details, metrics = record.get("details") or {}, record.get("metrics") or {}
        letters = details.get("letters") or []
        lines: list[Verdict] = []
        target = _reference_letter(row)
        lines.append((f"letter read: {', '.join(letters) or 'none'}", (target in letters) if target else None,
                      f"the reference's letter is {target}" if target else "no reference"))
        for reading in details.get("readings") or []:
            lines.append((f"reading {reading!r}", None, "compared, normalised, with the reference"))
        if "exact_match" in metrics:
            lines.append(("exact_match", metrics["exact_match"] == 1.0, "a reading equals the reference after "
                          "normalisation" if metrics["exact_match"] == 1.0 else "no reading equals the reference"))
        if "judge_status" in details:
            judged = metrics.get("judge_score")
            lines.append(("judge", None if judged is None else judged == 1.0,
                          details.get("judge_error") or f"judge_score {judged}"))
        return lines

    def failures(self, record: dict[str, Any], row: Row | None) -> list[str]:
        metrics = record.get("metrics") or {}
        if metrics.get("exact_match") != 0.0:
            return []
        if metrics.get("format_error_rate") == 1.0:
            return ["no letter (format)"]
        if metrics.get("letter_accuracy") == 0.0:
            return ["wrong letter"]
        needs_unit = row is not None and row.meta.get("task_type") in (2, 3)
        return ["right letter, wrong or missing unit" if needs_unit else "right letter, text around it"]


def _reference_letter(row: Row | None) -> str | None:
    if row is None or not row.outputs.strip():
        return None
    return row.outputs.split(";", 1)[0].strip().upper()


class GorillaView(View):
    KEYS = {"tier": "difficulty", "lever": "lever", "family": "family", "kind": "answer_kind"}

    def scored_text(self, task: Any, raw: str, strip_think: bool) -> str:
        from merabench.tasks.gorillahard.parse import normalize

        return normalize(raw)  # the task's own normalisation, think blocks out whatever the flag

    def attrs(self, row: Row | None) -> dict[str, str]:
        categories = (row.meta.get("categories") or {}) if row is not None else {}
        return {name: str(categories[key]) for name, key in self.KEYS.items() if categories.get(key) not in (None, "")}

    def verdicts(self, record: dict[str, Any], row: Row | None) -> list[Verdict]:
        details = record.get("details") or {}
        lines: list[Verdict] = [(name, bool(ok), "") for name, ok in
                                sorted((details.get("checks") or {}).items(), key=lambda kv: bool(kv[1]))]
        if "kind" in details or "expected_kind" in details:
            kind, expected = details.get("kind"), details.get("expected_kind")
            lines.insert(0, (f"envelope kind: {kind or 'none'}", kind == expected if expected else None,
                             f"the reference's kind: {expected}"))
        for reason in details.get("reasons") or []:
            lines.insert(0, (str(reason), False, ""))
        return lines

    def failures(self, record: dict[str, Any], row: Row | None) -> list[str]:
        """Each reason once, with its detail kept where it names a check or an envelope kind (it
        varies with the tool or the argument otherwise)."""
        found = []
        for reason in (record.get("details") or {}).get("reasons") or []:
            head, _, detail = str(reason).partition(":")
            label = str(reason) if head in ("format", "wrong_kind", "quirk") else head
            if label not in found:
                found.append(label)
        return found


VIEWS: dict[str, View] = {"sage": SageView(("type",)), "russianregions": RegionsView(("type",)),
                          "gorillahard": GorillaView(("tier", "lever", "family", "kind"))}


def view_of(task: str) -> View:
    return VIEWS.get(task, View(()))



def why_of(verdict: Verdict) -> str:
    """A verdict's explanation as the page finds it: its own text, or HELP's for it or its label."""
    label, _, why = verdict
    return HELP.get(why) or why or HELP.get(label) or HELP.get(label.split(":")[0]) or ""


def explained(task: Any, row: Row, answer: str) -> str:
    """`merabench score --explain ID`: the task's own account, else the generic one below."""
    return task.explain(row, answer) or explain(task, row, answer)


def explain(task: Any, row: Row, answer: str) -> str:
    """The generic account of one answer's score, for a task without its own: the answer (and the text the
    scorer read, when that differs), the reference, each check with its verdict, and each metric
    of the row marked by whether it is at its best."""
    score = task.score(row, answer)
    view = view_of(task.name)
    scored = view.scored_text(task, answer, False)
    lines = [f"answer:      {answer!r}"]
    if scored != answer:
        lines.append(f"scored text: {scored!r}  (what the scorer read)")
    lines.append(f"reference:   {row.outputs!r}" if row.outputs.strip() else "reference:   none (the row has no answer)")
    record = {"status": "ok", "output": answer, "metrics": score.metrics, "details": score.details}
    checks = (score.details.get("checks") or {}) if isinstance(score.details, dict) else {}
    verdicts = [v for v in view.verdicts(record, row)
                if not (checks and v[0].startswith("format:"))]  # each failed check is listed below by itself
    if verdicts:
        lines += ["", "verdicts:"]
        for verdict in verdicts:
            mark = "·" if verdict[1] is None else "✓" if verdict[1] else "✗"
            explanation = why_of(verdict)
            lines.append(f"  {mark} {verdict[0]}" + (f": {explanation}" if explanation else ""))
    lines += ["", "metrics of this row:"]
    specs = {m.name: m for m in task.metrics}
    width = max((len(name) for name in score.metrics), default=0)
    for name, value in score.metrics.items():
        better = specs[name].higher_is_better if name in specs else True
        best, worst = (1.0, 0.0) if better else (0.0, 1.0)
        mark = "✓" if value == best else "✗" if value == worst else "·"
        lines.append(f"  {mark} {name:<{width}}  {value:.4f}")
    if task.uses_judge:
        lines.append("  (the judge is not asked here: a judged row's judge_score is in the samples file)")
    return "\n".join(lines)
