"""Numeric tables in a PDF page's lines: financial statements and tables like them.

``tables.find_tables`` wants every row to have the same cells in the same columns;
a statement breaks that on almost every line: labels are indented, section labels
("Current assets") have no numbers, ``$`` signs stand apart from their numbers, a
missing value leaves a row short, the column headers are years set on lines of their
own, a long label wraps with its numbers on the first or the last line. Here a table is
read from its numbers instead: a run of lines whose trailing cells are all values
(``1,234``, ``(57)``, ``$ 5,363``, ``6.3 %``, ``—``, ``NM``), the label lines between
them, the header lines just above (cells over the value columns: years, dates, periods),
and the short lines above those as its caption (title, "(in millions)").
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Collection, Sequence
from statistics import median
from typing import NamedTuple

from .layout import Line

MIN_VALUE_ROWS = 3
MAX_LABEL = 150  # characters: a longer line without numbers is prose, not a row label
MAX_CAPTION = 100
CAPTION_LINES = 4
ROW_GAP = 4.0  # x font size: the largest vertical gap between two lines of one table
CHAR_WIDTH = 0.5  # x font size: the average glyph width, to place words inside a run

_NUM = r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_VALUE = re.compile(
    rf"^(?:[$€£¥] ?)?\(?{_NUM}(?: ?%)?\)?(?: ?%)?\*?$"  # 1,234  (57)  $5.1  6.3%  (11%)
    r"|^(?:[—–-]+|NM|N/?A|nm|n/?a)$"
)
_YEAR = re.compile(r"^(?:19|20)\d\d$")
_CURRENCY = frozenset("$€£¥")
# a label line ending like this goes on on the next line
_DANGLING = re.compile(r"(?:[,—–-]|\b(?:and|or|of|to|in|for|the|by|from|with|on|at))$", re.I)


class Statement(NamedTuple):
    start: int  # first line (the header's, else the first row's)
    end: int  # exclusive
    caption: int  # index of the first caption line (== start when there is none)
    rows: tuple[tuple[str, ...], ...]  # header first


class _Value(NamedTuple):
    text: str
    center: float  # estimated horizontal middle


class Row(NamedTuple):
    """A line read as a table row: its label and the values after it."""

    label: str
    values: tuple[_Value, ...]


_WORD = re.compile(r"\S+")


def _tokens(text: str) -> list[tuple[int, str]]:
    """Words with their offsets; a currency sign joins the number after it and a lone
    ``%`` the number before it."""
    out: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for m in _WORD.finditer(text):
        word = m.group()
        if pending is not None:
            out.append((pending[0], pending[1] + word))
            pending = None
        elif word in _CURRENCY:
            pending = (m.start(), word)
        elif word == "%" and out:
            out[-1] = (out[-1][0], out[-1][1] + "%")
        else:
            out.append((m.start(), word))
    if pending is not None:
        out.append(pending)
    return out


def _is_value(word: str) -> bool:
    return word in _CURRENCY or _VALUE.match(word) is not None


def _cell_values(x: float, text: str, size: float) -> list[_Value] | None:
    """The values of a cell that holds nothing else, else None."""
    first = text.split(None, 1)[:1]
    if not first or (first[0] not in _CURRENCY and _VALUE.match(first[0]) is None):
        # its first token is that word (or that word and "%", a value only if the word
        # is one): the cell is not read further (a line of prose with a number in it)
        return None
    words = _tokens(text)
    if not words or not all(_is_value(w) for _, w in words):
        return None
    width = CHAR_WIDTH * size
    return [_Value(w, x + (off + len(w) / 2) * width) for off, w in words]


_PEEL_MARK = re.compile(r"[$€£¥,.%]")


def _peel(x: float, text: str, size: float) -> tuple[str, list[_Value]]:
    """Values set so close to the end of a label that they share its run: only
    unmistakable ones (a currency sign, thousands separator, decimals, percent)."""
    if not _PEEL_MARK.search(" ".join(text.rsplit(None, 2)[-2:])):
        return text, []  # the last word (the last two with a sign) cannot be peeled
    words = _tokens(text)
    k = len(words)
    while k > 1 and _is_value(words[k - 1][1]) and _PEEL_MARK.search(words[k - 1][1]):
        k -= 1
    if k == len(words):
        return text, []
    width = CHAR_WIDTH * size
    values = [_Value(w, x + (off + len(w) / 2) * width) for off, w in words[k:]]
    return text[: words[k][0]].rstrip(), values


# what every value or currency sign holds but a word-only value: a digit, a dash or the
# sign (``_VALUE``, ``_CURRENCY``)
_VALUE_MARK = re.compile(r"[\d—–\-$€£¥]")
_WORD_VALUES = frozenset({"NM", "NA", "N/A", "nm", "na", "n/a"})


def _may_hold_value(text: str) -> bool:
    """Whether a word of ``text`` may be a value or a currency sign: most lines of prose
    hold none, and are then not tokenized."""
    return _VALUE_MARK.search(text) is not None or not _WORD_VALUES.isdisjoint(text.split())


def read_row(line: Line) -> Row | None:
    """A line read as label + trailing values; None when more than one cell is text."""
    if line.mono:
        return None
    cells = list(line.cells) or [(line.x, line.text)]
    if not any(_may_hold_value(text) for _, text in cells):
        # no cell is all values and nothing is peeled: the label alone, if one cell
        return None if len(cells) > 1 else Row(cells[0][1], ())
    # the cells of values at the end, read from the last one back to the first that is
    # not all values (the cells before it are not read: the row needs no more)
    tail: list[list[_Value]] = []
    k = len(cells)
    while k > 0:
        found = _cell_values(cells[k - 1][0], cells[k - 1][1], line.size)
        if found is None:
            break
        tail.append(found)
        k -= 1
    if k > 1:
        return None
    label, raw = ("", []) if k == 0 else _peel(cells[0][0], cells[0][1], line.size)
    raw += [v for found in reversed(tail) for v in found]
    values: list[_Value] = []
    carry = ""  # a currency sign set apart from its number
    for v in raw:
        if v.text in _CURRENCY:
            carry = v.text
        else:
            values.append(v._replace(text=carry + v.text) if carry else v)
            carry = ""
    return Row(label, tuple(values))


def _is_value_row(row: Row | None) -> bool:
    return row is not None and any(not _YEAR.match(v.text) for v in row.values)


def find_statements(lines: Sequence[Line], blocked: Collection[int] = ()) -> dict[int, Statement]:
    """First line → numeric table, for every run of value rows on a page."""
    rows = [read_row(ln) for ln in lines]
    out: dict[int, Statement] = {}
    floor = i = 0
    while i < len(lines):
        row = rows[i]
        if i in blocked or row is None or not _is_value_row(row) or len(row.values) < 2:
            i += 1
            continue
        first_value = min(v.center for v in row.values)
        table = _statement(lines, rows, i, first_value, floor, blocked)
        if table is None:
            i += 1
            continue
        out[table.start] = table
        floor = i = table.end
    return out


def _statement(
    lines: Sequence[Line],
    rows: Sequence[Row | None],
    seed: int,
    first_value: float,
    floor: int,
    blocked: Collection[int],
) -> Statement | None:
    """The table grown from value row ``seed``: rows down from it, header and caption
    up from it (not above ``floor``, the end of the previous table)."""
    end = _extend(lines, rows, seed, first_value, blocked)
    body = [(k, rows[k]) for k in range(seed, end)]
    values = [r for _, r in body if r is not None and r.values]
    if len(values) < MIN_VALUE_ROWS or len(values) * 2 < len(body):
        return None
    centers = _columns(values)
    left = _value_left(centers, lines[seed].size)
    top, header, labels = _header(lines, rows, seed, floor, left, centers, blocked)
    if len(centers) < 2 and top == seed:  # one column of numbers and no header: a list
        return None
    table = _rows([*labels, *(k for k, _ in body)], lines, rows, centers)
    caption = _caption(lines, top, floor, blocked)
    return Statement(top, end, caption, (header, *table))


def _gap_ok(upper: Line, lower: Line) -> bool:
    return 0 < upper.y - lower.y <= ROW_GAP * max(upper.size, lower.size, 1.0)


def _extend(
    lines: Sequence[Line],
    rows: Sequence[Row | None],
    seed: int,
    first_value: float,
    blocked: Collection[int],
) -> int:
    """End of the run of value rows and label lines from ``seed``; label lines after the
    last value row are left out."""
    last = seed
    j = seed + 1
    while j < len(lines) and j not in blocked and _gap_ok(lines[j - 1], lines[j]):
        row = rows[j]
        if _is_value_row(row):
            last = j
        elif not _is_label(row, lines[j], first_value):
            break
        j += 1
    return last + 1


def _is_label(row: Row | None, line: Line, value_x: float) -> bool:
    """A line with no numbers that starts left of the value columns: a section label
    ("Current assets") or part of a wrapped row label."""
    return row is not None and not row.values and len(line.text) <= MAX_LABEL and line.x < value_x


def _columns(rows: Sequence[Row]) -> list[float]:
    """Centres of the value columns: from the rows that have the usual full count."""
    counts = Counter(len(r.values) for r in rows)
    usual = max(n for n, c in counts.items() if c >= 2 or c == max(counts.values()))
    full = [r for r in rows if len(r.values) == usual]
    return [median(r.values[k].center for r in full) for k in range(usual)]


def _spacing(centers: Sequence[float]) -> float:
    """The narrowest distance between two value columns (0 for one column)."""
    return min((b - a for a, b in itertools.pairwise(centers)), default=0.0)


def _value_left(centers: Sequence[float], size: float) -> float:
    """Where the value columns begin: half a column's spacing left of the first one."""
    spacing = _spacing(centers)
    return centers[0] - (0.6 * spacing if spacing > 0 else 4 * size)


