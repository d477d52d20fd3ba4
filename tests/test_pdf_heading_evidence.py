"""Headings from fonts without an outline: evidence that a heading-like line is not one
(numbering out of sequence, a style set densely like a cheat sheet's labels, a style the
printed contents leaves out), on generated PDFs (fpdf2) and on the rules themselves."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

fpdf = pytest.importorskip("fpdf")

from pipeline.extract.pdf.contents import heading_entries, printed_contents  # noqa: E402
from pipeline.extract.pdf.heading_evidence import (  # noqa: E402
    Head,
    Listing,
    drop_below_contents,
    drop_below_numbered,
    drop_dense_styles,
    drop_out_of_sequence,
    drop_unlisted_unnumbered,
    follows,
    section_key,
)
from pipeline.extract.pdf.reader import read_pdf  # noqa: E402
from pipeline.model import Document  # noqa: E402

BODY = (
    "Folio reads books and documents and cuts them into sections and snippets that an agent "
    "can cite. This paragraph is long enough to wrap over several lines of the page."
)


def _text(
    pdf: object, text: str, size: float = 11, style: str = "", font: str = "Helvetica"
) -> None:
    pdf.set_font(font, style, size)  # type: ignore[attr-defined]
    pdf.multi_cell(0, size * 0.45, text, new_x="LMARGIN", new_y="NEXT")  # type: ignore[attr-defined]
    pdf.ln(size * 0.3)  # type: ignore[attr-defined]


def _new_pdf() -> object:
    pdf = fpdf.FPDF(format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_margins(20, 15, 20)
    return pdf


def _read(tmp_path: Path, pdf: object) -> Document:
    path = tmp_path / "generated.pdf"
    path.write_bytes(bytes(pdf.output()))  # type: ignore[attr-defined]
    return read_pdf(path, use_outline=False, workers=1)


def _atx(doc: Document) -> list[tuple[int, str]]:
    return [(len(m.group(1)), m.group(2)) for m in re.finditer(r"^(#+) (.+)$", doc.text, re.M)]


def test_cheat_sheet_pages_of_short_bold_titles_give_no_headings(tmp_path: Path) -> None:
    pdf = _new_pdf()
    pdf.add_page()  # type: ignore[attr-defined]
    _text(pdf, "A Contest Notebook", 26, "B")
    for chapter in ("Graphs", "Strings"):
        pdf.add_page()  # type: ignore[attr-defined]
        _text(pdf, chapter, 20, "B")
        for _ in range(6):
            _text(pdf, BODY)
        for sheet in range(2):  # pages of listings, each under a short bold title
            pdf.add_page()  # type: ignore[attr-defined]
            for k in range(7):
                _text(pdf, f"{chapter[:-1]} trick {sheet * 7 + k} ({k + 3} lines)", 13, "B")
                _text(pdf, "for (int i = 0; i < n; i++) x += a[i];", 8, font="Courier")
    doc = _read(tmp_path, pdf)
    assert doc.heading_mode == "fonts"
    assert _atx(doc) == [(1, "Graphs"), (1, "Strings")]
    assert "Graph trick 3 (6 lines)" in doc.text  # still text


def test_a_numbered_line_out_of_sequence_is_not_a_heading(tmp_path: Path) -> None:
    pdf = _new_pdf()
    pdf.add_page()  # type: ignore[attr-defined]
    for number, title, size in (
        ("4", "Results", 16),
        ("4.1", "Background", 13),
        ("4.2", "Scope", 13),
        ("2", "end", 11),  # a numbered line of a listing, set in bold
        ("4.3", "Plan", 13),
        ("5", "Methods", 16),
        ("5.1", "Data", 13),
    ):
        _text(pdf, f"{number} {title}", size, "B")
        _text(pdf, BODY)
    doc = _read(tmp_path, pdf)
    titles = [t for _, t in _atx(doc)]
    assert titles == [
        "4 Results",
        "4.1 Background",
        "4.2 Scope",
        "4.3 Plan",
        "5 Methods",
        "5.1 Data",
    ]
    assert "2 end" in doc.text


def test_printed_contents_entries_are_the_headings(tmp_path: Path) -> None:
    """The contents lists the numbered chapters and sections; the unnumbered sub-headings
    set below them ("Worked example") are left out of it and are not headings."""
    chapters = [
        ("1 Basics", ["1.1 Numbers", "1.2 Words"]),
        ("2 Advanced", ["2.1 Graphs", "2.2 Trees"]),
    ]
    pdf = _new_pdf()
    pdf.add_page()  # type: ignore[attr-defined]
    _text(pdf, "Contents", 20, "B")
    for chapter, sections in chapters:
        for entry in (chapter, *sections):
            pdf.set_font("Helvetica", "", 11)  # type: ignore[attr-defined]
            pdf.cell(0, 6, f"{entry} " + ". " * 30 + "2", new_x="LMARGIN", new_y="NEXT")  # type: ignore[attr-defined]
    for chapter, sections in chapters:
        pdf.add_page()  # type: ignore[attr-defined]
        _text(pdf, chapter, 20, "B")
        for i, section in enumerate(sections):
            if i:
                pdf.add_page()  # type: ignore[attr-defined]
            _text(pdf, section, 15, "B")
            _text(pdf, BODY)
            for sub in ("Worked example", "Common mistakes"):
                _text(pdf, sub, 13)
                _text(pdf, BODY)
    doc = _read(tmp_path, pdf)
    assert _atx(doc) == [
        (1, "1 Basics"),
        (2, "1.1 Numbers"),
        (2, "1.2 Words"),
        (1, "2 Advanced"),
        (2, "2.1 Graphs"),
        (2, "2.2 Trees"),
    ]
    assert doc.text.count("Worked example") == 4


def _entries(pdf: object, entries: list[str]) -> None:
    pdf.set_font("Helvetica", "", 11)  # type: ignore[attr-defined]
    for entry in entries:
        pdf.cell(0, 6, entry, new_x="LMARGIN", new_y="NEXT")  # type: ignore[attr-defined]


def test_a_list_of_figures_lists_no_headings(tmp_path: Path) -> None:
    """A list of figures is set like the contents, but its numbers are the figures':
    figure 2.2 does not make the unlisted "2.2 Hidden section" a listed heading."""
    pdf = _new_pdf()
    pdf.add_page()  # type: ignore[attr-defined]
    _text(pdf, "Contents", 20, "B")
    toc = ["1 Basics", "1.1 Numbers", "1.2 Words", "2 Advanced", "2.1 Graphs"]
    _entries(pdf, [f"{e} " + ". " * 30 + p for e, p in zip(toc, "11122", strict=True)])
    pdf.add_page()  # type: ignore[attr-defined]
    _text(pdf, "List of Figures", 20, "B")
    figures = ["1.1 A chart", "1.2 A table of words", "2.1 A graph", "2.2 A tree drawing"]
    _entries(pdf, [f"{e} " + ". " * 30 + p for e, p in zip(figures, "1123", strict=True)])
    chapters = [("1 Basics", ["1.1 Numbers", "1.2 Words"]), ("2 Advanced", ["2.1 Graphs"])]
    for chapter, sections in chapters:
        pdf.add_page()  # type: ignore[attr-defined]
        _text(pdf, chapter, 20, "B")
        for section in sections:
            _text(pdf, section, 15, "B")
            _text(pdf, BODY)
    pdf.add_page()  # type: ignore[attr-defined]
    _text(pdf, "2.2 Hidden section", 15, "B")  # left out of the contents by its author
    _text(pdf, BODY)
    doc = _read(tmp_path, pdf)
    assert [t for _, t in _atx(doc)] == [
        "1 Basics",
        "1.1 Numbers",
        "1.2 Words",
        "2 Advanced",
        "2.1 Graphs",
    ]
    assert "2.2 Hidden section" in doc.text


def test_a_title_ending_in_a_number_keeps_it_when_the_contents_does(tmp_path: Path) -> None:
    """A trailing number of a heading is read as a page number or a note mark, unless the
    printed contents lists the title with it."""
    pdf = _new_pdf()
    pdf.add_page()  # type: ignore[attr-defined]
    _text(pdf, "Contents", 20, "B")
    toc = ["1 Basics", "2 Upgrading from version 2", "3 Options"]
    _entries(pdf, [f"{e} " + ". " * 30 + p for e, p in zip(toc, "123", strict=True)])
    for chapter in toc:
        pdf.add_page()  # type: ignore[attr-defined]
        _text(pdf, chapter, 20, "B")
        _text(pdf, BODY)
    doc = _read(tmp_path, pdf)
    assert [t for _, t in _atx(doc)] == toc


def test_chapters_before_the_first_part_are_top_level(tmp_path: Path) -> None:
    """Levels are depths in the heading tree, as an outline nests its bookmarks: the
    chapter before the first part has no part above it."""
    pdf = _new_pdf()
    for text, size in (
        ("1 Introduction", 20),
        ("1.1 Aims", 15),
        ("Part I Basics", 28),
        ("2 Numbers", 20),
        ("2.1 Sums", 15),
        ("Part II Practice", 28),
        ("3 Words", 20),
        ("3.1 Spelling", 15),
    ):
        if size >= 20:
            pdf.add_page()  # type: ignore[attr-defined]
        _text(pdf, text, size, "B")
        if size < 28:
            _text(pdf, BODY)
    doc = _read(tmp_path, pdf)
    assert _atx(doc) == [
        (1, "1 Introduction"),
        (2, "1.1 Aims"),
        (1, "Part I Basics"),
        (2, "2 Numbers"),
        (3, "2.1 Sums"),
        (1, "Part II Practice"),
        (2, "3 Words"),
        (3, "3.1 Spelling"),
    ]


def test_the_contents_running_head_lists_no_contents_heading(tmp_path: Path) -> None:
    """The running head atop a contents page ("Contents iv") is no entry: it does not
    make the contents' own title a listed heading."""
    chapters = [f"{n} {t}" for n, t in enumerate(["Basics", "Words", "Sums", "Trees"], 1)]
    words = iter(
        ["Aims", "Scope", "Tens", "Units", "Verbs", "Nouns", "Carry", "Borrow", "Roots", "Leaves"]
    )
    heads = [
        h
        for n, c in enumerate(chapters, 1)
        for h in (c, *(f"{n}.{k} {next(words)}" for k in (1, 2)))
    ]
    pdf = _new_pdf()
    pdf.add_page()  # type: ignore[attr-defined]
    _text(pdf, "A Small Book", 26, "B")
    _text(pdf, BODY)
    for k in range(2):
        pdf.add_page()  # type: ignore[attr-defined]
        if k:
            _entries(pdf, ["Contents iv"])
        else:
            _text(pdf, "Contents", 20, "B")
        _entries(pdf, [f"{h} " + ". " * 30 + str(k + 1) for h in heads])
    for head in heads:  # a page each: chapter numbers do not run with the page numbers
        pdf.add_page()  # type: ignore[attr-defined]
        _text(pdf, head, 20 if head in chapters else 15, "B")
        for k in range(4):
            _text(pdf, f"{BODY} ({head}, {k})")
    doc = _read(tmp_path, pdf)
    assert [t for _, t in _atx(doc)] == heads


