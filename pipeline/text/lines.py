"""Line-start tables: char offset <-> line number."""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right

_NEWLINE = re.compile("\n")


def line_starts(src: str) -> array[int]:
    """Offsets where each line begins, plus ``len(src) + 1`` as a sentinel end."""
    starts = array("q", [0])
    starts.extend(m.end() for m in _NEWLINE.finditer(src))
    starts.append(len(src) + 1)
    return starts


def line_index(starts: array[int], offset: int) -> int:
    """0-based index of the line holding char ``offset``."""
    return max(0, bisect_right(starts, offset) - 1)


def trim_end(src: str, start: int, end: int) -> int:
    """``end`` (kept within ``[start, len(src)]``) moved back over trailing spaces, tabs
    and newlines, never before ``start``."""
    end = max(start, min(end, len(src)))
    while end > start and src[end - 1] in " \t\n":
        end -= 1
    return end
