"""Which stored contents a reader may see. A document's record says ``indexing`` before its
chunks are written and ``complete`` once all are acknowledged, so a killed ingest leaves
chunks under an ``indexing`` record until a rerun, and a re-ingest that fails leaves the
earlier run's chunks under a ``failed`` one. Reads hide those chunks, as the ranking's side
index (only ``complete`` documents) does. A content has a record per file that holds it,
and is shown while any of them is ``complete``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .records import Status
from .schema import DOCUMENTS
from .store import Store, found, quote

HIDING: tuple[Status, ...] = ("indexing", "failed")
_PAGE = 250  # Typesense's largest page


def hidden_docs(store: Store) -> tuple[str, ...]:
    """The doc_ids no read shows, sorted: one query when every record is done (the usual
    case), a second when some are not."""
    flagged = _flagged(store)
    if not flagged:
        return ()
    complete = _facet_values(store.search(DOCUMENTS, _complete_among(flagged)), "doc_id")
    return tuple(d for d in flagged if d not in complete)


def excluding(hidden: Sequence[str]) -> str:
    """The chunks' ``filter_by`` clause that leaves ``hidden`` out (empty for none)."""
    return f"doc_id:!=[{','.join(quote(d) for d in hidden)}]" if hidden else ""


def status_search(doc_id: str) -> dict[str, Any]:
    """The search (for ``multi_search``) that reads the statuses of a content's records;
    ``hides`` reads its answer."""
    return {"collection": DOCUMENTS, **_statuses(doc_id)}


def _statuses(doc_id: str) -> dict[str, Any]:
    return {
        "q": "*",
        "filter_by": f"doc_id:={quote(doc_id)}",
        "facet_by": "status",
        "max_facet_values": 20,
        "per_page": 0,
    }


def hides(result: dict[str, Any]) -> bool:
    """Whether ``status_search``'s answer hides the content. One without records (chunks
    written behind Folio's back) is shown, as search shows it."""
    statuses = _facet_values(result, "status")
    return "complete" not in statuses and any(s in statuses for s in HIDING)


def is_hidden(store: Store, doc_id: str) -> bool:
    """Whether no read may show the chunks of ``doc_id``."""
    return hides(store.search(DOCUMENTS, _statuses(doc_id)))


def _flagged(store: Store) -> list[str]:
    """The doc_ids with a record that is not done, sorted (usually none)."""
    out: set[str] = set()
    page = 1
    while True:
        params = {
            "q": "*",
            "filter_by": f"status:=[{','.join(HIDING)}]",
            "include_fields": "doc_id",
            "per_page": _PAGE,
            "page": page,
        }
        res = store.search(DOCUMENTS, params)
        hits = found(res)
        out.update(str(h["doc_id"]) for h in hits)
        if len(hits) < _PAGE or page * _PAGE >= int(res.get("found", 0)):
            return sorted(out)
        page += 1


def _complete_among(doc_ids: Sequence[str]) -> dict[str, Any]:
    """Which of ``doc_ids`` have a complete record too (as facet values: every one is
    counted, however many records there are)."""
    return {
        "q": "*",
        "filter_by": f"status:=complete && doc_id:=[{','.join(quote(d) for d in doc_ids)}]",
        "facet_by": "doc_id",
        "max_facet_values": len(doc_ids),
        "per_page": 0,
    }


def _facet_values(result: dict[str, Any], field: str) -> set[str]:
    return {
        str(c["value"])
        for f in result.get("facet_counts", [])
        if f["field_name"] == field
        for c in f["counts"]
    }