def test_heading_entries_skip_the_lists_of_floats() -> None:
    pages = [
        [("Contents", False), ("1 Basics 1", True), ("1.1 Numbers 1", True)],
        [("1.2 Words 2", True), ("List of Figures", False), ("1.1 A chart 1", True)],
        [("2.1 A graph 3", True), ("List of Tables", True), ("1.1 Sizes 1", True)],
        [("Body text", False)],
        [("2.2 Trees . . . 9", True)],  # a dot-leader line in the body, after the lists
        [("Contents xv", True), ("Preface 4", True)],  # a running head, then an entry
    ]
    assert heading_entries(pages) == [
        "1 Basics 1",
        "1.1 Numbers 1",
        "1.2 Words 2",
        "2.2 Trees . . . 9",
        "Preface 4",
    ]


def test_without_contents_an_unnumbered_style_below_the_numbered_ones_goes(
    tmp_path: Path,
) -> None:
    """No printed contents: the unnumbered sub-headings set below every numbered style
    ("Worked example") are not headings; a document numbering nothing keeps its own."""
    numbered = ["1 Basics", "1.1 Numbers", "2 More", "2.1 Sets", "3 Last", "3.1 Maps"]
    plain = [title.split(" ", 1)[1] for title in numbered]
    for titles in (numbered, plain):
        pdf = _new_pdf()
        for chapter, section in zip(titles[::2], titles[1::2], strict=True):
            pdf.add_page()  # type: ignore[attr-defined]
            _text(pdf, chapter, 20, "B")
            _text(pdf, section, 15, "B")
            _text(pdf, BODY)
            _text(pdf, "Worked example", 13)
            _text(pdf, BODY)
        found = [t for _, t in _atx(_read(tmp_path, pdf))]
        if titles is numbered:
            assert found == numbered
        else:
            example = "Worked example"
            assert found == [
                "Basics",
                "Numbers",
                example,
                "More",
                "Sets",
                example,
                "Last",
                "Maps",
                example,
            ]


