"""Fenced code blocks in flat text (PDF code listings are emitted as fences)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*([^`\n]*?)[ \t]*$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Fence:
    start: int  # the opening fence line
    end: int  # the end of the closing fence line (before its newline)
    lang: str  # the info string's first word


def find_fences(src: str) -> list[Fence]:
    """Closed fences in order, CommonMark style (a closing fence of the same character at
    least as long as the opening one). An unclosed fence is left as text: in a plain text
    file it is more likely a stray line than code running to the end."""
    out: list[Fence] = []
    pos = 0
    while (m := _OPEN.search(src, pos)) is not None:
        mark = m.group(1)
        close = re.compile(rf"^ {{0,3}}{mark[0]}{{{len(mark)},}}[ \t]*$", re.MULTILINE)
        c = close.search(src, m.end() + 1) if m.end() < len(src) else None
        if c is None:
            pos = m.end() + 1
            continue
        info = m.group(2).split()
        out.append(Fence(m.start(), c.end(), info[0] if info else ""))
        pos = c.end() + 1
    return out


def fenced_lines(src: str) -> set[int]:
    """0-based numbers of the lines inside fences, fence lines included."""
    lines: set[int] = set()
    for f in find_fences(src):
        first = src.count("\n", 0, f.start)
        lines.update(range(first, first + src.count("\n", f.start, f.end) + 1))
    return lines
