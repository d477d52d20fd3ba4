"""A contents block printed in columns, as plain ``pdftotext`` writes a typeset one: the
section numbers of a chapter on lines of their own, then their titles in the same order
("3.8.", "3.9.", then "Variables and parameters are local . . .", "Stack diagrams . . .").
Paired again, each title line reads as the entry it is ("3.9. Stack diagrams . . .")."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Iterator, Sequence

from .entries import page_locator
from .views import LineView

# a section number with its dot inside ("3.9", "3.9.", "12.7.1"): a bare "4" is a page's
_SECTION_ONLY = re.compile(r"\f*\s*\d{1,2}(?:\.\d{1,3}){1,4}\.?\s*")
MIN_COLUMN = 2  # numbers in a run: one number over one title is a wrapped line, no column
MAX_GAP = 2  # blank lines between the column of numbers and the column of titles
_END = 1 << 62  # a pass's results are final for every line once it has read the text


class PairedColumns(LineView):
    """The lines from ``start`` on with each title line that follows a column of as many
    section numbers joined with its number, and the lines of those numbers (now read with
    their titles): see ``_number_columns``, ``_alternating``, ``_wrapped_entries``.

    Each pass reads the text only as far as a line is asked for: a contents block read
    in a few rows of a long text (``side_columns``) costs those rows and the lines its
    blocks run on to, not a pass over the rest of the text."""

    def __init__(self, lines: Sequence[str], start: int = 0) -> None:
        super().__init__(lines)
        # by pass, in the order they were joined: a later pass's title wins
        self._joined: tuple[dict[int, str], ...] = ({}, {}, {})
        self._numbers: set[int] = set()
        self._passes = [
            _number_columns(lines, start, self._joined[0], self._numbers),
            _alternating(lines, start, self._joined[1], self._numbers),
            _wrapped_entries(lines, start, self._joined[2], self._numbers),
        ]
        self._final = [start] * len(self._passes)  # each pass's: the lines before it are read
        self._settled = start  # the lines before it are final in every pass

    def line(self, i: int) -> str:
        if i >= self._settled:
            self._settle(i)
        last, middle, first = self._joined[2], self._joined[1], self._joined[0]
        if i in last:
            return last[i]
        if i in middle:
            return middle[i]
        return first.get(i, self.lines[i])

    def __iter__(self) -> Iterator[str]:
        """Every line (as a list is made of them)."""
        self._finish()
        joined = {**self._joined[0], **self._joined[1], **self._joined[2]}  # later passes win
        return (joined.get(i, line) for i, line in enumerate(self.lines))

    def numbers(self) -> frozenset[int]:
        """Every line now read with another (see ``is_number``)."""
        self._finish()
        return frozenset(self._numbers)

    def is_number(self, i: int) -> bool:
        """Whether line ``i`` is now read with another: a section number put back before
        its title, a wrapped entry's rest."""
        if i >= self._settled:
            self._settle(i)
        return i in self._numbers

    def _finish(self) -> None:
        """Run every pass to the end of the text, at the speed of C."""
        for steps in self._passes:
            deque(steps, maxlen=0)
        self._final = [_END] * len(self._passes)
        self._settled = _END

    def _settle(self, i: int) -> None:
        """Run each pass on until its results are final for line ``i``."""
        for k, steps in enumerate(self._passes):
            while self._final[k] <= i:
                self._final[k] = next(steps, _END)
        self._settled = min(self._final)


def _number_columns(
    lines: Sequence[str], start: int, joined: dict[int, str], numbers: set[int]
) -> Iterator[int]:
    """The title lines from ``start`` on that follow a column of as many section numbers
    (at least ``MIN_COLUMN``, at most ``MAX_GAP`` blank lines between the columns), each
    joined with its number. Yields, line by line read, the line before which its results
    are final (a column's titles come after its numbers)."""
    i = start
    while i < len(lines):
        run = _run(lines, i, number=True)
        if len(run) < MIN_COLUMN:
            i += 1
            yield i
            continue
        j = _after_gap(lines, run[-1] + 1)
        # the column of page numbers, printed between the two, in runs of any length (a
        # page's columns are not always the numbers' and titles' own: "101".."105", then
        # the next chapters' "107".."123")
        while pages := _run(lines, j, number=False, page=True):
            j = _after_gap(lines, pages[-1] + 1)
        titles = _run(lines, j, number=False)
        if len(titles) == len(run):
            _join(lines, zip(run, titles, strict=True), joined, numbers)
        i = run[-1] + 1
        yield i


