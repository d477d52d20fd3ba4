"""What a line reads as when it is a contents entry: its title without dot leaders or a
page number, the page it prints, where its title starts, its section number; and whether
a line reads as prose or code instead (no entry, no heading)."""

from __future__ import annotations

import re

from .titles import entry_key

MAX_ENTRY_CHARS = 100
MAX_LABELLED_CHARS = 160  # a numbered entry's title may run long
MAX_ENTRY_WORDS = 14
_NUMBER = re.compile(r"^\s*(?:\d+(?:\.\d+)*|[IVXLC]+|[A-Z])\.?\s+(?=\S)", re.IGNORECASE)
_SENTENCE_END = (".", ",", ";", ":", "!")
_CODE = re.compile(r"[;{}]\s*$|::|->|=>|\(\)")
_LABELLED = re.compile(
    r"^\s*(?:(?:chapter|chap\.|part|book|section|appendix)\s+\S|\d+(?:\.\d+)*\.?\s)", re.IGNORECASE
)
# the gap before a contents line's page number, and the word that may open it ("_Page_ 4")
_PAGE_GAP = r"\s{2,}(?:_?(?:page|p\.)_?\s*)?"
# dot leaders, or a page number after a gap ("   12", "   xiv", "   _Page_ 4", "   p. 4"), or
# a range of them ("   31-47": regulations and reports list paragraphs, "   12–15" pages)
_RANGE_END = r"(?:\s?[-–]\s?\d{1,4})?"
_LOCATOR = rf"(?:\d{{1,4}}{_RANGE_END}|[ivxlc]{{1,7}})"
_LEADER = re.compile(rf"(?:\s*[.·…]){{2,}}\s*\S*$|{_PAGE_GAP}{_LOCATOR}$", re.IGNORECASE)
_PAGE_AT_END = re.compile(rf"{_PAGE_GAP}(\d{{1,4}}){_RANGE_END}$", re.IGNORECASE)  # a range's first
# a section number and its title, as exporters of typeset books set a heading: "2.1 Package
# manager", "1.1. What is a program?"
_PARTS = r"(?:\.\d{1,3}){0,4}"  # ".1", ".1.2": a section number's parts after its first
_SECTION_NUMBER = re.compile(rf"^\s*(\d{{1,2}}{_PARTS})\.?\s+(\S.*)$")
# the same with an appendix's letter for a first number: "A References", "A.1 The Problem"
_KEYED_NUMBER = re.compile(rf"^\s*(\d{{1,2}}{_PARTS}|[A-Z]{_PARTS})\.?\s+(\S.*)$")


def title_column(line: str) -> int:
    """Where an entry's title starts, after any leading number: right-aligned numbers
    ("   I.", "  II.", " III.") shift the line start, not the title."""
    m = _NUMBER.match(line)
    return m.end() if m else len(line) - len(line.lstrip())


def is_prose(line: str) -> bool:
    """A line that reads as code or as a sentence, not a contents entry or a heading: code
    punctuation, very many words, a colon's lead-in, or a long sentence's end."""
    title = entry_title(line)
    words = title.split()
    if _CODE.search(line):
        return True
    if _LABELLED.match(line):
        return len(words) > 2 * MAX_ENTRY_WORDS  # "Chapter 120. The Deck Towards ... Watch."
    return (
        len(words) > MAX_ENTRY_WORDS
        or (len(words) > 3 and title.endswith(":"))
        or (len(words) > 10 and title.endswith(_SENTENCE_END))
    )


def entry_length(line: str) -> bool:
    """Whether a line is short enough for a contents entry; a numbered one may be longer
    ("3.1.4 Positioning of Consecutive Opening Brackets, Closing Brackets, Commas, …")."""
    text = line.strip()
    limit = MAX_LABELLED_CHARS if _LABELLED.match(text) else MAX_ENTRY_CHARS
    return len(text) <= limit


def entry_title(line: str) -> str:
    """An entry's title without dot leaders or a trailing page number."""
    return _LEADER.sub("", line).strip()


def numbered_key(text: str) -> str | None:
    """The key of a line numbered as a section, number included ("2.1 packagemanager"), or
    None. pdftotext runs a typeset heading into its text (no blank line after it): such a
    line is a heading only when a contents entry carries the same number and title; an
    appendix's letter is such a number ("A References")."""
    m = _KEYED_NUMBER.match(text)
    return f"{m.group(1)} {entry_key(m.group(2))}" if m else None


def section_number(text: str) -> tuple[int, ...] | None:
    """The section number a numbered line opens with ("2.1 Package manager": (2, 1))."""
    m = _SECTION_NUMBER.match(text)
    return tuple(int(p) for p in m.group(1).split(".")) if m else None


def page_of(line: str) -> int | None:
    """The page number printed at the end of a contents line ("Bronze      49"), if any."""
    m = _PAGE_AT_END.search(line.rstrip())
    return int(m.group(1)) if m else None


_PAGE_LOCATOR = re.compile(r"\d{1,4}|[ivxlc]{1,7}")


def page_locator(text: str) -> bool:
    """Whether a line is only a page number, arabic or a front-matter roman one in lower
    case ("36", "ix"), as pdftotext prints a contents block's page column on lines of its
    own. An upper-case numeral ("IX") is a chapter's label."""
    return _PAGE_LOCATOR.fullmatch(text) is not None
