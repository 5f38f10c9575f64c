"""All-or-nothing group metrics (RussianRegions groups, GorillaHard dialogues)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

from merabench.rows import Row


def group_all_or_nothing(rows: Sequence[Row], values: Sequence[float | None],
                         key: Callable[[Row], Hashable | None]) -> tuple[float | None, int, int]:
    """(mean over groups, groups counted, groups left out).

    A group scores 1 only if every row in it scores exactly 1. `None` marks a row without a
    score: its group still counts as 0 if another row already failed it, and is otherwise left
    out as unknown. Rows whose key is None belong to no group.
    """
    groups: dict[Hashable, list[float | None]] = {}
    for row, value in zip(rows, values, strict=True):
        group = key(row)
        if group is not None:
            groups.setdefault(group, []).append(value)
    results, unknown = [], 0
    for members in groups.values():
        if any(v is not None and v < 1.0 for v in members):
            results.append(0.0)
        elif all(v is not None for v in members):
            results.append(1.0)
        else:
            unknown += 1
    return (sum(results) / len(results) if results else None), len(results), unknown
