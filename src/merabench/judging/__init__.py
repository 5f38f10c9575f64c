"""The judging stage: LLM-judge requests for the tasks with a judged metric, and their prompts."""
