"""``scripts/check/check_pdfs.py``: each PDF extracted and chunked in a supervised worker, counted
ingested, empty or failed with its reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import load_script
from .test_extract_pdf_pypdf_limit import PYPDF_ARRAY_LIMIT, filing_pdf

FIXTURES = Path(__file__).parent / "fixtures" / "extract"
CHECK = load_script("check_pdfs")


def test_a_folder_of_pdfs_is_counted_per_outcome_and_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lib = tmp_path / "pdfs"
    (lib / "sub").mkdir(parents=True)
    (lib / "filing.pdf").write_bytes(filing_pdf(PYPDF_ARRAY_LIMIT + 2))
    (lib / "sub" / "outline.pdf").write_bytes((FIXTURES / "pdflatex-outline.pdf").read_bytes())
    (lib / "zero.pdf").write_bytes(b"")
    (lib / "junk.pdf").write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 20)
    (lib / "notes.txt").write_text("not a PDF: not looked at\n")
    assert CHECK.main([str(lib), "--workers", "1", "--json"]) == 1  # junk.pdf failed
    records = {
        Path(r["path"]).name: r for r in map(json.loads, capsys.readouterr().out.split("\n")[:-1])
    }
    assert set(records) == {"filing.pdf", "outline.pdf", "zero.pdf", "junk.pdf"}
    assert records["filing.pdf"]["outcome"] == "ingested" and records["filing.pdf"]["chunks"] > 0
    assert records["outline.pdf"]["reason"] == "pdfium text layer, outline headings"
    assert records["zero.pdf"]["outcome"] == "empty"
    junk = records["junk.pdf"]
    assert junk["outcome"] == "failed" and junk["reason"].startswith("CorruptFileError")
    assert "PDFium:" in junk["reason"] and "pypdf:" in junk["reason"]


def test_the_table_groups_one_kind_of_reason_in_one_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for i in range(2):
        (tmp_path / f"junk-{i}.pdf").write_bytes(b"%PDF-1.7\n" + bytes([i]) * 3000)
    listed = tmp_path / "list.txt"
    listed.write_text("".join(f"{tmp_path / f'junk-{i}.pdf'}\n" for i in range(2)))
    assert CHECK.main(["--from", str(listed), "--workers", "2", "--list"]) == 1
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| failed |")]
    assert len(rows) == 1 and rows[0].endswith("| 2 |"), out
    assert "2 PDFs: 0 ingested, 0 empty, 2 failed" in out
    assert f"failed: {tmp_path / 'junk-0.pdf'}: CorruptFileError" in out
