"""Which token windows a text is embedded as, and how windows are batched.

all-MiniLM-L6-v2 was trained on at most 256 positions (sentence-transformers' max_seq_length)
while its position table has 512. A longer text is either truncated to the trained window
(what sentence-transformers does), embedded whole up to 512 positions, or split into windows
of at most 256 positions whose embeddings are averaged. Another model's trained window is
its folder's max_seq_length; a prompt prefix (e5's "passage: ") takes ``reserved`` positions
of every window, since each window is embedded as a text of its own.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Literal

Window = Literal["truncate", "whole", "split"]
Kind = Literal["query", "passage"]  # which of the model's prompts a text gets
WINDOWS: tuple[Window, ...] = ("truncate", "whole", "split")
TRAINED_POSITIONS = 256
SPECIAL_TOKENS = 2  # [CLS] and [SEP] around every window


def windows(
    ids: Sequence[int],
    window: Window,
    max_positions: int,
    trained_positions: int = TRAINED_POSITIONS,
    reserved: int = 0,
) -> list[Sequence[int]]:
    """Token ids of each window, without special tokens and the ``reserved`` prefix;
    always at least one (maybe empty)."""
    trained = max(1, min(trained_positions, max_positions) - SPECIAL_TOKENS - reserved)
    if window == "truncate":
        return [ids[:trained]]
    if window == "whole":
        return [ids[: max(1, max_positions - SPECIAL_TOKENS - reserved)]]
    if window == "split":
        # Equal-sized windows, so no short tail window weighs as much as a full one.
        count = max(1, math.ceil(len(ids) / trained))
        bounds = [round(i * len(ids) / count) for i in range(count + 1)]
        return [ids[a:b] for a, b in itertools.pairwise(bounds)]
    raise ValueError(f"window must be one of {WINDOWS}, got {window!r}")


def batches(lengths: Sequence[int], token_budget: int, by_length: bool) -> list[list[int]]:
    """Indices into ``lengths`` grouped into batches of at most ``token_budget`` padded
    positions (always at least one item). Sorting by length first means little padding."""
    order = (
        sorted(range(len(lengths)), key=lengths.__getitem__) if by_length else range(len(lengths))
    )
    result: list[list[int]] = []
    current: list[int] = []
    longest = 0
    for i in order:
        widest = max(longest, lengths[i])
        if current and widest * (len(current) + 1) > token_budget:
            result.append(current)
            current, widest = [], lengths[i]
        current.append(i)
        longest = widest
    if current:
        result.append(current)
    return result
