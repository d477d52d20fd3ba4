"""A document's lexical terms made where it is chunked, carried to the lexical index's sync.

Stemming every snippet's body and lead (``lexical.snippet_terms``) was most of an
ingest's last step, the sync, which runs alone after the workers; an ingest worker makes
them instead, beside chunking and in parallel, from the text and title exactly as they
are stored (``shown``), and the sync takes them for the documents it adds. They are used
only for a document whose entry is the one they were made for (settings fingerprint,
snippet count, title) under the same term settings; any other document, and every
other writer (``folio reindex``, a reader catching up), makes its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..shared.pathtext import shown
from . import lexical
from .lexical import DocInfo

Terms = tuple[str, str]  # a snippet's body and lead terms, space-joined


@dataclass(frozen=True, slots=True)
class DocTerms:
    """The terms of a document's snippets, as ``(id, body, lead)``, with what they
    follow from besides the texts."""

    doc_id: str
    config: str  # the chunking settings fingerprint of the record they were made with
    title: str  # as stored
    settings: tuple[int, bool]  # ``lexical.terms_settings()`` when made
    snippets: tuple[tuple[str, str, str], ...]

    def fit(self, doc: DocInfo) -> bool:
        """Made for this catalog entry, under the term settings in force."""
        mine = (self.doc_id, self.config, self.title, len(self.snippets))
        entry = (doc.doc_id, doc.config, doc.title, doc.snippets)
        return mine == entry and self.settings == lexical.terms_settings()

    def by_id(self) -> dict[str, Terms]:
        return {i: (body, lead) for i, body, lead in self.snippets}


def made(doc_id: str, config: str, title: str, snippets: Iterable[tuple[str, str]]) -> DocTerms:
    """The terms of snippets given as ``(id, retrieval_text)``, of a document with this
    title: text and title taken as Typesense stores them (``as_utf8``), so the terms are
    those the sync would make from the stored rows."""
    stored_title = shown(title)
    return DocTerms(
        doc_id,
        config,
        stored_title,
        lexical.terms_settings(),
        tuple((i, *lexical.snippet_terms(shown(text), stored_title)) for i, text in snippets),
    )


class Carried:
    """The terms of a run's documents by doc_id, until a sync takes them (``take``
    drops them: memory holds only those not yet synced). Used on one thread."""

    def __init__(self) -> None:
        self._held: dict[str, DocTerms] = {}

    def __len__(self) -> int:
        return len(self._held)

    def keep(self, terms: DocTerms) -> None:
        self._held[terms.doc_id] = terms

    def take(self, doc: DocInfo) -> Mapping[str, Terms] | None:
        """The terms of ``doc``'s snippets by id, when those held fit its entry (else
        they stay: the entry may be an earlier run's, the store not yet written)."""
        held = self._held.get(doc.doc_id)
        if held is None or not held.fit(doc):
            return None
        del self._held[doc.doc_id]
        return held.by_id()
