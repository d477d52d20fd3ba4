"""PDF extraction with pypdf: generated books (fpdf2) and small real files."""

from __future__ import annotations

import io
import itertools
import json
import re
from pathlib import Path

import pytest

pytest.importorskip("pypdf")
fpdf = pytest.importorskip("fpdf")

from pipeline import chunk_document  # noqa: E402
from pipeline.errors import (  # noqa: E402
    CorruptFileError,
    EmptyDocumentError,
    EncryptedError,
    ExtractionError,
    NoTextLayerError,
)
from pipeline.extract.pdf.headings import (  # noqa: E402
    OutlineItem,
    Placed,
    plan_from_fonts,
    plan_from_outline,
)
from pipeline.extract.pdf.layout import Line  # noqa: E402
from pipeline.extract.pdf.reader import TextLayer, read_pdf  # noqa: E402
from pipeline.model import Document, boilerplate_counts  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures" / "extract"
HEADER = "Folio Test Book - Running Header"
PARAS = [
    "Folio reads books and documents and cuts them into sections and snippets that an agent "
    "can cite. This paragraph is long enough to wrap over several lines of the page.",
    "A second paragraph starts after a visible gap. It talks about extraction, layout and "
    "the way lines are joined back into paragraphs without losing a single word.",
]


def _lines(pdf: object, text: str, size: float = 11, style: str = "", width: float = 0) -> None:
    pdf.set_font("Helvetica", style, size)  # type: ignore[attr-defined]
    pdf.multi_cell(width, size * 0.45, text, new_x="LMARGIN", new_y="NEXT")  # type: ignore[attr-defined]
    pdf.ln(size * 0.4)  # type: ignore[attr-defined]


