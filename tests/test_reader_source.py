"""`/source/<doc>` serves a document's file only while it is still the file that was
ingested: the same bytes, at the recorded place, not through a link out of the library;
otherwise 409 saying what changed. The reader's app on the real server."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from pipeline import IngestOptions, Library
from pipeline.index.store import Store
from pipeline.web.app import build_app

ROOT = Path(__file__).parent.parent
SECRET = "root:x:0:0:the secret outside the library\n"


@pytest.fixture()
def served(store: Store, tmp_path: Path) -> tuple[TestClient, Library, Path]:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "notes.md").write_text("# Notes\n\nLanterns and rivers.\n")
    shutil.copy(ROOT / "examples" / "library" / "tufte-sample-book.pdf", lib / "tufte.pdf")
    library = Library(store)
    assert not library.ingest([lib], options=IngestOptions(workers=1)).failed
    client = TestClient(build_app(library.read_only()), base_url="http://127.0.0.1")
    return client, library, lib


def doc_id(library: Library, name: str) -> str:
    return next(d.doc_id for d in library.documents() if d.path.endswith(name))


def test_an_unchanged_file_is_served_with_the_pages_headers(
    served: tuple[TestClient, Library, Path],
) -> None:
    client, library, lib = served
    for name, kind in (("notes.md", "text/plain; charset=utf-8"), ("tufte.pdf", "application/pdf")):
        answer = client.get(f"/source/{doc_id(library, name)}")
        assert answer.status_code == 200, answer.text
        assert answer.content == (lib / name).read_bytes()
        assert answer.headers["content-type"] == kind
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert "default-src 'none'" in answer.headers["content-security-policy"]


def test_a_symlink_out_of_the_library_is_not_followed(
    served: tuple[TestClient, Library, Path], tmp_path: Path
) -> None:
    client, library, lib = served
    notes = doc_id(library, "notes.md")
    secret = tmp_path / "outside" / "passwd"
    secret.parent.mkdir()
    secret.write_text(SECRET)
    (lib / "notes.md").unlink()
    (lib / "notes.md").symlink_to(secret)
    answer = client.get(f"/source/{notes}")
    assert answer.status_code == 409, answer.text
    assert "root:x" not in answer.text
    assert "is now a link to" in answer.text and str(secret) in answer.text
    assert answer.headers["content-security-policy"].startswith("default-src")


def test_a_link_on_the_way_is_refused_even_to_the_same_bytes(
    served: tuple[TestClient, Library, Path], tmp_path: Path
) -> None:
    client, library, lib = served
    pdf = doc_id(library, "tufte.pdf")
    elsewhere = tmp_path / "elsewhere"
    lib.rename(elsewhere)
    lib.symlink_to(elsewhere)  # the folder is a link now; the file's bytes are unchanged
    answer = client.get(f"/source/{pdf}")
    assert answer.status_code == 409, answer.text[:300]
    assert f"is now a link to {elsewhere / 'tufte.pdf'}" in answer.text


def test_a_rewritten_file_is_not_served(served: tuple[TestClient, Library, Path]) -> None:
    client, library, lib = served
    notes = doc_id(library, "notes.md")
    (lib / "notes.md").write_text(SECRET)
    answer = client.get(f"/source/{notes}")
    assert answer.status_code == 409, answer.text
    assert "root:x" not in answer.text
    assert "changed since it was ingested" in answer.text and "folio ingest" in answer.text
    (lib / "notes.md").unlink()
    assert client.get(f"/source/{notes}").status_code == 404
