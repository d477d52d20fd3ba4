"""EPUB content is only read: nothing is written outside a temp dir (nothing at all, in
fact), and no external resource is fetched or script run while extracting."""

from __future__ import annotations

import http.server
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import pipeline
from pipeline.extract import extract_file

from . import generate

_WATCH: list[tuple[str, Any]] | None = None  # events seen while a test watches
_HOOKED = False
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _WATCH is None:
        return
    if event == "open":
        path, mode, flags = [*args, None, None, None][:3]
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & _WRITE_FLAGS
        )
        if writing and "__pycache__" not in str(path):
            _WATCH.append((event, path))
    elif event.startswith(("socket.", "urllib.", "http.", "subprocess.", "os.exec")) or event in {
        "os.system",
        "os.rename",
        "os.symlink",
        "os.link",
        "os.mkdir",
        "shutil.copyfile",
        "shutil.unpack_archive",
    }:
        _WATCH.append((event, args[:2]))


@contextmanager
def watching() -> Iterator[list[tuple[str, Any]]]:
    """Audit events (writes, network, processes) raised inside the block."""
    global _WATCH, _HOOKED
    if not _HOOKED:
        sys.addaudithook(_audit)  # hooks cannot be removed: this one only acts when asked
        _HOOKED = True
    seen: list[tuple[str, Any]] = []
    _WATCH = seen
    try:
        yield seen
    finally:
        _WATCH = None


def _warm_up(d: Path) -> None:
    """Import everything EPUB extraction needs before watching (imports write .pyc)."""
    warm = d / "warm"
    warm.mkdir()
    extract_file(generate.epub_path_traversal(warm))


def test_epub_path_traversal_entries_are_never_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "a" / "b" / "c"
    work.mkdir(parents=True)
    _warm_up(tmp_path)
    path = generate.epub_path_traversal(work)
    before = {p for p in tmp_path.rglob("*")}
    monkeypatch.chdir(work)
    with watching() as seen:
        doc = extract_file(path)
        chunks = pipeline.chunk_file(path)
    assert chunks and "escaped!" not in doc.text
    assert seen == [], f"extraction wrote or connected: {seen}"
    assert {p for p in tmp_path.rglob("*")} == before
    marker = "folio-hostile-traversal"
    for parent in (work, *work.parents, Path("/tmp")):
        assert not list(parent.glob(f"{marker}*")), parent


class _Counting(http.server.BaseHTTPRequestHandler):
    hits: list[str] = []  # noqa: RUF012

    def do_GET(self) -> None:
        self.hits.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"<!ENTITY x 'FETCHED'>FETCHED")

    def log_message(self, *args: object) -> None:
        pass


def test_epub_html_is_never_executed_nor_fetched(tmp_path: Path) -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Counting)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        _warm_up(tmp_path)
        url = f"http://127.0.0.1:{server.server_address[1]}"
        path = generate.epub_external_resources(tmp_path, url)
        with watching() as seen:
            doc = extract_file(path)
            chunks = pipeline.chunk_file(path)
    finally:
        server.shutdown()
        server.server_close()
    assert _Counting.hits == [], f"external resources were fetched: {_Counting.hits}"
    assert seen == [], f"extraction wrote, connected or ran something: {seen}"
    assert chunks
    assert "FETCHED" not in doc.text
    assert "root:" not in doc.text  # the file:///etc/passwd entity was not expanded
    assert "SCRIPT-RAN" not in doc.text and "document.write" not in doc.text
    assert "remote picture" in doc.text  # alt text is kept; the image is not loaded