def _place(row: Row, centers: Sequence[float]) -> list[str]:
    """The row's values in their columns: by nearest centre, else flush right (a row
    that is short a value misses it on the left more often than not)."""
    n, vals = len(centers), row.values
    if len(vals) > n:  # more numbers than columns: the first ones belong to the label
        vals = vals[len(vals) - n :]
    cells = [""] * n
    if len(vals) == n:
        return [v.text for v in vals]
    at = [min(range(n), key=lambda k: abs(centers[k] - v.center)) for v in vals]
    if any(b <= a for a, b in itertools.pairwise(at)):
        at = list(range(n - len(vals), n))
    for k, v in zip(at, vals, strict=True):
        cells[k] = v.text
    return cells


def _label(row: Row, n: int) -> str:
    extra = row.values[: max(0, len(row.values) - n)]
    return " ".join([row.label, *(v.text for v in extra)]).strip()


def _rows(
    indices: Sequence[int],
    lines: Sequence[Line],
    rows: Sequence[Row | None],
    centers: Sequence[float],
) -> list[tuple[str, ...]]:
    """Table rows; a label wrapped over two lines becomes one row again: a line that
    starts in lower case continues the label above it."""
    out: list[list[str]] = []
    filled: list[bool] = []
    for k in indices:
        row = rows[k]
        assert row is not None
        cont = bool(out) and (
            lines[k].text[:1].islower() or _DANGLING.search(out[-1][0]) is not None
        )
        if not row.values:
            if cont:
                out[-1][0] += " " + lines[k].text
                continue
            out.append([lines[k].text] + [""] * len(centers))
            filled.append(False)
            continue
        cells = _place(row, centers)
        label = _label(row, len(centers))
        if cont and not filled[-1]:
            out[-1] = [f"{out[-1][0]} {label}".strip(), *cells]
            filled[-1] = True
        else:
            out.append([label, *cells])
            filled.append(True)
    return [tuple(r) for r in out]


