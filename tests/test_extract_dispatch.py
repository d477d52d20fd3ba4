"""Dispatch by magic bytes then suffix; marker backend resolution and adapter."""

from __future__ import annotations

import itertools
import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pipeline.errors import (
    CorruptFileError,
    EmptyDocumentError,
    ExtractionError,
    MarkerUnavailableError,
    UnsupportedFormatError,
)
from pipeline.extract.dispatch import extract_path, sniff
from pipeline.extract.pdf import marker
from pipeline.model import boilerplate_counts

FIXTURES = Path(__file__).parent / "fixtures" / "extract"


def test_sniff_kinds(tmp_path: Path) -> None:
    cases = {
        "a.pdf": (b"%PDF-1.4\n...", "pdf"),
        "b.png": (b"\x89PNG\r\n\x1a\n....", "binary"),
        "c.html": (b"<!DOCTYPE html><html><body>x</body></html>", "html"),
        "d.txt": (b"plain words\n", "text"),
        "e.bin": (b"\x00\x01\x02abc", "binary"),
        "f.txt": (b"", "empty"),
    }
    for name, (data, kind) in cases.items():
        p = tmp_path / name
        p.write_bytes(data)
        assert sniff(p)[0] == kind, name


def test_text_and_markdown_go_to_the_text_reader(tmp_path: Path) -> None:
    md = tmp_path / "a.md"
    md.write_bytes(b"\xef\xbb\xbf# Title\r\n\r\nBody\r\n")
    doc = extract_path(md)
    assert doc.text == "# Title\n\nBody\n" and doc.markup == "markdown"
    txt = tmp_path / "b.txt"
    txt.write_text("flat text\n")
    assert extract_path(txt).markup == "text"
    mdx = tmp_path / "c.mdx"
    mdx.write_text("import X from 'y'\n\n# Hi\n")
    assert extract_path(mdx).format == "mdx"


def test_pdf_named_txt_is_read_as_pdf(tmp_path: Path) -> None:
    p = tmp_path / "really-a-pdf.txt"
    p.write_bytes((FIXTURES / "pdflatex-outline.pdf").read_bytes())
    doc = extract_path(p)
    assert doc.format == "pdf" and doc.info.backend == "pdfium"
    assert doc.info.extra["backend_reason"].startswith(("auto", "requested"))


def test_epub_without_suffix_is_read_as_epub(tmp_path: Path) -> None:
    p = tmp_path / "book"
    p.write_bytes((FIXTURES / "childrens-literature.epub").read_bytes())
    assert extract_path(p).format == "epub"


def test_html_named_pdf_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "download.pdf"
    p.write_text("<!doctype html>\n<html><head><title>Login</title></head><body/></html>")
    with pytest.raises(UnsupportedFormatError) as err:
        extract_path(p)
    assert "HTML" in str(err.value) and err.value.path == str(p)


def test_other_refusals(tmp_path: Path) -> None:
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    with pytest.raises(EmptyDocumentError):
        extract_path(empty)
    junk = tmp_path / "junk.pdf"
    junk.write_bytes(b"\x00\x01\x02\x03garbage")
    with pytest.raises(CorruptFileError):
        extract_path(junk)
    zipped = tmp_path / "fake.epub"
    import zipfile

    with zipfile.ZipFile(zipped, "w") as zf:
        zf.writestr("hello.txt", "hi")
    with pytest.raises(CorruptFileError):
        extract_path(zipped)
    png = tmp_path / "pic.md"
    png.write_bytes(b"\x89PNG\r\n\x1a\n")
    with pytest.raises(UnsupportedFormatError):
        extract_path(png)
    odd = tmp_path / "notes.rtf"
    odd.write_text("{\\rtf1 hi}")
    with pytest.raises(UnsupportedFormatError):
        extract_path(odd)
    with pytest.raises(ExtractionError):
        extract_path(tmp_path / "missing.pdf")
    with pytest.raises(UnsupportedFormatError):
        extract_path(odd, pdf_backend="nope")


# --- marker ------------------------------------------------------------------------------


def test_marker_requested_but_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(marker, "marker_importable", lambda: False)
    with pytest.raises(MarkerUnavailableError) as err:
        marker.resolve_backend("marker", "x.pdf")
    assert "pip install 'folio-pipeline[marker]'" in str(err.value)
    assert marker.resolve_backend("auto") == ("pdfium", "auto: marker-pdf is not installed")


def test_marker_installed_without_models(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(marker, "marker_importable", lambda: True)
    monkeypatch.setattr(marker, "models_available", lambda: (False, "no models here"))
    with pytest.raises(MarkerUnavailableError):
        marker.resolve_backend("marker", "x.pdf")
    assert marker.resolve_backend("auto")[0] == "pdfium"
    monkeypatch.setattr(marker, "models_available", lambda: (True, "models in /m"))
    assert marker.resolve_backend("auto") == ("marker", "auto: marker installed, models in /m")


def test_auto_logs_choice(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    p = tmp_path / "x.pdf"
    p.write_bytes((FIXTURES / "pdflatex-outline.pdf").read_bytes())
    with caplog.at_level(logging.INFO, logger="folio.extract"):
        extract_path(p)
    assert any("PDF backend" in r.getMessage() for r in caplog.records)


SEP = "-" * 48
MARKER_MD = (
    f"\n\n{{0}}{SEP}\n\n# A Title\n\nIntro text on page one.\n\n1\n\n"
    f"{{1}}{SEP}\n\nRunning Head\n\n## Part Two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n2\n\n"
    f"{{2}}{SEP}\n\nRunning Head\n\n```\n3\n```\n\nMore text.\n\n3\n\n"
    f"{{3}}{SEP}\n\nRunning Head\n\nEnd.\n\n4\n\n{{4}}{SEP}\n\nRunning Head\n\nLast.\n\n5\n"
)


class FakeConverter:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, path: str) -> Any:
        self.calls.append(path)
        toc = [
            {"title": "A Title", "heading_level": 1, "page_id": 0, "polygon": []},
            {"title": "Part Two", "heading_level": 2, "page_id": 1, "polygon": []},
        ]
        return SimpleNamespace(markdown=MARKER_MD, metadata={"table_of_contents": toc}, images={})


def test_marker_adapter_pages_outline_boilerplate() -> None:
    conv = FakeConverter()
    doc = marker.read_pdf_marker(FIXTURES / "pdflatex-outline.pdf", converter=conv)
    assert conv.calls == [str(FIXTURES / "pdflatex-outline.pdf")]
    assert doc.markup == "markdown" and doc.info.backend == "marker"
    assert doc.text.startswith("# A Title\n\nIntro text on page one.")
    assert "Running Head" not in doc.text
    assert "```\n3\n```" in doc.text  # fenced code is never boilerplate
    assert not any(line.strip() in {"1", "2", "4", "5"} for line in doc.text.split("\n"))
    assert [(e.level, e.title, e.page) for e in doc.outline] == [
        (1, "A Title", 1),
        (2, "Part Two", 2),
    ]
    part = doc.outline[1]
    assert part.char_start is not None and doc.text[part.char_start :].startswith("## Part Two")
    pages = doc.pages
    assert len(pages) == 5 and pages[0].char_start == 0 and pages[-1].char_end == len(doc.text)
    assert all(a.char_end == b.char_start for a, b in itertools.pairwise(pages))
    assert "Part Two" in doc.text[pages[1].char_start : pages[1].char_end]
    assert boilerplate_counts(doc.info.boilerplate)["running_header"] == 4


def test_split_pages_without_markers() -> None:
    assert marker.split_pages("just text") == [(0, "just text")]
