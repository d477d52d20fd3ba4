"""Flat text: numbering labels printed on a line of their own.

Printed books often set a chapter's numbering and its title on two lines ("CHAPTER I."
then "The Widow and her Child."), or only a roman numeral between blank lines ("XIV").
A label line followed by a short title line is one heading joining both; bare numerals
count as chapters only when they run in sequence (I, II, III…), the guard that keeps a
poem's stanza numbers or a list's items out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .titles import title_case

ROMAN = r"[IVXLCDM]+"
ORDINALS = r"first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|last"
NUMBER_WORDS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    r"|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty"
)
_KEYWORD = r"chapter|chap\.|book|part|epoch|canto|stave|letter|lecture|section|appendix|volume"
LABEL = re.compile(
    rf"(?i:(?P<kw>{_KEYWORD})\s+)?"
    rf"(?P<num>\d{{1,3}}|{ROMAN}|(?i:the\s+(?:{ORDINALS}))|(?i:{NUMBER_WORDS})"
    # a bare ordinal only after a keyword: "Part First." is a label, "First." is not
    # and a letter only after one: "Appendix B" is a label, "B" is not
    rf"|(?(kw)(?i:{ORDINALS})|(?!))|(?(kw)[A-Z]|(?!)))"
    # a colon only after a keyword: "Appendix A:" over its title line, as EPUB exports set it
    r"(?(kw)[.:]?|\.?)$"
)
MAX_TITLE_CHARS = 80
MAX_HEADING_CHARS = 90  # any heading line, a label joined with its title too
_OPENING = "\"“‘'(["  # a title may open with a quotation mark: "THE RESCUE OF THE PRINCESS"
MAX_TITLE_WORDS = 12
MAX_BLANKS = 3  # blank lines allowed between a label and its title
# A title in mixed case that ends with a period has at least this many words ("The Widow
# and her Child."); a shorter one is a sentence ("More.").
MIN_PERIOD_WORDS = 3
EPIGRAPH_INDENT = "    "  # a quotation set under a chapter's title, before its text
MIN_SEQUENCE = 3  # bare numerals in sequence before they count as chapters
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}


def label_only(line: str) -> bool:
    """Whether a line is only a numbering label: "CHAPTER I.", "BOOK THE FIRST", "II."."""
    return LABEL.fullmatch(line.strip()) is not None


def label_keyword(line: str) -> str | None:
    """The keyword of a line holding only a labelled number ("chapter" for "CHAPTER IV."),
    else None."""
    m = LABEL.fullmatch(line.strip())
    return m.group("kw").casefold() if m is not None and m.group("kw") else None


def bare_numeral(line: str) -> int | None:
    """The value of a line holding only a numeral ("XIV", "II.", "7"), else None."""
    m = LABEL.fullmatch(line.strip())
    if m is None or m.group("kw"):
        return None
    return numeral_value(m.group("num"))


def numeral_value(token: str) -> int | None:
    """An arabic or a well-formed roman numeral's value (None for anything else)."""
    if token.isdigit():
        return int(token)
    s = token.lower()
    if not s or any(c not in _ROMAN_VALUES for c in s):
        return None
    total = 0
    for a, b in zip(s, [*s[1:], ""], strict=True):
        v = _ROMAN_VALUES[a]
        total += -v if b and _ROMAN_VALUES[b] > v else v
    return total if _to_roman(total) == s else None