def _header(
    lines: Sequence[Line],
    rows: Sequence[Row | None],
    seed: int,
    floor: int,
    left: float,
    centers: Sequence[float],
    blocked: Collection[int],
) -> tuple[int, tuple[str, ...], list[int]]:
    """(first line, header row, label lines between header and first value row). The
    lines right above the first value row are label lines, then header lines; label
    lines count only under a header (else they are text above the table)."""
    labels: list[int] = []
    heads: list[int] = []
    k = seed - 1
    # measured from the highest line so far: header cells set as lines of their own
    # ("August 29," / "2021" / "August 30," / "2020") come in no vertical order
    top = lines[seed]
    while k >= floor and k not in blocked and _above(lines[k], top, lines[seed]):
        top = max(top, lines[k], key=lambda ln: ln.y)
        if _is_value_row(rows[k]):
            break
        if _is_header(lines[k], left):
            heads.append(k)
        elif heads or not _is_label(rows[k], lines[k], left):
            break
        else:
            labels.append(k)
        k -= 1
    if not heads:
        return seed, ("",) * (len(centers) + 1), []
    ordered = sorted((lines[h] for h in heads), key=lambda ln: (-ln.y, ln.x))
    header = _header_row(ordered, left, centers)
    return heads[-1], header, labels[::-1]


def _above(line: Line, top: Line, first: Line) -> bool:
    """Whether ``line`` is above the first row and close over the highest line so far."""
    return line.y > first.y and line.y - top.y <= ROW_GAP * max(line.size, top.size, 1.0)


