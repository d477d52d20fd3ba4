"""A LlamaIndex retriever over a Folio library
(``pip install 'folio-pipeline[llamaindex]'``).

    retriever = FolioRetriever(pipeline.Library.open(), budget=2000)
    nodes = retriever.retrieve("What happens when a variable goes out of scope?")

Each ``NodeWithScore`` is one item of ``Library.retrieve``: a ``TextNode`` whose text is
exactly the cited range of the source, the citation in ``metadata`` (only the citation
line is shown to an LLM), scored by Folio's ranking; all fit in ``budget`` tokens."""

from __future__ import annotations

from typing import Any

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from ..library import Filters, Library
from . import item_id, metadata, score


class FolioRetriever(BaseRetriever):
    """Budgeted, cited context from a Folio library as LlamaIndex nodes."""

    def __init__(
        self,
        library: Library,
        budget: int = 2000,
        filters: Filters | None = None,
        mode: str | None = None,
        **kwargs: Any,
    ) -> None:
        self.library = library
        self.budget = budget
        self.filters = filters
        self.mode = mode
        super().__init__(**kwargs)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        context = self.library.retrieve(
            query_bundle.query_str, self.budget, self.filters, mode=self.mode
        )
        out: list[NodeWithScore] = []
        for item in context.items:
            meta = metadata(item)
            hidden = [k for k in meta if k != "citation"]
            node = TextNode(
                id_=item_id(item),
                text=item.text,
                metadata=meta,
                excluded_llm_metadata_keys=hidden,
                excluded_embed_metadata_keys=list(meta),
            )
            out.append(NodeWithScore(node=node, score=score(item)))
        return out
