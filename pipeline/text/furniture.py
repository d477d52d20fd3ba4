"""Page furniture a line can be on its own: a printed page number, a contents entry with
dot leaders."""

from __future__ import annotations

import re

ROMAN = r"(?:c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3}))"
PAGE_NUMBER = re.compile(
    rf"""^[\s\-–—|•·]*(?:
        \d{{1,5}}
      | (?i:(?=[ivxlc]){ROMAN})
      | (?i:page|p\.|pg\.|seite|s\.)\s*\d{{1,5}}(?:\s*(?i:of|/|von)\s*\d{{1,5}})?
      | \d{{1,5}}\s*(?:/|(?i:of))\s*\d{{1,5}}
    )[\s\-–—|•·]*$""",
    re.VERBOSE,
)
DOT_LEADER = re.compile(
    r"^(?P<title>.*?\S)?\s*(?:[.·…]\s*){4,}\s*(?P<num>[\dIVXLCivxlc][\w.]*)\s*$"
)


def is_page_number(line: str) -> bool:
    s = line.strip()
    if not s or len(s) > 24 or (len(s) == 1 and s.isupper()):  # "C", "I": index letters
        return False
    return PAGE_NUMBER.match(s) is not None


def is_dot_leader(line: str) -> bool:
    return DOT_LEADER.match(line.strip()) is not None
