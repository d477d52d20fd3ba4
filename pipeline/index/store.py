"""The Typesense store: versioned collections behind aliases, batched upserts with
per-document results, bounded retries, deletes by document."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar
from urllib.parse import urlencode

import httpx
import typesense
from typesense.exceptions import (
    ObjectNotFound,
    RequestUnauthorized,
    ServerError,
    ServiceUnavailable,
    TypesenseClientError,
)

from ..errors import IncompleteImport, StoreError
from ..shared.home import folio_home
from ..shared.inputs import check_literal
from . import server
from .lock import library_lock
from .schema import (
    CHUNKS,
    DOCUMENTS,
    META,
    VECTOR_DROPPED,
    Encoded,
    encoded,
    schema,
    schema_with_width,
    vector_width,
)
from .settings import Node, ServerSettings, load_server_settings

log = logging.getLogger("folio.store")
T = TypeVar("T")
BATCH_SIZE = 1000
# Typesense refuses a GET whose query string is longer than 4000 characters; the margin
# is for what the client adds (it encodes some values its own way).
MAX_QUERY_STRING = 3500
ID_GROUP = 250  # doc ids per faceted count: one filter of ~17 KB
FINISHED = "status:=[complete,empty]"  # a file record whose document is stored
# Per doc_id: how many chunks, and how many finished file records, a node holds.
Holdings = tuple[dict[str, int], dict[str, int]]


TRANSIENT: tuple[type[BaseException], ...] = (
    httpx.HTTPError,
    ServerError,
    ServiceUnavailable,
    IncompleteImport,
)


@dataclass(frozen=True, slots=True)
class ImportFailure:
    id: str
    reason: str


class Store:
    """One Typesense server or cluster; collections are resolved through aliases."""

    def __init__(
        self,
        settings: ServerSettings,
        *,
        nodes: tuple[Node, ...] = (),
        api_key: str | None = None,
    ) -> None:
        """A client of ``nodes`` (by default the settings' own) with ``api_key``; nothing
        is started here: ``connect`` starts the embedded server."""
        self.settings = settings
        self._before: str | None = None  # the state before the writer at work (``writing``)
        nodes = nodes or settings.nodes
        key = api_key or settings.api_key
        if not nodes or not key:
            raise StoreError("no Typesense node or API key given (Store.connect starts one)")
        self._connect(nodes, key)

    @classmethod
    def connect(cls, settings: ServerSettings, *, api_key: str | None = None) -> Store:
        """The store ``settings`` name; the embedded server is started first when it is
        not running."""
        if not settings.embedded:
            return cls(settings, api_key=api_key)
        running = server.start()
        return cls(settings, nodes=(running.node,), api_key=api_key or running.api_key)

    def _connect(self, nodes: tuple[Node, ...], key: str) -> None:
        self.api_key = key
        self.nodes = nodes
        # Typed loosely: the client's TypedDicts describe newer servers than 0.24.
        self.client: Any = typesense.Client(
            {
                "nodes": [{"host": n.host, "port": n.port, "protocol": n.protocol} for n in nodes],
                "api_key": key,
                "connection_timeout_seconds": self.settings.timeout_seconds,
                "num_retries": self.settings.retries,
                "retry_interval_seconds": self.settings.retry_interval_seconds,
                "healthcheck_interval_seconds": 2,
            }
        )

    def use_key(self, key: str) -> None:
        """Talk with ``key`` from now on (a renewed scoped key)."""
        if key != self.api_key:
            self._connect(self.nodes, key)

    def _reconnect(self) -> None:
        """After a failed call to the embedded server: it may have been restarted on
        another port by another command, or be gone (then start it again). A full disk
        is said at once instead of being retried."""
        if not self.settings.embedded:
            return
        problem = server.disk_problem()
        if problem:
            raise StoreError(problem)
        running = server.start()
        if running.node != self.nodes[0]:
            log.info("the embedded server now answers on %s", running.node.url())
            self._connect((running.node,), self.api_key)

    def writable(self) -> None:
        """Refuse a write the embedded server cannot store: on a full disk Typesense
        neither fails nor finishes it (it answers 503 or nothing until timeouts pile up)."""
        problem = server.disk_problem() if self.settings.embedded else None
        if problem:
            raise StoreError(problem)

    @classmethod
    def open(cls, config_path: str | None = None) -> Store:
        return cls.connect(load_server_settings(config_path))

    def identity(self) -> str:
        """A short name for this store (the embedded server, or a remote one's URLs)
        that names the state Folio keeps beside it under ``$FOLIO_HOME``."""
        where = "embedded" if self.settings.embedded else ",".join(n.url() for n in self.nodes)
        return hashlib.sha256(where.encode()).hexdigest()[:16]

    @contextlib.contextmanager
    def writing(self, wait: float | None = None, what: str = "") -> Iterator[str]:
        """The library lock every writer holds (see ``lock``); ``what`` names the command
        to anyone who has to wait for it. A full disk is refused before the wait. Once
        held, the store's generation is marked ``writing`` before anything is written,
        so a writer killed before its last step leaves readers behind, not current.
        Yields the store's state (``generation.of``) as it was before this writer began;
        a ``writing`` nested in another of this store begins nothing and yields the
        outer one's."""
        from . import generation  # it imports this module

        if self._before is not None:
            yield self._before
            return
        self.writable()
        lock = folio_home() / "locks" / f"{self.identity()}.lock"
        with library_lock(lock, wait=wait, what=what):
            self._before = generation.begin(self)
            try:
                yield self._before
            finally:
                self._before = None

    # -- plumbing --------------------------------------------------------------------------
    def call(self, what: str, fn: Callable[[], T], attempts: int = 4) -> T:
        """Run a client call; transient failures (connection, timeout, 5xx, no leader)
        are retried with backoff, then reported without the API key. At most
        ``retries + 1`` attempts: a user who sets ``retries: 0`` is told at once."""
        attempts = max(1, min(attempts, self.settings.retries + 1))
        delay = 1.0
        for attempt in range(1, attempts + 1):
            try:
                return fn()
            except RequestUnauthorized as exc:
                raise StoreError(f"{what}: Typesense refused the API key (401)") from exc
            except TRANSIENT as exc:
                if attempt == attempts:
                    where = ", ".join(n.url() for n in self.nodes)
                    raise StoreError(
                        f"{what}: Typesense at {where} did not answer after {attempts} "
                        f"{'try' if attempts == 1 else 'tries'} "
                        f"({type(exc).__name__}: {exc})"
                    ) from exc
                log.warning("%s: %s; retrying in %.0fs", what, type(exc).__name__, delay)
                time.sleep(delay)
                delay = min(delay * 2, 15.0)
                self._reconnect()
            except TypesenseClientError as exc:
                raise StoreError(f"{what}: {type(exc).__name__}: {exc}") from exc
        raise AssertionError("unreachable")

    # -- collections -----------------------------------------------------------------------
    def alias_target(self, alias: str) -> str | None:
        try:
            info = self.call(f"read alias {alias}", lambda: self.client.aliases[alias].retrieve())
        except StoreError as exc:
            if isinstance(exc.__cause__, ObjectNotFound):
                return None
            raise
        return str(info["collection_name"])

    def ensure_collections(self) -> set[str]:
        """Create ``<name>_v1`` and its alias for each collection that does not exist;
        returns the names created (empty: on a cluster, a follower may answer 404 for a
        moment after the leader acknowledged them, so callers must not read them back)."""
        created: set[str] = set()
        for name in (CHUNKS, DOCUMENTS):
            try:
                current = self.alias_target(name)
            except StoreError as exc:
                if not isinstance(exc.__cause__, RequestUnauthorized) or not self._searches():
                    raise
                # A search-only key (a reader on another host): making collections is a
                # writer's job, and searching them needs no alias read.
                return created
            if current is None:
                self._create_version(name, 1)
                target = {"collection_name": f"{name}_v1"}
                self.call(f"alias {name}", partial(self._alias, name, target))
                created.add(name)
            else:
                self._add_missing_fields(name, current)
        self._ensure_meta()
        return created

    def _searches(self) -> bool:
        """The key may search the library (a search-only key, not a wrong one)."""
        try:
            self.search(DOCUMENTS, {"q": "*", "per_page": 1, "include_fields": "id"})
        except StoreError as exc:
            return not isinstance(exc.__cause__, RequestUnauthorized)
        return True

    def _ensure_meta(self) -> None:
        """The one-record collection of the library's generation (``index.generation``)."""
        try:
            self.call(f"read {META}", lambda: self.client.collections[META].retrieve())
            self._add_missing_fields(META, META)
            return
        except StoreError as exc:
            if not isinstance(exc.__cause__, ObjectNotFound):
                raise
            try:
                self.call(f"create {META}", lambda: self.client.collections.create(schema(META)))
            except StoreError as again:
                if "already exists" not in str(again):
                    raise

    def _alias(self, name: str, target: dict[str, str]) -> None:
        self.client.aliases.upsert(name, target)

    def _add_missing_fields(self, name: str, collection: str) -> None:
        """Collections made by an older Folio get the fields added since (Typesense
        0.24 adds fields in place; documents without them are untouched)."""
        info = self.call(
            f"read {collection}", lambda: self.client.collections[collection].retrieve()
        )
        have = {f["name"] for f in info.get("fields", [])}
        missing = [f for f in schema(name)["fields"] if f["name"] not in have]
        if missing:
            update = {"fields": missing}
            self.call(
                f"add fields to {collection}",
                lambda: self.client.collections[collection].update(update),
            )

    def _create_version(self, name: str, version: int, width: int | None = None) -> str:
        self.writable()
        body = schema_with_width(name, width)
        body["name"] = f"{name}_v{version}"
        try:
            self.call(f"create {body['name']}", lambda: self.client.collections.create(body))
        except StoreError as exc:
            if "already exists" not in str(exc):
                raise
        return str(body["name"])

    def reindex(self, name: str) -> tuple[str, str]:
        """Build the next version of a collection from the current one, then swap the
        alias; under the library lock, so no write lands in the old version meanwhile."""
        with self.writing(what="reindex"):
            return self._reindex(name)

    def vector_width(self) -> int | None:
        """The width of the snippets' vector field (None: no chunks collection yet)."""
        current = self.alias_target(CHUNKS)
        if current is None:
            return None
        info = self.call(f"read {current}", lambda: self.client.collections[current].retrieve())
        return vector_width(info)

    def set_vector_width(self, width: int) -> tuple[str, str]:
        """Rebuild the chunks collection with a vector field ``width`` wide, its stored
        vectors (another model's, of another width) left out; the caller holds the lock
        (an ingest embeds the snippets again next)."""
        return self._reindex(CHUNKS, width)

    def _reindex(self, name: str, width: int | None = None) -> tuple[str, str]:
        """The next version of ``name``; with a ``width`` that is not the current one,
        its vector field gets that width and the documents lose their vectors."""
        current = self.alias_target(name)
        if current is None:
            raise StoreError(f"collection {name} does not exist; ingest something first")
        version = int(current.rsplit("_v", 1)[1]) + 1
        info = self.call(f"read {current}", lambda: self.client.collections[current].retrieve())
        kept = vector_width(info)
        drop = width is not None and width != kept
        new = self._create_version(name, version, width if drop else kept)
        exported = self.call(
            f"export {current}", lambda: self.client.collections[current].documents.export()
        )
        # parsed and written again as ASCII JSON, as every other import is: 0.24 drops the
        # bytes of a character that a raw UTF-8 body splits across two of its reads
        # (parsed a batch at a time: a library's documents as dicts would triple the memory)
        lines = [line for line in str(exported).split("\n") if line.strip()]
        for start in range(0, len(lines), BATCH_SIZE):
            self.writable()
            batch = [json.loads(line) for line in lines[start : start + BATCH_SIZE]]
            if drop:
                batch = [{k: v for k, v in d.items() if k not in VECTOR_DROPPED} for d in batch]
            body = [json.dumps(d) for d in batch]  # ASCII, as ``schema.encoded``
            results = self.call(f"import {new}", partial(self._import, new, body))
            refused = [str(r.get("error")) for r in results if not r.get("success")]
            if refused:
                raise StoreError(
                    f"reindex {name}: {new} refused {len(refused)} of the documents of "
                    f"{current} ({refused[0]}); {name} still points at {current}"
                )
        self.call(
            f"alias {name}",
            lambda: self.client.aliases.upsert(name, {"collection_name": new}),
        )
        self.call(f"drop {current}", lambda: self.client.collections[current].delete())
        return current, new

    def count(self, name: str, filter_by: str | None = None) -> int:
        params: dict[str, Any] = {"q": "*", "per_page": 0}
        if filter_by:
            params["filter_by"] = filter_by
        res = self.call(
            f"count {name}", lambda: self.client.collections[name].documents.search(params)
        )
        return int(res["found"])

    # -- documents -------------------------------------------------------------------------
    def upsert(
        self, name: str, docs: Sequence[dict[str, Any] | Encoded], action: str = "upsert"
    ) -> list[ImportFailure]:
        """Upsert in batches; returns the documents Typesense refused, with its reason.
        ``action="update"``: each document names only the fields it changes. A document
        may come encoded already (``schema.encoded``: an ingest's workers do that)."""
        failures: list[ImportFailure] = []
        good: list[Encoded] = []
        for d in docs:
            e = d if isinstance(d, Encoded) else encoded(d, name)
            if e.problem:
                failures.append(ImportFailure(e.id, e.problem))
            else:
                good.append(e)
        for start in range(0, len(good), BATCH_SIZE):
            self.writable()
            batch = good[start : start + BATCH_SIZE]
            lines = [e.line for e in batch]
            results = self.call(f"import into {name}", partial(self._import, name, lines, action))
            for e, res in zip(batch, results, strict=True):
                if not res.get("success"):
                    failures.append(ImportFailure(e.id, str(res.get("error"))))
        return failures

    def _import_raw(self, name: str, body: str, action: str = "upsert") -> str:
        return str(self.client.collections[name].documents.import_(body, {"action": action}))

    def _import(self, name: str, lines: list[str], action: str = "upsert") -> list[dict[str, Any]]:
        """Import one batch of encoded documents (``schema.encoded``); exactly one parsed
        result per document, else IncompleteImport."""
        raw = self._import_raw(name, "\n".join(lines), action)
        try:
            results = json_lines(raw)
        except ValueError as exc:
            raise IncompleteImport(f"unparsable import response {raw[:80]!r}") from exc
        if len(results) != len(lines):
            raise IncompleteImport(f"{len(results)} import results for {len(lines)} documents")
        return results

    def delete(self, name: str, doc_id: str) -> None:
        """Delete one document by id (gone already is fine)."""
        self.writable()
        try:
            self.call(
                f"delete from {name}",
                lambda: self.client.collections[name].documents[doc_id].delete(),
            )
        except StoreError as exc:
            if not isinstance(exc.__cause__, ObjectNotFound):
                raise

    def facet_counts(self, name: str, field: str, limit: int) -> dict[str, int]:
        """How many documents hold each value of a facet field (up to ``limit`` values)."""
        params = {"q": "*", "per_page": 0, "facet_by": field, "max_facet_values": limit}
        res = self.search(name, params)
        counts: list[dict[str, Any]] = next(
            (f["counts"] for f in res.get("facet_counts", []) if f["field_name"] == field), []
        )
        return {str(c["value"]): int(c["count"]) for c in counts}

    def delete_where(self, name: str, filter_by: str) -> int:
        self.writable()
        res = self.call(
            f"delete from {name}",
            lambda: self.client.collections[name].documents.delete({"filter_by": filter_by}),
        )
        return int(res.get("num_deleted", 0))

    def export(
        self, name: str, filter_by: str | None = None, include: str | None = None
    ) -> list[dict[str, Any]]:
        """The documents of ``name`` (matching ``filter_by``; only the ``include`` fields,
        comma-separated), in one request to one node. Needs an admin key: a search-only
        key is refused (401)."""
        params = {"filter_by": filter_by} if filter_by else {}
        if include:
            params["include_fields"] = include
        raw = self.call(
            f"export {name}", lambda: self.client.collections[name].documents.export(params)
        )
        return json_lines(str(raw))

    def search(self, name: str, params: dict[str, Any]) -> dict[str, Any]:
        """One search; sent as a ``multi_search`` POST when its query string would be too
        long for a GET (a filter naming many documents)."""
        if len(urlencode(params)) > MAX_QUERY_STRING:
            return self.multi_search([{"collection": name, **params}])[0]
        res: dict[str, Any] = self.call(
            f"search {name}", lambda: self.client.collections[name].documents.search(params)
        )
        return res

    def multi_search(self, searches: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Several searches in one request; a failed one is reported, not skipped."""
        res = self.call(
            "multi search", lambda: self.client.multi_search.perform({"searches": searches}, {})
        )
        results: list[dict[str, Any]] = res["results"]
        for r in results:
            if "error" in r:
                raise StoreError(f"multi search: {r.get('code')}: {r['error']}")
        return results

    # -- counts one node answers for itself (see ``replicas``) -------------------------------
    def searches(self, searches: list[dict[str, Any]], attempts: int = 4) -> list[dict[str, Any]]:
        """Any number of searches in one request (Typesense caps a multi search at 50
        unless told otherwise); a failed one raises."""
        params = {"limit_multi_searches": max(len(searches), 1)}
        res = self.call(
            "multi search",
            lambda: self.client.multi_search.perform({"searches": searches}, params),
            attempts,
        )
        results: list[dict[str, Any]] = res["results"]
        for r in results:
            if "error" in r:
                raise StoreError(f"multi search: {r.get('code')}: {r['error']}")
        return results

    def chunk_counts(self, doc_ids: Collection[str], attempts: int = 4) -> dict[str, int]:
        """How many chunks each of ``doc_ids`` has here (none: left out), in one request."""
        return self.holdings_of(doc_ids, attempts, records=False)[0]

    def holdings_of(
        self, doc_ids: Collection[str], attempts: int = 4, *, records: bool = True
    ) -> Holdings:
        """Chunks per doc_id and (``records``) finished file records per doc_id, of
        ``doc_ids`` only, in one request: faceted counts over groups of ids, sent in a POST
        body (a filter naming a batch's documents would not fit in a GET's 4,000
        characters)."""
        ids = sorted(doc_ids)
        searches = []
        for i in range(0, len(ids), ID_GROUP):
            group = ids[i : i + ID_GROUP]
            named = "doc_id:=[" + ",".join(map(quote, group)) + "]"
            searches.append(facet_search(CHUNKS, "doc_id", len(group), named))
            if records:
                finished = f"{named} && {FINISHED}"
                searches.append(facet_search(DOCUMENTS, "doc_id", len(group), finished))
        results = self.searches(searches, attempts) if searches else []
        step = 2 if records else 1
        chunks: dict[str, int] = {}
        held: dict[str, int] = {}
        for res in results[::step]:
            chunks.update(facet_values(res, "doc_id"))
        for res in results[1::step] if records else []:
            held.update(facet_values(res, "doc_id"))
        return chunks, held

    def holdings(self, limit: int, attempts: int = 4) -> Holdings:
        """In one request: chunks per doc_id, and finished (complete or empty) file
        records per doc_id, up to ``limit`` documents each."""
        searches = [
            facet_search(CHUNKS, "doc_id", limit),
            facet_search(DOCUMENTS, "doc_id", limit, FINISHED),
        ]
        chunks, records = self.searches(searches, attempts)
        return facet_values(chunks, "doc_id"), facet_values(records, "doc_id")

    def totals(self, attempts: int = 4) -> tuple[int, int]:
        """(file records, chunks) in one request."""
        searches = [{"collection": n, "q": "*", "per_page": 0} for n in (DOCUMENTS, CHUNKS)]
        documents, chunks = self.searches(searches, attempts)
        return int(documents["found"]), int(chunks["found"])


def quote(value: str) -> str:
    """A filter_by string literal (backticks guard commas, spaces and operators)."""
    return f"`{check_literal(value)}`"


def facet_search(name: str, field: str, limit: int, filter_by: str = "") -> dict[str, Any]:
    """A multi-search entry counting ``name``'s documents per value of ``field``."""
    search: dict[str, Any] = {
        "collection": name,
        "q": "*",
        "per_page": 0,
        "facet_by": field,
        "max_facet_values": max(limit, 1),
    }
    if filter_by:
        search["filter_by"] = filter_by
    return search


def facet_values(result: Mapping[str, Any], field: str) -> dict[str, int]:
    """A search result's counts per value of the facet ``field``."""
    counts: list[dict[str, Any]] = next(
        (f["counts"] for f in result.get("facet_counts", []) if f["field_name"] == field), []
    )
    return {str(c["value"]): int(c["count"]) for c in counts}


def found(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The stored documents of a search result's hits, in rank order."""
    return [h["document"] for h in result.get("hits", [])]


def json_lines(body: str) -> list[dict[str, Any]]:
    """The documents of a JSONL body. Split at newlines only: Typesense writes U+2028,
    U+0085 and the like raw inside strings, where ``str.splitlines`` would cut a line."""
    return [json.loads(line) for line in body.split("\n") if line.strip()]
