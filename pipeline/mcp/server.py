"""``folio mcp``: search and retrieval for agents over MCP (stdio), read-only.

The server talks to Typesense with a scoped search-only key, so no tool call can
change the index whatever an agent sends.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import FolioError
from ..library import SCOPED_KEY_SECONDS, Library

INSTRUCTIONS = (
    "Folio indexes a library of books and documents as sections (~1700 tokens) that hold "
    "snippets (~420 tokens). Use `retrieve` to get context for a question within a token "
    "budget, with citations (source path, breadcrumb, pages, character range) to quote; use "
    "`search` to explore with facets (content hints: prose, table, code, list, quote, mixed); "
    "`get_section` expands a section id (with its neighbours); `get_outline` lists a "
    "document's headings; `list_documents` shows what is indexed. A call the library cannot "
    "serve is an error result saying why and what to send instead."
)


F = TypeVar("F", bound=Callable[..., Any])


def _reported(renew: Callable[[], None]) -> Callable[[F], F]:
    """Each call runs with a fresh scoped key, and a Folio error (bad input, server
    unreachable) comes back as an error result whose text says why: the SDK shows an
    agent only "Error executing tool X" for any other exception."""
    from mcp.server.mcpserver.exceptions import ToolError

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def tool(*args: Any, **kwargs: Any) -> Any:
            try:
                renew()
                return fn(*args, **kwargs)
            except FolioError as exc:
                raise ToolError(str(exc)) from exc

        return tool  # type: ignore[return-value]

    return wrap


def build_server(config_path: str | None = None, *, key_seconds: int = SCOPED_KEY_SECONDS) -> Any:
    try:
        from .tools import FolioMCP, add_tools
    except ImportError as exc:
        raise FolioError(
            "`folio mcp` needs the MCP SDK: pip install 'folio-pipeline[mcp]'"
        ) from exc

    library, renew = Library.open(config=config_path).renewing(key_seconds)
    app = FolioMCP(name="folio", instructions=INSTRUCTIONS)
    add_tools(app, library, _reported(renew))
    return app


def serve(config_path: str | None = None) -> None:
    build_server(config_path).run("stdio")
