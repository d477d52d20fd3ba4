"""Numeric tables (financial statements): rows read from their numbers, header and
caption kept, and every chunk of the table says which table it is."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

pytest.importorskip("pypdf")
fpdf = pytest.importorskip("fpdf")

from pipeline import chunk_document  # noqa: E402
from pipeline.chunk.invariants import check_chunks  # noqa: E402
from pipeline.extract.pdf import statements  # noqa: E402
from pipeline.extract.pdf.layout import Line  # noqa: E402
from pipeline.extract.pdf.reader import read_pdf  # noqa: E402
from pipeline.extract.pdf.statements import find_statements, read_row  # noqa: E402
from pipeline.shared.config import make_config  # noqa: E402

COLUMNS = (130.0, 160.0, 190.0)  # right edges (mm) of the three value columns
CAPTION = "Example Corp and Subsidiaries Consolidated Statement of Cash Flows"
HEADER = "| (Millions) | 2018 | 2017 | 2016 |"


def _values(pdf: object, y: float, values: tuple[str, ...], dollar: bool = False) -> None:
    for right, value in zip(COLUMNS, values, strict=True):
        if dollar:  # the sign sits at the column's left, apart from its number
            pdf.set_xy(right - 24, y)  # type: ignore[attr-defined]
            pdf.cell(4, 5, "$")  # type: ignore[attr-defined]
        pdf.set_xy(right - 20, y)  # type: ignore[attr-defined]
        pdf.cell(20, 5, value, align="R")  # type: ignore[attr-defined]


def _line(pdf: object, text: str, values: tuple[str, ...] = (), **kw: object) -> None:
    y = pdf.get_y()  # type: ignore[attr-defined]
    pdf.set_xy(20 + (4 if kw.get("indent") else 0), y)  # type: ignore[attr-defined]
    pdf.cell(0, 5, text)  # type: ignore[attr-defined]
    if values:
        _values(pdf, y, values, bool(kw.get("dollar")))
    pdf.set_xy(20, y + 5)  # type: ignore[attr-defined]


def _statement(path: Path, extra_rows: int = 0) -> Path:
    pdf = fpdf.FPDF(format="A4")
    pdf.set_title("Example Corp annual report")
    pdf.add_page()
    pdf.set_font("Helvetica", "", 10)
    pdf.multi_cell(0, 5, "The statement below is part of the annual report. " * 3)
    pdf.ln(6)
    pdf.set_font("Helvetica", "B", 9)
    for title in ("Example Corp and Subsidiaries", "Consolidated Statement of Cash Flows"):
        _line(pdf, title)
    pdf.ln(3)
    y = pdf.get_y()
    pdf.set_xy(20, y)
    pdf.cell(30, 5, "(Millions)")
    _values(pdf, y, ("2018", "2017", "2016"))
    pdf.set_xy(20, y + 5)
    pdf.set_font("Helvetica", "", 9)
    _line(pdf, "Cash Flows from Operating Activities")
    _line(pdf, "Net income", ("5,363", "4,869", "5,058"), dollar=True)
    _line(pdf, "Adjustments to reconcile net income to net cash", indent=True)
    _line(pdf, "provided by operating activities", indent=True)
    _line(pdf, "Depreciation and amortization", ("1,488", "1,544", "1,474"), indent=True)
    _line(pdf, "Gain on sale of businesses", ("(545)", "(586)", "(111)"), indent=True)
    _line(pdf, "Pension settlement", ("-", "(12)", "7"), indent=True)
    _line(pdf, "Cash Flows from Investing Activities")
    _line(pdf, "Purchases of property, plant and equipment", ("(1,577)", "(1,373)", "(1,420)"))
    for k in range(extra_rows):
        _line(pdf, f"Other investing item {k}", (f"{k},1{k % 10}0", f"({k}2)", f"{k}3"))
    _line(
        pdf, "Cash and cash equivalents at end of period", ("2,853", "3,053", "2,398"), dollar=True
    )
    pdf.ln(6)
    pdf.set_font("Helvetica", "", 10)
    pdf.multi_cell(0, 5, "The accompanying notes are an integral part of this statement.")
    path.write_bytes(bytes(pdf.output()))
    return path


def _table(text: str) -> list[str]:
    m = re.search(r"(?:^\|.*\|\n?){3,}", text, re.M)
    assert m, text
    return m.group(0).strip().split("\n")


def test_statement_becomes_a_table_with_its_header_and_caption(tmp_path: Path) -> None:
    text = read_pdf(_statement(tmp_path / "s.pdf"), workers=1).text
    assert f"{CAPTION}\n\n{HEADER}\n" in text  # the caption is a paragraph of its own
    rows = _table(text)
    assert rows[0] == HEADER
    assert rows[2:] == [
        "| Cash Flows from Operating Activities |  |  |  |",
        "| Net income | $5,363 | $4,869 | $5,058 |",
        "| Adjustments to reconcile net income to net cash provided by operating activities"
        " |  |  |  |",
        "| Depreciation and amortization | 1,488 | 1,544 | 1,474 |",
        "| Gain on sale of businesses | (545) | (586) | (111) |",
        "| Pension settlement | - | (12) | 7 |",
        "| Cash Flows from Investing Activities |  |  |  |",
        "| Purchases of property, plant and equipment | (1,577) | (1,373) | (1,420) |",
        "| Cash and cash equivalents at end of period | $2,853 | $3,053 | $2,398 |",
    ]
    assert "|\n\nThe accompanying notes" in text


def test_every_chunk_of_a_split_statement_names_the_table(tmp_path: Path) -> None:
    doc = read_pdf(_statement(tmp_path / "s.pdf", extra_rows=25), workers=1)
    config = make_config({"preset": "medium", "overlap": "none"})
    chunks = chunk_document(doc, config)
    assert not check_chunks(doc.text, chunks, config)
    parts = [c for c in chunks if c.tier == "snippet" and c.contains_table]
    assert len(parts) >= 2
    label = f"[TABLE: {CAPTION} — (Millions) | 2018 | 2017 | 2016]"
    for c in parts:
        assert label in c.retrieval_text
        assert c.table_headers == ("(Millions)", "2018", "2017", "2016")
        body = c.text.split("\n")
        assert body[body.index(HEADER) + 2 :]  # rows follow the repeated header
        assert all(ln.count(" | ") == 3 for ln in body if ln.startswith("| "))


# --- unit level ---------------------------------------------------------------------------


def _ln(y: float, *cells: tuple[float, str], size: float = 8.0) -> Line:
    text = " ".join(t for _, t in cells)
    return Line(text, cells[0][0], y, size, False, False, cells if len(cells) > 1 else ())


def test_read_row_joins_signs_and_splits_values() -> None:
    row = read_row(
        _ln(
            700,
            (50, "Net income"),
            (340, "$"),
            (380, "5,363"),
            (414, "$"),
            (450, "4,869 $"),
            (520, "5,058"),
        )
    )
    assert row is not None and row.label == "Net income"
    assert [v.text for v in row.values] == ["$5,363", "$4,869", "$5,058"]
    pct = read_row(
        _ln(700, (50, "Total net revenue"), (180, "$ 12,517"), (280, "(6) %"), (330, "NM"))
    )
    assert pct is not None and [v.text for v in pct.values] == ["$12,517", "(6)%", "NM"]
    # values sharing the label's run are taken only when unmistakable
    peeled = read_row(_ln(700, (50, "Net earnings attributable $ 2,181.2 $"), (480, "1,786.2")))
    assert peeled is not None and peeled.label == "Net earnings attributable"
    assert [v.text for v in peeled.values] == ["$2,181.2", "$1,786.2"]
    notes = read_row(_ln(700, (50, "Notes due 2026")))
    assert notes is not None and notes.label == "Notes due 2026" and not notes.values
    assert (
        read_row(_ln(700, (50, "Title of each class"), (200, "Trading Symbol"), (400, "1"))) is None
    )


def test_group_headers_span_their_columns_and_short_rows_keep_their_place() -> None:
    xs = (200, 240, 280, 330, 370, 410)
    lines = [
        _ln(
            720,
            (50, "Three months ended March 31,"),
            (195, "Consumer Banking"),
            (325, "Investment Bank"),
        ),
        _ln(
            710,
            (50, "(in millions)"),
            *((x, t) for x, t in zip(xs, ["2021", "2020", "Change"] * 2, strict=True)),
        ),
        _ln(700, (50, "Net revenue"), *((x, "1,000") for x in xs)),
        _ln(690, (50, "Expense"), *((x, "(20)") for x in xs)),
        _ln(680, (50, "ROE"), (200, "5%"), (240, "4%"), (330, "7%"), (370, "6%")),
    ]
    (table,) = find_statements(lines).values()
    assert table.start == 0 and table.end == 5
    assert table.rows[0] == (
        "Three months ended March 31, (in millions)",
        "Consumer Banking 2021",
        "Consumer Banking 2020",
        "Consumer Banking Change",
        "Investment Bank 2021",
        "Investment Bank 2020",
        "Investment Bank Change",
    )
    assert table.rows[3] == ("ROE", "5%", "4%", "", "7%", "6%", "")


def test_numbers_in_prose_or_a_single_column_are_no_statement() -> None:
    prose = [
        _ln(700 - 10 * k, (50, f"In {2010 + k} the company sold 1,{k}00 units.")) for k in range(5)
    ]
    assert not find_statements(prose)
    listing = [_ln(700 - 10 * k, (50, f"Item {k}"), (300, f"{k},000")) for k in range(5)]
    assert not find_statements(listing)  # one column of numbers and no header


_ROW_TEXT = st.text(alphabet="aN/AM nm$€%,.()—-1 2\t", max_size=16)


@given(st.lists(_ROW_TEXT, max_size=4), st.booleans())
@example(["Total $"], False)  # a lone sign is peeled off the label
@example(["Total", "NM"], False)
def test_rows_of_lines_without_values_are_read_without_tokenizing(
    texts: list[str], mono: bool
) -> None:
    """The shortcut for lines where no word may be a value (``_may_hold_value``) reads the
    row every line would give read in full."""
    cells = tuple((50.0 + 100 * k, t) for k, t in enumerate(texts)) if len(texts) > 1 else ()
    line = Line(" ".join(texts), 50.0, 700.0, 10.0, False, mono, cells)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(statements, "_may_hold_value", lambda _text: True)
        full = read_row(line)
    assert read_row(line) == full
