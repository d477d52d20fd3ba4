"""Where the lexical index lives, how writers keep it current and how readers open it.

Layout: ``$FOLIO_HOME/lexical/<store>/v<FORMAT>/``, one tantivy index per store (the
embedded server, or the URLs of a remote one). Typesense is the source of truth:

- **Writers** (ingest, delete, prune, reindex: they hold the library lock) raise the
  store's generation (``index.generation``) and then ``sync``: the index's catalog is
  compared with the store's complete documents, the documents gone or changed are
  deleted, the new ones read back from one node (by ``export``, a few dozen documents
  per request; an ingest hands the rows its workers made of those it wrote instead,
  ``index.terms``) and added, and one commit publishes it all with the generation it
  reflects. The cost follows what changed, not the size of the library.
- **Readers** open the index from disk (memory-mapped by tantivy) and compare its
  generation with the store's, which they read with their question. Behind (a writer on
  another host, or one killed before its sync), they run the same ``sync``: it catches
  up by the difference, deletes included, since a document that is no longer complete
  in the store is no longer in the catalog they compare.
- **Damaged or missing** (unreadable files, rows that disagree with the catalog, an
  older format): the folder is moved aside and rebuilt once from the store, in a new
  folder renamed into place when done; a reader that finds another process rebuilding
  it gets ``None`` (the caller answers from Typesense's own ranking, with a note).

A local index lock (``$FOLIO_HOME/locks/<store>.lexical.lock``) orders the processes of
one machine that change the index; a reader never waits for it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from typesense.exceptions import ObjectNotFound

from ..errors import FolioError, LockBusy, StoreError
from ..shared.home import folio_home
from . import generation
from .lexical import (
    FORMAT,
    SNIPPET_FIELDS,
    DamagedIndex,
    DocInfo,
    LexicalIndex,
    LexicalWriter,
    UnwritableIndex,
)
from .lock import library_lock
from .records import DocumentRecord
from .schema import CHUNKS, DOCUMENTS
from .server import healthy_at
from .store import Store, quote
from .terms import Carried

log = logging.getLogger("folio.lexical")
_BATCH_DOCS = 40  # documents per export request (the filter travels in the URL)
_PAGE = 250  # Typesense's largest page
_DOC_FIELDS = "doc_id,title,path,format,snippets,config"
_STALE_S = 3600.0  # a build folder this old was left by a killed process


def root(store: Store) -> Path:
    """One folder per store: the embedded server, or the URLs of a remote one."""
    return folio_home() / "lexical" / store.identity()


def location(store: Store) -> Path:
    return root(store) / f"v{FORMAT}"


@dataclass(slots=True)
class _Open:
    inode: int
    index: LexicalIndex


_open: dict[Path, _Open] = {}
_guard = threading.Lock()


def _reader(path: Path) -> LexicalIndex:
    """The index at ``path``, kept open per process (reopened when a rebuild replaced
    the folder); ``DamagedIndex`` when it is missing or cannot be read."""
    try:
        inode = path.stat().st_ino
    except OSError as exc:
        raise DamagedIndex(f"no lexical index at {path}") from exc
    with _guard:
        held = _open.get(path)
        if held is not None and held.inode == inode:
            held.index.refresh()
            return held.index
        index = LexicalIndex(path)
        _open[path] = _Open(inode, index)
        return index


def current(store: Store, wanted: str | None = None) -> LexicalIndex | None:
    """The index for a reader, caught up with the store's generation ``wanted`` (read
    when not given). ``None`` when another process is rebuilding it right now."""
    path = location(store)
    wanted = generation.read(store) if wanted is None else wanted
    try:
        index: LexicalIndex | None = _reader(path)
    except DamagedIndex as exc:
        log.info("%s", exc)
        index = None
    if index is not None and index.meta.store_generation == wanted:
        return index
    if index is not None and not generation.settled(wanted) and _holds(store, index):
        return index  # a writer is at work, or was killed: its changes are not here yet
    try:
        with _index_lock(store, wait=0 if index is not None else 5.0):
            sync(store, wanted)
        return _reader(path)
    except LockBusy:
        return index  # being brought up to date by another process: answer from this one
    except (OSError, DamagedIndex, UnwritableIndex) as exc:
        # A state folder that cannot be written (a full disk, a read-only folder) costs
        # this reader its catch-up, never its answer.
        log.warning("lexical index not brought up to date: %s", exc)
        return index


def _holds(store: Store, index: LexicalIndex) -> bool:
    """The index's catalog is the store's complete documents: what a reader checks while
    the store's state cannot say it (a writer at work, or killed at work)."""
    want = complete_documents(_one_node(store))
    return {d.doc_id: d.key() for d in want} == {d.doc_id: d.key() for d in index.docs}