def test_a_chapter_label_glued_to_its_number_joins_the_title(tmp_path: Path) -> None:
    pdf = _new_pdf()
    for n, title in ((1, "The way of the program"), (2, "Variables")):
        pdf.add_page()  # type: ignore[attr-defined]
        _text(pdf, f"Chapter{n}", 16, "B")
        _text(pdf, title, 22, "B")
        _text(pdf, f"{n}.1 First steps", 13, "B")
        _text(pdf, BODY)
    doc = _read(tmp_path, pdf)
    assert _atx(doc) == [
        (1, "Chapter 1 The way of the program"),
        (2, "1.1 First steps"),
        (1, "Chapter 2 Variables"),
        (2, "2.1 First steps"),
    ]


# --- the rules on their own -----------------------------------------------------------------


def _head(page: int, text: str, size: float = 13, bold: bool = True) -> Head:
    return Head(page, 0, 1, (size, bold), text)


def test_section_numbers_and_what_follows_them() -> None:
    assert section_key("3.1 Data") == ((0, 3), (0, 1))
    assert section_key("Appendix B Tables") == ((1, 2),)
    assert section_key("Chapter 2 Words", labelled=False) is None
    assert section_key("Introduction") is None
    k = section_key
    assert follows(k("3 a") or (), k("3.1 b") or ())
    assert follows(k("3.2 a") or (), k("4 b") or ())
    assert follows(k("3.2 a") or (), k("3.3 b") or ())
    assert follows(k("9.2 a") or (), k("A b") or ())
    assert not follows(k("6.2 a") or (), k("3 b") or ())
    assert not follows(k("3.2 a") or (), k("3.2 b") or ())


