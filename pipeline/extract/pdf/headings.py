"""Where headings are in a PDF's lines: from its outline, or from font-size evidence.

Both functions are pure: they take the kept lines of every page and return a
``HeadingPlan`` that says which lines become heading lines (possibly several lines merged,
or the start of a line for run-in headings) and which headings are inserted where no
line carries their title.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from itertools import accumulate, chain
from operator import itemgetter

from ...text.titles import norm_title, title_chars
from .contents import Contents
from .heading_evidence import (
    Head,
    Listing,
    covered_styles,
    drop_below_contents,
    drop_below_numbered,
    drop_dense_styles,
    drop_out_of_sequence,
    drop_unlisted_unnumbered,
)
from .layout import Line

# "3", "IV", "Chapter 3", and the label set glued to its number ("Chapter1")
_NUMBER_ONLY = re.compile(
    r"^(?:(?:chapter|part|appendix|lecture|kapitel|teil|anhang)(?:\s+|(?=\d|(?-i:[A-Z])\.?$)))?"
    r"(?:\d+|[IVXLC]+|[A-Z])\.?$",
    re.IGNORECASE,
)
_GLUED_LABEL = re.compile(
    r"^(chapter|part|appendix|lecture|kapitel|teil|anhang)(?=\d|(?-i:[A-Z])\b)", re.I
)
_MAX_LEVEL = 6


@dataclass(frozen=True, slots=True)
class OutlineItem:
    level: int
    title: str
    page: int  # 0-based page index
    top: float | None = None  # destination y, when the bookmark gives one


@dataclass(frozen=True, slots=True)
class Placed:
    """A heading taken from ``span`` lines starting at kept line ``index`` of a page.

    ``split`` > 0 means a run-in heading: the first ``split`` characters of the line are the
    heading and the rest of the line stays body text.
    """

    level: int
    title: str
    span: int = 1
    split: int = 0


@dataclass(slots=True)
class HeadingPlan:
    # page index → kept-line index → heading taken from the lines there
    at: dict[int, dict[int, Placed]] = field(default_factory=dict)
    # page index → kept-line index → headings inserted before that line (len(lines) = end)
    inserted: dict[int, dict[int, list[tuple[int, str]]]] = field(default_factory=dict)
    found: int = 0
    missing: int = 0

    def place(self, page: int, index: int, heading: Placed) -> None:
        self.at.setdefault(page, {})[index] = heading
        self.found += 1

    def insert(self, page: int, index: int, level: int, title: str) -> None:
        self.inserted.setdefault(page, {}).setdefault(index, []).append((level, title))
        self.missing += 1

    def __len__(self) -> int:
        return self.found + self.missing


def clean_heading(text: str) -> str:
    return " ".join(text.replace("#", " ").split()).strip()


@functools.lru_cache(maxsize=8192)
def _title_pattern(title: str, folded: bool = False) -> re.Pattern[str] | None:
    # compiled once per title: a long outline (1,588 entries) thrashes ``re``'s own cache.
    # ``folded``: for an ASCII title, matched against the line folded (``_fold``) without
    # ``re.IGNORECASE``, the same matches (each atom, \s, \d, the number's class and
    # every ASCII letter, matches the same code points either way) at a third of the
    # cost of compiling
    words = title.lower().split() if folded else title.split()
    if not words:
        return None
    number = r"[\divx]" if folded else r"[\dIVXivx]"
    pattern = r"^\s*(?:" + number + r"+(?:\.\d+)*\.?\s*)?"
    pattern += r"\s*".join(re.escape(w) for w in words)
    return re.compile(pattern, 0 if folded else re.IGNORECASE)


# the only characters outside ASCII that ``re.IGNORECASE`` matches to ASCII ones
_ASCII_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


@functools.lru_cache(maxsize=8192)
def _ascii_key(title: str) -> str | None:
    """An ASCII title's words, lower case, joined; ``None`` for a title not all ASCII."""
    return "".join(title.split()).lower() if title.isascii() else None


def _fold(line: str) -> str:
    """``line`` with the same length, lower case, the four characters ``re.IGNORECASE``
    matches to ASCII letters made those letters (U+0130 is the one character whose lower
    case is two). An ASCII line holds none of the four: it is only lowered."""
    return line.lower() if line.isascii() else line.translate(_ASCII_FOLD).lower()