Change = tuple[DocInfo | None, DocInfo | None]  # a document's entry then and now (None: none)


@dataclass(frozen=True, slots=True)
class Known:
    """What a writer that keeps the store's records (``ingest.ledger``) knows of the
    complete documents: every one of them now (``now()``, made only when asked: an index
    of another state is compared with all of them), and, since the state ``then`` (empty:
    not known), the entries of those it touched (``changed``). An index of that state is
    brought up to date from ``changed`` alone: nothing is read back (from the store, from
    tantivy), nor are the documents it did not touch compared (7,600 of them, 40 ms)."""

    now: Callable[[], Sequence[DocInfo]]
    then: str = ""
    changed: Mapping[str, Change] = field(default_factory=dict)


def refresh(
    store: Store,
    finished: bool = True,
    known: Known | None = None,
    carried: Carried | None = None,
) -> str | None:
    """A writer's last step: raise the store's generation and bring the index up to date
    (the library lock is held); a long ingest's step on the way is not ``finished``;
    ``carried``: the rows its workers made of the documents it wrote (``index.terms``).
    Returns the state the index was brought to, None when it was not. The writes are in
    Typesense already, so a failure here is logged, never raised: the next reader
    catches up."""
    try:
        if store.alias_target(CHUNKS) is None:
            return None
        with _index_lock(store, wait=None):
            state = generation.advance(store, finished)
            sync(store, state, known, carried)
        return state
    except (OSError, ImportError, FolioError) as exc:
        log.warning("lexical index not brought up to date (the next query does it): %s", exc)
        return None


def rebuild(store: Store) -> LexicalIndex:
    """``folio reindex``: the index built again from the store, whatever it holds now
    (the library lock is held)."""
    with _index_lock(store, wait=None):
        _rebuild_into(store, location(store), generation.advance(store), damaged=False)
    return _reader(location(store))


@contextlib.contextmanager
def _index_lock(store: Store, wait: float | None) -> Iterator[None]:
    path = folio_home() / "locks" / f"{store.identity()}.lexical.lock"
    with library_lock(path, wait=wait, what="lexical index update"):
        yield


def sync(
    store: Store, wanted: str, known: Known | None = None, carried: Carried | None = None
) -> None:
    """Make the index hold the store's complete documents (as ``known`` says, else read
    from the store; the caller holds the index lock), with the rows ``carried`` for
    those it has. A damaged or missing index is built again in a new folder."""
    path = location(store)
    node = _one_node(store)  # records and snippets from one node, so they agree
    try:
        writer = LexicalWriter(path) if (path / "meta.json").is_file() else None
        if writer is not None:
            if known is not None and known.then == writer.meta.store_generation != "":
                # It reflects the state whose catalog the writer knows: that catalog is
                # what it holds (a reader checks its rows as it opens it).
                changes = _changes(known.changed)
            else:
                now = complete_documents(node) if known is None else known.now()
                changes = _differences(writer.docs(), now)
    except (DamagedIndex, ValueError) as exc:
        log.warning("lexical index set aside and rebuilt: %s", exc)
        writer = None
    if writer is None:
        _rebuild_into(node, path, wanted, carried=carried)
        return
    try:
        _apply(node, writer, *changes, wanted, carried)
    finally:
        writer.close()


def _rebuild_into(
    store: Store, path: Path, wanted: str, damaged: bool = True, carried: Carried | None = None
) -> None:
    """Build the index in a new folder, then rename it into place: readers see the old
    index or the new one, never half of one."""
    node = _one_node(store)
    base = path.parent
    base.mkdir(parents=True, exist_ok=True, mode=0o700)
    _sweep(base)
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=base))
    started = time.perf_counter()
    try:
        writer = LexicalWriter(tmp, create=True)
        try:
            _apply(node, writer, *_differences((), complete_documents(node)), wanted, carried)
        finally:
            writer.close()
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _set_aside(path, damaged)
    os.rename(tmp, path)
    log.info("lexical index built in %.1fs at %s", time.perf_counter() - started, path)


