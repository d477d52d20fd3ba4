"""The cyclic collector paused while a PDF is read, and as it was afterwards."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.extract.pdf import reader
from pipeline.extract.pdf.reader import read_pdf
from pipeline.shared.collector import collector_paused

DATA = Path(os.environ.get("FOLIO_DATA", "/work/shared"))
PDF = DATA / "corpus" / "pdf" / "kaobook-minimal-report.pdf"


@pytest.fixture(autouse=True)
def _collector_on() -> Iterator[None]:
    gc.enable()
    yield
    gc.enable()


def test_off_in_the_block_and_back_on_after() -> None:
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_back_on_after_an_error() -> None:
    with pytest.raises(ValueError), collector_paused():
        raise ValueError("bad page")
    assert gc.isenabled()


def test_left_off_when_it_was_off() -> None:
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


@pytest.mark.skipif(not PDF.exists(), reason="needs the corpus PDFs (FOLIO_DATA)")
def test_read_pdf_reads_with_it_off_and_turns_it_back_on(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    assemble = reader.assemble

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return assemble(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(reader, "assemble", spy)
    doc = read_pdf(PDF)
    assert doc.text.strip()
    assert seen == [False]
    assert gc.isenabled()
