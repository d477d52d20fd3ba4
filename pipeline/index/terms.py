"""A document's lexical rows made where it is chunked, carried to the lexical index's sync.

Stemming every snippet's body and lead (``lexical.snippet_terms``) was most of an
ingest's last step, the sync, which runs alone after the workers, and reading the
snippets back from Typesense most of the rest. An ingest worker makes each snippet's row
instead (``lexical.SnippetRow``: its terms and the fields filters read), beside chunking
and in parallel, from the snippet as Typesense stores it (``ChunkRecord.to_store``), and
the sync adds them for the documents it adds, as it trusts the ledger's records
(``Known``) without reading them back. They are used only for a document whose catalog
entry is the one they were made for (settings fingerprint, snippet count, title) under
the same term settings: a document this run completed. Any other document, and every
other writer (``folio reindex``, a reader catching up), reads its snippets back.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..model import Chunk
from ..shared.pathtext import shown
from . import lexical
from .lexical import DocInfo, SnippetRow


@dataclass(frozen=True, slots=True)
class DocTerms:
    """The rows of a document's snippets, with what they follow from besides them."""

    doc_id: str
    config: str  # the chunking settings fingerprint of the record they were made with
    title: str  # as stored
    settings: tuple[int, bool]  # ``lexical.terms_settings()`` when made
    rows: tuple[SnippetRow, ...]

    def fit(self, doc: DocInfo) -> bool:
        """Made for this catalog entry, under the term settings in force."""
        mine = (self.doc_id, self.config, self.title, len(self.rows))
        entry = (doc.doc_id, doc.config, doc.title, doc.snippets)
        return mine == entry and self.settings == lexical.terms_settings()


def made(doc_id: str, config: str, title: str, snippets: Iterable[Chunk]) -> DocTerms:
    """The rows of a document's snippets (in order), its record made with ``config``
    and titled ``title``: text and title taken as Typesense stores them (``as_utf8``),
    so the rows are those the sync makes from the stored snippets."""
    stored_title = shown(title)
    rows = tuple(SnippetRow.of(_as_stored(c), stored_title) for c in snippets)
    return DocTerms(doc_id, config, stored_title, lexical.terms_settings(), rows)


def _as_stored(chunk: Chunk) -> dict[str, Any]:
    """The fields ``SnippetRow.of`` reads, as ``ChunkRecord.to_store`` writes them (a
    test holds the two together): unset ones left out, text made valid UTF-8."""
    stored: dict[str, Any] = {
        "id": chunk.id,
        "doc_id": chunk.doc_id,
        "parent_id": chunk.parent_id,
        "chunk_index": chunk.chunk_index,
        "content_hints": [shown(h) for h in chunk.content_hints],
        "contains_table": chunk.contains_table,
        "page_start": chunk.page_start,
        "page_end": chunk.page_end,
        "retrieval_text": shown(chunk.retrieval_text),
    }
    return {k: v for k, v in stored.items() if v is not None}


class Carried:
    """The rows of a run's documents by doc_id, until a sync takes them (``take`` drops
    them: memory holds only those not yet synced). Used on one thread."""

    def __init__(self) -> None:
        self._held: dict[str, DocTerms] = {}

    def __len__(self) -> int:
        return len(self._held)

    def keep(self, terms: DocTerms) -> None:
        self._held[terms.doc_id] = terms

    def take(self, doc: DocInfo) -> Sequence[SnippetRow] | None:
        """The rows of ``doc``'s snippets, when those held fit its entry (else they
        stay: the entry may be an earlier run's, the store not yet written)."""
        held = self._held.get(doc.doc_id)
        if held is None or not held.fit(doc):
            return None
        del self._held[doc.doc_id]
        return held.rows
