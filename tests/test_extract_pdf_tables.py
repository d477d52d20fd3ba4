"""PDF tables: clear column layouts become GFM pipe tables, everything else stays text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("pypdf")
fpdf = pytest.importorskip("fpdf")

from pipeline.extract.gfm import pipe_table  # noqa: E402
from pipeline.extract.pdf.layout import Line  # noqa: E402
from pipeline.extract.pdf.reader import read_pdf  # noqa: E402
from pipeline.extract.pdf.tables import find_tables  # noqa: E402

INTRO = (
    "Some paragraph text before the table that is long enough to wrap over more than one "
    "line of the page, so that the paragraph joiner has work to do."
)
ROWS = [
    ("Backend", "Pages", "Seconds", "Notes"),
    ("pypdf", "199", "4.1", "default"),
    ("marker", "199", "88.0", "GPU | CPU"),
    ("plain loop", "199", "3.2", "baseline"),
]


def _pdf(build: object) -> bytes:
    pdf = fpdf.FPDF(format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", "", 11)
    pdf.multi_cell(0, 5, INTRO, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    build(pdf)  # type: ignore[operator]
    pdf.ln(4)
    pdf.set_font("Helvetica", "", 11)
    pdf.multi_cell(0, 5, "After the table comes more text.", new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def _tables(text: str) -> list[list[str]]:
    return [m.group(0).strip().split("\n") for m in re.finditer(r"(?:^\|.*\|\n?){3,}", text, re.M)]


def _read(tmp_path: Path, data: bytes) -> str:
    path = tmp_path / "t.pdf"
    path.write_bytes(data)
    return read_pdf(path, workers=1).text


def test_fpdf2_table_becomes_a_pipe_table(tmp_path: Path) -> None:
    def build(pdf: object) -> None:
        with pdf.table(  # type: ignore[attr-defined]
            col_widths=(40, 25, 25, 50), text_align="LEFT", borders_layout="NONE"
        ) as table:
            for row in ROWS:
                r = table.row()
                for cell in row:
                    r.cell(cell)

    text = _read(tmp_path, _pdf(build))
    assert _tables(text) == [
        [
            "| Backend | Pages | Seconds | Notes |",
            "|---|---|---|---|",
            "| pypdf | 199 | 4.1 | default |",
            "| marker | 199 | 88.0 | GPU \\| CPU |",
            "| plain loop | 199 | 3.2 | baseline |",
        ]
    ]
    # the table is its own block between the paragraphs
    assert "do.\n\n| Backend" in text and "baseline |\n\nAfter the table" in text


def test_bordered_cells_become_a_table(tmp_path: Path) -> None:
    def build(pdf: object) -> None:
        pdf.set_font("Helvetica", "", 10)  # type: ignore[attr-defined]
        for row in ROWS:
            for cell in row:
                pdf.cell(40, 7, cell, border=1)  # type: ignore[attr-defined]
            pdf.ln(7)  # type: ignore[attr-defined]

    tables = _tables(_read(tmp_path, _pdf(build)))
    assert len(tables) == 1 and len(tables[0]) == len(ROWS) + 1
    assert tables[0][0] == "| Backend | Pages | Seconds | Notes |"


def test_two_rows_are_not_enough(tmp_path: Path) -> None:
    def build(pdf: object) -> None:
        for row in ROWS[:2]:
            for cell in row:
                pdf.cell(40, 7, cell)  # type: ignore[attr-defined]
            pdf.ln(7)  # type: ignore[attr-defined]

    text = _read(tmp_path, _pdf(build))
    assert not _tables(text)
    assert "Backend" in text and "default" in text


def test_prose_in_two_columns_is_not_a_table(tmp_path: Path) -> None:
    left = "The left column holds running prose that wraps over several lines of text. " * 3
    right = "The right column holds different prose, also wrapped over several lines. " * 3

    def build(pdf: object) -> None:
        y = pdf.get_y()  # type: ignore[attr-defined]
        pdf.set_xy(20, y)  # type: ignore[attr-defined]
        pdf.multi_cell(80, 5, left)  # type: ignore[attr-defined]
        pdf.set_xy(110, y)  # type: ignore[attr-defined]
        pdf.multi_cell(80, 5, right)  # type: ignore[attr-defined]

    assert not _tables(_read(tmp_path, _pdf(build)))


def test_wrapped_cell_row_is_never_cut(tmp_path: Path) -> None:
    rows = [
        *ROWS[:3],
        ("slow", "12", "1.0", "a long note that wraps onto a second line of its cell"),
    ]

    def build(pdf: object) -> None:
        with pdf.table(  # type: ignore[attr-defined]
            col_widths=(40, 25, 25, 30), text_align="LEFT", borders_layout="NONE"
        ) as table:
            for row in rows:
                r = table.row()
                for cell in row:
                    r.cell(cell)

    text = _read(tmp_path, _pdf(build))
    for table in _tables(text):
        assert all(line.count(" | ") == 3 for line in table if not line.startswith("|-"))
        assert "slow" not in "\n".join(table)  # the wrapped row stays text, whole
    assert "wraps onto" in text and "second line" in text


# --- unit level ---------------------------------------------------------------------------


def _row(y: float, *cells: tuple[float, str], size: float = 10.0) -> Line:
    text = " ".join(t for _, t in cells)
    return Line(text, cells[0][0], y, size, False, False, tuple(cells) if len(cells) > 1 else ())


def test_find_tables_columns_must_line_up() -> None:
    good = [
        _row(700, (50, "Name"), (150, "Size")),
        _row(686, (50, "alpha"), (150, "12")),
        _row(672, (50, "beta"), (152, "7")),
    ]
    found = find_tables(good)
    assert list(found) == [0] and found[0].rows[0] == ("Name", "Size")
    shifted = [*good[:2], _row(672, (50, "beta"), (90, "7"))]  # not in the Size band
    assert not find_tables(shifted)
    gap = [*good[:2], _row(600, (50, "beta"), (150, "7"))]  # far below: another block
    assert not find_tables(gap)
    split_token = [
        _row(700, (50, "Title page ("), (150, "3)")),
        _row(686, (50, "Contents ("), (150, "5)")),
        _row(672, (50, "Index ("), (150, "9)")),
    ]
    assert not find_tables(split_token)
    assert not find_tables(good, blocked={1})  # a heading line inside: no table


def test_pipe_table_pads_and_escapes() -> None:
    assert pipe_table([("a", "b|c"), ("1",)]) == "| a | b\\|c |\n|---|---|\n| 1 |  |"
