"""PDFium opens the PDF and reads its structure (``extract/pdf/document.py``): the
outline, page labels and metadata it reads are what pypdf read, on generated and real
files; its page count is checked; a file is damaged only when pypdf cannot read it either.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pipeline.errors import CorruptFileError
from pipeline.extract.pdf.document import (
    MIN_PAGE_BYTES,
    PdfiumFile,
    PypdfFile,
    open_pdf,
    page_count_problem,
    pdf_number,
)

from .test_extract_pdf_pypdf_limit import _pdf, filing_pdf, page_objects

FIXTURES = Path(__file__).parent / "fixtures" / "extract"
LIBRARY = Path(__file__).parent.parent / "examples" / "library"


# --- PDFium's structure is pypdf's ------------------------------------------------------------


def _both(path: Path) -> tuple[PdfiumFile, PypdfFile]:
    a = PdfiumFile.open(path, None)
    b = PypdfFile.open(path, None)
    return a, b


def _same_structure(path: Path) -> None:
    a, b = _both(path)
    try:
        assert a.n_pages == b.n_pages
        assert a.outline() == b.outline()
        assert a.labels() == b.labels()
        assert a.metadata() == b.metadata()
        assert a.encrypted == b.encrypted
    finally:
        a.close()
        b.close()


def test_under_pypdfs_limit_pypdf_reads_the_filing_as_pdfium_does(tmp_path: Path) -> None:
    small = tmp_path / "small.pdf"
    small.write_bytes(filing_pdf(20))
    _same_structure(small)


@pytest.mark.parametrize(
    "name", ["pdflatex-outline.pdf", "kaobook-minimal-report.pdf", "biblatex-symbol-pages.pdf"]
)
def test_pdfium_reads_the_structure_pypdf_read(name: str) -> None:
    _same_structure(FIXTURES / name)


def test_pdfium_reads_the_structure_pypdf_read_in_the_bundled_library() -> None:
    pdfs = sorted(LIBRARY.glob("*.pdf"))
    assert len(pdfs) >= 2, f"the bundled library's PDFs are gone from {LIBRARY}"
    for path in pdfs:
        _same_structure(path)


def bookmarks_pdf(cycle: bool = False) -> bytes:
    """Bookmarks with destinations of every kind: XYZ with and without a top, FitH, FitR,
    Fit, FitBH, a GoTo action, a named destination, one whose name does not exist (with
    a child), nesting; ``cycle``: the last one's /Next goes back to the first."""
    objs = [
        b"<< /Type /Catalog /Pages 3 0 R /Outlines 11 0 R"
        b" /Names << /Dests << /Names [(chapter-three) [9 0 R /XYZ 0 300 0]] >> >> >>",
        b"<< /Title (Bookmarks) >>",
        b"<< /Type /Pages /Kids [5 0 R 7 0 R 9 0 R] /Count 3 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    objs += page_objects()
    last_next = b" /Next 12 0 R" if cycle else b""
    objs += [
        b"<< /Type /Outlines /First 12 0 R /Last 19 0 R >>",  # 11
        b"<< /Title (XYZ) /Parent 11 0 R /Next 13 0 R /Dest [5 0 R /XYZ 0 700.25 0] >>",
        b"<< /Title (XYZ null) /Parent 11 0 R /Prev 12 0 R /Next 15 0 R /First 14 0 R"
        b" /Last 14 0 R /Count 1 /Dest [5 0 R /XYZ null null null] >>",
        b"<< /Title (FitH) /Parent 13 0 R /Dest [7 0 R /FitH 640] >>",
        b"<< /Title (FitR) /Parent 11 0 R /Prev 13 0 R /Next 16 0 R"
        b" /Dest [7 0 R /FitR 10 20 300 610.5] >>",
        b"<< /Title (Fit) /Parent 11 0 R /Prev 15 0 R /Next 18 0 R /First 17 0 R /Last 17 0 R"
        b" /Count 1 /Dest [9 0 R /Fit] >>",
        b"<< /Title (GoTo) /Parent 16 0 R /A << /S /GoTo /D [9 0 R /XYZ 0 500 0] >> >>",
        b"<< /Title (Named) /Parent 11 0 R /Prev 16 0 R /Next 19 0 R /Dest (chapter-three) >>",
        b"<< /Title (Missing) /Parent 11 0 R /Prev 18 0 R /First 20 0 R /Last 20 0 R /Count 1"
        b" /Dest (no-such-name)" + last_next + b" >>",
        b"<< /Title (Under missing) /Parent 19 0 R /Dest [5 0 R /FitBH 100] >>",
    ]
    return _pdf(objs)


BOOKMARKS = [
    (1, "XYZ", 0, 700.25),
    (1, "XYZ null", 0, None),
    (2, "FitH", 1, 640.0),
    (1, "FitR", 1, 610.5),
    (1, "Fit", 2, None),
    (2, "GoTo", 2, 500.0),
    (1, "Named", 2, 300.0),
    (2, "Under missing", 0, 100.0),
]


def test_bookmark_destinations_of_every_kind(tmp_path: Path) -> None:
    path = tmp_path / "bookmarks.pdf"
    path.write_bytes(bookmarks_pdf())
    a, b = _both(path)
    got = a.outline()
    assert [(o.level, o.title, o.page, o.top) for o in got] == BOOKMARKS
    # pypdf read the same, and put the bookmark whose destination does not exist on the
    # first page
    assert [o for o in b.outline() if o.title != "Missing"] == got
    a.close()


def test_a_cycle_in_the_outline_ends_the_walk(tmp_path: Path) -> None:
    path = tmp_path / "cycle.pdf"
    path.write_bytes(bookmarks_pdf(cycle=True))
    with PdfiumFile.open(path, None) as pdf:
        assert [(o.level, o.title, o.page, o.top) for o in pdf.outline()] == BOOKMARKS


def test_pdf_numbers_come_back_as_written() -> None:
    import struct

    for written in (656.917, 793.722, 0.0, 12.5, 755.878789, 1e-3, 14400.0):
        as_float32 = struct.unpack("<f", struct.pack("<f", written))[0]
        assert pdf_number(as_float32) == pytest.approx(written, abs=1e-4)
    assert pdf_number(struct.unpack("<f", struct.pack("<f", 656.917))[0]) == 656.917


def test_page_counts_a_file_cannot_hold_are_not_believed() -> None:
    assert page_count_problem(3, 900) is None
    assert page_count_problem(1000, 1000 * MIN_PAGE_BYTES) is None
    assert "claims 1,000,000 pages" in str(page_count_problem(1_000_000, 941))
    assert "100,000 allowed" in str(page_count_problem(200_000, 10**9))


def test_a_file_neither_library_opens_is_damaged_with_both_reasons(tmp_path: Path) -> None:
    path = tmp_path / "junk.pdf"
    path.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 20)
    with pytest.raises(CorruptFileError) as err:
        open_pdf(path)
    assert err.value.path == str(path)
    assert "PDFium:" in err.value.reason and "pypdf:" in err.value.reason


@pytest.mark.slow
def test_pdfium_reads_the_structure_pypdf_read_on_the_corpus() -> None:
    """The evaluation corpus's PDFs ($FOLIO_DATA/corpus/pdf: not in a clone, so with the
    slow tests, which need the data): outlines, labels and metadata as pypdf reads them."""
    corpus = Path(os.environ.get("FOLIO_DATA", "$FOLIO_DATA")) / "corpus" / "pdf"
    pdfs = sorted(corpus.glob("*.pdf"))
    assert pdfs, f"no PDFs in {corpus}: set FOLIO_DATA to the folder holding corpus/"
    for path in pdfs:
        _same_structure(path)
