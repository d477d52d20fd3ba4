"""The agent ranking's lexical index: BM25 (``bm25s``) over the snippets of every complete
document, with collection-wide statistics.

Typesense stays the store; this index is derived from it and kept on disk beside it
(``$FOLIO_HOME/lexical/``). It is named by a fingerprint of the ``complete`` document
records, and every use compares that fingerprint with the store's records, so it can lag
behind the collection only until the next query: a write that changes the records (ingest,
delete, prune, a crash mid-ingest) makes the next query rebuild it. A document is indexed
only when the snippets read back number what its record says, so a document whose chunks
are missing is left out (and the index rebuilt again next time) rather than half indexed.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from typesense.exceptions import ObjectNotFound

from ..chunk.concepts import prefix_lead
from ..errors import StoreError
from .filters import Filters
from .schema import CHUNKS, DOCUMENTS
from .store import Store
from .words import words

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

log = logging.getLogger("folio.lexical")

HINTS = ("prose", "table", "code", "list", "quote", "mixed")
_FIELDS = (
    "id,doc_id,parent_id,chunk_index,retrieval_text,content_hints,contains_table,"
    "page_start,page_end"
)
_PAGE = 250  # Typesense's largest page
# The lead (a snippet's path and table caption) scored as a field of its own, added with
# this weight: measured with scripts/eval_retrieval.py, a question naming a statement
# ("balance sheet") finds the statement's snippets instead of prose that repeats the
# words (financebench-dev, right filing: evidence page in the top 4 snippets 47 -> 79%;
# chunking-eval unchanged).
LEAD_WEIGHT = 1.0
FORMAT = 2  # of the saved index; part of the fingerprint, so older ones are rebuilt


@dataclass(frozen=True, slots=True)
class DocInfo:
    doc_id: str
    title: str
    path: str
    format: str
    snippets: int
    config: str


@dataclass(frozen=True, slots=True)
class LibraryState:
    """What the store records as complete: the side index must hold exactly this."""

    docs: tuple[DocInfo, ...]
    stored: int  # snippets in the collection, of any document

    def fingerprint(self) -> str:
        # A document's snippets follow from its content hash and chunk settings, so the
        # records name the content exactly (a reindex copies it unchanged); the stored
        # count catches chunks written or deleted behind the records' back.
        keys = [[d.doc_id, d.config, d.snippets] for d in self.docs]
        blob = json.dumps([FORMAT, self.stored, keys], separators=(",", ":")).encode()
        return hashlib.sha256(blob).hexdigest()[:32]


_STATE = ("status:=complete", "doc_id,title,path,format,snippets,config")


def state_searches() -> list[dict[str, Any]]:
    """``library_state``'s queries, to send along with other searches."""
    return [
        {"collection": DOCUMENTS, **_params(*_STATE, page=1)},
        {"collection": CHUNKS, "q": "*", "filter_by": "tier:=snippet", "per_page": 0},
    ]


def library_state(store: Store, answers: list[dict[str, Any]] | None = None) -> LibraryState:
    """The complete documents, sorted by id, and the number of stored snippets (through
    search: a search-only key suffices); none when nothing was ever ingested.
    ``answers``: the answers to ``state_searches()`` when they were already sent."""
    docs: list[DocInfo] = []
    try:
        answers = answers or store.multi_search(state_searches())
        hits = list(_pages(store, DOCUMENTS, *_STATE, first=answers[0]))
    except StoreError as exc:
        if isinstance(exc.__cause__, ObjectNotFound) or "404" in str(exc):
            return LibraryState((), 0)
        raise
    for hit in hits:
        docs.append(
            DocInfo(
                hit["doc_id"],
                str(hit.get("title") or ""),
                str(hit.get("path") or ""),
                str(hit.get("format") or ""),
                int(hit.get("snippets") or 0),
                str(hit.get("config") or ""),
            )
        )
    docs.sort(key=lambda d: d.doc_id)
    return LibraryState(tuple(docs), int(answers[1].get("found", 0)))


def _params(filter_by: str, fields: str, page: int) -> dict[str, Any]:
    return {
        "q": "*",
        "filter_by": filter_by,
        "include_fields": fields,
        "per_page": _PAGE,
        "page": page,
    }


def _pages(
    store: Store, name: str, filter_by: str, fields: str, first: dict[str, Any] | None = None
) -> Iterator[dict[str, Any]]:
    page, seen = 1, 0
    while True:
        if page == 1 and first is not None:
            res = first
        else:
            res = store.search(name, _params(filter_by, fields, page))
        hits = res.get("hits", [])
        for h in hits:
            yield h["document"]
        seen += len(hits)
        if not hits or seen >= int(res.get("found", 0)):
            return
        page += 1


