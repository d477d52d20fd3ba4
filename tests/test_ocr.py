"""Scanned PDFs read by OCR: real Tesseract on scans made here from text PDFs (rendered by
PDFium, saved as image-only PDFs by Pillow or placed as images by fpdf2), compared with the
text layer they were made from: a two-page scan, and a mixed one with the kinds of page a
real scan has (a low-resolution scan, a poster-sized page, a page with a text layer of its
own, a 72 dpi image, a rotated page, bookmarks). scripts/test.sh installs Tesseract (tesseract-ocr,
tesseract-ocr-eng) where it is missing."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

import fpdf
import pypdfium2
import pytesseract
import pytest
from PIL import Image

from pipeline.errors import NoTextLayerError
from pipeline.extract import extract_file
from pipeline.extract.pdf import ink, ocr
from pipeline.model import Document

from .helpers import load_script

check_ocr = load_script("check_ocr")

# Made-up prose, one paragraph a page, each page ending a sentence (so that no paragraph
# runs on from one page to the next and each page's text stands alone).
PAGES = (
    "The harbour town woke early on market days. Fishermen carried their baskets up the "
    "narrow street while the baker opened his shutters and set out bread still warm from "
    "the oven. Children ran between the stalls, counting the coins their mothers had given "
    "them, and an old sailor sat on the steps of the church telling anyone who would listen "
    "about the storm that had sunk three ships in one night many winters ago.",
    "By noon the square was full of voices. Merchants from the valley argued over the price "
    "of wool, a travelling musician played a tune nobody knew, and the mayor walked slowly "
    "through the crowd greeting every family by name. When the church bell rang the hour, "
    "the traders began to pack their carts, and the gulls came down to search the empty "
    "tables for whatever had been left behind.",
)


def page_texts(doc: Document) -> list[str]:
    return [doc.text[p.char_start : p.char_end].strip() for p in doc.pages]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A two-page text PDF (A5, Helvetica 12 pt), its scan at 300 dpi, and a mixed PDF: the
    text PDF's first page and the scan's second."""
    d = tmp_path_factory.mktemp("ocr")
    pdf = fpdf.FPDF(format=(148, 210))  # A5 in mm (by name fpdf2 warns of a fix)
    pdf.set_font("Helvetica", size=12)
    for text in PAGES:
        pdf.add_page()
        pdf.multi_cell(0, 6, text)
    text_pdf = d / "text.pdf"
    text_pdf.write_bytes(bytes(pdf.output()))
    scan = check_ocr.make_scan(text_pdf, d / "scan.pdf", dpi=300)
    mixed = pypdfium2.PdfDocument.new()
    mixed.import_pages(pypdfium2.PdfDocument(text_pdf), [0])
    mixed.import_pages(pypdfium2.PdfDocument(scan), [1])
    mixed.save(d / "mixed.pdf")
    return {"text": text_pdf, "scan": scan, "mixed": d / "mixed.pdf"}


# --- a scan with every kind of page -------------------------------------------------------------

# (what the page says, its bookmark and level or None); each a sentence OCR reads whole
KINDS = (
    ("A scan at 150 dpi reads the lighthouse keeper's diary aloud.", ("Low resolution", 1)),
    ("This poster page holds many megapixels of empty paper.", ("Poster", 1)),
    ("Percentage of rainfall by month", ("Chart", 1)),
    ("The tailor sewed a coat of seven colours for the king.", ("Small image", 2)),
    ("The tailor sewed a coat of seven colours for the king.", None),
)


def _render(text: str, size_mm: tuple[float, float], font_pt: float, dpi: float) -> Any:
    """``text`` set in Helvetica on a page of ``size_mm``, rendered by PDFium at ``dpi``."""
    pdf = fpdf.FPDF(format=size_mm)
    pdf.set_font("Helvetica", size=font_pt)
    pdf.add_page()
    pdf.multi_cell(0, font_pt * 0.5, text)
    page = pypdfium2.PdfDocument(bytes(pdf.output()))[0]
    return page.render(scale=dpi / 72.0, grayscale=True).to_pil()


