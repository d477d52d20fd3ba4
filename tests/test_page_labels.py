"""Citations print the printed page labels of their whole range: "printed 21–22" or
"printed iii–iv", one label for one page, nothing when the labels are the physical
numbers. The context text, `folio retrieve` and the web reader print them alike."""

from __future__ import annotations

import os
import re
import shutil

import pypdf
import pytest
from pypdf.constants import PageLabelStyle
from starlette.testclient import TestClient

from pipeline import Filters, IngestOptions, Library
from pipeline.index.store import Store
from pipeline.retrieve.context import Citation, PageMap, citation_text
from pipeline.web.app import build_app
from pipeline.web.pages import esc

from .helpers import ROOT, folio

TUFTE = ROOT / "examples" / "library" / "tufte-sample-book.pdf"


def _map(labels: list[str | None]) -> PageMap:
    """Pages 1, 2, … of 100 characters each, with these labels."""
    n = len(labels)
    return PageMap(tuple(range(1, n + 1)), tuple(range(0, 100 * n, 100)), tuple(labels))


def _cited(page_map: PageMap, a: int, b: int) -> str:
    pages = page_map.pages(a, b)
    assert pages is not None
    first, last, labels = pages
    return citation_text(Citation("d", "Doc", "/lib/doc.pdf", ("Doc",), first, last, a, b, labels))


@pytest.mark.parametrize(
    ("labels", "span", "printed"),
    [
        # labels equal to the physical numbers: nothing (it printed "p. 2–3 (printed 3)")
        (["1", "2", "3", "4"], (150, 250), "p. 2–3"),
        (["1", "2", "3", "4"], (110, 190), "p. 2"),
        # offset labels: the whole range, the first page's label included
        (["i", "ii", "1", "2"], (250, 350), "p. 3–4 (printed 1–2)"),
        (["x", "xi", "xii", "xiii"], (50, 350), "p. 1–4 (printed x–xiii)"),
        (["i", "ii", "1", "2"], (110, 190), "p. 2 (printed ii)"),
        # a label equal to the first page's number but not to its own page's
        (["3", "3", "3", "4"], (50, 150), "p. 1–2 (printed 3)"),
        (["i", "2", "3", "4"], (50, 150), "p. 1–2 (printed i–2)"),
        # an end without a label: no half range
        (["i", None, "1", "2"], (50, 150), "p. 1–2"),
        ([None, None, None, None], (50, 350), "p. 1–4"),
    ],
)
def test_printed_labels_of_a_range(
    labels: list[str | None], span: tuple[int, int], printed: str
) -> None:
    assert _cited(_map(labels), *span).endswith(f"doc.pdf, {printed}")


@pytest.fixture(scope="module")
def library(module_store: Store, tmp_path_factory: pytest.TempPathFactory) -> Library:
    """The Tufte sample book as it is (its labels are its page numbers), and a copy with
    its front matter numbered i–iv and its body from 1. Ingested once: the tests only
    read it."""
    store = module_store
    reader = pypdf.PdfReader(TUFTE)
    writer = pypdf.PdfWriter(clone_from=reader)
    writer.set_page_label(0, 3, style=PageLabelStyle.LOWERCASE_ROMAN, start=1)
    writer.set_page_label(4, len(reader.pages) - 1, style=PageLabelStyle.DECIMAL, start=1)
    lib = tmp_path_factory.mktemp("lib")
    writer.write(lib / "relabelled.pdf")
    shutil.copy(TUFTE, lib / "tufte.pdf")
    library = Library(store)
    assert not library.ingest([lib], options=IngestOptions(workers=1)).failed
    return library


QUESTION = "sidenotes margin figures tables"


@pytest.mark.parametrize("name", ["relabelled.pdf", "tufte.pdf"])
def test_retrieved_items_print_their_label_range(library: Library, name: str) -> None:
    doc = next(d for d in library.documents() if d.path.endswith(name))
    labels = pypdf.PdfReader(doc.path).page_labels
    items = library.retrieve(QUESTION, budget=3000, filters=Filters(doc=doc.doc_id)).items
    spanning = [i for i in items if i.citation.page_start != i.citation.page_end]
    assert spanning, [i.citation for i in items]
    for item in items:
        c = item.citation
        assert c.page_start is not None and c.page_end is not None
        first, last = labels[c.page_start - 1], labels[c.page_end - 1]
        if (first, last) == (str(c.page_start), str(c.page_end)):
            assert c.page_labels == () and "(printed" not in citation_text(c)
            continue
        assert c.page_labels == ((first,) if first == last else (first, last))
        shown = f"{first}–{last}" if first != last else first
        assert citation_text(c).endswith(f"(printed {shown})")
    # `folio retrieve` prints each item's header with the one citation_text
    run = folio(dict(os.environ), "retrieve", QUESTION, "--budget", "3000", "--doc", doc.doc_id)
    assert run.returncode == 0, run.stderr
    headers = [line for line in run.stdout.splitlines() if re.match(r"\[\d+\] ", line)]
    assert headers == [f"[{n}] {citation_text(i.citation)}" for n, i in enumerate(items, 1)]
    # the reader's section page cites a section as `show` does
    client = TestClient(build_app(library.read_only()), base_url="http://127.0.0.1")
    section = library.show(spanning[0].section_id)
    page = client.get(f"/section/{spanning[0].section_id}").text
    assert f"<code id='citation'>{esc(citation_text(section.citation))}</code>" in page
    assert ("(printed " in citation_text(section.citation)) == (name == "relabelled.pdf")
