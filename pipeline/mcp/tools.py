"""The tools of ``folio mcp``, each a call on the ``Library``; their schemas are in
``schema``."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field, ValidationError

from ..library import Hit, Library
from ..shared.inputs import check_range, did_you_mean, quoted
from .schema import (
    DOC,
    ChunkRef,
    Documents,
    HasTable,
    Hints,
    InDoc,
    InFormat,
    Outline,
    PageFrom,
    PageTo,
    PerPage,
    Positive,
    Ranking,
    ResultPage,
    Retrieved,
    SearchPage,
    Section,
    Tier,
)

Tool = Callable[..., Any]
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


Register = Callable[[str], Callable[[Tool], Tool]]


class FolioMCP(MCPServer):
    """The SDK's server, with each call's arguments checked in Folio's words first: the
    SDK ignores an argument a tool does not take (a misspelt ``pagez`` silently gave
    page 1) and answers a wrong type with pydantic's text, its error type and a URL."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.arguments: dict[str, tuple[str, ...]] = {}  # tool -> the names it takes

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        known = self.arguments.get(name)
        unknown = [a for a in arguments if known is not None and a not in known]
        if known is not None and unknown:
            raise ToolError(
                f"Error executing tool {name}: unknown argument {quoted(unknown[0])}"
                + did_you_mean(unknown[0], known)
            )
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(f"Error executing tool {name}: {_why(exc.__cause__)}") from exc
            raise


# pydantic's error types, said as the command line says them.
_KINDS = {
    "int": "a whole number",
    "string": "text",
    "list": "a list",
    "bool": "true or false",
    "literal": "one of the allowed values",
}


def _why(error: ValidationError) -> str:
    """Each invalid argument, its value and what it must be, without pydantic's URLs."""
    said = []
    for e in error.errors(include_url=False):
        where = ".".join(str(part) for part in e["loc"])
        if e["type"] == "missing":
            said.append(f"{where} is required")
            continue
        kind = next((v for k, v in _KINDS.items() if e["type"].startswith(k)), "")
        must = f"it must be {kind}" if kind else e["msg"][:1].lower() + e["msg"][1:]
        said.append(f"invalid {where} {quoted(e['input'])}: {must}")
    return "; ".join(said)


def add_tools(app: FolioMCP, library: Library, reported: Callable[[Tool], Tool]) -> None:
    """Registers search, retrieve, get_section, get_outline and list_documents."""

    def tool(name: str) -> Callable[[Tool], Tool]:
        """Registers a read-only tool, described by its function's docstring."""

        def register(fn: Tool) -> Tool:
            app.arguments[name] = tuple(inspect.signature(fn).parameters)
            described = " ".join(inspect.cleandoc(fn.__doc__ or "").split())
            return app.tool(name=name, description=described, annotations=READ_ONLY)(reported(fn))

        return register

    _add_finding(tool, library)
    _add_reading(tool, library)


def _add_finding(tool: Register, library: Library) -> None:
    """search and retrieve, with the command line's filters built and checked by the one
    ``Library.filters`` (a doc_id prefix or path resolved, enums and page ranges checked)."""

    @tool("search")
    def search_library(
        query: Annotated[str, Field(description="a few keywords")],
        hints: Hints = None,
        tier: Annotated[Tier | None, Field(description="only sections or only snippets")] = None,
        doc_id: InDoc = None,
        format: InFormat = None,
        has_table: HasTable = False,
        page_from: PageFrom = None,
        page_to: PageTo = None,
        page: Annotated[ResultPage, Field(description="which page of hits")] = 1,
        per_page: Annotated[PerPage, Field(description="hits per page")] = 10,
    ) -> SearchPage:
        """Keyword search (typo tolerant) over the library's chunks: hits with
        breadcrumb, pages, a highlighted excerpt and chunk ids, plus facet
        counts. Filters combine; a value outside a filter's enum is an error
        naming the allowed values.
        """
        filters = library.filters(
            hints=hints,
            tier=tier,
            doc=doc_id,
            format=format,
            has_table=has_table,
            page_from=page_from,
            page_to=page_to,
        )
        result = library.search(query, filters, page=page, per_page=per_page)
        return SearchPage.model_validate(result)

    @tool("retrieve")
    def retrieve_context(
        question: Annotated[str, Field(description="the question, in words")],
        budget: Annotated[Positive, Field(description="tokens of context at most")] = 2000,
        hints: Hints = None,
        doc_id: InDoc = None,
        format: InFormat = None,
        has_table: HasTable = False,
        page_from: PageFrom = None,
        page_to: PageTo = None,
        mode: Ranking = None,
    ) -> Retrieved:
        """Context for a question: the best-matching snippets widened to their
        sections (or a window of a section when it does not fit), ranked,
        without repeated text, totalling at most `budget` tokens. Each item has
        its text and a citation (doc title, source path, breadcrumb, pages,
        char_start/char_end into the document's extracted text). The filters
        are search's (but tier: retrieve ranks snippets) and combine. The
        result says which ranking ran.
        """
        filters = library.filters(
            hints=hints,
            doc=doc_id,
            format=format,
            has_table=has_table,
            page_from=page_from,
            page_to=page_to,
        )
        return Retrieved.model_validate(library.retrieve(question, budget, filters, mode=mode))


def _add_reading(tool: Register, library: Library) -> None:
    """get_section, get_outline and list_documents."""

    @tool("get_section")
    def get_section(
        section_id: Annotated[str, Field(description="a section or snippet id")],
    ) -> Section:
        """A section by id (from search or retrieve results; a snippet id gives the
        section holding it): its text, citation, and the sections before and
        after it for expanding.
        """
        shown = library.show(section_id)
        if shown.chunk.parent_id is not None:
            shown = library.show(shown.chunk.parent_id)
        return Section(
            section=ChunkRef.model_validate(shown.chunk),
            text=shown.chunk.text,
            citation=shown.citation,
            previous=_ref(shown.previous),
            next=_ref(shown.next),
        )

    @tool("get_outline")
    def get_outline(doc_id: Annotated[str, Field(description=DOC)]) -> Outline:
        """A document's headings, each once, in reading order: level, breadcrumb, pages
        and the id of the section holding it, to pick sections to read with get_section.
        """
        document = library.document(doc_id)
        return Outline(document=document, headings=tuple(library.outline(document.doc_id)))

    @tool("list_documents")
    def list_documents(
        limit: Annotated[Positive, Field(description="documents at most")] = 100,
    ) -> Documents:
        """The indexed files, newest first: doc_id, title, path, format, pages, section
        and snippet counts, status (and the error of a failed file).
        """
        check_range(limit, "limit", 1)
        return Documents(documents=tuple(library.documents(limit=limit)))


def _ref(hit: Hit | None) -> ChunkRef | None:
    return None if hit is None else ChunkRef.model_validate(hit)