def _may_open(folded_line: str, key: str) -> bool:
    """Whether a title's pattern can match a line (given ``_fold``-ed), for an ASCII
    title's ``key``: it joins the words with ``\\s*`` (``str.isspace``, exactly), ignores
    case and allows a number before them (``[\\dIVXivx]+(?:\\.\\d+)*\\.?``), so the line,
    blanks dropped, holds ``key`` after nothing but digits, ``i``, ``v``, ``x`` and full
    stops. Most lines do not, and the title's pattern is then never compiled."""
    folded = "".join(folded_line.split())
    lead = 0
    for c in folded:
        if not (c in "ivx." or c.isdecimal()):
            break
        lead += 1
    return folded.find(key, 0, lead + len(key)) >= 0


def _run_in_split(line: str, title: str) -> int:
    """Length of the prefix of ``line`` that is ``title`` (optionally numbered), or 0."""
    key = _ascii_key(title)
    if key is not None:
        head = line.lstrip()[:1]
        if head and key:  # the line's first letter must be the title's, or open a number
            first = _fold(head)
            if first != key[0] and not (first in "ivx." or first.isdecimal()):
                return 0  # what _may_open finds: the number is empty, the key not first
        low = _fold(line)
        if not _may_open(low, key):
            return 0
        end = _folded_match_end(low, title)
        if end is None or end >= len(line):
            return 0
    else:
        pattern = _title_pattern(title)
        m = pattern.match(line) if pattern is not None else None
        if m is None or m.end() >= len(line):
            return 0
        end = m.end()
    rest = line[end:]
    if not rest[:1].isspace() and rest[:1] not in {".", ":", "—", "–"}:
        return 0
    return end


@functools.lru_cache(maxsize=8192)
def _lower_words(title: str) -> tuple[str, ...]:
    return tuple(title.lower().split())


def _folded_match_end(low: str, title: str) -> int | None:
    """Where ``_title_pattern(title, True)`` ends its match in the folded line ``low``
    (``None``: no match), without compiling it when the line, blanks aside, does not open
    with a character the number's class ``[\\divx]`` takes: the number cannot match
    then, and the words (no blank in them) follow each other with only ``\\s*`` (greedy,
    before a non-blank: nothing to backtrack) between them."""
    q = len(low) - len(low.lstrip())  # ``^\\s*``: str.strip strips what \\s matches
    c = low[q : q + 1]
    if c and (c in "ivx" or c.isdecimal() or c.isdigit()):
        pattern = _title_pattern(title, True)
        m = pattern.match(low) if pattern is not None else None
        return None if m is None else m.end()
    words = _lower_words(title)
    if not words:
        return None
    p, n = q, len(low)
    for k, w in enumerate(words):
        if k:
            while p < n and low[p].isspace():
                p += 1
        if not low.startswith(w, p):
            return None
        p += len(w)
    return p


_SECTION_NUMBER = re.compile(r"^((?:\d+|[A-Z])(?:\.\d+)+|\d+)\.?\s+\S")


def _similar(a: str, b: str) -> bool:
    """Keys that differ only a little (a math symbol printed vs its bookmark spelling)."""
    if min(len(a), len(b)) < 8 or abs(len(a) - len(b)) > max(len(a), len(b)) * 0.3:
        return False
    return SequenceMatcher(None, a, b, autojunk=False).ratio() >= 0.85