def test_sequence_restarts_after_a_contents_page_and_skips_short_gaps() -> None:
    heads = [_head(1, "1 Intro"), _head(1, "2 Methods"), _head(1, "3 Results")]  # contents
    heads += [_head(2, "1 Intro"), _head(2, "1.1 Aim"), _head(3, "1.5 Late"), _head(3, "2 Methods")]
    assert drop_out_of_sequence(heads) == heads
    listing = [_head(4, "2.1 Data"), _head(4, "12 return x"), _head(4, "2.2 More")]
    assert drop_out_of_sequence(listing) == [listing[0], listing[2]]
    # a numbered list that runs on from its section number: the next section ignores it
    items = [_head(5, "6.5 Catcodes"), _head(5, "7 superscript"), _head(5, "8 subscript")]
    items += [_head(6, "6.6 Warnings"), _head(7, "7 Links")]
    assert drop_out_of_sequence(items) == [items[0], items[3], items[4]]
    # option letters listed in bold, longer than the look-ahead: no run starts at "K"
    letters = [_head(8, "3.2 Fields"), *(_head(8, f"{c} format") for c in "KFVCDU")]
    letters.append(_head(9, "3.3 Actions"))
    assert drop_out_of_sequence(letters) == [letters[0], letters[-1]]
    assert section_key("a Author String") is None  # a lower-case label is no section letter