def make_mixed_scan(path: Path) -> Path:
    """Five pages: 1 an A5 scan at 150 dpi; 2 a 500 x 500 mm page scanned at 300 dpi (over
    ``MAX_PIXELS``); 3 a text layer (a chart's labels); 4 an A5 image at 72 dpi in large
    type; 5 that image turned a quarter on a landscape page that /Rotate turns back."""
    a5, poster = (148.0, 210.0), (500.0, 500.0)
    images = {
        1: (_render(KINDS[0][0], a5, 12, 150), a5),
        2: (_render(KINDS[1][0], poster, 40, 300), poster),
        4: (_render(KINDS[3][0], a5, 28, 72), a5),
    }
    pdf = fpdf.FPDF(format=a5)
    pdf.set_font("Helvetica", size=12)
    for number, (_, bookmark) in enumerate(KINDS, 1):
        image, size = images.get(number if number != 5 else 4, (None, a5))
        if number == 5:
            image, size = image.rotate(90, expand=True), (a5[1], a5[0])
        pdf.add_page(format=size)
        if bookmark:
            pdf.start_section(bookmark[0], level=bookmark[1] - 1)
        if image is None:
            pdf.multi_cell(0, 6, KINDS[2][0])
        else:
            pdf.image(image, x=0, y=0, w=size[0], h=size[1])
    doc = pypdfium2.PdfDocument(bytes(pdf.output()))
    doc[4].set_rotation(90)
    doc.save(path)
    doc.close()
    return path


@pytest.fixture(scope="module")
def mixed_scan(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Document]:
    path = make_mixed_scan(tmp_path_factory.mktemp("mixed-scan") / "scan.pdf")
    return path, extract_file(path)


def test_a_scan_is_read_page_by_page(mixed_scan: tuple[Path, Document]) -> None:
    _, doc = mixed_scan
    assert [p.number for p in doc.pages] == [1, 2, 3, 4, 5]
    assert [p.label for p in doc.pages] == ["1", "2", "3", "4", "5"]
    # page 3 has a text layer of its own (a chart's labels): it is not OCRed
    assert doc.info.extra["ocr_pages"] == [1, 2, 4, 5]
    texts = page_texts(doc)
    assert texts[2] == f"# Chart\n\n{KINDS[2][0]}"  # its text layer, under its bookmark
    for (want, _), got in zip(KINDS, texts, strict=True):
        assert check_ocr.word_accuracy(want, got) >= 0.9, (want, got)
    assert "tailor" not in "".join(texts[:3])


def test_a_scan_keeps_its_outline_on_its_pages(mixed_scan: tuple[Path, Document]) -> None:
    _, doc = mixed_scan
    got = [(e.level, e.title, e.page) for e in doc.outline]
    want = [(b[1], b[0], n) for n, (_, b) in enumerate(KINDS, 1) if b]
    assert got == want
    assert doc.heading_mode == "outline"


def test_the_render_resolution_is_the_scans_own_within_bounds(
    mixed_scan: tuple[Path, Document],
) -> None:
    doc = pypdfium2.PdfDocument(mixed_scan[0])
    try:
        dpis = [ocr.page_dpi(doc[i]) for i in range(len(doc))]
        w, h = doc[1].get_size()
        huge = w * h * (dpis[1] / 72) ** 2
    finally:
        doc.close()
    assert dpis[0] == 200  # a 150 dpi scan is read at the lower bound
    assert huge <= ocr.MAX_PIXELS * 1.001 and dpis[1] < 300  # 5900 x 5900 px at 300 dpi
    assert dpis[3] == dpis[4] == 200  # a 72 dpi image, upright and turned
    assert all(0 < d <= ocr.MAX_DPI for d in dpis)


# --- large type: its height guessed from the ink, read once ------------------------------------


