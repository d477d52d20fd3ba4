"""A stored content and the file records that point to it: when a file stops holding a
content (changed or gone), its record goes, and the content goes with the last file
that held it (see ``pipeline.ingest.catalog`` for the record layout)."""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import replace

from ..errors import StoreError
from ..shared.pathtext import stored
from .records import DocumentRecord
from .schema import CHUNKS, DOCUMENTS
from .store import Store, quote


def delete_document(store: Store, doc_id: str) -> int:
    """Delete a document's chunks and every record of it, under the library lock;
    returns the number of chunks removed."""
    with store.writing(what="delete"):
        return remove_document(store, doc_id)


def remove_document(store: Store, doc_id: str) -> int:
    """``delete_document`` for a caller that holds the library lock already."""
    removed = store.delete_where(CHUNKS, f"doc_id:={quote(doc_id)}")
    store.delete_where(DOCUMENTS, f"doc_id:={quote(doc_id)}")
    return removed


def read_records(store: Store, filter_by: str = "") -> list[DocumentRecord]:
    """Every file record (matching ``filter_by``), typed."""
    return [DocumentRecord.from_store(r) for r in store.export(DOCUMENTS, filter_by)]


def release(store: Store, record: DocumentRecord, held: Collection[str] = ()) -> None:
    """The file of ``record`` no longer holds its content. A copy's record just goes. The
    keeper's content stays when ``held`` says a file of this run holds it (that file's
    record replaces this one), else moves to a copy whose file is still there, else goes."""
    doc_id = record.doc_id
    if record.is_copy:
        store.delete(DOCUMENTS, record.id)
        return
    if doc_id in held:
        return
    for other in read_records(store, f"doc_id:={quote(doc_id)}"):
        if other.is_copy and os.path.exists(other.path):
            promote(store, record, other)
            return
    remove_document(store, doc_id)


def promote(store: Store, keeper: DocumentRecord, copy: DocumentRecord) -> None:
    """Make ``copy``'s file the keeper of the content: its chunks cite that file now."""
    path = copy.path
    # Raw chunk documents: the path goes in as records.as_utf8 would write it.
    chunks = store.export(CHUNKS, f"doc_id:={quote(keeper.doc_id)}")
    refused = store.upsert(CHUNKS, [c | {"source": stored(path)} for c in chunks])
    refused += store.upsert(DOCUMENTS, [replace(keeper, path=path).to_store()])
    if refused:
        raise StoreError(f"moving {keeper.doc_id} to {path}: {refused[0].reason}")
    store.delete(DOCUMENTS, copy.id)
