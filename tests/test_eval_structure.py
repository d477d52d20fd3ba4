"""The metrics of ``scripts/eval/eval_structure.py`` on tiny inline books (no corpus)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline import chunk_document
from pipeline.model import Document

from .helpers import load_script

if TYPE_CHECKING:
    from eval_structure import BookScore  # the module load_script gives, as mypy sees it

ev = load_script("eval_structure")
TRUTH = [
    {"level": 1, "title": "Part One", "href": "a.xhtml"},
    {"level": 2, "title": "Chapter 1. Dawn", "href": "a.xhtml#c1"},
    {"level": 2, "title": "Chapter 2. Noon", "href": "a.xhtml#c2"},
    {"level": 1, "title": "Part Two", "href": "b.xhtml"},
    {"level": 2, "title": "Chapter 3. Dusk", "href": "b.xhtml#c3"},
]
WORDS = "\n\n".join([" ".join(["The light changes over the valley as the hours go by."] * 10)] * 20)


def _score(text: str) -> BookScore:
    doc = Document(text=text, source="book.md", title="Book", heading_mode="outline")
    s: BookScore = ev.BookScore("book")
    ev.structure_scores(s, TRUTH, ev.detected_headings(doc), chunk_document(doc), doc.text)
    return s


def test_a_faithful_book_scores_full_marks() -> None:
    text = (
        f"# Part One\n\n## Dawn\n\n{WORDS}\n\n## Chapter 2. Noon\n\n{WORDS}\n\n"
        f"# Part Two\n\n## Dusk\n\n{WORDS}\n"
    )
    s = _score(text)
    assert (s.truth, s.nested, s.detected, s.precise) == (5, 5, 5, 5)
    assert s.crumb_n > 0 and s.crumb_ok == s.crumb_n
    assert s.duplicates == 0 and s.markup == 0


def test_wrong_nesting_duplicates_and_markup_count() -> None:
    text = (
        f"# Part One\n\n# **Part One**\n\n# Dawn\n\n{WORDS}\n\n## *Noon*\n\n{WORDS}\n\n"
        f"# Part Two\n\n## Dusk\n\n{WORDS}\n"
    )
    s = _score(text)
    # "Dawn" is a sibling of Part One, not its child; "Noon" then nests under Dawn
    assert (s.truth, s.nested) == (5, 3)
    assert s.duplicates == 1
    assert s.markup >= 2  # "**Part One**" and "*Noon*" as heading lines
    assert s.crumb_ok < s.crumb_n


def test_breadcrumbs_repeating_an_item_count() -> None:
    text = f"# Part One\n\n## PART ONE.\n\n{WORDS}\n\n# Part Two\n\n## Dusk\n\n{WORDS}\n"
    doc = Document(text=text, source="book.md", title="Book", heading_mode="outline")
    repeating = [c for c in chunk_document(doc) if c.breadcrumb[1:3] == ("Part One", "PART ONE.")]
    assert repeating and _score(text).crumb_duplicates == len(repeating)


def test_entry_of_packed_small_sections_is_their_parent() -> None:
    parent = ev.parents([1, 2, 2, 1, 2])
    anchors = [(0, 0), (10, 1), (50, 2), (90, 3), (100, 4)]

    class C:
        def __init__(self, start: int, end: int) -> None:
            self.char_start, self.char_end = start, end

    assert ev.entry_of(C(12, 40), anchors, parent) == 1  # inside one chapter
    assert ev.entry_of(C(10, 80), anchors, parent) == 0  # chapters 1 and 2 packed together
    # text before the first heading inside a chunk is its overlap with the chunk before
    assert ev.entry_of(C(60, 120), anchors, parent) == 3
    assert ev.entry_of(C(5, 95), anchors, parent) == -1  # across both parts
    assert ev.entry_of(C(0, 5), [(6, 0)], [-1]) is None  # before the first entry


def test_flat_text_edition_has_title_contents_and_no_markup(tmp_path: object) -> None:
    doc = Document(
        text=f"# Part One\n\n## Chapter 1. Dawn\n\n*Early* light, **bright**.\n\n{WORDS}\n",
        source="book.epub",
        title="Book",
    )
    flat = ev.flat_text(doc, TRUTH)
    head = flat.split("\n")[:9]
    assert head == [
        "Book",
        "",
        "Contents",
        "",
        "Part One",
        "    Chapter 1. Dawn",
        "    Chapter 2. Noon",
        "Part Two",
        "    Chapter 3. Dusk",
    ]
    assert "#" not in flat and "*" not in flat
    assert "\nChapter 1. Dawn\n\nEarly light, bright.\n" in flat