def _hocr_row_px(image: Any, dpi: float) -> float:
    """Tesseract's median row height (hOCR x_size) in pixels of ``image`` read as it is."""
    hocr = pytesseract.image_to_pdf_or_hocr(
        image, lang=ocr.LANG, extension="hocr", config=f"--dpi {round(dpi)}"
    )
    sizes = sorted(ln.size for ln in ocr.hocr_lines(hocr, ocr.Scale(dpi, image.height)))
    return sizes[len(sizes) // 2] * dpi / 72.0


@pytest.mark.parametrize(("font", "pt"), [("Helvetica", 10), ("Times", 24), ("Courier", 60)])
def test_the_row_height_guessed_from_the_ink_is_near_tesseracts(font: str, pt: float) -> None:
    """Within a third of Tesseract's own (an inch-wide strip of ink holds a descender or
    not: 1.0-1.5 times the run), and on the same side of the limit for type well inside
    (10, 24 pt at 200 dpi: 26, 62 px) or well over it (60 pt: about 150 px)."""
    dpi, text = 200.0, KINDS[0][0] + " " + KINDS[1][0]
    pdf = fpdf.FPDF(format=(297, 420))
    pdf.set_font(font, size=pt)
    pdf.add_page()
    pdf.multi_cell(0, pt * 0.5, text)
    image = pypdfium2.PdfDocument(bytes(pdf.output()))[0].render(scale=dpi / 72, grayscale=True)
    image = image.to_pil()
    want, guess = _hocr_row_px(image, dpi), ink.row_px(image, dpi)
    assert abs(guess - want) <= want / 3, (guess, want)
    assert (guess > ocr.MAX_ROW_PX) == (want > ocr.MAX_ROW_PX) == (pt > 30), (guess, want)


def test_blank_or_black_paper_or_a_logo_alone_has_no_row_height() -> None:
    assert ink.row_px(Image.new("L", (1000, 1400), 255), 200.0) == 0.0
    assert ink.row_px(Image.new("L", (1000, 1400), 0), 200.0) == 0.0  # or black
    logo = Image.new("L", (1000, 1400), 255)
    logo.paste(0, (220, 1000, 380, 1160))  # a square of ink alone, in one strip: no guess
    assert ink.ink_runs(logo, 200.0) == [160] and ink.row_px(logo, 200.0) == 0.0
    assert ink.otsu_threshold([0] * 30 + [50] + [0] * 199 + [900] + [0] * 25) in range(30, 230)


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """The size of each image Tesseract (the real one) is given from now on."""
    sizes: list[tuple[int, int]] = []
    real = pytesseract.image_to_pdf_or_hocr

    def counted(image: Any, **kwargs: Any) -> Any:
        sizes.append(image.size)
        return real(image, **kwargs)

    monkeypatch.setattr(pytesseract, "image_to_pdf_or_hocr", counted)
    return sizes


def test_large_type_is_read_once_shrunk(
    mixed_scan: tuple[Path, Document], monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = pypdfium2.PdfDocument(mixed_scan[0])
    try:
        page = doc[1]  # the poster: 40 pt type, rendered at 235 dpi, 131 px an em
        rendered = round(page.get_size()[0] * ocr.page_dpi(page) / 72)
        reads = _count_reads(monkeypatch)
        lines = ocr.ocr_page(page)
    finally:
        doc.close()
    assert len(reads) == 1 and reads[0][0] < rendered * 0.6, (reads, rendered)
    assert check_ocr.word_accuracy(KINDS[1][0], " ".join(ln.text for ln in lines)) >= 0.9


def test_a_figure_taller_than_the_type_does_not_lose_the_caption(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dark figure wider than its caption: the ink's median run is the figure's, the
    guess says large type; the shrunk read finds no such type and the page is read again
    as rendered, caption and all."""
    caption = "Figure 1. Rainfall by month in the harbour town."
    pdf = fpdf.FPDF(format=(148, 210))
    pdf.add_page()
    pdf.rect(8, 20, 132, 80, style="F")  # a third of the page: dark, not mostly
    pdf.set_font("Helvetica", size=10)
    pdf.set_xy(10, 110)
    pdf.cell(text=caption)
    image = pypdfium2.PdfDocument(bytes(pdf.output()))[0].render(scale=200 / 72, grayscale=True)
    scan = fpdf.FPDF(format=(148, 210))
    scan.add_page()
    scan.image(image.to_pil(), x=0, y=0, w=148, h=210)
    scan.output(str(tmp_path / "figure.pdf"))
    doc = pypdfium2.PdfDocument(tmp_path / "figure.pdf")
    try:
        page = doc[0]
        dpi = ocr.page_dpi(page)
        assert ink.row_px(page.render(scale=dpi / 72, grayscale=True).to_pil(), dpi) > 100
        reads = _count_reads(monkeypatch)
        lines = ocr.ocr_page(page)
    finally:
        doc.close()
    assert len(reads) == 2  # shrunk, then as rendered
    assert check_ocr.word_accuracy(caption, " ".join(ln.text for ln in lines)) >= 0.9


# --- scans made here ----------------------------------------------------------------------------


def test_a_made_scan_reads_back_the_words_of_its_text_layer(made: dict[str, Path]) -> None:
    truth, scan = extract_file(made["text"]), extract_file(made["scan"])
    assert scan.info.extra["ocr_pages"] == [1, 2]
    assert len(scan.pages) == len(truth.pages) == 2
    # word accuracy: the share of the original's words (\w+, lower-cased) that came back,
    # as a multiset overlap (scripts/check/check_ocr.py)
    assert check_ocr.word_accuracy(truth.text, scan.text) >= 0.95
    for want, got in zip(page_texts(truth), page_texts(scan), strict=True):
        assert check_ocr.word_accuracy(want, got) >= 0.95  # each page's words on its page


def test_pages_read_by_two_processes_are_read_as_by_one(made: dict[str, Path]) -> None:
    truth = page_texts(extract_file(made["text"]))
    doc = pypdfium2.PdfDocument(made["scan"])
    try:
        got = ocr.ocr_pages(doc, [0, 1], str(made["scan"]), workers=2)
    finally:
        doc.close()
    assert sorted(got) == [0, 1]
    for want, lines in zip(truth, (got[0], got[1]), strict=True):
        assert check_ocr.word_accuracy(want, " ".join(ln.text for ln in lines)) >= 0.95


def test_word_accuracy_counts_each_word_as_often_as_the_original_has_it() -> None:
    assert check_ocr.word_accuracy("The cat, the hat.", "the cat hat") == 0.75
    assert check_ocr.word_accuracy("a b", "a b c d") == 1.0
    assert check_ocr.word_accuracy("one two", "") == 0.0
    assert check_ocr.word_accuracy("𝐴 = 𝜋", "A = π") == 1.0  # math letters are letters


def test_a_mixed_pdf_keeps_its_text_page_as_it_was(made: dict[str, Path]) -> None:
    truth, mixed = extract_file(made["text"]), extract_file(made["mixed"])
    assert mixed.info.extra["ocr_pages"] == [2]
    assert page_texts(mixed)[0] == page_texts(truth)[0]
    assert check_ocr.word_accuracy(page_texts(truth)[1], page_texts(mixed)[1]) >= 0.95


# --- without Tesseract -------------------------------------------------------------------------


@pytest.fixture(params=["program", "binding"])
def no_tesseract(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """OCR made unavailable for real: the binding pointed at a program that does not exist,
    or the binding not importable."""
    if request.param == "program":
        monkeypatch.setattr(pytesseract.pytesseract, "tesseract_cmd", "/nonexistent/tesseract")
        return "the tesseract program (/nonexistent/tesseract) is not found"
    monkeypatch.setitem(sys.modules, "pytesseract", None)  # import pytesseract fails
    return "the pytesseract package is not installed"


def test_without_tesseract_a_scan_is_an_error_that_says_how_to_get_ocr(
    made: dict[str, Path], no_tesseract: str, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        caplog.at_level(logging.WARNING, logger="folio.extract"),
        pytest.raises(NoTextLayerError) as err,
    ):
        extract_file(made["scan"])
    assert not caplog.records  # the error says it all, once
    message = str(err.value)
    assert message.startswith(f"{made['scan']}: no text layer")
    assert no_tesseract in message
    assert "apt install tesseract-ocr" in message
    assert "pip install 'folio-pipeline[ocr]'" in message


def test_without_tesseract_a_mixed_pdf_keeps_its_text_and_warns(
    made: dict[str, Path], no_tesseract: str, caplog: pytest.LogCaptureFixture
) -> None:
    truth = extract_file(made["text"])
    with caplog.at_level(logging.WARNING, logger="folio.extract"):
        mixed = extract_file(made["mixed"])
    assert "ocr_pages" not in mixed.info.extra
    assert page_texts(mixed)[0] == page_texts(truth)[0]
    assert page_texts(mixed)[1] == ""
    warned = " ".join(r.getMessage() for r in caplog.records)
    assert "1 page(s) without a text layer not read (page 2)" in warned
    assert no_tesseract in warned and "tesseract-ocr" in warned
