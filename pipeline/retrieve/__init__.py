"""Retrieval: faceted search for people, ranked and budgeted context for agents."""

from ..errors import RetrievalError
from ..index.filters import Filters
from .context import Citation, Context, ContextItem
from .hits import Hit
from .outline import OutlineEntry, outline
from .rank import MODES, Ranked
from .retrieval import rank, rank_snippets, retrieve
from .search import FACETS, SearchResult, search
from .sections import (
    DocumentInfo,
    Shown,
    find_document,
    get_section,
    list_documents,
    neighbors,
    show,
)

__all__ = [
    "FACETS",
    "MODES",
    "Citation",
    "Context",
    "ContextItem",
    "DocumentInfo",
    "Filters",
    "Hit",
    "OutlineEntry",
    "Ranked",
    "RetrievalError",
    "SearchResult",
    "Shown",
    "find_document",
    "get_section",
    "list_documents",
    "neighbors",
    "outline",
    "rank",
    "rank_snippets",
    "retrieve",
    "search",
    "show",
]
