"""Precision rules for headings found from fonts: evidence that a heading-like line is not one.

Font size and weight find every line set like a heading; three kinds of evidence take out
those that are not:

- numbering: section numbers run in sequence (1, 1.1, 1.2, 2); a numbered line that breaks
  the run while a later heading continues it is a numbered line of a listing or a list;
- density: a style set many times on the pages it appears on (labels of a cheat sheet, the
  titles of code listings, a list of problems) is emphasis, not a heading level;
- the printed contents: when it lists the numbered headings, an unnumbered style set below
  all of them that it never lists holds run-in or starred sub-headings the author left out,
  and an unnumbered line of a numbered style that it does not list is no heading either;
- numbering without a contents: an unnumbered style set below every numbered style holds
  the same sub-headings (LaTeX bookmarks and lists what it numbers, by default).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import median
from typing import NamedTuple

from .contents import Contents

Style = tuple[float, bool]  # (size key, bold)


OFFSET_VOTES = 3  # listed headings agreeing on where printed page 1 lies


@dataclass(frozen=True, slots=True)
class Listing:
    """The printed contents, read against the headings: which of them it lists, and where
    (``offset``: physical page index minus printed page number, when enough agree)."""

    contents: Contents = Contents()  # noqa: RUF009  (frozen, so safe as a default)
    offset: int | None = None

    def __bool__(self) -> bool:
        return bool(self.contents)

    @classmethod
    def of(cls, heads: Sequence[Head], contents: Contents) -> Listing:
        """The offset most headings listed with one printed page agree on, if any."""
        votes: Counter[int] = Counter()
        for h in heads:
            printed = contents.printed_pages(h.text) if contents.lists(h.text) else set()
            if len(printed) == 1:
                votes[h.page - printed.pop()] += 1
        if votes:
            delta, n = votes.most_common(1)[0]
            if n >= OFFSET_VOTES and 2 * n >= votes.total():
                return cls(contents, delta)
        return cls(contents)

    def lists(self, h: Head) -> bool:
        """Whether the contents lists ``h``: its title or number, and, when the contents'
        pages can be placed, on its page (±1): the same title elsewhere is another line."""
        if not self.contents.lists(h.text):
            return False
        printed = self.contents.printed_pages(h.text) if self.offset is not None else set()
        return not printed or any(abs(h.page - p - (self.offset or 0)) <= 1 for p in printed)


class Head(NamedTuple):
    """A candidate heading: ``span`` lines from kept line ``line`` of ``page``."""

    page: int
    line: int
    span: int
    style: Style
    text: str


_NUMBER = re.compile(
    r"^(?:(?:chapter|part|appendix|kapitel|teil|anhang)\s+(?P<label>\d+|[A-Z])\b"
    r"|(?P<num>(?:\d+|(?-i:[A-Z]))(?:\.\d+)*)\.?(?=\s+\S))",
    re.IGNORECASE,
)

Number = tuple[tuple[int, int], ...]  # each part: (0, n) for a number, (1, n) for letter n


def section_key(text: str, *, labelled: bool = True) -> Number | None:
    """``3.1`` → ((0, 3), (0, 1)); ``Appendix B`` → ((1, 2),) (None unless ``labelled``);
    None when not numbered."""
    m = _NUMBER.match(text.strip())
    if m is None or (m["label"] and not labelled):
        return None
    token = m["label"] or m["num"]
    parts: list[tuple[int, int]] = []
    for part in token.split("."):
        if part.isdigit():
            parts.append((0, int(part)))
        elif len(part) == 1 and part.isalpha():
            parts.append((1, ord(part.upper()) - 64))
        else:
            return None
    return tuple(parts)


def _successor(a: tuple[int, int], b: tuple[int, int], top: bool) -> bool:
    # the next number or letter; at the top the letters of the appendices follow numbers
    return (a[0] == b[0] and b[1] == a[1] + 1) or (top and a[0] == 0 and b == (1, 1))


def follows(prev: Number, nxt: Number) -> bool:
    """Whether ``nxt`` may come right after ``prev``: a first subsection (3 → 3.1, 3.1.1) or
    the next number at some depth, with first subsections below it (3.2 → 3.3, 4, 4.1)."""
    ones = ((0, 1),)
    for depth in (1, 2):
        if nxt == prev + ones * depth:
            return True
    for k in range(len(prev)):
        rest = nxt[k + 1 :]
        if (
            nxt[:k] == prev[:k]
            and len(nxt) > k
            and _successor(prev[k], nxt[k], k == 0)
            and len(rest) <= 2
            and all(r == (0, 1) for r in rest)
        ):
            return True
    return False


SEQUENCE_LOOKAHEAD = 5  # numbered headings after a suspect one that may resume the run
SEQUENCE_GAP = 4  # numbers a run may skip forward (headings the fonts did not find)


def out_of_sequence(prev: Number, nxt: Number) -> bool:
    """``nxt`` goes back (3 after 6.2, 2.1 again) or jumps far ahead (13 after 7.2) of
    ``prev``; a short skip forward (47.9 → 47.13, a few headings missed) is not."""
    if follows(prev, nxt):
        return False
    for a, b in zip(prev, nxt, strict=False):
        if a != b:  # a letter after numbers is in sequence only as "A" (``follows``)
            return b < a or a[0] != b[0] or b[1] - a[1] > SEQUENCE_GAP
    return len(nxt) <= len(prev)  # the same number again, or a parent of it


def drop_out_of_sequence(heads: list[Head]) -> list[Head]:
    """A numbered heading out of sequence after the last one kept is dropped (a numbered code
    line, a list item set in bold) unless a new run starts there: one of the next few
    headings follows it and none follows the last one kept.
    Labelled numbers ("Chapter 3", "Part II", "Kapitel 1") count apart from section numbers
    (a lecture's "Kapitel 1" over its sections 1, 2, 3) and stay."""
    keys = [section_key(h.text, labelled=False) for h in heads]
    numbered = [i for i, k in enumerate(keys) if k is not None]
    dropped: set[int] = set()
    prev: Number | None = None
    for n, i in enumerate(numbered):
        key = keys[i]
        assert key is not None
        ahead = [k for j in numbered[n + 1 : n + 1 + SEQUENCE_LOOKAHEAD] if (k := keys[j])]
        if prev is None:
            prev = key
        elif _interloper(prev, key, ahead):
            dropped.add(i)
        elif not out_of_sequence(prev, key) or (
            any(follows(key, k) for k in ahead) and not any(follows(prev, k) for k in ahead)
        ):
            prev = key  # in sequence, or a new run starts here (the body after a contents page)
        else:
            dropped.add(i)
    return [h for i, h in enumerate(heads) if i not in dropped]


def _interloper(prev: Number, key: Number, ahead: Sequence[Number]) -> bool:
    # a numbered list inside a section (7, 8, 11 under 6.5.13): a later heading goes on
    # from that section at its depth or above (6.6) and goes back from the list
    return not out_of_sequence(prev, key) and any(
        follows(prev, k) and len(k) <= len(prev) and k < key for k in ahead
    )


DENSE_PER_PAGE = 4  # median headings of one style on the pages it is set on
CROWDED_PAGE = 6  # unnumbered headings of one style on a single page


def drop_dense_styles(heads: list[Head], listing: Listing) -> list[Head]:
    """Unnumbered headings of a style set ``DENSE_PER_PAGE`` times a page (its median over
    the pages it is on), or ``CROWDED_PAGE`` times on one page, are emphasis: the labels of
    a cheat sheet, listing titles, a list of problems. Those the printed contents lists stay."""
    per_page: Counter[tuple[Style, int]] = Counter()
    for h in heads:
        if section_key(h.text) is None:
            per_page[(h.style, h.page)] += 1
    counts: dict[Style, list[int]] = {}
    for (style, _), n in per_page.items():
        counts.setdefault(style, []).append(n)
    dense = {st for st, ns in counts.items() if median(ns) >= DENSE_PER_PAGE}

    def emphasis(h: Head) -> bool:
        if section_key(h.text) is not None or listing.lists(h):
            return False
        return h.style in dense or per_page[(h.style, h.page)] >= CROWDED_PAGE

    return [h for h in heads if not emphasis(h)]


LISTED_SHARE = 0.25  # of a style's headings the contents lists, for it to cover the style
NUMBERED_SHARE = 0.5  # of a style's headings numbered, for the style to count as numbered


def covered_styles(heads: Sequence[Head], listing: Listing) -> set[Style]:
    """Styles the printed contents covers: it lists two or more of their headings and a
    good share of them."""
    count: Counter[Style] = Counter(h.style for h in heads)
    hits: Counter[Style] = Counter(h.style for h in heads if listing.lists(h))
    return {st for st, n in hits.items() if n >= max(2, LISTED_SHARE * count[st])}


def drop_below_contents(heads: list[Head], listing: Listing) -> list[Head]:
    """When the printed contents covers only numbered styles, an unnumbered style set below
    every one of them that it does not cover holds sub-headings the author kept out of the
    contents (starred or run-in): its headings are dropped, bar those the contents lists.
    A contents that stops at chapters leaves numbered sections alone."""
    covered = covered_styles(heads, listing)
    if not covered:
        return heads
    count: Counter[Style] = Counter(h.style for h in heads)
    numbered: Counter[Style] = Counter(h.style for h in heads if section_key(h.text) is not None)
    if any(numbered[st] < NUMBERED_SHARE * count[st] for st in covered):
        return heads
    lowest = min(covered)

    def below(st: Style) -> bool:
        return st not in covered and st < lowest and numbered[st] < NUMBERED_SHARE * count[st]

    return [h for h in heads if not below(h.style) or listing.lists(h)]


def drop_below_numbered(heads: list[Head], listing: Listing) -> list[Head]:
    """Without a printed contents to ask, an unnumbered style set below every numbered
    style holds sub-headings the author left unnumbered (starred, or below the numbering
    depth), and an outline leaves those out as a contents does (bookmarks go as deep as
    the contents): its headings are dropped. A document with no numbered style keeps all."""
    if covered_styles(heads, listing):
        return heads  # the contents decides (``drop_below_contents``)
    count: Counter[Style] = Counter(h.style for h in heads)
    numbered: Counter[Style] = Counter(h.style for h in heads if section_key(h.text) is not None)
    styles = [st for st in count if numbered[st] >= NUMBERED_SHARE * count[st]]
    if not styles:
        return heads
    lowest = min(styles)
    return [h for h in heads if h.style in styles or h.style > lowest]


def drop_unlisted_unnumbered(heads: list[Head], listing: Listing) -> list[Head]:
    """Where the printed contents covers a style, an unnumbered heading of a style that is
    mostly numbered is out unless the contents lists it: front matter it lists (a preface)
    stays, a title page's lines, a box's caption, the contents' own title go."""
    if not covered_styles(heads, listing):
        return heads
    count: Counter[Style] = Counter(h.style for h in heads)
    numbered: Counter[Style] = Counter(h.style for h in heads if section_key(h.text) is not None)

    def unlisted(h: Head) -> bool:
        return (
            numbered[h.style] >= NUMBERED_SHARE * count[h.style]
            and section_key(h.text) is None
            and not listing.lists(h)
        )

    return [h for h in heads if not unlisted(h)]


__all__ = [
    "Head",
    "Listing",
    "covered_styles",
    "drop_below_contents",
    "drop_below_numbered",
    "drop_dense_styles",
    "drop_out_of_sequence",
    "drop_unlisted_unnumbered",
    "follows",
    "section_key",
]
