"""Every hostile file gives valid chunks or a typed error naming the file: never a crash,
a hang, unbounded memory or a silent empty result."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import pipeline
from pipeline.chunk.invariants import check_chunks
from pipeline.errors import ExtractionError
from pipeline.extract import extract_file
from pipeline.parse.blocks import parse_markdown

from ..helpers import TIMED
from . import generate
from .conftest import run_limited

pytestmark = TIMED

CONFIG = pipeline.make_config()

# What each case gives today: "chunks" or the error class. The suite's rule (chunks that
# satisfy the invariants, or an ExtractionError naming the file) holds for every case;
# this table pins the choice so a regression in either direction shows.
EXPECTED: dict[str, str] = {
    **{f"zero-byte{s}": "EmptyDocumentError" for s in generate.FORMATS},
    "one-byte.pdf": "UnsupportedFormatError",
    "one-byte.epub": "UnsupportedFormatError",
    **{f"one-byte{s}": "chunks" for s in (".md", ".mdx", ".markdown", ".txt")},
    **{f"pdf-truncated-{f}": "CorruptFileError" for f in (0.02, 0.3, 0.6, 0.95)},
    **{f"epub-truncated-{f}": "CorruptFileError" for f in (0.02, 0.3, 0.6, 0.95)},
    "pdf-broken-xref": "chunks",
    "pdf-cyclic-outline": "chunks",
    "pdf-1000-pages": "chunks",
    "pdf-5000-pages": "chunks",
    "pdf-no-text": "EmptyDocumentError",
    # PDFium believes a /Count under 2^20 (Folio's page-count check refuses one a file this
    # size cannot hold, and pypdf, which counts the tree, reads the three pages)
    "pdf-lying-count-1000000": "chunks",
    "pdf-lying-count-10": "chunks",  # three pages read, seven damaged ones skipped
    # the page-tree bombs: Folio's check (or PDFium) refuses the count, pypdf's limits the tree
    "pdf-page-tree-bomb-1m": "CorruptFileError",
    "pdf-page-tree-bomb-10g": "CorruptFileError",
    "pdf-huge-kids-200000": "CorruptFileError",
    "pdf-huge-kids-2000000": "CorruptFileError",
    "pdf-deep-page-tree-2000": "CorruptFileError",
    "pdf-deep-page-tree-100000": "CorruptFileError",
    "pdf-huge-array-2000000": "chunks",  # a long /Annots array: PDFium reads the page
    "pdf-cyclic-page-tree": "chunks",  # PDFium skips the loop and reads both pages
    **{f"pdf-encrypted-{a}-empty": "chunks" for a in ("RC4-128", "AES-128", "AES-256")},
    **{f"pdf-encrypted-{a}-secret": "EncryptedError" for a in ("RC4-128", "AES-128", "AES-256")},
    "epub-bomb-declared": "CorruptFileError",
    "epub-bomb-deflate-80mb": "CorruptFileError",
    "epub-bomb-deflate-600mb": "CorruptFileError",
    "epub-path-traversal": "chunks",
    "epub-missing-opf": "CorruptFileError",
    "epub-spine-some-missing": "chunks",
    "epub-spine-all-missing": "EmptyDocumentError",
    "epub-invalid-xhtml": "chunks",
    "epub-no-text": "EmptyDocumentError",
    "md-invalid-utf8": "EncodingError",
    "md-whitespace-only": "EmptyDocumentError",
}


def outcome(path: Path) -> tuple[str, str, list[str], float]:
    """(kind, detail, invariant problems, seconds) for one file; runs in a child."""
    t0 = time.perf_counter()
    try:
        doc = extract_file(path)
        chunks = pipeline.chunk_file(path, CONFIG)
    except ExtractionError as exc:
        return type(exc).__name__, str(exc), [], time.perf_counter() - t0
    except Exception as exc:  # the failure this suite exists to catch
        return "crash", f"{type(exc).__name__}: {exc}", [], time.perf_counter() - t0
    excluded: list[tuple[int, int]] = []
    if doc.markup == "markdown":
        blocks, _ = parse_markdown(doc.text)
        excluded = [(b.start, b.end) for b in blocks[:1] if b.kind == "frontmatter"]
    problems = check_chunks(doc.text, chunks, CONFIG, excluded=excluded)
    if not chunks:
        problems.append("silent empty result: no chunks and no error")
    return "chunks", f"{len(chunks)} chunks", problems, time.perf_counter() - t0


def _check(name: str, directory: Path) -> None:
    slow = name not in generate.cases()
    path = generate.cases(slow=slow)[name](directory)
    result = run_limited(outcome, path, 300.0 if slow else 60.0)  # type: ignore[arg-type]
    assert isinstance(result, tuple)
    if result[0] == "limit":
        pytest.fail(f"{name}: {result[2]} (stage {result[1]})")
    kind, detail, problems, seconds = result
    print(f"{name}: {kind} {detail} [{seconds:.2f} s]")
    assert kind != "crash", f"{name}: {detail}"
    if kind == "chunks":
        assert not problems, problems[:5]
    else:
        assert str(path) in detail, f"the error does not name the file: {detail}"
    expected = EXPECTED.get(name, "chunks")
    assert kind == expected, f"{name}: expected {expected}, got {kind}: {detail}"


@pytest.mark.parametrize("name", list(generate.cases()))
def test_hostile_file(name: str, hostile_dir: Path) -> None:
    _check(name, hostile_dir)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(generate.cases(slow=True)))
def test_hostile_file_full_size(name: str, hostile_dir: Path) -> None:
    _check(name, hostile_dir)


def test_odd_file_names(hostile_dir: Path) -> None:
    for path in generate.odd_names(hostile_dir):
        chunks = pipeline.chunk_file(path, CONFIG)
        assert chunks and all(c.source == str(path) for c in chunks)
        assert not check_chunks(extract_file(path).text, chunks, CONFIG)


def test_errors_name_odd_paths(hostile_dir: Path) -> None:
    path = hostile_dir / "bad\nname ü.pdf"
    path.write_bytes(b"%PDF-1.7\ngarbage")
    with pytest.raises(ExtractionError) as err:
        pipeline.chunk_file(path, CONFIG)
    assert str(path) in str(err.value)