def _set_aside(path: Path, damaged: bool) -> None:
    """Move the old index out of the way: a damaged one is kept (the one before it is
    dropped) for whoever wants to look at it, a sound one goes."""
    if not path.exists():
        return
    aside = path.with_name(f"{path.name}.damaged" if damaged else f".old-{os.getpid()}")
    shutil.rmtree(aside, ignore_errors=True)
    os.rename(path, aside)
    if not damaged:
        shutil.rmtree(aside, ignore_errors=True)


def _sweep(base: Path) -> None:
    now = time.time()
    for entry in base.iterdir():
        with contextlib.suppress(OSError):
            stale = entry.name.startswith(".tmp-") and now - entry.stat().st_mtime > _STALE_S
            old = (
                entry.name.startswith("v") and entry.name != f"v{FORMAT}" and "." not in entry.name
            )
            legacy = len(entry.name) == 32 and entry.is_dir()  # format 2: one per fingerprint
            if stale or old or legacy:
                shutil.rmtree(entry, ignore_errors=True)


def _differences(
    have: Iterable[DocInfo], want: Iterable[DocInfo]
) -> tuple[list[str], list[DocInfo]]:
    """What an index holding ``have`` removes (doc_ids) and adds to hold ``want``."""
    return _changes(paired(have, want))


def paired(have: Iterable[DocInfo], want: Iterable[DocInfo]) -> dict[str, Change]:
    """Each doc_id with its entry in ``have`` and in ``want``."""
    pairs: dict[str, Change] = {d.doc_id: (d, None) for d in have}
    for d in want:
        pairs[d.doc_id] = (pairs.get(d.doc_id, (None, None))[0], d)
    return pairs


def _changes(changed: Mapping[str, Change]) -> tuple[list[str], list[DocInfo]]:
    """The documents to remove and to add: those whose entry went or differs (``key``)."""
    moved = [(i, a, b) for i, (a, b) in changed.items() if not _same(a, b)]
    return [i for i, a, _ in moved if a is not None], [b for _, _, b in moved if b is not None]


def _apply(
    store: Store,
    writer: LexicalWriter,
    gone: list[str],
    new: list[DocInfo],
    wanted: str,
    carried: Carried | None = None,
) -> None:
    """Remove ``gone``, add ``new`` (their rows ``carried``, else their snippets read from
    ``store``, one node), commit as of ``wanted``."""
    for doc_id in gone:
        writer.remove(doc_id)
    short = _add(store, writer, new, carried)
    # While a writer is (or was killed) at work, the token cannot say what the store
    # holds: the index records none, so the next reader compares again.
    reflects = wanted if generation.settled(wanted) else ""
    if not (gone or new) and writer.meta.store_generation == reflects:
        return
    # A document whose snippets came back short is left out; the index then keeps its
    # old generation, so the next reader tries again.
    writer.commit(writer.meta.store_generation if short else reflects)
    if short:
        log.warning(
            "%d complete document(s) lack snippets in the store; left out of the lexical "
            "index for now",
            len(short),
        )


def _same(a: DocInfo | None, b: DocInfo | None) -> bool:
    """The index's rows of ``a`` are those of ``b`` (entries of one doc_id)."""
    return a is b or (a is not None and b is not None and a.key() == b.key())


def _add(
    store: Store, writer: LexicalWriter, docs: Sequence[DocInfo], carried: Carried | None
) -> list[str]:
    """Add each document: from the rows ``carried`` for it, else from its snippets read
    back when their count is right; returns the doc_ids left out."""
    short: list[str] = []
    rest: list[DocInfo] = []
    for doc in docs:
        rows = carried.take(doc) if carried is not None else None
        if rows is None:
            rest.append(doc)
        else:
            writer.add_rows(doc, rows)
    for start in range(0, len(rest), _BATCH_DOCS):
        batch = rest[start : start + _BATCH_DOCS]
        stored = _snippets(store, [d.doc_id for d in batch])
        for doc in batch:
            got = stored.get(doc.doc_id, [])
            if len(got) == doc.snippets:
                writer.add(doc, sorted(got, key=lambda r: int(r.get("chunk_index") or 0)))
            else:
                short.append(doc.doc_id)
    return short


def _one_node(store: Store) -> Store:
    """A client of one node only, the first that answers: one consistent read, not pages
    that round-robin over replicas ordering ties differently. A node that is down is
    passed over: always the first one, killed, cost a cluster's every ingest ~47 s of
    retries at its end and left the index behind."""
    if len(store.nodes) == 1:
        return store
    node = next((n for n in store.nodes if healthy_at(n.url(), timeout=2.0)), store.nodes[0])
    return Store(store.settings, nodes=(node,), api_key=store.api_key)


