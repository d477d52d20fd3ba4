"""The matcher of ``scripts/eval/eval_headings.py``: which found heading lines count for which
outline entries (no corpus)."""

from __future__ import annotations

from typing import Any

from .helpers import load_script

ev = load_script("eval_headings")


def _match(truth: list[dict[str, Any]], titles: list[tuple[str, int]]) -> dict[int, int]:
    found = [ev.Found(1, title, page, k * 100) for k, (title, page) in enumerate(titles)]
    pairs: dict[int, int] = ev.match(truth, found, True)
    return pairs


def test_a_short_bookmark_matches_its_longer_printed_title_under_the_same_number() -> None:
    """``\\section[short]{long}``: the bookmark holds "2 Strings", the page the long title."""
    truth = [
        {"level": 1, "title": "1 Introduction", "page": 0},
        {"level": 1, "title": "2 Strings", "page": 1},
        {"level": 2, "title": "2.1 Encoding", "page": 2},
    ]
    found = [
        ("1 Introduction", 0),
        ("2 Strings in TEX and PDF", 1),
        ("2.1 Encoding handling", 2),
    ]
    assert _match(truth, found) == {0: 0, 1: 1, 2: 2}


def test_an_unnumbered_bookmark_matches_a_numbered_longer_print() -> None:
    """hyperref leaves numbers out of bookmarks by default: "About" is "1.1 About biblatex"."""
    truth = [{"level": 2, "title": "About", "page": 1}, {"level": 2, "title": "Strings", "page": 2}]
    found = [("1.1 About biblatex", 1), ("Strings of PDF", 2)]  # the second unnumbered
    assert _match(truth, found) == {0: 0}


def test_the_short_title_rule_needs_the_same_number_and_whole_leading_words() -> None:
    truth = [
        {"level": 1, "title": "2 Strings", "page": 1},
        {"level": 1, "title": "Introduction", "page": 1},
        {"level": 1, "title": "3 String", "page": 1},
    ]
    found = [
        ("3 Strings in TEX", 1),  # another number
        ("Introduction to sets", 1),  # unnumbered: a longer title is another heading
        ("3 Strings of PDF", 1),  # "String" is not the word "Strings"
        ("2 Strings in TEX", 9),  # too far from the entry's page
    ]
    assert _match(truth, found) == {}


def test_an_exact_title_wins_over_a_longer_one_with_the_same_number() -> None:
    truth = [{"level": 1, "title": "2 Strings", "page": 1}]
    found = [("2 Strings in PDF", 1), ("2 Strings", 1)]
    assert _match(truth, found) == {1: 0}


def test_numbering_reads_labels_and_leaves_words_alone() -> None:
    assert ev.numbering("Chapter 3 Sets") == ("3", ["sets"])
    assert ev.numbering("A.2 Tables") == ("a.2", ["tables"])
    assert ev.numbering("2. Strings") == ("2", ["strings"])
    assert ev.numbering("A quick tour") is None


def test_a_dash_after_the_numbering_separates_it_from_the_title() -> None:
    """The text edition prints "PART I.--DRILL.", its HTML "Part I .—DRILL.": one title."""
    assert ev.norm("PART I.--DRILL.") == ev.norm("Part I .—DRILL.") == ev.norm("Drill")
    assert ev.norm("Moby-Dick") == "mobydick"  # a hyphen inside a title stays a join
