"""A PDF's printed contents as heading evidence: entry titles and section numbers."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pipeline.extract.pdf.contents import Contents, printed_contents, section_number


def test_entries_lose_leaders_and_page_numbers() -> None:
    c = printed_contents(["Preface vii", "1 Getting started 1", "1.1 Why . . . . . . 2"])
    assert c.lists("Preface") and c.lists("Chapter 1 Getting started") and c.lists("1.1 Why")
    assert not c.lists("Acknowledgements")


def test_a_wrapped_entry_is_joined_with_its_next_line() -> None:
    c = printed_contents(["3.11 Entry Querying Com-", "mands . . . . . 120", "4 Next 130"])
    assert c.lists("3.11 Entry Querying Commands")
    c = printed_contents(["A Default Driver Source", "Mappings 328"])
    assert c.lists("A Default Driver Source Mappings")


def test_a_short_title_in_the_contents_still_lists_its_numbered_heading() -> None:
    c = printed_contents(["2.1 Short title . . . . 5"])
    assert c.lists("2.1 A much longer title in the body")
    assert not c.lists("2.2 Hidden section")


def test_a_number_run_into_its_title_is_read_apart() -> None:
    c = printed_contents(["47.9 Rokicki's dvips . . . 310", "47.10VTeX's driver . . . 313"])
    assert c.lists("47.10 VTeX's driver") and c.printed_pages("47.10 Other words") == {313}
    assert not printed_contents(["3D graphics 4"]).lists("3 D graphics")


def test_section_numbers() -> None:
    assert section_number("Appendix B Installing") == "B"
    assert section_number("3.1.2 Deep") == "3.1.2"
    assert section_number("Introduction") is None


def test_no_contents_is_falsy() -> None:
    assert not Contents() and not printed_contents([])


@given(
    st.lists(
        st.text(alphabet=st.characters(categories=("Lu", "Ll")), min_size=1, max_size=12),
        min_size=1,
        max_size=6,
    ),
    st.integers(min_value=1, max_value=9999),
    st.booleans(),
)
def test_every_entry_lists_its_own_title(words: list[str], page: int, leaders: bool) -> None:
    title = " ".join(words)
    line = f"{title} {'. ' * 8 if leaders else ''}{page}"
    assert printed_contents([line]).lists(title)