def make_book_pdf(outline: bool = True) -> bytes:
    """8 pages: title, contents with dot leaders, 6 body pages with a running header,
    page numbers, two heading levels (larger / bold fonts), a hyphenated word and a table."""
    pdf = fpdf.FPDF(format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_title("A Book for Testing")
    pdf.set_author("Ada Tester")
    pdf.set_margins(25, 20, 25)

    pdf.add_page()
    pdf.set_y(80)
    _lines(pdf, "A Book for Testing", 26, "B")
    _lines(pdf, "Ada Tester", 14)

    pdf.add_page()
    _lines(pdf, "Contents", 20, "B")
    for title, page in [
        ("1 Introduction", 3),
        ("1.1 Background", 3),
        ("2 Methods", 5),
        ("2.1 Data", 6),
        ("3 Results", 7),
    ]:
        pdf.set_font("Helvetica", "", 11)
        pdf.cell(0, 6, f"{title} " + ". " * 30 + str(page), new_x="LMARGIN", new_y="NEXT")

    sections = [
        (3, 1, "1 Introduction"),
        (3, 2, "1.1 Background"),
        (5, 1, "2 Methods"),
        (6, 2, "2.1 Data"),
        (7, 1, "3 Results"),
    ]
    for page in range(3, 9):
        pdf.add_page()
        pdf.set_font("Helvetica", "", 9)
        pdf.set_y(10)
        pdf.cell(0, 5, HEADER, new_x="LMARGIN", new_y="NEXT")
        pdf.set_y(30)
        for _, level, title in [s for s in sections if s[0] == page]:
            if outline:
                pdf.start_section(title, level=level - 1)
            _lines(pdf, title, 20 if level == 1 else 15, "B")
            for para in PARAS:
                _lines(pdf, para)
        if page == 4:
            _lines(pdf, "This page continues the introduction with plain body text only. " * 3)
            pdf.set_font("Helvetica", "", 11)
            pdf.cell(0, 5, "We measured an extra-", new_x="LMARGIN", new_y="NEXT")
            pdf.cell(0, 5, "ordinary amount of text on this page.", new_x="LMARGIN", new_y="NEXT")
        if page == 6:
            pdf.ln(4)
            pdf.set_font("Helvetica", "", 10)
            for row in [
                ("Name", "Pages", "Backend"),
                ("ctfp", "199", "pypdf"),
                ("tufte", "42", "marker"),
            ]:
                for cell in row:
                    pdf.cell(40, 7, cell, border=1)
                pdf.ln(7)
        if page == 8:
            _lines(pdf, "The last page has body text and nothing else of note.")
        pdf.set_y(-15)
        pdf.set_font("Helvetica", "", 9)
        pdf.cell(0, 5, str(page), align="C")
    return bytes(pdf.output())


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("pdf") / "book.pdf"
    path.write_bytes(make_book_pdf())
    return path


@pytest.fixture(scope="module", params=["pdfium", "pypdf"])
def book_doc(book: Path, request: pytest.FixtureRequest) -> Document:
    """The test book read by each text layer: both must give the same structure."""
    return read_pdf(book, workers=1, layer=request.param)


def _atx(doc: Document) -> list[tuple[int, str]]:
    return [(len(m.group(1)), m.group(2)) for m in re.finditer(r"^(#+) (.+)$", doc.text, re.M)]


def _page_of(doc: Document, offset: int) -> int:
    return next(p.number for p in doc.pages if p.char_start <= offset < p.char_end)


def _no_outline(tmp_path: Path, data: bytes) -> Document:
    """A generated PDF read from its font evidence."""
    path = tmp_path / "generated.pdf"
    path.write_bytes(data)
    return read_pdf(path, use_outline=False, workers=1)


def test_outline_headings_placed_on_their_pages(book_doc: Document) -> None:
    assert book_doc.heading_mode == "outline"
    assert book_doc.markup == "text"
    heads = _atx(book_doc)
    assert heads == [
        (1, "1 Introduction"),
        (2, "1.1 Background"),
        (1, "2 Methods"),
        (2, "2.1 Data"),
        (1, "3 Results"),
    ]
    pages = [e.page for e in book_doc.outline]
    assert pages == [3, 3, 5, 6, 7]
    for entry in book_doc.outline:
        assert entry.char_start is not None
        assert book_doc.text[entry.char_start :].startswith("#")
        assert _page_of(book_doc, entry.char_start) == entry.page
    assert book_doc.info.extra["outline_found"] == 5


def test_page_map_is_contiguous_and_complete(book_doc: Document) -> None:
    pages = book_doc.pages
    assert [p.number for p in pages] == list(range(1, 9))
    assert pages[0].char_start == 0
    assert pages[-1].char_end == len(book_doc.text)
    for a, b in itertools.pairwise(pages):
        assert a.char_end == b.char_start
        assert a.char_start <= a.char_end
    assert all(p.label for p in pages)
    assert "last page has body text" in book_doc.text[pages[7].char_start : pages[7].char_end]


def test_boilerplate_removed_and_recorded(book_doc: Document) -> None:
    text = book_doc.text
    assert HEADER not in text
    assert ". . . ." not in text
    assert not re.search(r"^\d+$", text, re.M)
    counts = boilerplate_counts(book_doc.info.boilerplate)
    assert counts["running_header"] == 6
    assert counts["page_number"] >= 6
    assert counts["toc"] == 5
    removed = {(r.page, r.kind) for r in book_doc.info.boilerplate}
    assert (3, "running_header") in removed and (2, "toc") in removed


def test_paragraphs_dehyphenation_and_metadata(book_doc: Document) -> None:
    text = book_doc.text
    assert PARAS[0] in text  # wrapped lines joined back into one paragraph
    assert f"{PARAS[0]}\n\n{PARAS[1]}" in text
    assert "extraordinary amount" in text
    assert "Name Pages Backend" in text or "Name" in text
    info = book_doc.info
    assert book_doc.title == "A Book for Testing"
    assert info.author == "Ada Tester"
    assert info.page_count == 8
    assert info.backend in ("pdfium", "pypdf") and book_doc.heading_mode == "outline"
    assert text.endswith("\n") and not text.endswith("\n\n")


@pytest.mark.parametrize("layer", ["pdfium", "pypdf"])
def test_no_outline_falls_back_to_font_sizes(book: Path, layer: TextLayer) -> None:
    doc = read_pdf(book, use_outline=False, workers=1, layer=layer)
    assert doc.heading_mode == "fonts"
    heads = _atx(doc)
    titles = [t for _, t in heads]
    for t in ["1 Introduction", "1.1 Background", "2 Methods", "2.1 Data", "3 Results"]:
        assert t in titles
    levels = dict((t, lvl) for lvl, t in heads)
    assert levels["1 Introduction"] == 1 and levels["1.1 Background"] == 2


def test_bookmarkless_pdf_uses_fonts(tmp_path: Path) -> None:
    path = tmp_path / "plain.pdf"
    path.write_bytes(make_book_pdf(outline=False))
    doc = read_pdf(path, workers=1)
    assert doc.heading_mode == "fonts"
    assert doc.info.extra["outline_entries"] == 0


def test_parallel_extraction_gives_the_same_document(book: Path, book_doc: Document) -> None:
    layer: TextLayer = "pypdf" if book_doc.info.backend == "pypdf" else "pdfium"
    doc = read_pdf(book, workers=2, layer=layer)
    assert doc.text == book_doc.text
    assert doc.pages == book_doc.pages


def test_hash_lines_are_escaped(tmp_path: Path) -> None:
    pdf = fpdf.FPDF()
    pdf.add_page()
    _lines(pdf, "#include <stdio.h> is how a C program starts, not a heading.")
    path = tmp_path / "hash.pdf"
    path.write_bytes(bytes(pdf.output()))
    doc = read_pdf(path)
    assert not re.search(r"^#", doc.text, re.M)
    assert "\\#include" in doc.text


# --- encryption and damage ----------------------------------------------------------------


def _encrypted(algorithm: str, user: str) -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for page in PdfReader(io.BytesIO(make_book_pdf())).pages:
        writer.add_page(page)
    writer.encrypt(user_password=user, owner_password="owner-secret", algorithm=algorithm)
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


@pytest.mark.parametrize("algorithm", ["RC4-128", "AES-128", "AES-256"])
def test_encrypted_with_empty_user_password_opens(tmp_path: Path, algorithm: str) -> None:
    pytest.importorskip("cryptography")
    path = tmp_path / "enc.pdf"
    path.write_bytes(_encrypted(algorithm, ""))
    doc = read_pdf(path, workers=1)
    assert doc.info.extra["encrypted"] is True
    assert PARAS[0] in doc.text


@pytest.mark.parametrize("algorithm", ["RC4-128", "AES-256"])
def test_password_protected_is_a_clear_error(tmp_path: Path, algorithm: str) -> None:
    pytest.importorskip("cryptography")
    path = tmp_path / "locked.pdf"
    path.write_bytes(_encrypted(algorithm, "let-me-in"))
    with pytest.raises(EncryptedError) as err:
        read_pdf(path)
    assert err.value.path == str(path)
    assert "password" in str(err.value)
    # the right password opens it
    assert PARAS[0] in read_pdf(path, password="let-me-in", workers=1).text


@pytest.mark.parametrize("frac", [0.05, 0.5, 0.95])
def test_truncated_pdf_is_corrupt(tmp_path: Path, frac: float) -> None:
    data = make_book_pdf()
    path = tmp_path / "cut.pdf"
    path.write_bytes(data[: int(len(data) * frac)])
    with pytest.raises(ExtractionError) as err:
        read_pdf(path)
    assert isinstance(err.value, CorruptFileError | EmptyDocumentError)
    assert err.value.path == str(path)


def test_garbage_after_header_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "junk.pdf"
    path.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 20)
    with pytest.raises(CorruptFileError):
        read_pdf(path)