@dataclass(frozen=True, slots=True)
class _OutlineSearch:
    """What the search for every bookmark shares: the pages, the body size, the titles
    bookmarked on each page, and what earlier bookmarks took (lines used, a cursor per
    page after its last heading, window keys already normalised)."""

    pages: Sequence[Sequence[Line]]
    body: float
    titled: dict[int, set[str]]
    used: set[tuple[int, int]] = field(default_factory=set)
    cursor: dict[int, int] = field(default_factory=dict)
    keys: dict[tuple[int, int, int], str] = field(default_factory=dict)
    # per page: its lines' ``title_chars`` one after the other, where each line's begin,
    # and the lines by where they end (``_read_as_lines``)
    chars: dict[int, tuple[str, list[int], dict[int, list[int]]]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Sought:
    """One bookmark being looked for: its normalised title and its level (1–6)."""

    item: OutlineItem
    key: str
    level: int


def plan_from_outline(pages: Sequence[Sequence[Line]], items: Sequence[OutlineItem]) -> HeadingPlan:
    """Locate each bookmark's title on its target page; insert it there when not found.

    Search order for a bookmark on page ``p``: its title on one to three lines of ``p``
    (after the previous heading placed on ``p``, then before it), a run-in title at the
    start of a line, a line whose text is nearly the title (a printed math symbol against
    its bookmark spelling) and is not exactly another bookmark's title; then, when the
    destination lies below every line of ``p`` (LaTeX anchors a heading pushed to the
    next page at the bottom of the page before), the title at the start of page
    ``p + 1``. Otherwise the heading is inserted before the line carrying its section
    number (``2.1 …``, a short bookmark title for a long printed one), else before the
    first line below the destination, else after the previous heading of the page.
    """
    # the titles bookmarked on each page: a line that is exactly one of them belongs to it
    titled: dict[int, set[str]] = {}
    for it in items:
        titled.setdefault(it.page, set()).add(norm_title(it.title))
    search = _OutlineSearch(pages, body_size(pages), titled)
    plan = HeadingPlan()
    for item in items:
        if 0 <= item.page < len(pages):
            sought = _Sought(item, norm_title(item.title), max(1, min(item.level, _MAX_LEVEL)))
            _plan_bookmark(plan, search, sought)
    return plan


def _plan_bookmark(plan: HeadingPlan, s: _OutlineSearch, b: _Sought) -> None:
    """Place one bookmark on the lines carrying its title, or insert it on its page."""
    p = b.item.page
    start = s.cursor.get(p, 0)
    hit = _locate(s, b, start)
    if hit is None:
        lines = s.pages[p]
        at = _insert_at(lines, b.item, start, s.body, s.used, p)
        plan.insert(p, at, b.level, clean_heading(b.item.title) or "Untitled")
        return
    page, i, placed = hit
    plan.place(page, i, placed)
    for j in range(i, i + placed.span):
        s.used.add((page, j))
    s.cursor[page] = i + placed.span


def _locate(s: _OutlineSearch, b: _Sought, start: int) -> tuple[int, int, Placed] | None:
    """The page, first line and heading of a bookmark's title, searched in the order the
    docstring of ``plan_from_outline`` gives."""
    p = b.item.page
    n = len(s.pages[p])
    hit = _find(s, p, b, (range(start, n), range(0, min(start, n))))
    if hit is None:
        hit = _find_similar(s, p, b, start)
    if hit is not None:
        return p, hit[0], hit[1]
    return _find_on_next_page(s, b, start)


def _find_on_next_page(s: _OutlineSearch, b: _Sought, start: int) -> tuple[int, int, Placed] | None:
    # LaTeX anchors a heading pushed to the next page at the bottom of the page before
    p, top = b.item.page, b.item.top
    if top is None or not all(ln.y > top + 1.0 for ln in s.pages[p][start:]):
        return None
    if p + 1 >= len(s.pages):
        return None
    first = s.cursor.get(p + 1, 0)
    head = range(first, min(len(s.pages[p + 1]), first + 4))
    hit = _find(s, p + 1, b, (head,))
    return None if hit is None else (p + 1, hit[0], hit[1])


def _window_key(s: _OutlineSearch, p: int, i: int, k: int) -> str:
    # normalised once: the same windows are compared against every bookmark of the page
    ck = (p, i, k)
    hit = s.keys.get(ck)
    if hit is None:
        lines = s.pages[p]
        hit = norm_title(
            lines[i].text if k == 1 else " ".join([ln.text for ln in lines[i : i + k]])
        )
        s.keys[ck] = hit
    return hit


def _find(
    s: _OutlineSearch, p: int, b: _Sought, order: Sequence[Iterable[int]]
) -> tuple[int, Placed] | None:
    """The first free line of ``p``, in ``order``, where the title starts: on its own
    one to three lines, or run in at the start of a line."""
    lines = s.pages[p]
    may = _read_as_lines(s, p, b.key)
    for i in chain.from_iterable(order):
        if (p, i) in s.used:
            continue
        k = _title_span(s, p, i, b.key) if may is None or i in may else 0
        if k:
            text = clean_heading(" ".join(ln.text for ln in lines[i : i + k]))
            return i, Placed(b.level, text or b.item.title, span=k)
        if len(b.key) >= 4 and lines[i].text:
            cut = _run_in_split(lines[i].text, b.item.title)
            if cut:
                text = clean_heading(lines[i].text[:cut].rstrip(" .:—–"))
                return i, Placed(b.level, text or b.item.title, span=1, split=cut)
    return None


def _title_span(s: _OutlineSearch, p: int, i: int, key: str) -> int:
    """How many free lines from ``i`` (1–3) read as the title ``key``; 0 when none do."""
    n = len(s.pages[p])
    used = s.used
    for k in (1, 2, 3):
        # lines i .. i+k-1 free (those before the last were checked for a smaller k)
        if i + k > n or (p, i + k - 1) in used:
            return 0
        wk = _window_key(s, p, i, k)
        if wk == key and key:
            return k
        if len(wk) > len(key) + 40:  # longer lines will not shrink back to the title
            return 0
    return 0


def _read_as_lines(s: _OutlineSearch, p: int, key: str) -> set[int] | None:
    """The lines of page ``p`` from which a window of one to three lines may have the key
    ``key`` (``None``: any, for an empty key): only if ``key`` ends the window's
    ``title_chars`` (the lines' one after the other), so where ``key`` occurs in the
    page's, ending where a line ends and beginning in the window. Most windows hold no
    such place, and are then not normalised (``_title_span`` finds no title there
    whatever it reads); the page's occurrences are found in one pass, not per window."""
    if not key:
        return None
    got = s.chars.get(p)
    if got is None:
        parts = [title_chars(ln.text) for ln in s.pages[p]]
        starts = list(accumulate(map(len, parts), initial=0))
        by_end: dict[int, list[int]] = {}
        for j in range(len(parts)):
            by_end.setdefault(starts[j + 1], []).append(j)
        got = s.chars[p] = ("".join(parts), starts, by_end)
    joined, starts, by_end = got
    out: set[int] = set()
    k = len(key)
    at = joined.find(key)
    while at >= 0:
        for j in by_end.get(at + k, ()):  # window i..j, i from j - 2 on, holds ``at``
            out.update(i for i in range(max(j - 2, 0), j + 1) if starts[i] <= at)
        at = joined.find(key, at + 1)
    return out


def _find_similar(s: _OutlineSearch, p: int, b: _Sought, start: int) -> tuple[int, Placed] | None:
    """A free display line nearly reading the title, not exactly another bookmark's."""
    lines = s.pages[p]
    for i in [*range(start, len(lines)), *range(0, min(start, len(lines)))]:
        if (p, i) in s.used or (lines[i].size < s.body * 1.05 and not lines[i].bold):
            continue
        wk = _window_key(s, p, i, 1)
        if wk in s.titled.get(p, ()):
            continue
        if _similar(wk, b.key):
            return i, Placed(b.level, clean_heading(b.item.title) or lines[i].text, span=1)
    return None


def _numbered(text: str, number: str) -> bool:
    """``text`` opens with ``number``, an optional full stop, white space and more: what
    ``re.match(re.escape(number) + r"\\.?\\s+\\S", text)`` finds, without compiling a
    pattern per number (``\\s`` is ``str.isspace``, exactly)."""
    if not text.startswith(number):
        return False
    rest = text[len(number) :]
    if rest[:1] == ".":
        rest = rest[1:]
    return rest[:1].isspace() and rest.lstrip() != ""


def _insert_at(
    lines: Sequence[Line],
    item: OutlineItem,
    start: int,
    body: float,
    used: set[tuple[int, int]],
    p: int,
) -> int:
    """Where a bookmark whose title is not on its page goes among the page's lines."""
    m = _SECTION_NUMBER.match(item.title.strip())
    if m is not None:
        number = m.group(1)
        for i in range(start, len(lines)):
            ln = lines[i]
            if (p, i) in used or not (ln.size >= body * 1.05 or ln.bold):
                continue
            if _numbered(ln.text, number):
                return i
    if item.top is not None:
        for i in range(start, len(lines)):
            if lines[i].y <= item.top + 1.0 and (p, i) not in used:
                return i
        return len(lines)
    return min(start, len(lines))


# --- font-size evidence ------------------------------------------------------------------


_COUNT = itemgetter(1)


def body_size(pages: Sequence[Sequence[Line]]) -> float:
    """The size of the most characters, to the half point (the first of the most, as
    ``Counter.most_common(1)`` picks it); each distinct size rounded once."""
    sizes: dict[float, int] = {}
    half: dict[float, float] = {}
    for lines in pages:
        for ln in lines:
            h = half.get(ln.size)
            if h is None:  # NaN is never found: ``round`` raises on it as it did
                h = half[ln.size] = round(ln.size * 2) / 2
            sizes[h] = sizes.get(h, 0) + len(ln.text)
    return max(sizes.items(), key=_COUNT)[0] if sizes else 0.0


_NUMBERED = re.compile(
    # a section letter is a capital ("A.2"); "a Author" is a list label
    r"^(?:(?:chapter|part|appendix|kapitel|teil|anhang)\s+\S+|(?:\d+|(?-i:[A-Z]))(?:\.\d+)*\.?)"
    r"(?=\s+\S)",
    re.I,
)
_TRAILING_NUM = re.compile(r"(?<=[^\W\d_])\s+\d{1,3}$")


def _is_candidate_text(text: str) -> bool:
    if not 2 <= len(text) <= 150:
        return False
    letters = sum(ch.isalpha() for ch in text)
    if letters < 2 and not _NUMBER_ONLY.match(text):
        return False
    words = text.split()
    if len(words) > 16:
        return False
    return not (text.endswith((".", ",", ";")) and len(words) > 3 and not _NUMBER_ONLY.match(text))


def numbering_depth(text: str) -> int | None:
    """1 for "Chapter 3" / "3", 2 for "3.1", 3 for "A.1.2"; None when not numbered."""
    m = _NUMBERED.match(text.strip())
    if m is None:
        return None
    tok = m.group(0)
    if tok.split()[0].casefold() in {"chapter", "part", "appendix", "kapitel", "teil", "anhang"}:
        return 1
    return min(tok.rstrip(".").count(".") + 1, _MAX_LEVEL)


def plan_from_fonts(
    pages: Sequence[Sequence[Line]],
    *,
    min_headings: int = 2,
    contents: Contents = Contents(),  # noqa: B008  (frozen, so safe as a default)
) -> HeadingPlan:
    """Lines set larger than the body text become headings.

    Display type is left out (letter-spaced words, text inside figures, one-off styles);
    a printed ``contents`` decides within the styles it covers (``_keep_listed``); levels
    come from the rank of each recurring style, refined by numbering (``_levels``).
    """
    plan = HeadingPlan()
    body = body_size(pages)
    if body <= 0:
        return plan
    cands = _font_candidates(pages, body)
    if not cands:
        return plan
    heads = _chapter_labels(_heads(pages, _group_candidates(pages, cands)), contents)
    heads = _drop_running_heads(_drop_figure_text(heads), pages)
    listing = Listing.of(heads, contents)
    heads = drop_below_contents(_keep_listed(heads, listing), listing)
    heads = drop_below_numbered(heads, listing)
    heads = drop_unlisted_unnumbered(heads, listing)
    heads = drop_out_of_sequence(drop_dense_styles(heads, listing))
    if len(heads) < min_headings:
        return plan
    for h, level in _as_tree_depths(_levels(heads, pages)):
        plan.place(h.page, h.line, Placed(level, h.text, span=h.span))
    return plan


_Candidate = tuple[int, int, float]  # page, line, size key


def _font_candidates(pages: Sequence[Sequence[Line]], body: float) -> list[_Candidate]:
    """Lines set larger than the body, or numbered and a little larger or bold."""
    # a title page is not a heading (a first page that opens with body text may hold some)
    skip_first = len(pages) > 5 and len(pages[0]) <= 15
    cands: list[_Candidate] = []
    for p, lines in enumerate(pages):
        if p == 0 and skip_first:
            continue
        for i, ln in enumerate(lines):
            if _is_font_candidate(ln, body):
                cands.append((p, i, round(ln.size * 2) / 2))
    return cands


def _is_font_candidate(ln: Line, body: float) -> bool:
    if ln.mono or not _is_candidate_text(ln.text):
        return False
    numbered = numbering_depth(ln.text) is not None
    return ln.size >= body * 1.12 or (
        numbered
        and (ln.size >= body * 1.07 or (ln.bold and ln.size >= body * 0.97))
        and len(ln.text) <= 90
        and not ln.text.endswith(".")
    )


def _group_candidates(
    pages: Sequence[Sequence[Line]], cands: Sequence[_Candidate]
) -> list[list[_Candidate]]:
    """Consecutive candidate lines merged (multi-line titles, "Chapter 3" + title)."""
    groups: list[list[_Candidate]] = []
    for c in cands:
        if groups and _continues_group(pages, groups[-1], c):
            groups[-1].append(c)
        else:
            groups.append([c])
    return groups


def _continues_group(pages: Sequence[Sequence[Line]], g: list[_Candidate], c: _Candidate) -> bool:
    last = g[-1]
    first_text = pages[g[0][0]][g[0][1]].text
    return (
        c[0] == last[0]
        and c[1] == last[1] + 1
        and len(g) < 3
        and (
            (c[2] == last[2] and numbering_depth(pages[c[0]][c[1]].text) is None)
            or (len(g) == 1 and _NUMBER_ONLY.match(first_text) is not None)
        )
    )


def _heads(pages: Sequence[Sequence[Line]], groups: Sequence[list[_Candidate]]) -> list[Head]:
    """Each group's text as a heading, unless it is a bare number, too long or junk."""
    heads: list[Head] = []
    for g in groups:
        p, i, _ = g[0]
        text = clean_heading(" ".join(pages[p][j].text for _, j, _ in g))
        text = _GLUED_LABEL.sub(r"\1 ", text)
        if not text or _NUMBER_ONLY.match(text) or len(text.split()) > 20 or _is_junk(text):
            continue
        if _not_a_heading(text):
            continue
        bold = all(pages[p][j].bold for _, j, _ in g)
        heads.append(Head(p, i, len(g), (max(s for _, _, s in g), bold), text))
    return heads


_LETTER_SPACED = re.compile(r"^(?:\S\s){3,}")
_PART = re.compile(r"^(?:part|teil|partie|book)\s+(?:[ivxlc]+|\d+|[a-z]+)\b", re.IGNORECASE)
_LEADING_NUMBER = re.compile(r"^(?:\d+|[A-Z])(?:\.\d+)*\.?\s")


def _is_junk(text: str) -> bool:
    """Letter-spaced display type (``S E C O N D``) and one word repeated (figure text)."""
    tokens = text.split()
    if len(tokens) >= 4 and sum(len(t) == 1 for t in tokens) >= 0.6 * len(tokens):
        return True
    if _LETTER_SPACED.match(text) and len(tokens) >= 6:
        return True
    return len(tokens) >= 2 and len({t.casefold() for t in tokens}) == 1


_CAPTION = re.compile(
    r"^(?i:fig(?:ure)?|tab(?:le)?|listing|algorithm|exhibit|chart|plate|abb(?:ildung)?|tabelle)"
    r"\.?\s+(?:\d+|[IVXLC]+|[A-Z])(?:[.\-–]\d+)*(?:[.:]|\s|$)"
)
RUNNING_HEAD_DENSITY = 0.3
_LIST_ITEM = re.compile(r"^(?:[•·◦▪▸►‣⁃∙*–—-]|\(?(?:[a-z]|[ivx]{1,4}|\d{1,2})\))\s")
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december"
    "|januar|februar|märz|juni|juli|oktober|dezember"
)
# a byline's date: "June 21, 2015", "21 June 2015", "2015-06-21"
_DATE = re.compile(
    rf"\b(?:(?i:{_MONTHS})\s+\d{{1,2}},?\s+\d{{4}}|\d{{1,2}}\.?\s+(?i:{_MONTHS})\s+\d{{4}}"
    r"|\d{4}-\d{2}-\d{2})\b"
)
_MATH = frozenset("=+−*/^_<>≤≥≠≈∑∏∫√∂∞±×÷|∈∉⊂⊆∪∩→←↦")
_RELATION = re.compile(r"[=≤≥≠≈<>∈→]")


