"""PDF titles: identifier metadata titles are replaced by what the first page says."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

pytest.importorskip("pypdf")
fpdf = pytest.importorskip("fpdf")

from pipeline.extract.pdf.reader import read_pdf  # noqa: E402
from pipeline.extract.pdf.title import is_placeholder_title, readable_stem  # noqa: E402


@pytest.mark.parametrize(
    "title",
    [
        "",
        "   ",
        "0000764478-23-000006",  # SEC accession number
        "0001193125-19-184675",
        "Microsoft Word - F20_10K_VFinal_07.01.2020",
        "Microsoft PowerPoint - deck",
        "untitled",
        "Untitled-3",
        "Document1",
        "document",
        "report.docx",
        "annual report final.pdf",
        "F20_10K_VFinal",
        "123e4567-e89b-12d3-a456-426614174000",  # UUID
        "{3F2504E0-4F89-11D3-9A0C-0305E82C3301}",
        "9f86d081884c7d659a2feaa0c55ad015",  # hex digest
        "UNITED STATES SECURITIES AND EXCHANGE COMMISSION",
    ],
)
def test_identifiers_are_placeholders(title: str) -> None:
    assert is_placeholder_title(title)


def test_the_file_stem_itself_is_a_placeholder() -> None:
    assert is_placeholder_title("3M 2018 10K", stem="3M_2018_10K")
    assert not is_placeholder_title("3M 2018 10K", stem="other")


@pytest.mark.parametrize(
    "title",
    [
        "The biblatex Package",
        "Form 8-K for Foot Locker INC filed 05/19/2022",
        "10-K - 02/07/2019 - 3M Company",
        "1984",  # a number, but too short for a filing number
        "Operation T-REx",
        "Annual Report 2019",
        "CORP Q1 2021",
    ],
)
def test_names_are_kept(title: str) -> None:
    assert not is_placeholder_title(title, stem="some_file")


def test_readable_stem() -> None:
    assert readable_stem("3M_2018_10K") == "3M 2018 10K"
    assert readable_stem("AMCOR_2022_8K_dated-2022-07-01") == "AMCOR 2022 8K dated 2022-07-01"
    assert readable_stem("my-notes.final") == "my notes final"


def _write(path: Path, title: str | None, lines: Sequence[tuple[float, str, str]]) -> Path:
    pdf = fpdf.FPDF(format="Letter")
    if title is not None:
        pdf.set_title(title)
    pdf.add_page()
    for size, style, text in lines:
        pdf.set_font("Helvetica", style, size)
        pdf.cell(0, size * 0.6, text, new_x="LMARGIN", new_y="NEXT", align="C")
    pdf.add_page()
    pdf.set_font("Helvetica", "", 10)
    pdf.multi_cell(0, 5, "Body text of the second page, long enough to be body text. " * 6)
    path.write_bytes(bytes(pdf.output()))
    return path


COVER = [
    (14, "B", "UNITED STATES"),
    (14, "B", "SECURITIES AND EXCHANGE COMMISSION"),
    (10, "B", "Washington, D.C. 20549"),
    (14, "B", "FORM 10-K"),
    (8, "B", "ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT"),
    (8, "", "For the fiscal year ended January 28, 2023"),
    (8, "", "Commission file number 1-9595"),
    (12, "B", "BEST BUY CO., INC."),
    (8, "", "(Exact name of registrant as specified in its charter)"),
    (8, "", "Minnesota 41-0907483"),
    (8, "", "Indicate by check mark if the registrant is a well-known seasoned issuer."),
]


def test_filing_number_title_becomes_the_cover_registrant(tmp_path: Path) -> None:
    path = _write(tmp_path / "BESTBUY_2023_10K.pdf", "0000764478-23-000006", COVER)
    doc = read_pdf(path, workers=1)
    assert doc.title == "BEST BUY CO., INC. — Form 10-K FY2023"
    assert doc.info.extra["metadata_title"] == "0000764478-23-000006"


def test_cover_title_gets_the_file_stem_when_it_lacks_its_words(tmp_path: Path) -> None:
    path = _write(tmp_path / "BBY_2023_annual.pdf", "0000764478-23-000006", COVER)
    assert read_pdf(path, workers=1).title == (
        "BEST BUY CO., INC. — Form 10-K FY2023 — BBY 2023 annual"
    )


def test_a_code_title_that_does_not_name_the_registrant_is_replaced(tmp_path: Path) -> None:
    path = _write(tmp_path / "BESTBUY_2023_10K.pdf", "CORP Q4 2023", COVER)
    assert read_pdf(path, workers=1).title == "BEST BUY CO., INC. — Form 10-K FY2023"
    named = _write(tmp_path / "BESTBUY_2023_10K.pdf", "Best Buy annual report", COVER)
    assert read_pdf(named, workers=1).title == "Best Buy annual report"


def test_largest_lines_of_the_first_page_name_a_generic_document(tmp_path: Path) -> None:
    lines = [
        (9, "", "Table of Contents"),
        (24, "B", "Soil Moisture Survey"),
        (24, "B", "of the Upper Valley"),
        (12, "", "Field notes, spring season"),
        (10, "", "A short line of body text on the cover page."),
        (10, "", "Another short line of body text on the cover page."),
    ]
    path = _write(tmp_path / "soil_report.pdf", "Microsoft Word - draft3.docx", lines)
    title = "Soil Moisture Survey of the Upper Valley"
    assert read_pdf(path, workers=1).title == f"{title} — soil report"
    path = _write(tmp_path / "soil-survey.pdf", "Microsoft Word - draft3.docx", lines)
    assert read_pdf(path, workers=1).title == title  # the stem adds no word


def test_no_prominent_line_falls_back_to_the_readable_stem(tmp_path: Path) -> None:
    lines = [(10, "", "Plain text of the same size on every line of the page.")] * 4
    path = _write(tmp_path / "JOHNSON_JOHNSON_2023Q2_EARNINGS.pdf", "", lines)
    assert read_pdf(path, workers=1).title == "JOHNSON JOHNSON 2023Q2 EARNINGS"
