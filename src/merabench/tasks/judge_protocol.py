"""Judge prompt templates: the task's own (the default) or the public harness's protocol.

The public harness (MERA's `mera_judge.py` with `compute_llm_judge` of its lm-eval fork) sends one
user message, no system message, at temperature 0 with 256 tokens. Its template has five places:
`{instruction}` (the task text as the model saw it), `{reference_answer}`, `{answer}`,
`{criteria_name}` and `{criteria_rubrics}` (one criterion with its 0/1/2 rubric); other braces in
the template must be doubled. The score is the last number in the reply (`\\d+(\\.\\d+)?`) over 2,
clamped to [0, 1]. A judge_score is comparable with the leaderboard only under that protocol and
template: `--judge-prompt FILE` or `LM_EVAL_JUDGE_PROMPT` supplies the template, and
results.json records its hash and the judge model.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from merabench.errors import ConfigError
from merabench.rows.inputfile import read_text
from merabench.rows.prompts import Message

CRITERIA_NAME = "Правильность ответа"
CRITERIA_RUBRICS = (
    "0: Дан неправильный ответ или ответ отсутствует.\n\n"
    "1: Ответ модели неполный (не на все вопросы задания получен ответ, в формулировке ответа отсутствует "
    "часть информации).\n\n"
    "2: Ответ модели совпадает с эталонным или эквивалентен ему.")
MAX_SCORE = 2.0
MAX_TOKENS = 256
_NUMBER = re.compile(r"(\d+(?:\.\d+)?)")
PLACES = ("{instruction}", "{reference_answer}", "{answer}", "{criteria_name}", "{criteria_rubrics}")


def short_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@dataclass(frozen=True)
class HarnessTemplate:
    """A judge template in the public harness's protocol."""

    text: str
    origin: str   # where it came from: a file, or LM_EVAL_JUDGE_PROMPT

    @property
    def sha(self) -> str:
        return short_hash(self.text)

    def prompt(self, instruction: str, reference: str, answer: str) -> str:
        """The judge prompt exactly as the harness builds it: the fixed places replaced, the task
        text's braces doubled and put in last, then `str.format` fills the two answers."""
        template = (self.text.replace("{reference_answer}", "{reference}").replace("{answer}", "{prediction}")
                    .replace("{criteria_name}", CRITERIA_NAME).replace("{criteria_rubrics}", CRITERIA_RUBRICS)
                    .replace("{instruction}", instruction.replace("{", "{{").replace("}", "}}")))
        return template.format(reference=reference, prediction=answer)

    def messages(self, instruction: str, reference: str, answer: str) -> list[Message]:
        return [{"role": "user", "content": self.prompt(instruction, reference, answer)}]

    def check(self) -> None:
        try:
            self.prompt("задание {x}", "эталон", "ответ")
        except (KeyError, IndexError, ValueError) as exc:
            raise ConfigError(f"the judge template from {self.origin} does not format ({type(exc).__name__}: {exc}); "
                              f"its places are {', '.join(PLACES)}, other braces must be doubled") from None
        missing = [p for p in ("{reference_answer}", "{answer}") if p not in self.text]
        if missing:
            raise ConfigError(f"the judge template from {self.origin} lacks {' and '.join(missing)}")


def harness_score(reply: str) -> float | None:
    """The last number in the reply over 2, clamped to [0, 1]; None when there is none."""
    numbers = _NUMBER.findall(reply)
    if not numbers:
        return None
    return min(max(float(numbers[-1]) / MAX_SCORE, 0.0), 1.0)


def harness_instruction(instruction: str, inputs: dict[str, str]) -> str:
    """The task text as the harness gives it to the judge: `str.format` of the instruction, or the
    instruction as it is when that fails."""
    try:
        return instruction.format(**inputs)
    except (KeyError, IndexError, ValueError):
        return instruction


def load_template(path: Path | None) -> HarnessTemplate | None:
    """From --judge-prompt FILE, else LM_EVAL_JUDGE_PROMPT, else None (the task's own prompt)."""
    if path is not None:
        try:
            text = read_text(path, "--judge-prompt")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"--judge-prompt {path}: cannot read it ({exc})") from None
        template = HarnessTemplate(text, str(path))
    elif os.environ.get("LM_EVAL_JUDGE_PROMPT"):
        template = HarnessTemplate(os.environ["LM_EVAL_JUDGE_PROMPT"], "LM_EVAL_JUDGE_PROMPT")
    else:
        return None
    template.check()
    return template
