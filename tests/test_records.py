"""The typed records and the collection schemas describe the same fields."""

from __future__ import annotations

import dataclasses

import pytest

from pipeline import chunk_markdown
from pipeline.index.records import ChunkRecord, DocumentRecord
from pipeline.index.schema import CHUNKS, DOCUMENTS, schema


def schema_fields(name: str) -> set[str]:
    return {f["name"] for f in schema(name)["fields"]}


def test_document_record_fields_are_the_schema() -> None:
    fields = {f.name for f in dataclasses.fields(DocumentRecord)}
    assert fields - {"id"} == schema_fields(DOCUMENTS)


def test_chunk_record_fields_are_the_schema() -> None:
    (chunk, *_) = chunk_markdown("# A\n\n## B\n\n### C\n\nsome text\n")
    stored = set(chunk.to_dict()) | set(ChunkRecord.EXTRA)
    assert stored - {"id"} == schema_fields(CHUNKS)
    # every key a record writes is a schema field
    with_vector = dataclasses.replace(ChunkRecord.from_chunk(chunk, "markdown"), embedding=(0.5,))
    assert set(with_vector.to_store()) - {"id"} <= schema_fields(CHUNKS)


def test_chunk_record_round_trips_through_the_store_form() -> None:
    src = "---\ntitle: T\n---\n# A\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\ntext\n"
    for chunk in chunk_markdown(src):
        for record in (ChunkRecord.from_chunk(chunk, "md"), ChunkRecord(chunk, "md", (0.25,))):
            assert ChunkRecord.from_store(record.to_store()) == record


def test_document_record_round_trips_and_refuses_unknown_status() -> None:
    rec = DocumentRecord(
        id="h", doc_id="h", path="/a.md", title="A", format="md", bytes=3, sha256="h",
        status="complete", sections=1, snippets=2, pages=None,
    )  # fmt: skip
    stored = rec.to_store()
    assert "pages" not in stored  # optional fields are left out, not sent as null
    assert DocumentRecord.from_store(stored | {"from_a_newer_folio": 1}) == rec
    with pytest.raises(ValueError, match="unknown status 'done'"):
        DocumentRecord.from_store(stored | {"status": "done"})


def test_failed_record_keeps_a_known_stage_and_drops_an_unknown_one() -> None:
    rec = DocumentRecord(
        id="h", doc_id="h", path="/a.pdf", title="a.pdf", format="pdf", bytes=3, sha256="h",
        status="failed", error="timed out", stage="extract",
    )  # fmt: skip
    assert DocumentRecord.from_store(rec.to_store()) == rec
    other = DocumentRecord.from_store(rec.to_store() | {"stage": "ocr"})
    assert other.stage is None and other.error == "timed out"
