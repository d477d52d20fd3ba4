"""The reader's ASGI app (Starlette): server-rendered pages over ``pipeline.Library``.

Bound to 127.0.0.1 by ``folio serve``; the Host check refuses DNS-rebinding requests
from web pages, and the content security policy allows only the reader's own script and
style, so even a rendering bug could not run a document's markup."""

from __future__ import annotations

import mimetypes
import sys
from pathlib import Path
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..errors import FolioError, InvalidInput, RetrievalError
from ..library import Library
from ..shared.pathtext import os_path, shown
from . import pages
from .query import FACET_LABELS, PER_PAGE, Query
from .source import SourceChanged, checked_copy, stream

HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; object-src 'none'; "
    "frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
# A document's own file: nothing in it may run or load anything (a PDF's viewer is the
# browser's own, an embed: object-src 'self'); never sniffed into HTML.
SOURCE_HEADERS = HEADERS | {
    "Content-Security-Policy": "default-src 'none'; object-src 'self'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
}
TYPES = {"pdf": "application/pdf", "epub": "application/epub+zip"}


def _html(body: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(body, status, headers=HEADERS)


def _status(exc: Exception) -> int:
    """A request that cannot be served as asked (a bad filter value, id or page) is the
    client's error; a missing one is 404; a file that is no longer the one ingested,
    409; anything else, Typesense's (502)."""
    if isinstance(exc, InvalidInput):
        return 400
    if isinstance(exc, SourceChanged):
        return 409
    return 404 if isinstance(exc, RetrievalError) else 502


def build_app(library: Library) -> Starlette:
    """The reader over ``library`` (give it ``Library.read_only()``)."""

    def search(request: Request) -> Response:
        params = request.query_params
        if "q" not in params:
            return _html(pages.home_page(library.counts(), library.vector_models()))
        query = Query.parse(params, params.getlist("hint"))
        result = library.search(
            query.text,
            query.filters(),
            page=query.page,
            per_page=PER_PAGE,
            facets=tuple(FACET_LABELS),
        )
        titles = {d.doc_id: d.title or Path(d.path).name for d in library.documents()}
        return _html(pages.search_page(query, result, titles))

    def section(request: Request) -> Response:
        shown = library.show(request.path_params["id"])
        hit = request.query_params.get("hit")
        return _html(pages.section_page(shown, library.show(hit) if hit else None))

    def documents(request: Request) -> Response:
        return _html(pages.documents_page(library.documents(), library.counts()))

    def document(request: Request) -> Response:
        doc = library.document(request.path_params["doc"])
        return _html(pages.document_page(doc, library.outline(doc.doc_id)))

    def source(request: Request) -> Response:
        doc = library.document(request.path_params["doc"])
        path = os_path(doc.path)
        paths = {os_path(d.path) for d in library.documents()}
        copy, size = checked_copy(path, doc.doc_id, paths)
        kind = TYPES.get(doc.format) or mimetypes.guess_type(doc.path)[0] or "text/plain"
        if kind.startswith("text/") or doc.format in ("markdown", "mdx", "text"):
            kind = "text/plain; charset=utf-8"
        name = quote(shown(Path(path).name))
        headers = SOURCE_HEADERS | {
            "Content-Length": str(size),
            "Content-Disposition": f"inline; filename*=utf-8''{name}",
        }
        return StreamingResponse(stream(copy), media_type=kind, headers=headers)

    async def failed(request: Request, exc: Exception) -> Response:
        status = _status(exc)
        return _html(pages.error_page(status, str(exc)), status)

    return Starlette(
        routes=[
            Route("/", search),
            Route("/section/{id}", section),
            Route("/documents", documents),
            Route("/documents/{doc}", document),
            Route("/source/{doc}", source),
            Mount("/static", StaticFiles(directory=Path(__file__).parent / "static")),
        ],
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=["127.0.0.1", "localhost"])],
        exception_handlers={FolioError: failed},
    )


def serve(port: int, config: str | None = None) -> None:
    import uvicorn

    library = Library.open(config=config).read_only()
    print(f"folio: reader on http://127.0.0.1:{port}/ (Ctrl-C stops it)", file=sys.stderr)
    uvicorn.run(build_app(library), host="127.0.0.1", port=port, log_level="warning")
