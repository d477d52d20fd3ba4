"""Retrieval: faceted search for people, ranked and budgeted context for agents."""

from ..errors import RetrievalError
from ..index.filters import Filters
from .context import Citation, Context, ContextItem
from .hits import Hit
from .rank import MODES, Ranked
from .retrieval import rank, rank_snippets, retrieve
from .search import FACETS, SearchResult, search
from .sections import get_section, list_documents, neighbors

__all__ = [
    "FACETS",
    "MODES",
    "Citation",
    "Context",
    "ContextItem",
    "Filters",
    "Hit",
    "Ranked",
    "RetrievalError",
    "SearchResult",
    "get_section",
    "list_documents",
    "neighbors",
    "rank",
    "rank_snippets",
    "retrieve",
    "search",
]
