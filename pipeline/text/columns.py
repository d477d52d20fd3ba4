"""A contents block printed in columns, as plain ``pdftotext`` writes a typeset one: the
section numbers of a chapter on lines of their own, then their titles in the same order
("3.8.", "3.9.", then "Variables and parameters are local . . .", "Stack diagrams . . .").
Paired again, each title line reads as the entry it is ("3.9. Stack diagrams . . .")."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .entries import page_locator

# a section number with its dot inside ("3.9", "3.9.", "12.7.1"): a bare "4" is a page's
_SECTION_ONLY = re.compile(r"\f*\s*\d{1,2}(?:\.\d{1,3}){1,4}\.?\s*")
MIN_COLUMN = 2  # numbers in a run: one number over one title is a wrapped line, no column
MAX_GAP = 2  # blank lines between the column of numbers and the column of titles


@dataclass(frozen=True, slots=True)
class Columns:
    joined: dict[int, str]  # a title line, its number put back before it
    numbers: frozenset[int]  # the lines of numbers, now read with their titles


def paired_columns(lines: Sequence[str], start: int = 0) -> Columns:
    """The title lines from ``start`` on that follow a column of as many section numbers
    (at least ``MIN_COLUMN``, at most ``MAX_GAP`` blank lines between the columns), each
    joined with its number."""
    joined: dict[int, str] = {}
    numbers: set[int] = set()
    i = start
    while i < len(lines):
        run = _run(lines, i, number=True)
        if len(run) < MIN_COLUMN:
            i += 1
            continue
        j = _after_gap(lines, run[-1] + 1)
        # the column of page numbers, printed between the two, in runs of any length (a
        # page's columns are not always the numbers' and titles' own: "101".."105", then
        # the next chapters' "107".."123")
        while pages := _run(lines, j, number=False, page=True):
            j = _after_gap(lines, pages[-1] + 1)
        titles = _run(lines, j, number=False)
        if len(titles) == len(run):
            for n, t in zip(run, titles, strict=True):
                joined[t] = f"{lines[n].strip()} {lines[t].strip()}"
            numbers.update(run)
        i = run[-1] + 1
    for n, t in _alternating(lines, start):
        joined[t] = f"{lines[n].strip()} {lines[t].strip()}"
        numbers.add(n)
    for first, rest in _wrapped_entries(lines, start):
        joined[first] = f"{lines[first].strip()} {lines[rest].strip()}"
        numbers.add(rest)
    return Columns(joined, frozenset(numbers))


# an entry's number: "2.1", "12", an appendix's "D" (then its title)
_ENTRY_NUMBER = re.compile(r"(?:\d{1,2}(?:\.\d{1,3}){0,4}|[A-Z])\.?\s+\S")
WRAP_REACH = 40  # lines either side whose longest gives the width a text is wrapped at


def _wrapped_entries(lines: Sequence[str], start: int) -> list[tuple[int, int]]:
    """(entry, rest) lines of numbered contents entries wrapped onto a second line, in a
    block whose entries stand between blank lines (pandoc's plain text, wrapped at 72
    columns: "2.1 Characters and the Principles of Setting them for Japanese", then
    "Composition"): the rest's first word would not have fitted on the entry's line."""
    out = []
    for i in range(max(start, 1), len(lines) - 3):
        entry, rest = lines[i], lines[i + 1]
        if lines[i - 1].strip() or lines[i + 2].strip() or not rest.strip():
            continue
        if not (_ENTRY_NUMBER.match(entry) and _ENTRY_NUMBER.match(lines[i + 3])):
            continue
        if _ENTRY_NUMBER.match(rest) or rest[:1].isspace():
            continue
        # the width the text is wrapped at: what its lines run on from reach (a heading,
        # never wrapped, may be longer)
        near = range(max(0, i - WRAP_REACH), min(len(lines) - 1, i + WRAP_REACH))
        width = max((len(lines[k].rstrip()) for k in near if lines[k + 1].strip()), default=0)
        if len(entry.rstrip()) + 1 + len(rest.split()[0]) > width:
            out.append((i, i + 1))
    return out


def _alternating(lines: Sequence[str], start: int) -> list[tuple[int, int]]:
    """(number, title) lines of a contents printed one entry on two lines, each section
    number alone over its title ("2.1", "Package manager . . . ."), in runs of at least
    ``MIN_COLUMN`` such pairs one after the other; a blank line may part a number from its
    title, and blank lines and a page number one pair from the next ("8.1", "", "Support
    of the listings package . . .", "", "10", "", "8.2", …)."""
    out: list[tuple[int, int]] = []
    run: list[tuple[int, int]] = []
    i = start
    while i + 1 < len(lines):
        if _SECTION_ONLY.fullmatch(lines[i]) and (t := _title_under(lines, i)) is not None:
            run.append((i, t))
            i = _next_entry(lines, t + 1)
            continue
        if len(run) >= MIN_COLUMN:
            out += run
        run = []
        i += 1
    return out + run if len(run) >= MIN_COLUMN else out


def _title_under(lines: Sequence[str], i: int) -> int | None:
    """The title line under section number ``i``: the next line, or the one after a
    blank line."""
    if _is_title(lines[i + 1]):
        return i + 1
    if not lines[i + 1].strip() and i + 2 < len(lines) and _is_title(lines[i + 2]):
        return i + 2
    return None


def _next_entry(lines: Sequence[str], j: int) -> int:
    """The first line from ``j`` on that is neither blank nor a page number (at most
    ``MAX_GAP`` blank lines either side of one page number)."""
    k = _after_gap(lines, j)
    if k < len(lines) and page_locator(lines[k].strip()):
        k = _after_gap(lines, k + 1)
    return k


def _is_title(line: str) -> bool:
    """Whether a line has text that is neither a section number nor a page number."""
    text = line.strip()
    return bool(text) and not _SECTION_ONLY.fullmatch(line) and not page_locator(text)


def _after_gap(lines: Sequence[str], j: int) -> int:
    """The first line from ``j`` on with text, past at most ``MAX_GAP`` blank lines."""
    k = j
    while k < len(lines) and k - j < MAX_GAP and not lines[k].strip():
        k += 1
    return k


def _run(lines: Sequence[str], i: int, *, number: bool, page: bool = False) -> list[int]:
    """The lines from ``i`` on, none blank, that are section numbers alone (``number``),
    page numbers alone (``page``), or neither."""
    out = []
    while i < len(lines) and lines[i].strip():
        is_number = _SECTION_ONLY.fullmatch(lines[i]) is not None
        is_page = page_locator(lines[i].strip())
        if is_number != number or (page != is_page and not number):
            break
        out.append(i)
        i += 1
    return out
