"""Boilerplate detection over per-page line lists."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pipeline.extract.boilerplate import (
    _leaders,
    _three_letters,
    detect_boilerplate,
    normalize_repeated,
)
from pipeline.model import boilerplate_counts
from pipeline.text.furniture import DOT_LEADER, is_dot_leader, is_page_number

BODY = [
    "The quick brown fox jumps over the lazy dog and keeps running far away.",
    "It was the best of times, it was the worst of times, in the year 1984.",
    "Numbers such as 42 may appear in running text without being page numbers.",
]


WORDS = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
]


def body(i: int) -> list[str]:
    w = WORDS[i % len(WORDS)]
    return [
        f"This page about {w} opens with its own words, unlike any other page.",
        f"Its second line on {w} is also different from every other page.",
        *BODY,
        f"Near the end, {w} shows up once again on this page only.",
        f"And it closes on {w}, a word no other page uses here.",
    ]


def book(n: int = 8) -> list[list[str]]:
    pages = []
    for i in range(1, n + 1):
        header = f"{i} CHAPTER 1. THE BEGINNING" if i % 2 == 0 else f"1.{i} SECTION TITLE {i}"
        pages.append([header, *body(i), "42", str(i)])
    return pages


def test_page_number_patterns() -> None:
    for s in ["12", "xi", "XII", "- 3 -", "Page 3 of 10", "3/10", "p. 7"]:
        assert is_page_number(s), s
    for s in ["1984 was a year", "Chapter 1", "mix", "", "The end."]:
        assert not is_page_number(s), s


def test_dot_leaders() -> None:
    assert is_dot_leader("Chapter 3 ..... 47")
    assert is_dot_leader("1.1 Arrows as Functions . . . . . . . . 2")
    assert is_dot_leader("bijections. . . . . . . . .72")
    assert not is_dot_leader("He paused... and then 47 more came.")


def test_normalize_repeated_folds_digits_and_case() -> None:
    assert normalize_repeated("12  Chapter 1. Foo") == normalize_repeated("14 CHAPTER 1. FOO")


def test_running_headers_and_page_numbers_removed_body_kept() -> None:
    res = detect_boilerplate(book())
    counts = boilerplate_counts(res.removed)
    assert counts["page_number"] == 8
    # both the even and the odd headers repeat once digits are folded
    assert counts["running_header"] == 8
    for kept in res.kept:
        assert BODY[2] in kept
    # "42" in the middle is body text, the trailing number is the page number
    assert all("42" in kept for kept in res.kept)
    assert {r.kind for r in res.removed} == {"page_number", "running_header"}
    assert all(r.page is not None and r.page >= 1 for r in res.removed)


def test_header_on_only_three_pages_is_kept() -> None:
    pages = [["Same Header", *body(i)] for i in range(3)] + [body(i) for i in range(3, 8)]
    res = detect_boilerplate(pages)
    assert boilerplate_counts(res.removed)["running_header"] == 0


def test_toc_page_removed_but_similar_body_kept() -> None:
    toc = [
        "Contents",
        "1 Introduction 1",
        "1.1 Background . . . . . . . . . 2",
        "2 Methods 5",
        "2.1 Data . . . . . . . . . 6",
        "3 Results 9",
    ]
    page = [*body(1), "In total we sold 47"]
    res = detect_boilerplate([toc, page, page])
    assert res.kept[0] == ("Contents",)
    assert boilerplate_counts(res.removed)["toc"] == 5
    assert "In total we sold 47" in res.kept[1]


def test_statement_rows_on_a_front_page_are_not_contents() -> None:
    statement = [
        "Consolidated Statement of Cash Flows",
        "(Millions) 2018 2017 2016",
        "Net income $ 5,363 $ 4,869 $ 5,058",
        "Inventories (509) (387) 57",
        "Accounts payable 408 24 148",
        "Other — net 120 256 76",
        "Deferred income taxes (57) 107 7",
    ]
    res = detect_boilerplate([statement, body(1), body(2)])
    assert boilerplate_counts(res.removed)["toc"] == 0 and res.kept[0] == tuple(statement)


def test_index_pages_at_the_back() -> None:
    pages = [body(i) for i in range(8)]
    index = [
        "Index",
        "A",
        "arrows, 2, 5",
        "associativity, 12–14",
        "B",
        "bifunctor, 117",
        "bottom, 16",
        "C",
        "category, 1, 3, 7",
    ]
    index2 = ["composition, 2", "coproduct, 66", "D", "duality, 57", "functor, 99"]
    res = detect_boilerplate([*pages, index, index2])
    assert res.kept[8] == ("Index",)
    assert res.kept[9] == ()
    assert boilerplate_counts(res.removed)["index"] == len(index) - 1 + len(index2)


def test_copyright_lines_in_front_matter_only() -> None:
    front = ["My Book", "Copyright © 2021 Jane Doe. All rights reserved.", "ISBN 978-3-16-148410-0"]
    middle = ["Copyright law changed in 1976, a fact this chapter explains at length."]
    pages = [front, *[body(i) for i in range(4)], middle + BODY, *[body(i) for i in range(4)]]
    res = detect_boilerplate(pages)
    assert res.kept[0] == ("My Book",)
    assert boilerplate_counts(res.removed)["copyright"] == 2
    assert middle[0] in res.kept[5]


def test_empty_input() -> None:
    res = detect_boilerplate([])
    assert res.kept == () and res.removed == ()
    res = detect_boilerplate([[], [""]])
    assert boilerplate_counts(res.removed)["page_number"] == 0


def test_running_heads_carrying_the_page_number_are_removed() -> None:
    """Think Java's shape: the top line is the current section's title and the printed page
    number (left on even pages, right on odd ones); the section changes every two pages,
    so the line never repeats often enough to be a running header by its text alone."""
    pages = []
    for p in range(12):
        printed = p + 41
        section = f"4.{p // 2} {WORDS[p // 2].title()} methods"
        head = f"{printed} Chapter 4 Methods" if p % 2 else f"{section} {printed}"
        pages.append([head, *(f"{WORDS[p]}: {line}" for line in BODY)])
    pages[3].insert(1, "4.1 Bravo methods")  # the heading itself, below the head line
    result = detect_boilerplate(pages)
    kinds = {(r.page, r.line): r.kind for r in result.removed}
    assert all(kinds.get((p + 1, 0)) == "running_header" for p in range(12))
    assert (4, 1) not in kinds and all(r.line == 0 for r in result.removed)
    pages[0][0] = "Chapter 41"  # a chapter label that happens to match the page number
    assert (1, 0) not in {(r.page, r.line) for r in detect_boilerplate(pages).removed}


@given(st.text(alphabet=". ·…\tab1Ⅳ", max_size=30))
def test_leader_count_is_needed_for_a_dot_leader(text: str) -> None:
    """``_leaders`` (a count) is a necessary condition of ``DOT_LEADER``: the pattern is
    run only on lines that pass it."""
    if DOT_LEADER.match(text):
        assert _leaders(text)


@given(st.text(max_size=40) | st.text(alphabet=st.characters(max_codepoint=127), max_size=40))
def test_three_letters_counts_as_isalpha_does(text: str) -> None:
    assert _three_letters(text) is (sum(ch.isalpha() for ch in text) >= 3)
