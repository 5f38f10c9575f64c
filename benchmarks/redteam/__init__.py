"""A red-team solver for GorillaHard sets: answers a row with rules and file parsing, no model.
A measuring instrument for the team (benchmarks/gorillahard_redteam.py), not shipped in the package."""