def _not_a_heading(text: str) -> bool:
    """Lines set like headings that are not: captions (``Figure 3.2``, ``Table 4``), list
    items (a bullet or ``(a)``), a byline with its date, and equations (a relation sign,
    or mostly symbols)."""
    if _CAPTION.match(text) or _LIST_ITEM.match(text) or _DATE.search(text):
        return True
    if numbering_depth(text) is not None:
        return False
    symbols = sum(ch in _MATH for ch in text)
    words = [w for w in text.split() if sum(ch.isalpha() for ch in w) >= 3]
    return (bool(_RELATION.search(text)) and len(words) <= 3) or symbols >= max(3, len(text) / 6)


def _drop_running_heads(heads: list[Head], pages: Sequence[Sequence[Line]]) -> list[Head]:
    """A heading-sized line repeated at the top or the bottom of three or more pages, and
    on a good share of the pages it spans, is a running head (the boilerplate pass misses
    those set as large as a heading). A title every chapter repeats is not that dense."""

    def key(h: Head) -> str:
        return re.sub(r"\d+", "#", h.text.casefold())

    def at_edge(h: Head) -> bool:
        return h.line == 0 or h.line + h.span >= len(pages[h.page])

    edge_pages: dict[str, set[int]] = {}
    for h in heads:
        if at_edge(h):
            edge_pages.setdefault(key(h), set()).add(h.page)

    def running(pages_at: set[int]) -> bool:
        span = max(pages_at) - min(pages_at) + 1
        return len(pages_at) >= 3 and len(pages_at) >= RUNNING_HEAD_DENSITY * span

    return [h for h in heads if not (at_edge(h) and running(edge_pages[key(h)]))]


