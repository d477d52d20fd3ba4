"""The library's generation: a counter in Typesense that every writer raises after it
changed which documents are complete, so that a reader learns whether its lexical index
is behind from one small search, not by reading every document record.

It lives in its own collection (``folio_meta``, one record), outside the versioned
collections that ``reindex`` swaps; a search-only key reads it like any other search.
"""

from __future__ import annotations

from typing import Any

from ..errors import StoreError
from .schema import schema
from .store import Store, found

META = "folio_meta"
_ID = "library"


def ensure(store: Store) -> None:
    """Create the collection when it is missing (admin key)."""
    try:
        store.call(f"read {META}", lambda: store.client.collections[META].retrieve())
    except StoreError:
        try:
            store.call(f"create {META}", lambda: store.client.collections.create(schema(META)))
        except StoreError as exc:
            if "already exists" not in str(exc):
                raise


def search() -> dict[str, Any]:
    """The search that reads the generation (for ``multi_search`` beside others)."""
    return {"collection": META, "q": "*", "filter_by": f"id:={_ID}", "per_page": 1}


def of(result: dict[str, Any]) -> int:
    """The generation in ``search()``'s answer (0 before the first write)."""
    docs = found(result)
    return int(docs[0]["generation"]) if docs else 0


def read(store: Store) -> int:
    """The store's generation; 0 when no writer of this Folio has written yet."""
    try:
        return of(store.multi_search([search()])[0])
    except StoreError as exc:
        if "404" in str(exc) or "Not Found" in str(exc) or "not found" in str(exc):
            return 0
        raise


def advance(store: Store) -> int:
    """Raise the generation by one (a writer, under the library lock); returns it."""
    ensure(store)
    value = read(store) + 1
    refused = store.upsert(META, [{"id": _ID, "generation": value}])
    if refused:
        raise StoreError(f"generation not written: {refused[0].reason}")
    return value
