"""Heading placement against the nav (``pipeline.extract.epub.headings``), as properties
over random files: nav entries, XHTML headings of any tag level and paragraphs, in any
order."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.extract.epub.headings import BookOut, MdBlock, norm_title
from pipeline.extract.epub.nav import NavEntry

NAV_TITLES = ["Chapter 1: Loomings", "The Carpet-Bag", "Part II", "Notes on Whales"]
# what an XHTML heading may say: a nav title in other dress, or its own words
HEADING_TITLES = [
    "Loomings",
    "THE CARPET-BAG",
    "PART II.",
    "3. Notes on Whales",
    "Etymology",
    "Extracts",
    "A Sub-Sub-Librarian",
]
LONG = "Call me Ishmael. Some years ago, never mind how long precisely, I went to sea."

event = st.one_of(
    st.tuples(st.just("h"), st.integers(1, 6), st.sampled_from(HEADING_TITLES)),
    st.tuples(st.just("p"), st.just(0), st.sampled_from([LONG, "iv"])),
)


@st.composite
def file_case(draw: st.DrawFn) -> tuple[list[NavEntry], list[tuple[str, int, str]]]:
    n = draw(st.integers(0, len(NAV_TITLES)))
    levels = draw(st.lists(st.integers(1, 4), min_size=n, max_size=n))
    entries = [NavEntry(lvl, t, "f.xhtml", "") for lvl, t in zip(levels, NAV_TITLES, strict=False)]
    return entries, draw(st.lists(event, max_size=25))


def run(entries: list[NavEntry], events: list[tuple[str, int, str]]) -> list[MdBlock]:
    out = BookOut()
    out.start_file(entries)
    for kind, level, text in events:
        if kind == "h":
            out.heading(level, text, [])
        else:
            out.para(text)
    out.end_file([], "", "")
    return out.blocks


@settings(max_examples=300, deadline=None)
@given(file_case())
def test_every_nav_entry_is_placed_once_in_order_and_headings_nest_below(
    case: tuple[list[NavEntry], list[tuple[str, int, str]]],
) -> None:
    entries, events = case
    blocks = run(entries, events)
    heads = [b for b in blocks if b.kind == "heading"]
    assert all(1 <= b.level <= 6 and b.text == "#" * b.level + " " + b.title for b in heads)
    # the nav entries, each once, in nav order, at their own level and with their own title
    placed = [b for b in heads if b.title in NAV_TITLES]
    assert [(b.level, b.title) for b in placed] == [(e.level, e.title) for e in entries]
    # every other heading nests below the last entry placed before it
    current = 0
    for b in heads:
        if b.title in NAV_TITLES:
            current = b.level
        else:
            assert b.level > current or current == 6
    # no heading repeats the one right before it
    for a, b in itertools.pairwise(blocks):
        assert not (a.kind == b.kind == "heading" and norm_title(a.title) == norm_title(b.title))
    # no paragraph is lost
    assert [b.text for b in blocks if b.kind == "para"] == [t for k, _, t in events if k == "p"]