@dataclass(frozen=True, slots=True)
class LexicalIndex:
    """BM25 over snippets; row ``i`` is snippet ``ids[i]`` of document ``docs[doc[i]]``."""

    fingerprint: str
    docs: tuple[DocInfo, ...]
    ids: tuple[str, ...]
    parents: tuple[str, ...]  # each snippet's section id
    doc: NDArray[np.int32]
    hints: NDArray[np.uint8]  # bit per HINTS entry
    table: NDArray[np.bool_]
    page_start: NDArray[np.int32]  # -1: not paginated
    page_end: NDArray[np.int32]
    bm25: Any  # bm25s.BM25 over the retrieval texts
    lead: Any  # bm25s.BM25 over the leads (``prefix_lead``); None when no snippet has one

    def __len__(self) -> int:
        return len(self.ids)

    def rows(self) -> dict[str, int]:
        """Row of each snippet id (built once per index, not per query)."""
        return _rows(self.ids)

    def names(self) -> list[frozenset[str]]:
        """Each document's title and file-name terms (what a question names it by)."""
        return _names(self.docs)

    def scores(self, terms: list[str], lead_terms: list[str]) -> NDArray[np.float32]:
        """BM25 of every snippet for the (stemmed) query terms, plus the weighted BM25 of
        its lead for ``lead_terms``."""
        import numpy as np

        out: NDArray[np.float32] = np.zeros(len(self.ids), dtype=np.float32)
        for bm25, weight, asked in ((self.bm25, 1.0, terms), (self.lead, LEAD_WEIGHT, lead_terms)):
            known = [t for t in asked if self.ids and bm25 is not None and t in bm25.vocab_dict]
            if known:
                out += weight * np.asarray(bm25.get_scores(known), dtype=np.float32)
        return out

    def mask(self, filters: Filters) -> NDArray[np.bool_] | None:
        """Rows that pass ``filters`` (``None``: all of them)."""
        import numpy as np

        keep = np.ones(len(self.ids), dtype=bool)
        if filters.doc:
            rows = [i for i, d in enumerate(self.docs) if d.doc_id == filters.doc]
            keep &= np.isin(self.doc, rows)
        if filters.format:
            rows = [i for i, d in enumerate(self.docs) if d.format == filters.format]
            keep &= np.isin(self.doc, rows)
        for hint in filters.hints:
            bit = 1 << HINTS.index(hint) if hint in HINTS else 0
            keep &= (self.hints & bit) != 0
        if filters.has_table is not None:
            keep &= self.table == filters.has_table
        if filters.page_from is not None:
            keep &= self.page_end >= filters.page_from
        if filters.page_to is not None:
            keep &= (self.page_start >= 0) & (self.page_start <= filters.page_to)
        if filters.tier not in (None, "snippet"):
            keep[:] = False
        return None if bool(keep.all()) else keep


@lru_cache(maxsize=4)
def _rows(ids: tuple[str, ...]) -> dict[str, int]:
    return {i: n for n, i in enumerate(ids)}


@lru_cache(maxsize=4)
def _names(docs: tuple[DocInfo, ...]) -> list[frozenset[str]]:
    return [frozenset(words(f"{d.title} {_file_stem(d.path)}")) for d in docs]


def _file_stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[0].replace("_", " ").replace("-", " ")


def build(store: Store, state: LibraryState) -> LexicalIndex:
    """Read the snippets of the complete documents back from the store and index them."""
    import bm25s
    import numpy as np

    by_doc = {d.doc_id: d for d in state.docs}
    rows: dict[str, dict[str, Any]] = {}
    stored = _pages(store, CHUNKS, "tier:=snippet", _FIELDS) if by_doc else iter(())
    for hit in stored:
        if hit["doc_id"] in by_doc:
            rows[hit["id"]] = hit
    counts: dict[str, int] = {}
    for hit in rows.values():
        counts[hit["doc_id"]] = counts.get(hit["doc_id"], 0) + 1
    docs = tuple(d for d in state.docs if counts.get(d.doc_id, 0) == d.snippets)
    if len(docs) < len(state.docs):
        short = len(state.docs) - len(docs)
        log.warning("%d complete document(s) lack snippets in the store; left out", short)
    index_of = {d.doc_id: i for i, d in enumerate(docs)}
    kept = sorted(
        (h for h in rows.values() if h["doc_id"] in index_of),
        key=lambda h: (index_of[h["doc_id"]], int(h["chunk_index"])),
    )
    bm25 = bm25s.BM25()
    corpus = [words(h["retrieval_text"]) for h in kept]
    if kept:
        bm25.index(corpus, show_progress=False)
    leads = [words(prefix_lead(h["retrieval_text"])) for h in kept]
    lead = bm25s.BM25() if any(leads) else None
    if lead is not None:
        lead.index(leads, show_progress=False)

    def bits(h: dict[str, Any]) -> int:
        return sum(1 << HINTS.index(x) for x in h.get("content_hints", []) if x in HINTS)

    return LexicalIndex(
        fingerprint=LibraryState(docs, state.stored).fingerprint(),
        docs=docs,
        ids=tuple(h["id"] for h in kept),
        parents=tuple(str(h.get("parent_id") or "") for h in kept),
        doc=np.array([index_of[h["doc_id"]] for h in kept], dtype=np.int32),
        hints=np.array([bits(h) for h in kept], dtype=np.uint8),
        table=np.array([bool(h.get("contains_table")) for h in kept], dtype=bool),
        page_start=np.array([int(h.get("page_start", -1)) for h in kept], dtype=np.int32),
        page_end=np.array([int(h.get("page_end", -1)) for h in kept], dtype=np.int32),
        bm25=bm25,
        lead=lead,
    )