def test_scanned_pdf_has_no_text_layer(tmp_path: Path) -> None:
    from PIL import Image

    pdf = fpdf.FPDF()
    for shade in (40, 120, 200):
        pdf.add_page()
        pdf.image(Image.new("RGB", (200, 280), (shade, shade, shade)), x=10, y=10, w=180)
    path = tmp_path / "scan.pdf"
    path.write_bytes(bytes(pdf.output()))
    with pytest.raises(NoTextLayerError) as err:
        read_pdf(path)
    # OCR read the three grey pages and found nothing (or is not installed: it says how)
    assert "no text layer" in str(err.value) and "OCR" in str(err.value)


def test_blank_pdf_is_empty(tmp_path: Path) -> None:
    pdf = fpdf.FPDF()
    pdf.add_page()
    path = tmp_path / "blank.pdf"
    path.write_bytes(bytes(pdf.output()))
    with pytest.raises(EmptyDocumentError):
        read_pdf(path)


# --- real files -----------------------------------------------------------------------------


def test_real_pdflatex_outline() -> None:
    path = FIXTURES / "pdflatex-outline.pdf"
    truth = json.loads((FIXTURES / "pdflatex-outline.outline.json").read_text())
    doc = read_pdf(path)
    assert doc.heading_mode == "outline"
    assert len(doc.outline) == len(truth)
    for got, want in zip(doc.outline, truth, strict=True):
        assert got.title.endswith(want["title"])
        assert got.page == want["page"] + 1
    assert boilerplate_counts(doc.info.boilerplate)["toc"] == 9
    assert boilerplate_counts(doc.info.boilerplate)["page_number"] == 4
    assert "Hello, here is some text without a meaning." in doc.text


