"""``pipeline.Library``: one Python API over an indexed library, the same operations as
the ``folio`` commands (ingest, search, retrieve, show, outline, documents, delete), and
the types it takes and gives. The surfaces (``cli``, ``mcp``, ``web``, ``integrations``)
import these from here, never from the stages (tests/test_imports.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from .errors import ConfigError, RetrievalError
from .index import server, side_index, vectors
from .index.coverage import Coverage, coverage, stored_models
from .index.documents import Deletion, delete_files, remove_document
from .index.filters import FORMATS, HINTS, TIERS, Filters
from .index.keys import SCOPED_KEY_SECONDS, renewing_key, search_only_key
from .index.replicas import NodeCounts, node_counts
from .index.schema import CHUNKS, DOCUMENTS
from .index.server import RunningServer
from .index.settings import ServerSettings, load_server_settings, parse_url
from .index.store import Store
from .index.vectors import MODEL_ENV, model_dir
from .ingest import IngestOptions, ProgressHook, Report, ingest
from .retrieve import MODES, Context, Hit, SearchResult, rank, retrieve, search
from .retrieve.context import Citation, ContextItem, citation_text
from .retrieve.outline import OutlineEntry, outline
from .retrieve.search import FACETS, MAX_PER_PAGE
from .retrieve.sections import (
    DocumentInfo,
    LibraryCounts,
    Shown,
    find_document,
    library_counts,
    list_documents,
    path_names,
    show,
)
from .shared.config import ChunkConfig
from .shared.config_files import load_config

__all__ = [
    "FACETS",
    "FORMATS",
    "HINTS",
    "MAX_PER_PAGE",
    "MODEL_ENV",
    "MODES",
    "SCOPED_KEY_SECONDS",
    "TIERS",
    "Citation",
    "Context",
    "ContextItem",
    "Deletion",
    "DocumentInfo",
    "Filters",
    "Hit",
    "IngestOptions",
    "Library",
    "LibraryCounts",
    "NodeCounts",
    "OutlineEntry",
    "ProgressHook",
    "Report",
    "RunningServer",
    "SearchResult",
    "ServerSettings",
    "Shown",
    "citation_text",
    "model_dir",
]


class Library:
    """The documents indexed in one Typesense server or cluster.

    ``Library.open()`` is what every ``folio`` command does: the server named by
    ``TYPESENSE_URL``/``TYPESENSE_API_KEY`` or the config file's ``typesense:`` block,
    else the embedded server under ``$FOLIO_HOME`` (started if it is not running). Opening
    makes sure the two collections exist; nothing else is written until ``ingest`` or
    ``delete``. ``read_only()`` gives the same library through a search-only key."""

    __slots__ = ("store",)

    def __init__(self, store: Store) -> None:
        self.store = store

    @classmethod
    def open(
        cls,
        url: str | Sequence[str] | None = None,
        api_key: str | None = None,
        *,
        config: str | Path | None = None,
    ) -> Library:
        """``url``: one Typesense URL, or a cluster's (a list, or comma-separated), with
        ``api_key``; ``config``: a YAML file with a ``typesense:`` block (default
        ``$FOLIO_CONFIG``). Neither: the embedded server under ``$FOLIO_HOME``."""
        settings = load_server_settings(config)
        if url is not None:
            urls = url.split(",") if isinstance(url, str) else list(url)
            nodes = tuple(parse_url(u.strip(), "url") for u in urls if u.strip())
            if not nodes:
                raise ConfigError("url", "no Typesense URL given")
            key = api_key or settings.api_key
            if not key:
                raise ConfigError("api_key", "an external Typesense server needs an API key")
            settings = replace(settings, nodes=nodes, api_key=key)
        store = Store.connect(settings)
        store.ensure_collections()
        return cls(store)

    def read_only(self) -> Library:
        """This library through a scoped search-only key (created once per server and
        kept 0600 under ``$FOLIO_HOME``): every write is refused by Typesense itself."""
        key = search_only_key(self.store)
        return Library(Store(self.store.settings, nodes=self.store.nodes, api_key=key))

    def renewing(self, seconds: int = SCOPED_KEY_SECONDS) -> tuple[Library, Callable[[], None]]:
        """This library through a scoped search-only key that lives ``seconds`` (``folio
        mcp``'s), and the call that renews the key when it nears its end: make it before
        each use of the library."""
        key = renewing_key(self.store, seconds)
        library = Library(Store(self.store.settings, nodes=self.store.nodes, api_key=key.current()))
        return library, lambda: library.store.use_key(key.current())

    # -- the server and the settings in force (no library opened) ---------------------------
    @staticmethod
    def settings(config: str | Path | None = None) -> ServerSettings:
        """The Typesense settings ``open`` would use: ``$TYPESENSE_URL``, else the config
        file's ``typesense:`` block, else the embedded server under ``$FOLIO_HOME``."""
        return load_server_settings(config)

    @staticmethod
    def never_started(config: str | Path | None = None) -> bool:
        """Nothing can be indexed yet: the settings name the embedded server, which has
        never run (opening the library would start it only to find it empty)."""
        return load_server_settings(config).embedded and not server.ever_started()

    @staticmethod
    def start_server() -> RunningServer:
        """Start the embedded server under ``$FOLIO_HOME`` (the running one if it is up)."""
        return server.start()

    @staticmethod
    def stop_server() -> bool:
        """Stop the embedded server; ``False`` when it was not running."""
        return server.stop()

    @staticmethod
    def running_server() -> RunningServer | None:
        """The embedded server when it is running, without starting it."""
        return server.running()

    # -- writing ---------------------------------------------------------------------------
    def ingest(
        self,
        paths: Sequence[str | Path],
        config: ChunkConfig | None = None,
        options: IngestOptions | None = None,
        *,
        progress: ProgressHook | None = None,
        wait: float | None = None,
    ) -> Report:
        """``folio ingest``: files and folders (recursively); unchanged files are skipped.
        ``config`` defaults to the config file's ``chunk:`` settings (``load_config``);
        ``options``: prune, workers, embed, limits (default ``IngestOptions()``);
        ``wait``: seconds to wait for another writer (``None``: as long as it takes)."""
        chunking = config or load_config(None, {})
        options = options or IngestOptions()
        with self.store.writing(wait, "ingest --prune" if options.prune else "ingest"):
            files = [str(p) for p in paths]
            return ingest(files, chunking, self.store, options, progress=progress)

    def delete(self, doc: str, *, wait: float | None = None) -> Deletion:
        """``folio delete``: a document by doc_id or unique doc_id prefix, with every file
        record of its content; by path, that file's record, and the content with it
        unless another file holds the same bytes (``Deletion.kept_by``)."""
        with self.store.writing(wait, "delete"):
            found = find_document(self.store, doc)
            if found.doc_id.startswith(doc):
                removed = Deletion(remove_document(self.store, found.doc_id))
            else:
                removed = delete_files(self.store, found.doc_id, path_names(doc))
            side_index.refresh(self.store)
        return removed

    def reindex(self, *, wait: float | None = None) -> list[tuple[str, str, str]]:
        """``folio reindex``: each collection rebuilt as its next version and its alias
        swapped; returns ``(alias, old collection, new collection)`` for each."""
        swapped: list[tuple[str, str, str]] = []
        with self.store.writing(wait, "reindex"):
            for name in (CHUNKS, DOCUMENTS):
                swapped.append((name, *self.store.reindex(name)))
            side_index.rebuild(self.store)
        return swapped

    # -- reading ---------------------------------------------------------------------------
    def filters(
        self,
        *,
        hints: Sequence[str] | None = None,
        tier: str | None = None,
        doc: str | None = None,
        format: str | None = None,
        has_table: bool = False,
        page_from: int | None = None,
        page_to: int | None = None,
    ) -> Filters:
        """The filters of ``search`` and ``retrieve`` as a caller names them, checked: the
        one way the command line and the MCP tools build them. ``doc`` is a doc_id, a
        unique prefix of one or a path; ``has_table``: only chunks holding a table (False
        does not filter); pages: chunks overlapping ``page_from``–``page_to``."""
        return Filters(
            hints=tuple(hints or ()),
            tier=tier,
            doc=None if doc is None else self.document(doc).doc_id,
            format=format,
            has_table=True if has_table else None,
            page_from=page_from,
            page_to=page_to,
        )

    def search(
        self,
        query: str,
        filters: Filters | None = None,
        *,
        page: int = 1,
        per_page: int = 10,
        facets: Sequence[str] = FACETS,
    ) -> SearchResult:
        """``folio search``: typo-tolerant keyword search with exact facet counts."""
        return search(self.store, query, filters, page=page, per_page=per_page, facets=facets)

    def retrieve(
        self,
        question: str,
        budget: int = 2000,
        filters: Filters | None = None,
        *,
        mode: str | None = None,
    ) -> Context:
        """``folio retrieve``: ranked, cited context for a question within ``budget``
        tokens (``mode``: lexical, dense or hybrid; default hybrid when it can run)."""
        return retrieve(self.store, question, budget, filters, mode=mode)

    def rank(
        self, question: str, filters: Filters | None = None, *, k: int = 10, mode: str | None = None
    ) -> list[Hit]:
        """The ``k`` best snippets for a question, by the ranking ``retrieve`` uses."""
        return rank(self.store, question, filters, k=k, mode=mode)

    def show(self, chunk_id: str) -> Shown:
        """A section or snippet by id, with its citation and neighbours."""
        shown = show(self.store, chunk_id)
        if shown is None:
            raise RetrievalError(
                f"no section or snippet with id {chunk_id}: ids come from search and "
                "retrieve results"
            )
        return shown

    def document(self, doc: str) -> DocumentInfo:
        """A document by doc_id, unique doc_id prefix or path."""
        return find_document(self.store, doc)

    def outline(self, doc: str) -> list[OutlineEntry]:
        """The headings of a document (doc_id, prefix or path): each once, in order, with
        its depth, breadcrumb, pages and the section to open it at."""
        return outline(self.store, find_document(self.store, doc).doc_id)

    def documents(self, *, limit: int = 10_000) -> list[DocumentInfo]:
        """Every file record, newest first: status, counts, title, path."""
        return [DocumentInfo.of(d) for d in list_documents(self.store, limit=limit)]

    def counts(self) -> LibraryCounts:
        """File records by status, sections and snippets."""
        return library_counts(self.store)

    def vectors(self) -> Coverage:
        """Dense coverage: the documents and snippets holding vectors of the model that
        runs here, out of all (none when no model can run: ``embedder`` is empty)."""
        return coverage(self.store, vectors.current_name())

    def vector_models(self) -> dict[str, int]:
        """Snippets holding a vector, per model name, without loading any model."""
        return stored_models(self.store)

    def node_counts(self) -> list[NodeCounts]:
        """On a cluster, each node's own record and chunk counts, a node that holds less
        or does not answer flagged (empty for one server)."""
        return node_counts(self.store)

    def collections(self) -> dict[str, tuple[str | None, int]]:
        """Each alias (chunks, documents) with the collection it points at and how many
        records that holds."""
        return {
            name: (self.store.alias_target(name), self.store.count(name))
            for name in (CHUNKS, DOCUMENTS)
        }
