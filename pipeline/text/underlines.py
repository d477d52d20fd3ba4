"""Flat text: headings underlined with a row of one character.

Plain-text manuals (``makeinfo --plaintext``, reStructuredText, setext Markdown, many
READMEs) mark a heading by a line of ``*``, ``=``, ``-`` or ``.`` as long as its title:

    2.1 Command-line Options
    ========================

Such an underline is stronger evidence than any look of the title line, and its
character gives the level: the character met first in the text is the top level (as in
reStructuredText), the next one below it, and so on.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

_UNDERLINE = re.compile(r"([*=\-.~^#+])\1{2,}")
MAX_TITLE_CHARS = 100
LENGTH_SLACK = 2  # wide or combining characters make the two lengths differ a little


@dataclass(frozen=True, slots=True)
class Underlined:
    line: int  # the title line
    rank: int  # 1 for the first underline character met, 2 for the next…
    title: str


def underlined_headings(lines: Sequence[str], start: int = 0) -> list[Underlined]:
    """The title lines from ``start`` on with an underline right below them, ranked by
    the underline's character. The title is not indented as code or an example and is
    about as long as its underline (a blank line before it is not required:
    ``makeinfo`` sets the first chapter right under its contents block)."""
    order: dict[str, int] = {}
    out: list[Underlined] = []
    for i in range(start, len(lines) - 1):
        title = lines[i].strip()
        mark = _UNDERLINE.fullmatch(lines[i + 1].rstrip())
        if mark is None or not title or len(title) > MAX_TITLE_CHARS:
            continue
        if lines[i].startswith("    ") or _UNDERLINE.fullmatch(title):
            continue  # code or an example; a rule line under a rule line
        if not any(ch.isalpha() for ch in title):
            continue  # "1", "4 6": a table's row of figures over its rule, no title
        if abs(_width(lines[i].rstrip()) - len(mark.group())) > LENGTH_SLACK:
            continue
        rank = order.setdefault(mark.group(1), len(order) + 1)
        out.append(Underlined(i, rank, title))
    return out


def _width(text: str) -> int:
    """Display width: combining marks take no column."""
    return sum(1 for ch in text if not unicodedata.combining(ch))
