"""The reader's pages over a real server (in process): documents cannot inject markup,
foreign Host names are refused, unknown ids are a 404 page."""

from __future__ import annotations

import re
from pathlib import Path

from starlette.testclient import TestClient

from pipeline import IngestOptions, Library
from pipeline.index.store import Store
from pipeline.web.app import build_app

HOSTILE = """---
title: "<img src=x onerror=alert(1)> Hostile"
---
# Attack <script>alert('h1')</script>

Some text about <script>alert('body')</script> zebras and
[a link](javascript:alert('link')) and <b onclick="x()">bold</b>.

| a <i>x</i> | b |
|---|---|
| <script>alert('cell')</script> | 2 |
"""


def test_document_markup_is_escaped(store: Store, tmp_path: Path) -> None:
    (tmp_path / "hostile.md").write_text(HOSTILE, encoding="utf-8")
    library = Library(store)
    assert not library.ingest([tmp_path], options=IngestOptions(workers=1)).failed
    client = TestClient(build_app(library.read_only()), base_url="http://127.0.0.1")
    page = client.get("/", params={"q": "zebras"})
    assert page.status_code == 200, page.text
    assert "hits for <q>zebras</q>" in page.text, page.text[page.text.find("<main>") :]
    section = library.search("zebras").hits[0]
    doc = library.documents()[0]
    bodies = [
        page.text,
        client.get(f"/section/{section.parent_id or section.id}").text,
        client.get("/documents").text,
        client.get(f"/documents/{doc.doc_id}").text,
    ]
    for body in bodies:
        assert "<script>alert" not in body and "<img src=x" not in body
        assert "href='javascript" not in body and 'href="javascript' not in body
        assert "<b onclick" not in body and "<i>x" not in body
    assert "&lt;script&gt;alert('body')&lt;/script&gt;" in bodies[1]
    assert page.headers["Content-Security-Policy"].startswith("default-src 'self'")


def test_host_check_and_missing_ids(store: Store, tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nalpha beta\n", encoding="utf-8")
    library = Library(store)
    library.ingest([tmp_path], options=IngestOptions(workers=1))
    app = build_app(library.read_only())
    assert TestClient(app, base_url="http://evil.example").get("/").status_code == 400
    client = TestClient(app, base_url="http://localhost")
    missing = client.get("/section/nope")
    assert missing.status_code == 404 and "no section or snippet with id nope" in missing.text
    assert client.get("/documents/ffff").status_code == 404
    assert "1 files, 1 sections, 1 snippets" in client.get("/").text


def test_a_card_names_a_short_document_once_and_no_empty_pages(
    store: Store, tmp_path: Path
) -> None:
    (tmp_path / "quokkas.md").write_text(
        "# Quokka notes\n\nQuokkas smile at the camera on Rottnest Island.\n", encoding="utf-8"
    )
    library = Library(store)
    assert not library.ingest([tmp_path], options=IngestOptions(workers=1)).failed
    client = TestClient(build_app(library.read_only()), base_url="http://127.0.0.1")
    page = client.get("/", params={"q": "quokkas"}).text
    cards = re.findall(r"<li class='result'>.*?</li>", page, re.S)
    assert cards, page
    for card in cards:  # the excerpt quotes the text, its heading too: not counted
        assert re.sub(r"<p class='excerpt'>.*?</p>", "", card).count("Quokka notes") == 1, card
    hit = library.search("quokkas").hits[0]
    section = client.get(f"/section/{hit.parent_id or hit.id}").text
    found = re.search(r"<p class='meta'>(.*?)</p>", section, re.S)
    assert found, section
    meta = re.sub(r"<[^>]+>", "", found[1])
    assert "· ·" not in meta and not meta.strip().startswith("·"), meta


def test_a_bad_filter_value_or_id_is_a_400_saying_why(store: Store, tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nalpha beta\n", encoding="utf-8")
    library = Library(store)
    library.ingest([tmp_path], options=IngestOptions(workers=1))
    client = TestClient(build_app(library.read_only()), base_url="http://127.0.0.1")
    for url, said in (
        ("/?q=alpha&tier=snipet", "did you mean &#x27;snippet&#x27;?"),
        ("/?q=alpha&hint=tabel", "did you mean &#x27;table&#x27;?"),
        ("/?q=alpha&format=docx", "unknown format"),
        ("/?q=alpha&doc=a%60b", "invalid"),
        ("/section/not%20an%20id", "invalid chunk id"),
    ):
        answer = client.get(url)
        assert answer.status_code == 400, (url, answer.status_code, answer.text[-400:])
        assert said in answer.text, (url, answer.text[-400:])
