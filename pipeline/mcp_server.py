"""``folio mcp``: search and retrieval for agents over MCP (stdio), read-only.

The server talks to Typesense with a scoped search-only key, so no tool call can
change the index whatever an agent sends.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import asdict
from typing import Any, Literal, TypeVar

from .errors import FolioError, RetrievalError
from .index.keys import SCOPED_KEY_SECONDS, ScopedKey, renewing_key
from .index.settings import load_server_settings
from .index.store import Store
from .retrieve import Filters, get_section, list_documents, neighbors, retrieve, search

INSTRUCTIONS = (
    "Folio indexes a library of books and documents as sections (~1700 tokens) that hold "
    "snippets (~420 tokens). Use `retrieve` to get context for a question within a token "
    "budget, with citations (source path, breadcrumb, pages, character range) to quote; use "
    "`search` to explore with facets (content hints: prose, table, code, list, quote, mixed); "
    "`get_section` expands a section id (with its neighbours); `list_documents` shows what "
    "is indexed."
)


F = TypeVar("F", bound=Callable[..., Any])


def _reported(key: ScopedKey, store: Store) -> Callable[[F], F]:
    """Each call runs with a fresh scoped key, and a Folio error (bad input, server
    unreachable) comes back as an error result whose text says why: the SDK shows an
    agent only "Error executing tool X" for any other exception."""
    from mcp.server.mcpserver.exceptions import ToolError

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def tool(*args: Any, **kwargs: Any) -> Any:
            try:
                store.use_key(key.current())
                return fn(*args, **kwargs)
            except FolioError as exc:
                raise ToolError(str(exc)) from exc

        return tool  # type: ignore[return-value]

    return wrap


def build_server(config_path: str | None = None, *, key_seconds: int = SCOPED_KEY_SECONDS) -> Any:
    try:
        from mcp.server.mcpserver import MCPServer
    except ImportError as exc:
        raise FolioError(
            "`folio mcp` needs the MCP SDK: pip install 'folio-pipeline[mcp]'"
        ) from exc
    settings = load_server_settings(config_path)
    admin = Store.connect(settings)
    admin.ensure_collections()
    key = renewing_key(admin, key_seconds)
    store = Store(settings, nodes=admin.nodes, api_key=key.current())
    reported = _reported(key, store)
    app = MCPServer(name="folio", instructions=INSTRUCTIONS)

    @app.tool(
        name="search",
        description="Keyword search (typo tolerant) over the library's chunks. Returns hits "
        "with breadcrumb, pages, a highlighted excerpt and chunk ids, plus facet counts. "
        "Filter by content hint (prose, table, code, list, quote, mixed), tier (section or "
        "snippet), doc_id, format (pdf, epub, markdown, mdx, text) or page range.",
    )
    @reported
    def search_library(
        query: str,
        hints: list[str] | None = None,
        tier: str | None = None,
        doc_id: str | None = None,
        format: str | None = None,
        page_from: int | None = None,
        page_to: int | None = None,
        page: int = 1,
        per_page: int = 10,
    ) -> dict[str, Any]:
        filters = Filters(tuple(hints or ()), tier, doc_id, format, None, page_from, page_to)
        result = search(store, query, filters, page=page, per_page=per_page)
        out = result.to_dict()
        for hit in out["hits"]:
            hit.pop("text", None)  # excerpts only; use retrieve or get_section for text
        return out

    @app.tool(
        name="retrieve",
        description="Context for a question: the best-matching snippets expanded to their "
        "parent sections (or a window of a section when it does not fit), ranked, without "
        "repeated text, totalling at most `budget` tokens. Each item has the text and a "
        "citation (doc title, source path, breadcrumb, pages, char_start/char_end into the "
        "document's extracted text). `mode`: lexical, dense or hybrid ranking (default: "
        "hybrid when embeddings are available, else lexical); the result says which ran.",
    )
    @reported
    def retrieve_context(
        question: str,
        budget: int = 2000,
        hints: list[str] | None = None,
        doc_id: str | None = None,
        mode: Literal["lexical", "dense", "hybrid"] | None = None,
    ) -> dict[str, Any]:
        filters = Filters(tuple(hints or ()), doc=doc_id)
        ctx = retrieve(store, question, budget, filters, mode=mode)
        return ctx.to_dict()

    @app.tool(
        name="get_section",
        description="One section by id (from search or retrieve results), with the ids and "
        "titles of the previous and next sections of the same document for expansion.",
    )
    @reported
    def get_section_by_id(section_id: str) -> dict[str, Any]:
        sec = get_section(store, section_id)
        if sec is None:
            raise RetrievalError(
                f"no section with id {section_id!r} (ids come from search or retrieve results)"
            )
        before, after = neighbors(store, section_id)
        return {
            "section": asdict(sec),
            "previous": {"id": before.id, "title": before.section_title} if before else None,
            "next": {"id": after.id, "title": after.section_title} if after else None,
        }

    @app.tool(
        name="list_documents",
        description="The indexed documents: doc_id, title, path, format, pages, "
        "section and snippet counts, status.",
    )
    @reported
    def list_library_documents(limit: int = 100) -> list[dict[str, Any]]:
        keep = ("doc_id", "title", "path", "format", "pages", "sections", "snippets", "status")
        return [{k: getattr(d, k) for k in keep} for d in list_documents(store, limit=limit)]

    return app


def serve(config_path: str | None = None) -> None:
    build_server(config_path).run("stdio")