def _snippets(store: Store, doc_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """The stored snippets of ``doc_ids``, by document."""
    found: dict[str, dict[str, dict[str, Any]]] = {i: {} for i in doc_ids}
    ids = ",".join(quote(i) for i in doc_ids)
    try:
        rows: Sequence[Mapping[str, Any]] = store.export(
            CHUNKS, f"tier:=snippet && doc_id:[{ids}]", include=SNIPPET_FIELDS
        )
    except StoreError as exc:
        if "401" not in str(exc):
            raise
        rows = [r for i in doc_ids for r in _search_pages(store, i)]  # a search-only key
    for row in rows:
        found.setdefault(str(row["doc_id"]), {})[str(row["id"])] = dict(row)
    return {i: list(r.values()) for i, r in found.items()}


def _search_pages(store: Store, doc_id: str) -> Iterator[dict[str, Any]]:
    """One document's snippets through search (what a search-only key may do), in chunk
    order (a unique sort within one document, so pages neither skip nor repeat)."""
    params = {
        "q": "*",
        "filter_by": f"tier:=snippet && doc_id:={quote(doc_id)}",
        "include_fields": SNIPPET_FIELDS,
        "sort_by": "chunk_index:asc",
        "per_page": _PAGE,
    }
    page = 1
    while True:
        res = store.search(CHUNKS, params | {"page": page})
        hits = res.get("hits", [])
        yield from (h["document"] for h in hits)
        if len(hits) < _PAGE:
            return
        page += 1


def complete_documents(store: Store) -> list[DocInfo]:
    """The store's complete documents, one per doc_id, sorted by it."""
    try:
        rows: Sequence[Mapping[str, Any]] = store.export(
            DOCUMENTS, "status:=complete", include=f"id,{_DOC_FIELDS}"
        )
    except StoreError as exc:
        if _missing(exc):
            return []  # nothing was ever ingested
        if "401" not in str(exc):
            raise
        rows = _records_by_search(store)
    return catalog_of(rows)


def catalog_of(rows: Iterable[Mapping[str, Any]]) -> list[DocInfo]:
    """The complete documents of these stored records (``status`` complete; all of them
    when the field is left out), one per doc_id, sorted by it."""
    done = (r for r in rows if r.get("status", "complete") == "complete")
    return _one_each((r.get("id") != r["doc_id"], DocInfo.of(r)) for r in done)


def catalog_of_records(records: Iterable[DocumentRecord]) -> list[DocInfo]:
    """``catalog_of`` the records typed."""
    return _one_each((r.is_copy, DocInfo.of_record(r)) for r in records if r.status == "complete")


def _one_each(docs: Iterable[tuple[bool, DocInfo]]) -> list[DocInfo]:
    """One document per doc_id, sorted by it: from the keeper's record (not a copy's: it
    names the file the chunks cite), else from the first path."""
    chosen: dict[str, tuple[bool, DocInfo]] = {}
    for copy, doc in docs:
        held = chosen.get(doc.doc_id)
        if held is None or (copy, doc.path) < (held[0], held[1].path):
            chosen[doc.doc_id] = (copy, doc)
    return [chosen[i][1] for i in sorted(chosen)]


def _missing(exc: StoreError) -> bool:
    return isinstance(exc.__cause__, ObjectNotFound) or "404" in str(exc)


def _records_by_search(store: Store, tries: int = 3) -> list[dict[str, Any]]:
    """Every complete record through search pages, read again when the pages did not add
    up (a cluster's nodes may order ties differently)."""
    params = {
        "q": "*",
        "filter_by": "status:=complete",
        "include_fields": f"id,{_DOC_FIELDS}",
        "per_page": _PAGE,
    }
    for _ in range(tries):
        rows: dict[str, dict[str, Any]] = {}
        page, total = 1, 0
        while True:
            res = store.search(DOCUMENTS, params | {"page": page})
            total = int(res.get("found", 0))
            hits = res.get("hits", [])
            rows.update({h["document"]["id"]: h["document"] for h in hits})
            if len(hits) < _PAGE:
                break
            page += 1
        if len(rows) == total:
            return list(rows.values())
    raise StoreError(f"the document records did not add up in {tries} reads")