def _to_roman(n: int) -> str:
    out = ""
    for v, r in (
        (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
        (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
    ):  # fmt: skip
        while n >= v:
            out, n = out + r, n - v
    return out


@dataclass(frozen=True, slots=True)
class Joined:
    title: str  # the label and the title, one heading
    title_line: int  # the line the title came from, now part of the heading
    title_end: int  # its last line: a long title can wrap onto a second


def title_after(lines: Sequence[str], i: int, *, named: bool = False) -> Joined | None:
    """The heading joining label line ``i`` with the short title after it (at most
    ``MAX_BLANKS`` blank lines between; the title standing alone, on one line or wrapped
    onto a second, not indented as verse or code, not a label itself, and set off by two
    blank lines or set as a title: capitals, Title Case or italics; any short line when
    ``named``, a contents entry naming it), or None."""
    j = i + 1
    while j < len(lines) and j - i <= MAX_BLANKS and not lines[j].strip():
        j += 1
    if j >= len(lines) or j == i + 1 or not lines[j].strip():
        return None
    end = j + 1 if j + 1 < len(lines) and lines[j + 1].strip() else j
    if end > j and label_only(lines[end]):
        end = j  # the next chapter's number under a part's title ("User Manual", "1")
    elif end + 1 < len(lines) and lines[end + 1].strip():
        return None  # a paragraph, not a title
    rows = lines[j : end + 1]
    if any(row.startswith("  ") or len(row.strip()) > MAX_TITLE_CHARS for row in rows):
        return None
    text = " ".join(row.strip() for row in rows)
    if label_only(text) or len(f"{lines[i].strip()} {text}") > MAX_HEADING_CHARS:
        return None  # a label over a caption paragraph: joined, no heading's length
    bare = text.strip("_*")
    if len(bare.split()) > MAX_TITLE_WORDS * len(rows) or not bare.lstrip(_OPENING)[:1].isupper():
        return None
    if named:
        return Joined(f"{lines[i].strip()} {bare}", j, end)
    short_sentence = bare.endswith(".") and len(bare.split()) < MIN_PERIOD_WORDS
    set_as_title = title_case(bare) and _set_off(lines, end)  # "Witchcraft.", "Editor's Appendix."
    if short_sentence and not (bare.isupper() or set_as_title):
        return None  # "More.", "Some words.": a short sentence, not a title
    if end > j and not (bare.isupper() or _set_off(lines, end)):
        return None  # two lines of verse or text under a number, not a wrapped title
    if not (_set_off(lines, end) or bare != text or bare.isupper() or title_case(bare)):
        return None  # a sentence-case line with no more room after it than a paragraph's
    return Joined(f"{lines[i].strip()} {bare}", j, end)


def _set_off(lines: Sequence[str], j: int) -> bool:
    """Whether line ``j`` is followed by at least two blank lines, or by one and an
    indented epigraph: a title set off from the text, as printed editions do; a verse
    line or a paragraph is followed by one blank line and flush text."""
    if j + 2 >= len(lines) or lines[j + 1].strip():
        return False
    return not lines[j + 2].strip() or lines[j + 2].startswith(EPIGRAPH_INDENT)


def numeral_sequences(values: Sequence[tuple[int, int]]) -> set[int]:
    """Of (line, value) bare numerals in text order, the lines of chains counting up by
    one (each at least ``MIN_SEQUENCE`` long, longest first, never interleaved with a
    chain already taken): I, II, III… are chapters, a stray "IV." is not."""
    best = [1] * len(values)
    back = [-1] * len(values)
    last_at: dict[int, int] = {}  # value -> latest index holding it
    for k, (_, v) in enumerate(values):
        p = last_at.get(v - 1)
        if p is not None:
            best[k], back[k] = best[p] + 1, p
        last_at[v] = k
    taken: set[int] = set()
    spans: list[tuple[int, int]] = []
    for k in sorted(range(len(values)), key=lambda k: -best[k]):
        if best[k] < MIN_SEQUENCE:
            break
        chain = [k]
        while back[chain[-1]] >= 0:
            chain.append(back[chain[-1]])
        lo, hi = values[chain[-1]][0], values[chain[0]][0]
        if any(k2 in taken for k2 in chain) or any(a <= hi and lo <= b for a, b in spans):
            continue
        taken.update(chain)
        spans.append((lo, hi))
    return {values[k][0] for k in taken}
