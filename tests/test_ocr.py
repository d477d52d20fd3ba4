"""Scanned PDFs read by OCR: real Tesseract on the corpus's scan and on scans made here from
text PDFs (rendered by PDFium, saved as image-only PDFs by Pillow), compared with the
text layer they were made from. scripts/test.sh installs Tesseract (tesseract-ocr,
tesseract-ocr-eng) where it is missing."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import fpdf
import pypdfium2
import pytesseract
import pytest

from pipeline.errors import NoTextLayerError
from pipeline.extract import extract_file
from pipeline.extract.pdf import ocr
from pipeline.model import Document

from .helpers import load_script

CORPUS = Path(__file__).parent.parent.parent / "shared" / "corpus" / "pdf"
SCAN = CORPUS / "ocr-multipage-scan.pdf"
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
def corpus_scan() -> Document:
    return extract_file(SCAN)


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


# --- the corpus's scan --------------------------------------------------------------------------


def test_the_corpus_scan_is_read_page_by_page(corpus_scan: Document) -> None:
    doc = corpus_scan
    assert [p.number for p in doc.pages] == [1, 2, 3, 4, 5, 6]
    assert [p.label for p in doc.pages] == ["1", "2", "3", "4", "5", "6"]
    # page 4 has a text layer of its own (a chart's labels): it is not OCRed
    assert doc.info.extra["ocr_pages"] == [1, 2, 3, 5, 6]
    texts = page_texts(doc)
    assert "tip-toeing along a path" in texts[0]  # Huckleberry Finn, chapter II
    assert "megapixels" in texts[1]  # the 9000 x 9000 pixel page
    assert "Percentage" in texts[3]
    for text in texts[4:]:  # A Tale of Two Cities, twice (the second page rotated)
        assert "throne of England" in text and "tradesman in the light" in text
    assert "throne of England" not in "".join(texts[:4])


def test_the_corpus_scan_keeps_its_outline_on_its_pages(corpus_scan: Document) -> None:
    truth = json.loads((CORPUS / "ocr-multipage-scan.outline.json").read_text("utf-8"))
    got = [(e.level, e.title, e.page) for e in corpus_scan.outline]
    assert got == [(t["level"], t["title"], t["page"] + 1) for t in truth]
    assert corpus_scan.heading_mode == "outline"


def test_the_render_resolution_is_the_scans_own_within_bounds() -> None:
    doc = pypdfium2.PdfDocument(SCAN)
    try:
        dpis = [ocr.page_dpi(doc[i]) for i in range(len(doc))]
        w, h = doc[1].get_size()
        huge = w * h * (dpis[1] / 72) ** 2
    finally:
        doc.close()
    assert dpis[0] == 200  # a 150 dpi scan is read at the lower bound
    assert huge <= ocr.MAX_PIXELS * 1.001 and dpis[1] < 300  # 9000 x 9000 px at 300 dpi
    assert dpis[4] == 200  # a 72 dpi image
    assert all(0 < d <= ocr.MAX_DPI for d in dpis)


# --- scans made here ----------------------------------------------------------------------------


def test_a_made_scan_reads_back_the_words_of_its_text_layer(made: dict[str, Path]) -> None:
    truth, scan = extract_file(made["text"]), extract_file(made["scan"])
    assert scan.info.extra["ocr_pages"] == [1, 2]
    assert len(scan.pages) == len(truth.pages) == 2
    # word accuracy: the share of the original's words (\w+, lower-cased) that came back,
    # as a multiset overlap (scripts/check_ocr.py)
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