# a chapter number or letter set after the title, apart or glued to it ("Introduction 1",
# "Test C", "Notes (draft)A"); not the label of "Part II" or "Appendix A"
_LABEL_AFTER = re.compile(r"^(?P<title>.*\S)(?:\s+|(?<=[a-z)\]]))(?P<label>\d{1,2}|[A-Z])$")
_LABEL_WORD = re.compile(r"(?:^|\s)(?:chapter|part|appendix|book|kapitel|teil|anhang)$", re.I)
LABELLED_SHARE = 0.5  # of a style's numbered headings that carry the label after the title


def _trailing_label(text: str) -> re.Match[str] | None:
    m = _LABEL_AFTER.match(text)
    if m is None or numbering_depth(text) is not None or _LABEL_WORD.search(m["title"]):
        return None
    return m


def _chapter_labels(heads: list[Head], contents: Contents) -> list[Head]:
    """A style whose numbers mostly come after the title (a chapter number or letter,
    each after a different title; front matter unnumbered) prints its labels there (a
    big "1" beside the chapter title): the label goes in front, where numbering is read.
    A series of one title ("Week 1", "Week 2") is left alone. Elsewhere a trailing number
    of a longer title is a page number or a note mark, dropped, unless the printed
    contents lists the title with it ("Migrating from minted version 2")."""
    titles: dict[tuple[float, bool], list[str]] = {}
    for h in heads:
        m = _trailing_label(h.text)
        if m is not None:
            titles.setdefault(h.style, []).append(m["title"].casefold())
    numbered: Counter[tuple[float, bool]] = Counter(
        h.style for h in heads if numbering_depth(h.text) is not None
    )
    labels = {
        st
        for st, ts in titles.items()
        if len(ts) >= 2
        and len(ts) >= LABELLED_SHARE * (len(ts) + numbered[st])
        and len(set(ts)) == len(ts)
    }
    out: list[Head] = []
    for h in heads:
        m = _trailing_label(h.text)
        if m is not None and h.style in labels:
            out.append(h._replace(text=f"{m['label']} {m['title']}"))
        elif len(h.text.split()) > 2 and norm_title(h.text) not in contents.keys:
            out.append(h._replace(text=_TRAILING_NUM.sub("", h.text)))
        else:
            out.append(h)
    return out


