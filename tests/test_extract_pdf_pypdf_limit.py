"""A PDF that pypdf's hardening limits refuse and PDFium opens is extracted in full.

Microsoft's 10-Q filings of 2023 hold a structure tree whose /IDTree array has 109,548
elements; pypdf stops at 100,000 (``LimitReachedError``) before it finds a page, and Folio
failed them as damaged. The file built here has the same shape.
"""

from __future__ import annotations

import logging
import zlib
from collections.abc import Sequence
from pathlib import Path

import pytest

import pipeline
from pipeline.chunk.invariants import check_chunks
from pipeline.extract import extract_file
from pipeline.extract.pdf.reader import read_pdf

from .hostile.generate import raw_pdf

PYPDF_ARRAY_LIMIT = 100_000  # pypdf's Configuration.array_maximum_element_count

PAGES = [
    ["Quarterly Report of Example Corp", "For the quarter ended March 31, 2023."],
    [
        "Part I Financial Information",
        "Revenue grew in every segment during the quarter.",
        "Operating income rose on lower costs of cloud services.",
    ],
    [
        "Part II Other Information",
        "Legal proceedings are described in the notes to the statements.",
        "Risk factors have not changed since the annual report.",
    ],
]


def _pdf(objects: Sequence[bytes]) -> bytes:
    """A PDF of the object bodies (object i+1 is ``objects[i]``) with a correct xref; its
    info dictionary is object 2."""
    return raw_pdf(objects, extra_trailer=b"/Info 2 0 R ")


def page_objects() -> list[bytes]:
    """The three ``PAGES`` as objects 5 to 10 (each page, then its content stream), under
    the page tree in object 3 and the font in object 4."""
    objs: list[bytes] = []
    for i, lines in enumerate(PAGES):
        objs.append(
            b"<< /Type /Page /Parent 3 0 R /MediaBox [0 0 612 792]"
            b" /Resources << /Font << /F1 4 0 R >> >> /Contents %d 0 R >>" % (6 + 2 * i)
        )
        objs.append(_content(lines))
    return objs


def _content(lines: Sequence[str]) -> bytes:
    ops = [b"BT /F1 18 Tf 72 740 Td (" + lines[0].encode("latin-1") + b") Tj ET"]
    y = 700
    for line in lines[1:]:
        ops.append(b"BT /F1 11 Tf 72 %d Td (" % y + line.encode("latin-1") + b") Tj ET")
        y -= 16
    data = zlib.compress(b"\n".join(ops))
    return b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + b"\nendstream"


def filing_pdf(array_elements: int) -> bytes:
    """Three pages with an outline (a bookmark with a destination, one with a GoTo
    action), page labels (i, then 1, 2) and a title; the catalog's structure tree has an
    /IDTree whose /Names array holds ``array_elements`` elements."""
    pairs = b" ".join(b"(node%07d) null" % i for i in range(array_elements // 2))
    # 1 catalog, 2 info, 3 pages, 4 font, 5-10 (page, content), 11 outlines, 12-13 items
    objs = [
        b"<< /Type /Catalog /Pages 3 0 R /Outlines 11 0 R /PageMode /UseOutlines"
        b" /PageLabels << /Nums [0 << /S /r >> 1 << /S /D >>] >>"
        b" /MarkInfo << /Marked true >>"
        b" /StructTreeRoot << /Type /StructTreeRoot /IDTree << /Names [" + pairs + b"] >> >> >>",
        b"<< /Title (Form 10-Q for Example Corp) /Author (Example Corp) /Producer (folio test) >>",
        b"<< /Type /Pages /Kids [5 0 R 7 0 R 9 0 R] /Count 3 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    objs += page_objects()
    objs += [
        b"<< /Type /Outlines /First 12 0 R /Last 13 0 R /Count 2 >>",
        b"<< /Title (Part I Financial Information) /Parent 11 0 R /Next 13 0 R"
        b" /Dest [7 0 R /XYZ 72 760 0] >>",
        b"<< /Title (Part II Other Information) /Parent 11 0 R /Prev 12 0 R"
        b" /A << /S /GoTo /D [9 0 R /FitH 760] >> >>",
    ]
    return _pdf(objs)


@pytest.fixture(scope="module")
def filing(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("filing") / "2023 Q1 EXAMPLE.pdf"
    path.write_bytes(filing_pdf(PYPDF_ARRAY_LIMIT + 2))
    return path


def test_the_filing_trips_pypdfs_limit_and_pdfium_opens_it(filing: Path) -> None:
    import pypdf
    import pypdfium2
    from pypdf.errors import LimitReachedError

    with pytest.raises(LimitReachedError):
        len(pypdf.PdfReader(filing).pages)
    doc = pypdfium2.PdfDocument(filing)
    assert len(doc) == 3
    doc.close()


def test_a_pdf_pypdf_refuses_and_pdfium_opens_is_extracted_with_its_outline(
    filing: Path,
) -> None:
    doc = read_pdf(filing, workers=1)
    assert doc.info.backend == "pdfium"
    assert doc.heading_mode == "outline"
    assert [(e.level, e.title, e.page) for e in doc.outline] == [
        (1, "Part I Financial Information", 2),
        (1, "Part II Other Information", 3),
    ]
    assert [p.label for p in doc.pages] == ["i", "1", "2"]
    assert doc.info.extra["metadata_title"] == "Form 10-Q for Example Corp"
    assert doc.info.author == "Example Corp"
    assert doc.info.extra["producer"] == "folio test"
    assert doc.info.extra["encrypted"] is False
    for lines in PAGES:
        for line in lines[1:]:
            assert line in doc.text
    assert "# Part I Financial Information\n\nRevenue grew" in doc.text


def test_the_filing_is_chunked(filing: Path) -> None:
    config = pipeline.make_config()
    chunks = pipeline.chunk_file(filing, config)
    assert chunks and not check_chunks(extract_file(filing).text, chunks, config)
    assert any("Part II Other Information" in c.text for c in chunks)


def test_a_pypdf_failure_costs_only_its_text_layer(
    filing: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="folio.extract"):
        doc = read_pdf(filing, workers=1, layer="pypdf")
    assert doc.info.backend == "pdfium"  # pypdf's layer was asked for; PDFium's was used
    assert doc.heading_mode == "outline" and len(doc.outline) == 2
    warned = [r.getMessage() for r in caplog.records if "pypdf cannot read it" in r.getMessage()]
    assert len(warned) == 1
    assert str(filing) in warned[0] and "PDFium's text layer" in warned[0]
