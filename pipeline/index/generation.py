"""The library's generation: a counter in Typesense that every writer raises after it
changed which documents are complete, so that a reader learns whether its lexical index
is behind from two small searches sent with its question, not by reading every
document record. The counter travels with the number of complete records and the
newest of them, which move even when a writer was killed before raising it.

A writer also raises it, marked ``writing``, as soon as it holds the library lock
(``begin``), and clears the mark with its last raise (``advance``). A writer killed in
between leaves the mark, so readers know the store may hold what no token shows (a
settings change rewrites the same documents: counter, count and newest record all stay)
and compare their catalog with the store themselves (``settled``).

It lives in its own collection (``folio_meta``, one record, made with the others by
``Store.ensure_collections``), outside the versioned collections that ``reindex``
swaps; a search-only key reads it like any other search.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import StoreError
from .schema import DOCUMENTS, META
from .store import Store, found

_ID = "library"
_WRITING = "w"  # the counter's mark in a token while a writer is (or was killed) at work


def searches() -> list[dict[str, Any]]:
    """What a reader sends with its question (``multi_search``) to learn the state: the
    counter, and the number and newest of the complete records, which also move when a
    writer was killed before it raised the counter."""
    return [
        {"collection": META, "q": "*", "filter_by": f"id:={_ID}", "per_page": 1},
        {
            "collection": DOCUMENTS,
            "q": "*",
            "filter_by": "status:=complete",
            "sort_by": "ingested_at:desc",
            "include_fields": "id",
            "per_page": 1,
        },
    ]


def of(results: Sequence[dict[str, Any]]) -> str:
    """The store's state in ``searches()``'s answers, as one token."""
    counter, complete = results
    docs = found(counter)
    value = int(docs[0]["generation"]) if docs else 0
    mark = _WRITING if docs and docs[0].get("writing") else ""
    newest = found(complete)
    return f"{value}{mark}/{int(complete.get('found', 0))}/{newest[0]['id'] if newest else ''}"


def settled(token: str) -> bool:
    """No writer is at work on the store, nor was one killed at work: an index that
    reflects this token holds what the store holds."""
    return not token.split("/", 1)[0].endswith(_WRITING)


def counter(token: str) -> int:
    """The counter of a state token: how many times writers raised it."""
    return int(token.split("/", 1)[0].removesuffix(_WRITING))


def complete(token: str) -> int:
    """The number of complete document records a state token counted."""
    return int(token.split("/")[1])


def read(store: Store) -> str:
    """The store's state token (``of``); a library that no writer of this Folio has
    written yet has no counter, one never ingested has no records either."""
    probes = searches()
    try:
        return of(store.multi_search(probes))
    except StoreError:
        pass
    answers: list[dict[str, Any]] = []
    for probe in probes:
        try:
            answers.append(store.multi_search([probe])[0])
        except StoreError:
            answers.append({})
    return of(answers)


def begin(store: Store) -> str:
    """A writer's first step (under the library lock, before it writes anything): the
    counter raised and marked ``writing`` until its ``advance(finished=True)``. Returns
    the state before it: what this writer found (see ``ingest.ledger``)."""
    store.ensure_collections()
    before = read(store)
    advance(store, finished=False, state=before)
    return before


def advance(store: Store, finished: bool = True, state: str | None = None) -> str:
    """Raise the counter by one (a writer, under the library lock), marked ``writing``
    unless the writer is ``finished``; returns the state. ``state``: the state now, when
    the caller has just read it."""
    if state is None:
        store.ensure_collections()
        state = read(store)
    value = counter(state) + 1
    record = {"id": _ID, "generation": value, "writing": not finished}
    refused = store.upsert(META, [record])
    if refused:
        raise StoreError(f"generation not written: {refused[0].reason}")
    return read(store)