def test_dense_styles_go_but_the_contents_and_numbers_keep_theirs() -> None:
    labels = [_head(p, f"Trick {p}.{k}", 10, False) for p in (1, 2) for k in range(5)]
    sections = [_head(1, "1.1 Graphs"), _head(2, "1.2 Trees")]
    contents = printed_contents(["Trick 1.3 . . . 2"])
    kept = drop_dense_styles([*sections, *labels], Listing(contents))
    assert kept == [*sections, _head(1, "Trick 1.3", 10, False)]


def test_below_contents_only_when_the_contents_covers_numbered_styles() -> None:
    heads = [_head(1, "1.1 Graphs", 15), _head(2, "1.2 Trees", 15), _head(2, "Example", 12)]
    numbered = printed_contents(["1.1 Graphs 1", "1.2 Trees 2"])
    assert drop_below_contents(heads, Listing(numbered)) == heads[:2]
    words = [_head(1, "Graphs", 15), _head(2, "Trees", 15), _head(2, "Example", 12)]
    assert drop_below_contents(words, Listing(printed_contents(["Graphs 1", "Trees 2"]))) == words


def test_a_listed_title_counts_only_on_its_page_once_the_contents_pages_are_placed() -> None:
    contents = printed_contents(["1 Basics 1", "1.1 Numbers 2", "1.2 Words 4", "Applications 5"])
    heads = [_head(10, "1 Basics"), _head(11, "1.1 Numbers"), _head(13, "1.2 Words")]
    listing = Listing.of([*heads, _head(30, "Applications", 12)], contents)
    assert listing.offset == 9
    assert listing.lists(_head(14, "Applications", 12))
    assert not listing.lists(_head(30, "Applications", 12))  # the same words elsewhere
    assert Listing.of(heads[:2], contents).offset is None  # too few to place the pages


def test_an_unnumbered_line_of_a_numbered_style_needs_the_contents() -> None:
    contents = printed_contents(["1.1 Graphs 1", "1.2 Trees 2", "Preface 1"])
    heads = [_head(0, "Aims and contents"), _head(0, "Preface"), _head(1, "1 Basics")]
    heads += [_head(2, "2 More"), _head(1, "1.1 Graphs", 11), _head(2, "1.2 Trees", 11)]
    assert drop_unlisted_unnumbered(heads, Listing(contents)) == heads[1:]
    assert drop_unlisted_unnumbered(heads, Listing()) == heads  # no contents: no evidence


def test_below_numbered_only_without_the_contents() -> None:
    heads = [_head(1, "1 Graphs", 15), _head(2, "1.1 Trees", 15), _head(2, "Example", 12)]
    assert drop_below_numbered(heads, Listing()) == heads[:2]
    bigger = [*heads[:2], _head(3, "Remark", 18)]  # above a numbered style: not below it
    assert drop_below_numbered(bigger, Listing()) == bigger
    listed = Listing(printed_contents(["1 Graphs 1", "1.1 Trees 2"]))
    assert drop_below_numbered(heads, listed) == heads  # the contents decides