def test_real_kaobook_report_glyph_digits_and_outline() -> None:
    doc = read_pdf(FIXTURES / "kaobook-minimal-report.pdf")
    assert doc.info.extra["outline_found"] == 4
    assert "# 1. Introduction" in doc.text
    assert "/two.prop" not in doc.text
    assert doc.title == "Template for a Kao Report (or Handout)"
    no = read_pdf(FIXTURES / "kaobook-minimal-report.pdf", use_outline=False)
    assert no.heading_mode in {"fonts", "heuristic"}


DECOYS = [
    "Figure 3.2 Growth of the library",
    "Table 4 Pages per backend",
    "• A bold list item",
    "(b) Another bold list item",
    "x = a + b / (c - d)",
    "Ada Tester, June 21, 2015",
]


def make_decoy_pdf() -> bytes:
    """No outline: numbered headings in large bold type, and lines just as large and bold
    that are not headings (a caption, a table caption, a list item, an equation) on every
    body page, plus a running head set like a heading at the top of each page."""
    pdf = fpdf.FPDF(format="A4")
    pdf.core_fonts_encoding = "cp1252"  # for the bullet
    pdf.set_auto_page_break(False)
    pdf.set_margins(25, 20, 25)
    chapters = [
        ("1 Introduction", "1.1 Background"),
        ("2 Methods", "2.1 Data"),
        ("3 Results", "3.1 Scope"),
    ]
    for chapter, section in chapters:
        for title, size in ((chapter, 20), (section, 15)):
            pdf.add_page()
            pdf.set_y(10)
            _lines(pdf, "The Running Head Of This Book", 14, "B")
            pdf.set_y(30)
            _lines(pdf, title, size, "B")
            for para in PARAS:
                _lines(pdf, para)
            for decoy in DECOYS:
                _lines(pdf, decoy, 14, "B")
                _lines(pdf, PARAS[0])
    return bytes(pdf.output())


def test_no_outline_drops_captions_list_items_equations_and_running_heads(tmp_path: Path) -> None:
    doc = _no_outline(tmp_path, make_decoy_pdf())
    heads = _atx(doc)
    assert [t for _, t in heads] == [
        "1 Introduction",
        "1.1 Background",
        "2 Methods",
        "2.1 Data",
        "3 Results",
        "3.1 Scope",
    ]
    assert [lvl for lvl, _ in heads] == [1, 2, 1, 2, 1, 2]


CODE = [
    "public class Hello {",
    "    public static void main(String[] args) {",
    "        # print it",
    '        System.out.println("Hello");',
    "    }",
    "}",
]


