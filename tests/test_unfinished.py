"""Chunks of a document whose ingest did not finish stay in the collection until a rerun
(a killed ingest leaves its record ``indexing``; a re-ingest that fails leaves the earlier
run's chunks under a ``failed`` record). No read shows them: not search, its facet counts,
a section by id, its neighbours, nor an outline; the Python API and `folio search` alike."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from pipeline import Library, make_config
from pipeline.errors import RetrievalError
from pipeline.index.records import DocumentRecord
from pipeline.index.schema import CHUNKS, DOCUMENTS
from pipeline.index.store import Store
from pipeline.ingest import (
    FileResult,
    Found,
    Indexer,
    IngestOptions,
    Job,
    Report,
    ingest,
    process_file,
)
from pipeline.ingest.catalog import Plan, copy_id
from pipeline.ingest.files import file_sha256
from pipeline.retrieve import Filters, get_section, neighbors, outline, search, show

ROOT = Path(__file__).parent.parent
CONFIG = make_config()
WORD = "lighthouse"  # in every document


def _write(path: Path, title: str) -> Path:
    parts = [f"# {title}\n"]
    for n in range(8):
        parts.append(
            f"## {title} part {n}\n\nThe {WORD} keeper of {title.lower()} wrote entry {n}. "
            + f"Waves and weather around the {WORD} are logged every night. " * 40
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(parts), encoding="utf-8")
    return path


@dataclass(frozen=True)
class Library3:
    complete: str  # doc_ids
    indexing: str
    failed: str


def _fail_all(todo: Sequence[Found], job: Job) -> Iterator[FileResult]:
    for work in todo:
        yield FileResult.failed(work, "extract", "timed out")


def _killed_mid_ingest(store: Store, path: Path) -> str:
    """What a kill -9 leaves: the record ``indexing``, some batches of chunks stored."""
    found = Found(str(path), file_sha256(path), path.stat().st_size)
    result = process_file(found, Job(CONFIG, "fingerprint"))
    work = Plan((found,), (), (), (), {}, frozenset({found.sha256}))
    indexer = Indexer(store, work, set(), Report(), "fingerprint", batch_size=4)
    indexer.add(result)  # full batches go out; the final flush never comes
    return found.sha256


@pytest.fixture()
def unfinished(store: Store, tmp_path: Path) -> Library3:
    library = Library(store)
    done = _write(tmp_path / "a" / "done.md", "Harbour")
    broken = _write(tmp_path / "b" / "broken.md", "Reef")
    library.ingest([done.parent, broken.parent], CONFIG, IngestOptions(workers=1))
    # Re-ingested with other settings, and this time the file failed: its record says
    # so, the chunks of the first run are still stored.
    small = make_config({"preset": "small"})
    report = ingest([str(broken.parent)], small, store, IngestOptions(workers=1), run=_fail_all)
    assert [f.path for f in report.failed] == [str(broken)]
    partial = _killed_mid_ingest(store, _write(tmp_path / "c" / "partial.md", "Cliff"))
    ids = Library3(file_sha256(done), partial, file_sha256(broken))
    statuses = {r["doc_id"]: r["status"] for r in store.export(DOCUMENTS)}
    assert statuses == {ids.complete: "complete", ids.indexing: "indexing", ids.failed: "failed"}
    for doc_id in (ids.indexing, ids.failed):
        assert store.count(CHUNKS, f"doc_id:={doc_id}") > 0  # there to be found
    return ids


def _chunk_ids(store: Store, doc_id: str, tier: str) -> list[str]:
    return sorted(str(d["id"]) for d in store.export(CHUNKS, f"doc_id:={doc_id} && tier:={tier}"))


def test_search_shows_no_chunk_of_an_unfinished_document(
    store: Store, unfinished: Library3
) -> None:
    result = search(store, WORD, per_page=100, facets=("doc_id", "doc_title", "tier"))
    assert {h.doc_id for h in result.hits} == {unfinished.complete}
    assert result.found == store.count(CHUNKS, f"doc_id:={unfinished.complete}")
    assert dict(result.facets["doc_id"]) == {unfinished.complete: result.found}
    assert [title for title, _ in result.facets["doc_title"]] == ["Harbour"]
    assert sum(n for _, n in result.facets["tier"]) == result.found
    assert result.filters == ""  # the hiding is not the caller's filter
    everything = Library(store).search("", per_page=100)
    assert {h.doc_id for h in everything.hits} == {unfinished.complete}
    for doc_id in (unfinished.indexing, unfinished.failed):
        assert search(store, WORD, Filters(doc=doc_id)).found == 0


def test_chunks_by_id_and_outlines_of_an_unfinished_document_are_not_shown(
    store: Store, unfinished: Library3
) -> None:
    for doc_id in (unfinished.indexing, unfinished.failed):
        sections = _chunk_ids(store, doc_id, "section")
        assert sections  # stored, to be asked for
        for chunk_id in sections + _chunk_ids(store, doc_id, "snippet"):
            assert show(store, chunk_id) is None
        for section in sections:
            assert get_section(store, section) is None
            with pytest.raises(RetrievalError):
                neighbors(store, section)
        assert outline(store, doc_id) == []
    # Every heading once; each names the section holding it, and every section is named.
    entries = outline(store, unfinished.complete)
    assert len(entries) == 9  # the title heading and its eight parts
    shown_sections = list(dict.fromkeys(e.id for e in entries))
    assert sorted(shown_sections) == _chunk_ids(store, unfinished.complete, "section")
    assert len(shown_sections) == 3 and get_section(store, shown_sections[1]) is not None
    shown = show(store, shown_sections[1])
    assert shown is not None and shown.previous is not None and shown.next is not None


def test_a_content_with_any_complete_record_is_shown(store: Store, unfinished: Library3) -> None:
    """Another file record of the same content (one per path) that is not complete does
    not hide it while one is."""
    keeper = next(
        DocumentRecord.from_store(r) for r in store.export(DOCUMENTS, f"id:={unfinished.complete}")
    )
    other = replace(keeper, id=copy_id("/elsewhere/done.md"), path="/elsewhere/done.md")
    assert not store.upsert(DOCUMENTS, [other.with_status("indexing").to_store()])
    assert {h.doc_id for h in search(store, WORD, per_page=100).hits} == {unfinished.complete}
    section = _chunk_ids(store, unfinished.complete, "section")[0]
    assert get_section(store, section) is not None and outline(store, unfinished.complete)


def test_folio_search_json_shows_no_unfinished_document(
    store: Store, unfinished: Library3, folio_env: Path
) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "pipeline", "search", WORD, "--per-page", "100", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert {h["doc_id"] for h in result["hits"]} == {unfinished.complete}
    assert result["found"] == store.count(CHUNKS, f"doc_id:={unfinished.complete}")
    assert [title for title, _ in result["facets"]["doc_title"]] == ["Harbour"]


def test_many_unfinished_documents_still_search(store: Store, unfinished: Library3) -> None:
    """Hundreds of failed files: their doc_ids do not fit a GET query string (Typesense
    refuses one over 4000 characters), and search still answers."""
    template = next(DocumentRecord.from_store(r) for r in store.export(DOCUMENTS))
    failed = [
        replace(template, id=f"{n:064x}", doc_id=f"{n:064x}", path=f"/gone/{n}.pdf",
                status="failed").to_store()
        for n in range(300)
    ]  # fmt: skip
    assert not store.upsert(DOCUMENTS, failed)
    result = search(store, WORD, per_page=100)
    assert {h.doc_id for h in result.hits} == {unfinished.complete}