def _keep_listed(heads: list[Head], listing: Listing) -> list[Head]:
    """In a style the printed contents covers (it lists two or more of its headings and a
    good share of them), a heading it does not list is left out: a starred section, front
    matter, the contents page's own title. Styles the contents does not reach (it may
    stop at chapters) keep every heading."""
    if not listing:
        return heads
    covered = covered_styles(heads, listing)
    return [h for h in heads if h.style not in covered or listing.lists(h)]


def _drop_figure_text(heads: list[Head]) -> list[Head]:
    """Large type inside figures (book covers, posters) and on crowded display pages.

    A page with five or more candidates keeps only the numbered ones and those in a style
    used on at least three pages; then a style seen several times but on one page only,
    never numbered, is figure text.
    """
    per_page: Counter[int] = Counter(h.page for h in heads)
    pages_of: dict[tuple[float, bool], set[int]] = {}
    for h in heads:
        pages_of.setdefault(h.style, set()).add(h.page)
    heads = [
        h
        for h in heads
        if per_page[h.page] < 5
        or numbering_depth(h.text) is not None
        or len(pages_of[h.style]) >= 3
    ]
    count: Counter[tuple[float, bool]] = Counter(h.style for h in heads)
    pages_of = {}
    for h in heads:
        pages_of.setdefault(h.style, set()).add(h.page)
    numbered = {h.style for h in heads if numbering_depth(h.text) is not None}
    return [
        h
        for h in heads
        if not (count[h.style] >= 2 and len(pages_of[h.style]) == 1 and h.style not in numbered)
    ]


