"""The LangChain and LlamaIndex retrievers (the real packages) against a real server:
the same items as `folio retrieve` for the same question and budget."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pipeline import IngestOptions, Library
from pipeline.index.store import Store
from pipeline.integrations.langchain import FolioRetriever as LangChainRetriever
from pipeline.integrations.llamaindex import FolioRetriever as LlamaIndexRetriever
from pipeline.retrieve.context import Citation, citation_text

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "sidenotes margin figures"
BUDGET = 1200


@pytest.fixture(scope="module")
def library(module_store: Store, tmp_path_factory: pytest.TempPathFactory) -> Library:
    """Ingested once: the tests only read it."""
    folder = tmp_path_factory.mktemp("lib")
    for name in ("rust-ownership.md", "tufte-sample-book.pdf"):
        shutil.copy(ROOT / "examples" / "library" / name, folder / name)
    lib = Library(module_store)
    assert not lib.ingest([folder], options=IngestOptions(workers=1)).failed
    return lib


def folio_retrieve() -> list[dict[str, Any]]:
    run = subprocess.run(
        ["folio", "retrieve", QUESTION, "--budget", str(BUDGET), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ,
    )
    assert run.returncode == 0, run.stderr
    items: list[dict[str, Any]] = json.loads(run.stdout)["items"]
    tokens = [int(i["tokens"]) for i in items]
    assert len(tokens) >= 2, run.stdout
    assert sum(tokens) <= BUDGET
    return items


def expected_metadata(item: dict[str, Any]) -> dict[str, Any]:
    c = item["citation"]
    return {
        "citation": citation_text(Citation(**c)),
        "source": c["source"],
        "breadcrumb": c["breadcrumb"],
        "page_start": c["page_start"],
        "page_end": c["page_end"],
        "section_id": item["section_id"],
        "char_start": c["char_start"],
        "char_end": c["char_end"],
        "tokens": item["tokens"],
    }


def test_langchain_retriever_matches_folio_retrieve(library: Library) -> None:
    from langchain_core.documents import Document

    docs = LangChainRetriever(library=library, budget=BUDGET).invoke(QUESTION)
    items = folio_retrieve()
    assert all(isinstance(d, Document) for d in docs)
    assert [d.page_content for d in docs] == [i["text"] for i in items]
    for doc, item in zip(docs, items, strict=True):
        assert expected_metadata(item).items() <= doc.metadata.items()
        # the rank and the ranking's score, as LlamaIndex's NodeWithScore carries it
        assert doc.metadata["rank"] == item["rank"]
        assert doc.metadata["score"] == item["signals"]["score"]
    scores = [d.metadata["score"] for d in docs]
    assert all(isinstance(s, float) and s > 0 for s in scores)
    assert any(d.metadata["page_start"] for d in docs)  # the PDF's pages are carried


def test_llamaindex_retriever_matches_folio_retrieve(library: Library) -> None:
    from llama_index.core.schema import MetadataMode, NodeWithScore

    nodes = LlamaIndexRetriever(library, budget=BUDGET).retrieve(QUESTION)
    items = folio_retrieve()
    assert all(isinstance(n, NodeWithScore) for n in nodes)
    assert [n.node.get_content() for n in nodes] == [i["text"] for i in items]
    assert [n.score for n in nodes] == [i["signals"]["score"] for i in items]
    assert all(isinstance(n.score, float) and n.score > 0 for n in nodes)  # Folio's own score
    for node, item in zip(nodes, items, strict=True):
        assert expected_metadata(item).items() <= node.node.metadata.items()
        assert node.node.metadata["score"] == node.score
        # an LLM sees the citation line above the text, not the bookkeeping
        shown = node.node.get_content(MetadataMode.LLM)
        assert shown.startswith("citation: ") and "snippet_ids" not in shown
