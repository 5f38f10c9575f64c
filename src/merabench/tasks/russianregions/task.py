"""RussianRegions: multiple-choice questions on Russian regionalisms (spec/russianregions.md)."""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence

from merabench.records import Judgement
from merabench.rows.prompts import Message, render_row
from merabench.rows.row import Row
from merabench.tasks.base import Aggregate, Aggregation, MetricSpec, SampleScore, Task
from merabench.tasks.judge_protocol import HarnessTemplate, harness_instruction, short_hash
from merabench.tasks.russianregions import metrics
from merabench.tasks.russianregions.extract import LETTERS, readings, reference_letter
from merabench.tasks.russianregions.judge import JUDGE_TEMPLATE, judge_messages, parse_verdict


class RussianRegionsTask(Task):
    name = "russianregions"
    aggregated_details = ("judge_status", "judge_no_number", "judge_failed_calls", "judge_call_error")
    mera_name = "RussianRegions"
    required_inputs = frozenset({"option_a", "option_b", "option_c", "option_d"})
    # the card: 5 prompt variants per question type, each an instruction with these three blocks
    wording_fields = ("introduction", "task_formulation", "format_description")

    def wording_group(self, row: Row) -> Hashable:
        return row.meta.get("task_type")

    def reference_problem(self, reference: str) -> str | None:
        from merabench.tasks.russianregions.extract import reference_letter

        if reference_letter(reference) not in ("А", "Б", "В", "Г"):
            return "must start with the letter of an option (А, Б, В or Г)"
        return None
    hub_id = "MERA-evaluation/RussianRegions"
    description = "multiple-choice questions on Russian regionalisms; exact match, group match, LLM judge"
    uses_judge = True
    metrics = (
        MetricSpec("exact_match", "normalised answer equals the reference (best of two readings)", True),
        MetricSpec("group_exact_match", "share of regionalism groups answered all right", True,
                   aggregation=Aggregation.ALL_OR_NOTHING, group_of=metrics.group_of),
        MetricSpec("judge_score", "LLM judge 0 / 0.5 / 1, rows it scored (needs --judge-model)", True),
        MetricSpec("group_judge_score", "groups the judge marked all fully right (needs --judge-model)", True,
                   aggregation=Aggregation.ALL_OR_NOTHING, group_of=metrics.group_of),
        MetricSpec("letter_accuracy", "chosen letter right, ignoring the unit and formatting"),
        MetricSpec("format_error_rate", "no reading of the answer yields an answer letter", higher_is_better=False),
    )

    def score(self, row: Row, answer: str, judgement: Judgement | None = None) -> SampleScore:
        return metrics.score_answer(row, answer, judgement)

    def judge_prompts(self, row: Row, answer: str, template: HarnessTemplate | None = None) -> list[list[Message]]:
        """One judge request per distinct reading; the judge score is the best of them."""
        if template is not None:
            instruction = harness_instruction(row.instruction, dict(row.inputs))
            return [template.messages(instruction, row.outputs, reading) for reading in readings(answer)]
        task_text = render_row(row)
        return [judge_messages(task_text, row.outputs, reading) for reading in readings(answer)]

    def judge_value(self, reply: str) -> float | None:
        return parse_verdict(reply)

    def judge_template_sha(self) -> str:
        return short_hash(JUDGE_TEMPLATE)

    def aggregate(self, rows: Sequence[Row], scores: Sequence[SampleScore | None]) -> Aggregate:
        return metrics.aggregate(self.metrics, rows, scores)

    def copy_answer(self, row: Row) -> str:
        """Always the first letter that is not the reference: well-formed and wrong."""
        wrong = next(letter for letter in LETTERS if letter != reference_letter(row.outputs))
        return f"Ответ: {wrong}"

    def random_answer(self, row: Row, rng: random.Random) -> str:
        return f"Ответ: {rng.choice(LETTERS)}"