def _levels(heads: Sequence[Head], pages: Sequence[Sequence[Line]]) -> list[tuple[Head, int]]:
    """Heading levels from the rank of each style (size, then bold) among recurring styles.

    A style used by two or more headings is a level; levels go by size, bold before
    regular at the same size. Numbering refines a style that holds several depths
    (``3.1`` and ``3.1.2`` set alike). A style used once is kept when it is numbered
    (ranked among the others by size), when it is larger than every recurring style
    (a document title on the first page, or a part — ``Part II`` or a nearly empty page —
    which pushes every other level down by one); otherwise it is display type (an epigraph,
    a dedication, a figure label) and dropped.
    """
    count: Counter[tuple[float, bool]] = Counter(h.style for h in heads)
    recurring = sorted((st for st in count if count[st] > 1), key=lambda st: (-st[0], not st[1]))
    if not recurring:  # nothing recurs: rank every style by size
        recurring = sorted(count, key=lambda st: (-st[0], not st[1]))
    top = recurring[0][0]
    shift = 0
    for h in heads:
        if (
            count[h.style] == 1
            and h.style[0] > top + 0.25
            and h.page > 0
            and (_PART.match(h.text) or len(pages[h.page]) <= 4)
        ):
            shift = 1
            break
    depth_min: dict[tuple[float, bool], int] = {}
    for h in heads:
        d = numbering_depth(h.text)
        if d is not None and h.style in recurring:
            depth_min[h.style] = min(depth_min.get(h.style, d), d)
    parts = _parts_among_chapters(heads, recurring)
    out: list[tuple[Head, int]] = []
    for i, h in enumerate(heads):
        depth = numbering_depth(h.text)
        # below the first part set like the chapters, every heading but a part goes down one
        lift = 1 if parts and i > min(parts) and i not in parts else 0
        if h.style in recurring:
            level = recurring.index(h.style) + 1 + shift + lift
            if depth is not None and h.style in depth_min:
                level += depth - depth_min[h.style]
        elif h.style[0] > top + 0.25:
            level = 1  # a title or a part
        elif depth is not None:
            level = 1 + shift + lift + sum(1 for st in recurring if (st[0], st[1]) > h.style)
        else:
            continue
        out.append((h, max(1, min(level, _MAX_LEVEL))))
    return out


