"""The lexical rows an ingest worker makes (``index.terms``) are exactly those the
lexical index's sync made from the stored snippets before, and the index an ingest
builds with them is the one ``folio reindex`` builds from the store."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pipeline import ingest as ingest_module
from pipeline import make_config
from pipeline.chunk.concepts import prefix_lead
from pipeline.index import lexical, side_index, terms
from pipeline.index.filters import Filters
from pipeline.index.lexical import DocInfo
from pipeline.index.schema import Encoded
from pipeline.index.store import Store
from pipeline.index.words import query_words, words
from pipeline.ingest import IngestOptions, ingest
from pipeline.ingest.catalog import Found
from pipeline.ingest.files import file_sha256
from pipeline.ingest.plan import config_fingerprint
from pipeline.ingest.process import Job, process_file

CONFIG = make_config()
FIXTURES = Path(__file__).parent / "fixtures"
DOCUMENTS = [
    FIXTURES / "extract" / "kaobook-minimal-report.pdf",
    FIXTURES / "extract" / "biblatex-symbol-pages.pdf",
    FIXTURES / "extract" / "childrens-literature.epub",
    FIXTURES / "golden" / "rust-ownership.md",
]


def library(at: Path) -> Path:
    """The real documents, and a markdown file without a heading whose name is not
    UTF-8: its title (from the name) is stored escaped, as the terms must take it."""
    at.mkdir()
    for doc in DOCUMENTS:
        shutil.copy(doc, at / doc.name)
    body = (FIXTURES / "golden" / "rust-ownership.md").read_text(encoding="utf-8")
    plain = "\n".join(line for line in body.splitlines() if not line.startswith("#"))
    (at / b"caf\xe9 ownership notes.md".decode("utf-8", "surrogateescape")).write_text(plain)
    return at


def made_before(snippet: dict[str, Any], title: str) -> tuple[str, str]:
    """The sync's terms as they were made before workers made them (the settings in
    force: the title in the body only, concepts kept), from the stored row."""
    assert (lexical.TITLE_TERMS, lexical.CONCEPT_TERMS) == (1, True)
    text = str(snippet["retrieval_text"])
    return " ".join(words(text)), " ".join(words(prefix_lead(text, title)))


def test_the_rows_a_worker_makes_are_those_the_sync_made(tmp_path: Path) -> None:
    job = Job(CONFIG, config_fingerprint(CONFIG))
    checked = 0
    for path in sorted(library(tmp_path / "lib").iterdir()):
        work = Found(str(path), file_sha256(path), path.stat().st_size)
        result = process_file(work, job)
        assert result.failure is None and result.record is not None and result.terms
        # the worker's encoded chunks (a run without vectors), as Typesense reads them
        chunks = [json.loads(c.line) for c in result.chunks if isinstance(c, Encoded)]
        assert len(chunks) == len(result.chunks)
        stored = [c for c in chunks if c["tier"] == "snippet"]
        doc = DocInfo.of(result.record.to_store())  # the catalog entry, as stored
        assert result.terms.fit(doc)
        rows = result.terms.rows
        assert [r.id for r in rows] == [s["id"] for s in stored]
        for row, snippet in zip(rows, stored, strict=True):
            assert (row.body, row.lead) == made_before(snippet, doc.title)
            caption = prefix_lead(str(snippet["retrieval_text"]), kinds=("TABLE",))
            assert row.caption == " ".join(words(caption))
            assert row == lexical.SnippetRow.of(snippet, doc.title)  # from the stored row
            made_row, read_row = lexical._row(row, doc.format), lexical._snippet_row(snippet, doc)
            assert made_row.to_dict() == read_row.to_dict()
        checked += len(stored)
    assert checked > 100


def test_rows_are_taken_only_for_the_entry_they_were_made_for(tmp_path: Path) -> None:
    job = Job(CONFIG, config_fingerprint(CONFIG))
    path = library(tmp_path / "lib") / "rust-ownership.md"
    result = process_file(Found(str(path), file_sha256(path), path.stat().st_size), job)
    assert result.record is not None and result.terms is not None
    doc = DocInfo.of(result.record.to_store())
    carried = terms.Carried()
    carried.keep(result.terms)
    for other in (
        replace(doc, title="Another title"),  # a copy's record
        replace(doc, snippets=doc.snippets + 1),
        replace(doc, config="other settings"),  # an earlier run's record
    ):
        assert carried.take(other) is None
    assert len(carried) == 1  # kept for the entry it fits
    assert carried.take(doc) == result.terms.rows
    assert len(carried) == 0


@pytest.mark.parametrize("on_the_way", [False, True])
def test_the_index_an_ingest_builds_is_the_one_reindex_builds(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, on_the_way: bool
) -> None:
    """The sync takes the rows the worker made and the index searches as the one
    made from the store alone; also when a long ingest syncs on the way (here after
    every file: the rows of documents not yet complete wait for a later sync)."""
    if on_the_way:
        monkeypatch.setattr(ingest_module, "SYNC_EVERY_S", 0.0)
    made: list[str] = []  # texts whose terms this process made
    real = lexical.snippet_terms

    def counted(text: str, title: str) -> tuple[str, str, str]:
        made.append(text)
        return real(text, title)

    monkeypatch.setattr(lexical, "snippet_terms", counted)
    # The worker is a process of its own (a time limit is set): what it makes is not
    # counted here.
    # Small batches: documents complete while later files are still being processed.
    options = IngestOptions(workers=1, batch_size=50 if on_the_way else 1000)
    assert options.limits.file_timeout is not None
    report = ingest([str(library(tmp_path / "lib"))], CONFIG, store, options)
    assert not report.failed and report.snippets > 100
    assert made == []  # the sync made none: it took the worker's
    queries = ["ownership borrow", "symbol page", "rabbit", "chapter table", "caf"]

    def ranked() -> list[list[tuple[str, float]]]:
        index = side_index.current(store)
        assert index is not None and len(index) == report.snippets
        out = []
        for q in queries:
            t = query_words(q)
            for body in (t, ["zzzq"]):  # body and lead, then the lead alone
                out.append([(m.id, m.score) for m in index.search(body, t, {}, Filters(), 30)])
        return out

    before = ranked()
    assert sum(map(len, before)) > 100
    side_index.rebuild(store)
    assert len(made) == report.snippets  # reindex made its own
    assert ranked() == before
