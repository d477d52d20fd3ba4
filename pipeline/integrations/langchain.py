"""A LangChain retriever over a Folio library (``pip install 'folio-pipeline[langchain]'``).

    retriever = FolioRetriever(library=pipeline.Library.open(), budget=2000)
    docs = retriever.invoke("What happens when a variable goes out of scope?")

Each ``Document`` is one item of ``Library.retrieve``: its text is exactly the cited range
of the source, ``metadata`` holds the citation; all of them fit in ``budget`` tokens."""

from __future__ import annotations

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from ..library import Filters, Library
from . import item_id, metadata


class FolioRetriever(BaseRetriever):
    """Budgeted, cited context from a Folio library as LangChain documents."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    library: Library
    budget: int = 2000
    filters: Filters | None = None
    mode: str | None = None  # lexical, dense or hybrid; default: hybrid when it can run

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        context = self.library.retrieve(query, self.budget, self.filters, mode=self.mode)
        return [
            Document(page_content=item.text, metadata=metadata(item), id=item_id(item))
            for item in context.items
        ]