def _as_tree_depths(leveled: list[tuple[Head, int]]) -> list[tuple[Head, int]]:
    """Each level as the heading's depth in the tree the levels make, as a PDF outline
    nests its bookmarks: a chapter before the first part has no part above it and is a
    top entry, a subsection set right under its chapter is the chapter's child."""
    out: list[tuple[Head, int]] = []
    open_levels: list[int] = []  # the levels of the headings open above the next one
    for h, level in leveled:
        while open_levels and open_levels[-1] >= level:
            open_levels.pop()
        open_levels.append(level)
        out.append((h, len(open_levels)))
    return out


def _parts_among_chapters(
    heads: Sequence[Head], recurring: Sequence[tuple[float, bool]]
) -> set[int]:
    """Indices of the parts (``Part II …``) in a recurring style that also holds other
    headings (the chapters, the preface): each part is a level above what follows it."""
    parts = {i for i, h in enumerate(heads) if h.style in recurring and _PART.match(h.text)}
    styles = {heads[i].style for i in parts}
    mixed = {st for st in styles if any(h.style == st and not _PART.match(h.text) for h in heads)}
    return {i for i in parts if heads[i].style in mixed}


__all__ = [
    "HeadingPlan",
    "OutlineItem",
    "Placed",
    "body_size",
    "clean_heading",
    "numbering_depth",
    "plan_from_fonts",
    "plan_from_outline",
]