def test_monospaced_lines_become_fenced_code_with_indentation(tmp_path: Path) -> None:
    pdf = fpdf.FPDF(format="A4")
    pdf.set_margins(25, 20, 25)
    pdf.add_page()
    for para in PARAS:
        _lines(pdf, para)
    pdf.set_font("Courier", "", 10)
    for line in CODE:
        pdf.cell(0, 4.5, line, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(6)
    _lines(pdf, PARAS[1])
    pdf.set_font("Courier", "", 10)
    pdf.cell(0, 4.5, "sorting", new_x="LMARGIN", new_y="NEXT")  # an option name, set alone
    pdf.ln(6)
    _lines(pdf, PARAS[0])
    path = tmp_path / "code.pdf"
    path.write_bytes(bytes(pdf.output()))
    doc = read_pdf(path, workers=1)
    assert "```\n" + "\n".join(CODE) + "\n```" in doc.text
    assert doc.text.count("```") == 2  # the bare name is not a listing
    chunks = chunk_document(doc)
    assert any("code" in c.content_hints for c in chunks)
    assert all("print it" not in c.section_title for c in chunks)


def test_drop_cap_is_joined_to_its_word(tmp_path: Path) -> None:
    pdf = fpdf.FPDF(format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", "", 11)
    pdf.text(25, 30, "Chapter text before the story.")
    pdf.set_font("Times", "", 36)
    pdf.text(25, 60, "T")  # a drop cap beside the first lines of the paragraph
    pdf.set_font("Helvetica", "", 11)
    for k, line in enumerate(
        [
            "HERE was a table set out under a tree in front of the",
            "house, and the March Hare and the Hatter were having tea",
            "at it: a Dormouse was sitting between them, fast asleep.",
        ]
    ):
        pdf.text(34, 52 + k * 4.2, line)
    pdf.text(25, 90, "A MAN walked in: a one-letter word set at body size stays a word.")
    path = tmp_path / "dropcap.pdf"
    path.write_bytes(bytes(pdf.output()))
    text = read_pdf(path, workers=1).text
    assert "THERE was a table" in text and "T HERE" not in text
    assert "A MAN walked in" in text


def make_contents_pdf(chapter_label_after: bool = False) -> bytes:
    """No outline: a printed contents page listing chapters, their numbered sections and
    an unnumbered "Exercises"; the body also holds headings set alike that the contents
    leaves out (a dedication, a starred section). With ``chapter_label_after`` there is
    no contents and each chapter prints its number or letter after the title."""
    pdf = fpdf.FPDF(format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_margins(25, 20, 25)
    chapters = [
        ("1", "Introduction", ["1.1 Background", "Exercises"]),
        ("2", "Methods", ["2.1 Data", "Remarks Without Number"]),
        ("A", "Tables", ["A.1 Sources", "Exercises"]),
    ]
    if chapter_label_after:
        pdf.add_page()
        _lines(pdf, "A Book With Labels", 26, "B")
    else:
        pdf.add_page()
        _lines(pdf, "Dedication", 20, "B")
        _lines(pdf, "For everyone who reads the contents first.")
        pdf.add_page()
        _lines(pdf, "Contents", 20, "B")
        for label, title, sections in chapters:
            entries = [f"{label} {title}", *(s for s in sections if not s.startswith("Rem"))]
            for entry in entries:
                pdf.set_font("Helvetica", "", 11)
                pdf.cell(0, 6, f"{entry} " + ". " * 30 + "3", new_x="LMARGIN", new_y="NEXT")
    for label, title, sections in chapters:
        pdf.add_page()
        head = f"{title} {label}" if chapter_label_after else f"{label} {title}"
        _lines(pdf, head, 20, "B")
        for section in sections:
            _lines(pdf, section, 15, "B")
            for para in PARAS:
                _lines(pdf, para)
    if chapter_label_after:  # unnumbered back matter set like the chapters
        for title in ("Notation", "Bibliography", "Index", "Colophon"):
            pdf.add_page()
            _lines(pdf, title, 20, "B")
            _lines(pdf, PARAS[0])
    return bytes(pdf.output())


def test_printed_contents_decides_within_the_styles_it_covers(tmp_path: Path) -> None:
    doc = _no_outline(tmp_path, make_contents_pdf())
    assert doc.heading_mode == "fonts"
    assert _atx(doc) == [
        (1, "1 Introduction"),
        (2, "1.1 Background"),
        (2, "Exercises"),
        (1, "2 Methods"),
        (2, "2.1 Data"),
        (1, "A Tables"),
        (2, "A.1 Sources"),
        (2, "Exercises"),
    ]
    assert "Remarks Without Number" in doc.text and "Dedication" in doc.text


def test_chapter_number_printed_after_the_title_goes_in_front(tmp_path: Path) -> None:
    doc = _no_outline(tmp_path, make_contents_pdf(chapter_label_after=True))
    chapters = [t for lvl, t in _atx(doc) if lvl == 1]
    assert chapters == [
        "1 Introduction",
        "2 Methods",
        "A Tables",
        "Notation",
        "Bibliography",
        "Index",
        "Colophon",
    ]


def test_a_nearly_matching_line_that_is_another_bookmarks_title_is_left_to_it() -> None:
    """A bookmark whose title is not printed (a margin label, "\\bibliography") is not put
    on a heading line that merely resembles it when that line is another bookmark's title
    ("3.8.2 The Bibliography")."""
    lines = [
        Line("3.8.2 The Bibliography", 113, 700, 10.9, True, False),
        Line(
            "The bibliography and the list of shorthands have a heading.",
            113,
            680,
            10.9,
            False,
            False,
        ),
    ]
    items = [OutlineItem(4, "\\bibliography", 0), OutlineItem(3, "3.8.2 The Bibliography", 0)]
    plan = plan_from_outline([lines], items)
    assert plan.at[0] == {0: Placed(3, "3.8.2 The Bibliography")}
    assert plan.inserted[0] == {0: [(4, "\\bibliography")]}


def test_a_series_of_one_title_keeps_its_numbers_after_it() -> None:
    """ "Week 1", "Week 2": a number after the same title each time is part of the title,
    not a chapter label printed after it."""
    body = "Body text of a page, long enough to set the body size of the document."
    pages = [
        [Line(body, 72, 740, 11, False, False), Line(f"Week {n}", 72, 700, 20, True, False)]
        + [Line(body, 72, 680 - 14 * k, 11, False, False) for k in range(8)]
        for n in (1, 2, 3)
    ]
    plan = plan_from_fonts(pages)
    assert [plan.at[p][1].title for p in range(3)] == ["Week 1", "Week 2", "Week 3"]


def make_margin_label_pdf() -> bytes:
    """No outline: numbered headings in large bold type, and body paragraphs each flagged
    by a bold label in the left margin (an option name, as reference manuals set them)."""
    pdf = fpdf.FPDF(format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_margins(50, 20, 20)
    labels = iter(["backend", "style", "sorting", "maxnames", "minnames", "language"])
    for chapter, section in [("1 Options", "1.1 Loading"), ("2 Commands", "2.1 Citing")]:
        pdf.add_page()
        _lines(pdf, chapter, 18, "B")
        _lines(pdf, section, 14, "B")
        for para in [*PARAS, PARAS[0]]:
            y = pdf.get_y()
            pdf.set_font("Helvetica", "B", 10)
            pdf.set_xy(12, y)
            pdf.cell(34, 4.5, next(labels))
            pdf.set_xy(50, y)
            _lines(pdf, para, 10)
    return bytes(pdf.output())


def test_margin_labels_are_not_headings(tmp_path: Path) -> None:
    doc = _no_outline(tmp_path, make_margin_label_pdf())
    heads = _atx(doc)
    assert [t for _, t in heads] == ["1 Options", "1.1 Loading", "2 Commands", "2.1 Citing"]
    assert [lvl for lvl, _ in heads] == [1, 2, 1, 2]
    assert "sorting" in doc.text  # the label stays in the text


@pytest.mark.parametrize("layer", ["pdfium", "pypdf"])
def test_the_text_does_not_depend_on_the_number_of_workers(layer: TextLayer) -> None:
    """A TeX math-symbol font is read per character from the page that shows it; the
    second page has such glyphs only inside words, so a worker that read it without the
    first page's sighting got "{hstylei}" where one process reads "{⟨style⟩}"."""
    path = FIXTURES / "biblatex-symbol-pages.pdf"
    one, two = (read_pdf(path, workers=w, layer=layer, use_outline=False) for w in (1, 2))
    assert one.text == two.text
    if layer == "pdfium":
        assert "\\RequireCitationStyle{⟨style⟩}" in one.text
