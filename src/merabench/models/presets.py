"""Generation presets: the request parameters of a known protocol, which explicit flags override.

`mera` is the public harness's effective default for these tasks (lm-evaluation-harness
generate_until with no generation_kwargs: 256 new tokens, stop at a blank line, greedy, seed
1234), the setting whose numbers compare with the leaderboard. `mera-reasoning` is its setting
for reasoning models (32,768 tokens, stop only at the end-of-turn tokens). Without a preset
merabench sends 4,096 tokens at temperature 0 (a chat endpoint; a reasoning one keeps its own
default) with no stop and no seed.
"""

from __future__ import annotations

from typing import Any

from merabench.errors import ConfigError

END_OF_TURN = ("<|im_end|>", "<|eot_id|>", "</s>")  # the harness's order, sent as it sends it

PRESETS: dict[str, dict[str, Any]] = {
    "mera": {"max_tokens": 256, "temperature": 0.0, "seed": 1234, "stop": ("\n\n",)},
    "mera-reasoning": {"max_tokens": 32768, "temperature": 0.0, "seed": 1234, "stop": END_OF_TURN},
}
DEFAULTS: dict[str, Any] = {"max_tokens": 4096, "temperature": None, "seed": None, "stop": ()}


def resolve(preset: str | None, explicit: dict[str, Any]) -> dict[str, Any]:
    """Defaults, then the preset, then every explicitly given (not None) value."""
    if preset is not None and preset not in PRESETS:
        raise ConfigError(f"unknown --preset '{preset}'; known: {', '.join(PRESETS)}")
    values = dict(DEFAULTS)
    values.update(PRESETS.get(preset or "", {}))
    values.update({k: v for k, v in explicit.items() if v is not None})
    return values
