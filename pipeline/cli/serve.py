"""``folio serve``: its arguments, and the lazy import of the optional web stack."""

from __future__ import annotations

import argparse

from ..errors import FolioError
from ..shared.inputs import quoted
from .common import Commands, add_command

DEFAULT_PORT = 8765


def _port(raw: str) -> int:
    try:
        port = int(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {quoted(raw)}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 1 to 65535, not {port}")
    return port


def cmd_serve(args: argparse.Namespace) -> int:
    """A web reader for the library on 127.0.0.1 (search, facets, sections).

    Serve a local web reader on 127.0.0.1: typo-tolerant search with facet filters,
    each result's section in context with its pages and citation, and the documents
    with their outlines. It reads through a search-only key.
    """
    try:
        from ..web.app import serve
    except ImportError as exc:
        raise FolioError(
            f"`folio serve` needs Starlette and uvicorn ({exc.name} is missing): "
            "pip install 'folio-pipeline[serve]'"
        ) from exc
    serve(args.port, args.config)
    return 0


def add_serve(sub: Commands) -> None:
    p = add_command(sub, cmd_serve)
    p.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_PORT,
        help=f"TCP port on 127.0.0.1 (default {DEFAULT_PORT})",
    )
    p.add_argument(
        "--config",
        metavar="FILE",
        default=None,
        help="YAML config (its typesense: section; default $FOLIO_CONFIG)",
    )