def _parts(line: Line) -> list[tuple[float, str]]:
    """Runs of a header line; a run of years ("2020 2019 2018") split into its years."""
    out: list[tuple[float, str]] = []
    for x, text in line.cells or ((line.x, line.text),):
        words = _tokens(text)
        if len(words) > 1 and all(_YEAR.match(w) for _, w in words):
            out.extend((x + off * line.size * CHAR_WIDTH, w) for off, w in words)
        else:
            out.append((x, text))
    return out


def _in_values(line: Line, x: float, text: str, left: float) -> bool:
    if line.cells:
        return x + len(text) * line.size * CHAR_WIDTH / 2 >= left
    return x >= left - 4 * line.size  # one run: it must start over the values


def _is_header(line: Line, left: float) -> bool:
    """Short runs, at least one of them over the value columns, none of them figures."""
    if line.mono or any(len(t) > MAX_CAPTION // 2 for _, t in line.cells):
        return False
    for x, t in line.cells:
        found = _cell_values(x, t, line.size)
        if found is not None and not all(_YEAR.match(v.text) for v in found):
            return False
    return any(_in_values(line, x, t, left) for x, t in _parts(line))


def _header_row(lines: Sequence[Line], left: float, centers: Sequence[float]) -> tuple[str, ...]:
    """Header lines stacked per column: a run goes to the columns it spans (or the
    nearest); a run over all columns ("Year ended December 31,") and runs left of the
    values go to the label column."""
    n = len(centers)
    spacing = _spacing(centers)
    label: list[str] = []
    cols: list[list[str]] = [[] for _ in centers]
    for line in lines:
        parts = _parts(line)
        years = [t for _, t in parts if _YEAR.match(t)]
        if len(years) == len(parts) == n:  # one year per column, however they are set
            for col, t in zip(cols, years, strict=True):
                col.append(t)
            continue
        over = [(x, t) for x, t in parts if _in_values(line, x, t, left)]
        label.extend(t for x, t in parts if (x, t) not in over)
        spans = [(x, x + len(t) * line.size * CHAR_WIDTH, t) for x, t in over]
        if len(spans) == 1 and n > 1 and _over_all(spans[0], centers, spacing):
            label.append(spans[0][2])  # one run centred over all the values: about each
        elif len(spans) == 1:
            a, b, text = spans[0]
            # the columns it spans (its width is only estimated), else the nearest
            tol = min(spacing, b - a) / 2
            spanned = [k for k in range(n) if a - tol <= centers[k] <= b + tol]
            for k in spanned or [_nearest(centers, (a + b) / 2)]:
                cols[k].append(text)
        elif spans:  # several runs share out the columns: each takes the nearest
            taken = [min(spans, key=lambda s: (_distance(c, s), abs(c - s[0]))) for c in centers]
            for k, span in enumerate(taken):
                cols[k].append(span[2])
            for sp in spans:  # a run no column took still belongs somewhere
                if all(sp is not t for t in taken):
                    cols[_nearest(centers, (sp[0] + sp[1]) / 2)].append(sp[2])
    return (" ".join(label), *(" ".join(c) for c in cols))


def _over_all(span: tuple[float, float, str], centers: Sequence[float], spacing: float) -> bool:
    """A wide run centred over the value columns ("Year ended December 31,")."""
    a, b, _ = span
    mean = sum(centers) / len(centers)
    return b - a >= spacing / 2 and abs((a + b) / 2 - mean) < spacing / 3


def _nearest(centers: Sequence[float], x: float) -> int:
    return min(range(len(centers)), key=lambda k: abs(centers[k] - x))


def _distance(c: float, span: tuple[float, float, str]) -> float:
    return max(span[0] - c, c - span[1], 0.0)


def _caption(lines: Sequence[Line], top: int, floor: int, blocked: Collection[int]) -> int:
    """First of the short lines right above a table (title, entity, "(in millions)")."""
    k = top
    while k > floor and top - k < CAPTION_LINES:
        line = lines[k - 1]
        text = line.text
        if k - 1 in blocked or line.mono or line.cells or len(text) > MAX_CAPTION:
            break
        if text[:1].islower() or not _gap_ok(line, lines[k]):
            break
        k -= 1
    # the first line must not be the tail of a paragraph that goes on above it
    while k < top and k > floor and _runs_on(lines[k - 1], lines[k]):
        k += 1
    return k


def _runs_on(upper: Line, lower: Line) -> bool:
    return (
        len(upper.text) > MAX_CAPTION
        and not re.search(r"[.:;!?)\]]$", upper.text)
        and 0 < upper.y - lower.y <= 1.6 * max(upper.size, 1.0)
    )


__all__ = ["Row", "Statement", "find_statements", "read_row"]
