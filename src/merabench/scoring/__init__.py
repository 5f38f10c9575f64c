"""Scoring: answers (+ judgements) to scored rows, on every core, and bootstrap intervals."""
