"""The decided headings of a flat text settled against each other: a label line joined
with its title line, headings that head no text dropped, the book's title printed again
over its first chapter dropped, ranks made dense."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from .candidates import Candidate, label_before
from .labels import title_after
from .titles import same_words


@dataclass(frozen=True, slots=True)
class HeadingLine:
    line: int
    level: int
    title: str
    title_line: int | None = None  # a line joined to the heading: a label's title, an underline
    title_end: int | None = None  # the last line joined, when a title wraps onto a second


_SEPARATOR = re.compile(r"[\W_]+")


def drop_empty(lines: list[str], found: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Headings that head no text: one followed by a separator line ("*   *   *"), or by a
    heading of its own rank that heads none either; a dedication's lines ("TO", "W.J.
    HENDERSON", "WHO HAS HELPED ME…", then stars) are set like headings but head nothing."""
    at = {i: level for i, level, _ in found}
    empty: set[int] = set()
    for i, level, _ in reversed(found):
        j = next((j for j in range(i + 1, len(lines)) if lines[j].strip()), None)
        rule = j is None or _SEPARATOR.fullmatch(lines[j].strip()) is not None
        if rule or (j in empty and at[j] == level):
            empty.add(i)
    return [h for h in found if h[0] not in empty]


_SUBTITLE = re.compile(r"\s*(?:[,:;(]|--|—)")


def drop_half_title(lines: list[str], found: list[HeadingLine], title: str) -> list[HeadingLine]:
    """The book's title printed again over its first chapter, with no text of its own
    (a half-title: "How to Listen to Music" from "Title: How to Listen to Music, 7th ed."),
    is the title, not a heading."""
    main = _SUBTITLE.split(title, maxsplit=1)[0]
    out = []
    for h, nxt in zip(found, [*found[1:], None], strict=False):  # the last has no next
        last = max(h.line, h.title_line or 0, h.title_end or 0)
        bare = nxt is not None and not any(s.strip() for s in lines[last + 1 : nxt.line])
        if not (bare and same_words(main, h.title)):
            out.append(h)
    return out


def join_labels(
    lines: list[str],
    candidates: Mapping[int, Candidate],
    found: list[tuple[int, int, str]],
    named: frozenset[int] = frozenset(),
) -> list[HeadingLine]:
    """Headings whose line is only a numbering label ("CHAPTER I.", "II") take the short
    title line after them ("CHAPTER I. The Old Mint."); a heading right after an unnamed
    label line moves up to it the same way (a contents block named the title only)."""
    at = {i: (level, title) for i, level, title in found}
    out: list[HeadingLine] = []
    consumed: set[int] = set()
    for i, level, title in found:
        if i in consumed:
            continue
        if candidates[i].label:
            hit = title_after(lines, i)
            if hit is not None:
                consumed.update(range(hit.title_line, hit.title_end + 1))
                level = min(level, at.get(hit.title_line, (level, ""))[0])
                out.append(HeadingLine(i, level, hit.title, hit.title_line, hit.title_end))
                continue
        p = label_before(lines, candidates, i)
        hit = title_after(lines, p, named=i in named) if p is not None and p not in at else None
        if p is not None and hit is not None and hit.title_line == i:
            out.append(HeadingLine(p, level, hit.title, i, hit.title_end))
            continue
        wrap = candidates[i].wrap_end
        # a title wrapped round its label: the label and the title's rest join the heading
        out.append(HeadingLine(i, level, title, *((i + 1, wrap) if wrap else (None, None))))
    return out


def dense_ranks(found: list[HeadingLine]) -> list[HeadingLine]:
    """The ranks renumbered 1, 2, 3… in their order: the top rank found is level 1."""
    dense = {level: n + 1 for n, level in enumerate(sorted({h.level for h in found}))}
    return [replace(h, level=dense[h.level]) for h in found]