def _join(
    lines: Sequence[str],
    pairs: Iterable[tuple[int, int]],
    joined: dict[int, str],
    numbers: set[int],
) -> None:
    """Each (number, title) line pair read as one entry: the title with its number before it."""
    for n, t in pairs:
        joined[t] = f"{lines[n].strip()} {lines[t].strip()}"
        numbers.add(n)


# an entry's number: "2.1", "12", an appendix's "D" (then its title)
_ENTRY_NUMBER = re.compile(r"(?:\d{1,2}(?:\.\d{1,3}){0,4}|[A-Z])\.?\s+\S")
WRAP_REACH = 40  # lines either side whose longest gives the width a text is wrapped at


def _wrapped_entries(
    lines: Sequence[str], start: int, joined: dict[int, str], rests: set[int]
) -> Iterator[int]:
    """Numbered contents entries from ``start`` on wrapped onto a second line, each joined
    with its rest (whose line is then passed over as a number's is), in a block whose
    entries stand between blank lines (pandoc's plain text, wrapped at 72 columns:
    "2.1 Characters and the Principles of Setting them for Japanese", then
    "Composition"): the rest's first word would not have fitted on the entry's line.
    Yields, line by line read, the line before which its results are final."""
    for i in range(max(start, 1), len(lines) - 3):
        if _wrapped(lines, i):
            joined[i] = f"{lines[i].strip()} {lines[i + 1].strip()}"
            rests.add(i + 1)
        yield i + 1


def _wrapped(lines: Sequence[str], i: int) -> bool:
    """Whether line ``i`` is a numbered entry wrapped onto the line after it (see
    ``_wrapped_entries``)."""
    entry, rest = lines[i], lines[i + 1]
    if lines[i - 1].strip() or lines[i + 2].strip() or not rest.strip():
        return False
    if not (_ENTRY_NUMBER.match(entry) and _ENTRY_NUMBER.match(lines[i + 3])):
        return False
    if _ENTRY_NUMBER.match(rest) or rest[:1].isspace():
        return False
    # the width the text is wrapped at: what its lines run on from reach (a heading,
    # never wrapped, may be longer)
    near = range(max(0, i - WRAP_REACH), min(len(lines) - 1, i + WRAP_REACH))
    width = max((len(lines[k].rstrip()) for k in near if lines[k + 1].strip()), default=0)
    return len(entry.rstrip()) + 1 + len(rest.split()[0]) > width


def _alternating(
    lines: Sequence[str], start: int, joined: dict[int, str], numbers: set[int]
) -> Iterator[int]:
    """(number, title) lines of a contents printed one entry on two lines, each section
    number alone over its title ("2.1", "Package manager . . . ."), in runs of at least
    ``MIN_COLUMN`` such pairs one after the other, joined; a blank line may part a number
    from its title, and blank lines and a page number one pair from the next ("8.1", "",
    "Support of the listings package . . .", "", "10", "", "8.2", …). Yields, line by
    line read, the line before which its results are final (a run's first, while one is
    read)."""
    run: list[tuple[int, int]] = []
    i = start
    while i + 1 < len(lines):
        if _SECTION_ONLY.fullmatch(lines[i]) and (t := _title_under(lines, i)) is not None:
            run.append((i, t))
            i = _next_entry(lines, t + 1)
        else:
            if len(run) >= MIN_COLUMN:
                _join(lines, run, joined, numbers)
            run = []
            i += 1
        yield run[0][0] if run else i
    if len(run) >= MIN_COLUMN:
        _join(lines, run, joined, numbers)


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
