"""A stored content and the file records that point to it: when a file stops holding a
content (changed or gone), its record goes, and the content goes with the last file
that held it (see ``pipeline.ingest.catalog`` for the record layout)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace

from ..errors import StoreError
from ..shared.pathtext import gone, stored
from . import side_index
from .records import DONE, DocumentRecord
from .schema import CHUNKS, DOCUMENTS
from .store import Store, quote


def delete_document(store: Store, doc_id: str) -> int:
    """Delete a document's chunks and every record of it, under the library lock, and
    end as every writer does (the generation raised, the BM25 index brought up to date:
    else the ``writing`` mark stays and readers compare catalogs on every question);
    returns the number of chunks removed."""
    with store.writing(what="delete"):
        removed = remove_document(store, doc_id)
        side_index.refresh(store)
    return removed


def remove_document(store: Store, doc_id: str) -> int:
    """``delete_document`` for a caller that holds the library lock already. Its records
    stop being finished before its chunks go: a delete killed between the two used to
    leave a document ``complete`` with no chunks (listed, outlined and ranked), while
    an unfinished one is hidden from every read and the next delete or ingest ends it."""
    _unfinish(store, read_records(store, f"doc_id:={quote(doc_id)}"))
    removed = store.delete_where(CHUNKS, f"doc_id:={quote(doc_id)}")
    store.delete_where(DOCUMENTS, f"doc_id:={quote(doc_id)}")
    return removed


def _unfinish(store: Store, records: Collection[DocumentRecord]) -> None:
    done = [r.with_status("indexing").to_store() for r in records if r.status in DONE]
    refused = store.upsert(DOCUMENTS, done) if done else []
    if refused:
        raise StoreError(f"marking {done[0]['doc_id']} for deletion: {refused[0].reason}")


@dataclass(frozen=True, slots=True)
class Deletion:
    """What a delete removed: ``chunks``, and ``kept_by``, the files whose records still
    hold the content (a path named one copy of content other files hold too)."""

    chunks: int
    kept_by: tuple[str, ...] = ()


def delete_files(store: Store, doc_id: str, paths: Collection[str]) -> Deletion:
    """Forget the file records of content ``doc_id`` at ``paths`` (stored path text), for a
    caller holding the library lock. The content stays while another file's record holds
    it (that file becomes its keeper when the keeper's record goes, one still on disk
    first); with none left it goes, chunks and all."""
    records = read_records(store, f"doc_id:={quote(doc_id)}")
    rest = [r for r in records if stored(r.path) not in paths]
    if len(rest) == len(records) or not rest:
        return Deletion(remove_document(store, doc_id))
    keeper = next((r for r in records if not r.is_copy), None)
    for record in records:
        if record.is_copy and record not in rest:
            store.delete(DOCUMENTS, record.id)
    if keeper is not None and keeper not in rest:
        heir = sorted(rest, key=lambda r: gone(r.path))[0]
        promote(store, keeper, heir)
        rest = [replace(keeper, path=heir.path) if r is heir else r for r in rest]
    return Deletion(0, tuple(stored(r.path) for r in rest))


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
        if other.is_copy and not gone(other.path):
            promote(store, record, other)
            return
    remove_document(store, doc_id)


def promote(store: Store, keeper: DocumentRecord, copy: DocumentRecord) -> None:
    """Make ``copy``'s file the keeper of the content: its chunks cite that file now."""
    path = copy.path
    # Raw chunk documents: the path goes in as records.as_utf8 would write it.
    chunks = store.export(CHUNKS, f"doc_id:={quote(keeper.doc_id)}")
    refused = store.upsert(CHUNKS, [c | {"source": stored(path)} for c in chunks])
    # Only the path changes: the caller's record may lack the fields an ingest does not
    # read (``ingest.ledger.FIELDS``), which a whole record written back would drop.
    moved = replace(keeper, path=path).to_store()
    refused += store.upsert(DOCUMENTS, [{"id": keeper.id, "path": moved["path"]}], "update")
    if refused:
        raise StoreError(f"moving {keeper.doc_id} to {path}: {refused[0].reason}")
    store.delete(DOCUMENTS, copy.id)
