"""Pack a run of units into chunks near a target size, never over the maximum."""

from __future__ import annotations

import math
from collections.abc import Sequence

from .units import Unit


def pack(
    units: Sequence[Unit],
    target: int,
    maximum: int,
    *,
    headings: Sequence[bool],
    min_tokens: int = 0,
) -> list[tuple[int, int]]:
    """Split ``units`` into consecutive ``[i, j)`` runs.

    Balanced greedy: each run aims at ``remaining / ceil(remaining / target)`` so the
    last run is not a tiny remainder, may grow to ``maximum`` to get closer to that
    goal, prefers to break before a heading once half full (when the rest does not
    fit in one run anyway), never ends on a heading
    it could carry forward, and honours the unit rules (a prefixed unit opens a run,
    a suffixed unit closes one).
    """
    n = len(units)
    tail = [0] * (n + 1)
    for k in range(n - 1, -1, -1):
        tail[k] = tail[k + 1] + units[k].tokens
    runs: list[tuple[int, int]] = []
    i = 0
    while i < n:
        remaining = tail[i]
        goal = remaining / max(1, math.ceil(remaining / target))
        acc = 0
        j = i
        while j < n:
            u = units[j]
            if j > i:
                if u.prefix or acc + u.tokens > maximum or acc >= goal:
                    break
                if acc + u.tokens > goal and acc + u.tokens - goal > goal - acc:
                    break
                if headings[j] and remaining > target and acc >= max(min_tokens, goal / 2):
                    break
            acc += u.tokens
            j += 1
            if u.suffix:
                break
        while j - i > 1 and headings[j - 1] and not units[j - 1].suffix:
            j -= 1
        runs.append((i, j))
        i = j
    return runs
