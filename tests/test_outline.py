"""The outline of an indexed document lists its headings: each once, in document order, at
its depth, whatever chunks they fell into (a heading split over several sections, several
headings in one section, a heading with no text of its own). The Library, `folio outline
DOC`, the MCP tool and the web reader show the same list; it is the heading tree that
`folio outline FILE` shows for the file itself."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from pipeline import IngestOptions, Library
from pipeline.chunk.outline import document_outline
from pipeline.extract import extract_file
from pipeline.index.records import DocumentRecord
from pipeline.index.schema import DOCUMENTS
from pipeline.index.store import Store
from pipeline.web.app import build_app

from .helpers import ROOT, folio

TITLE = "Field Handbook"
# (level, title) of every heading, in order; the first repeats the title and folds into it.
HEADINGS = [
    (0, TITLE),
    (1, "1 Basics"),
    (2, "1.1 Small A"),
    (2, "1.2 Small B"),
    (1, "2 Details"),
    (2, "2.1 Parent"),  # no text of its own: 2.1.1 follows at once
    (3, "2.1.1 Child"),
    (3, "2.1.2 Second child"),
    (1, "3 End"),
]


def _prose(name: str, paragraphs: int) -> str:
    out = []
    for p in range(paragraphs):
        words = " ".join(f"{name.split()[0]}-{p}-{w} measure" for w in range(70))
        out.append(f"Paragraph {p} of {name} records {words}.")
    return "\n\n".join(out)


def handbook() -> str:
    body = {
        "1 Basics": _prose("basics", 14),  # several sections long
        "1.1 Small A": "A short note on the first small topic.",
        "1.2 Small B": "A short note on the second small topic.",
        "2 Details": "Details follow.",
        "2.1 Parent": "",
        "2.1.1 Child": _prose("child", 10),
        "2.1.2 Second child": _prose("second", 2),
        "3 End": "The last words.",
    }
    parts = [f"# {TITLE}"]
    for level, title in HEADINGS[1:]:
        parts.append("#" * (level + 1) + f" {title}")
        if body[title]:
            parts.append(body[title])
    return "\n\n".join(parts) + "\n"


@pytest.fixture()
def library(store: Store, folio_env: Path, tmp_path: Path) -> Library:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "handbook.md").write_text(handbook(), encoding="utf-8")
    shutil.copy(ROOT / "examples" / "library" / "tufte-sample-book.pdf", lib / "tufte.pdf")
    library = Library(store)
    assert not library.ingest([lib], options=IngestOptions(workers=1)).failed
    return library


def _doc(library: Library, name: str) -> Any:
    return next(d for d in library.documents() if d.path.endswith(name))


def test_every_heading_once_in_order_at_its_level(library: Library) -> None:
    doc = _doc(library, "handbook.md")
    entries = library.outline(doc.doc_id)
    assert [e.section_title for e in entries] == [title for _, title in HEADINGS]
    assert [(e.level, e.section_title) for e in entries] == HEADINGS
    crumbs = {e.section_title: e.breadcrumb for e in entries}
    assert crumbs["2.1.1 Child"] == (TITLE, "2 Details", "2.1 Parent", "2.1.1 Child")
    assert crumbs[TITLE] == (TITLE,)
    # The document exercises what chunk breadcrumbs alone get wrong.
    sections = _sections(library, doc.doc_id)
    assert sum(s.breadcrumb[-1] == "1 Basics" for s in sections) >= 2  # split
    ids = {e.section_title: e.id for e in entries}
    assert ids["1.1 Small A"] == ids["1.2 Small B"]  # two headings in one section
    assert "2.1 Parent" not in {s.section_title for s in sections}  # no text of its own
    # Each entry opens the section that holds its heading line.
    for e in entries[1:]:
        line = re.compile(rf"^#+ {re.escape(e.section_title)}$", re.M)
        assert line.search(library.show(e.id).chunk.text), e


def test_a_record_without_headings_shows_the_breadcrumb_paths_once(
    library: Library, store: Store
) -> None:
    """A record an older Folio wrote (no ``headings``) until the next ingest rewrites it:
    the heading paths its sections' breadcrumbs show, each once, in order."""
    doc = _doc(library, "handbook.md")
    (raw,) = store.export(DOCUMENTS, f"id:={doc.doc_id}")
    old = replace(DocumentRecord.from_store(raw), headings=None)
    assert not store.upsert(DOCUMENTS, [old.to_store()])
    entries = library.outline(doc.doc_id)
    paths = [e.breadcrumb for e in entries]
    assert len(set(paths)) == len(paths) and paths[0] == (TITLE,)
    assert [p for p in paths if len(p) == 2] == [(TITLE, "1 Basics"), (TITLE, "2 Details")]
    assert (TITLE, "2 Details", "2.1 Parent", "2.1.1 Child") in paths


def test_a_pdf_outline_is_its_heading_tree_with_pages(library: Library) -> None:
    doc = _doc(library, "tufte.pdf")
    entries = library.outline(doc.doc_id)
    tree = document_outline(extract_file(doc.path))
    heads = [e for e in entries if e.breadcrumb != (doc.title,) or e.section_title != doc.title]
    assert [(e.breadcrumb, e.page_start, e.page_end) for e in heads] == [
        (n.breadcrumb, n.page_start, n.page_end) for n in tree.headings
    ]
    assert len({e.breadcrumb for e in heads}) == len(heads)
    assert all(e.page_start is not None for e in entries)


def test_the_command_the_mcp_tool_and_the_reader_show_the_same_outline(
    library: Library,
) -> None:
    doc = _doc(library, "handbook.md")
    entries = library.outline(doc.doc_id)
    env = dict(os.environ)
    as_json = json.loads(folio(env, "outline", doc.doc_id[:10], "--json").stdout)
    assert as_json["headings"] == [
        json.loads(json.dumps({k: getattr(e, k) for k in e.__slots__})) for e in entries
    ]
    run = folio(env, "outline", doc.doc_id[:10])
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].endswith(f"({len(HEADINGS)} headings)")
    for line, e in zip(lines[1:], entries, strict=True):
        assert line.startswith(f"{e.id}  {'  ' * e.level}{e.section_title}"), line

    got = _mcp_outline(doc.doc_id[:8])
    assert [(h["level"], h["section_title"], h["id"]) for h in got["headings"]] == [
        (e.level, e.section_title, e.id) for e in entries
    ]

    client = TestClient(build_app(library.read_only()), base_url="http://127.0.0.1")
    page = client.get(f"/documents/{doc.doc_id}").text
    items = re.findall(r"<li class='depth-\d'><a href='/section/([^']+)'>([^<]+)</a>", page)
    assert items == [(e.id, e.section_title) for e in entries]


def _sections(library: Library, doc_id: str) -> list[Any]:
    hits = []
    entry = library.outline(doc_id)[0]
    shown = library.show(entry.id)
    hits.append(shown.chunk)
    while shown.next is not None:
        shown = library.show(shown.next.id)
        hits.append(shown.chunk)
    return hits


def _mcp_outline(doc: str) -> dict[str, Any]:
    from mcp.client import Client

    from pipeline.mcp.server import build_server

    async def run() -> dict[str, Any]:
        async with Client(build_server()) as client:
            result = await client.call_tool("get_outline", {"doc_id": doc})
            assert not result.is_error, result
            content: dict[str, Any] = result.structured_content or {}
            return content

    return asyncio.run(asyncio.wait_for(run(), 60))
