"""Dense and hybrid retrieval end to end against a real server, with a random BERT of the
collection's width as the model (the real weights are a separate install): snippets are
embedded at ingest, unchanged files are not embedded again, and without a model retrieval
is lexical and says so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from pipeline import Library, make_config
from pipeline.errors import RetrievalError
from pipeline.index import vectors
from pipeline.index.schema import CHUNKS, DOCUMENTS
from pipeline.index.store import Store
from pipeline.ingest import IngestOptions, config_fingerprint, ingest
from pipeline.retrieve import rank, retrieve
from pipeline.web.app import build_app
from tests.helpers import folio
from tests.test_embed import make_tiny_model

pytest.importorskip("onnxruntime")

TEXTS = {
    "cats.md": "# Cats\n\n## Mats\n\nThe cat sat on the mat. " * 40,
    "dogs.md": "# Dogs\n\n## Runs\n\nThe big dog ran. Small dogs ran. " * 40,
}


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tiny_model(tmp_path_factory.mktemp("bert-384"), hidden=384)


@pytest.fixture()
def with_model(model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(vectors.MODEL_ENV, str(model_dir))
    monkeypatch.setattr(vectors, "_loaded", {})  # the process-wide model of another test
    return model_dir


def library(tmp_path: Path) -> Path:
    lib = tmp_path / "lib"
    lib.mkdir()
    for name, text in TEXTS.items():
        (lib / name).write_text(text)
    return lib


def stored_snippets(store: Store) -> list[dict[str, object]]:
    return [d for d in store.export(CHUNKS) if d["tier"] == "snippet"]


def test_ingest_embeds_snippets_and_hybrid_is_the_default(
    with_model: Path, store: Store, tmp_path: Path
) -> None:
    report = ingest([str(library(tmp_path))], make_config(), store, IngestOptions(workers=1))
    assert not report.failed and report.embedder.endswith("/int8/split")
    snippets = stored_snippets(store)
    assert report.embedded == len(snippets) > 0
    assert all(len(d["embedding"]) == 384 for d in snippets)  # type: ignore[arg-type]
    ctx = retrieve(store, "the cat sat on the mat", 600)
    assert ctx.mode == "hybrid" and ctx.note == "" and ctx.items
    signals = ctx.items[0].signals
    assert signals["lexical_rank"] is not None or signals["dense_rank"] is not None
    hits = rank(store, "big dogs", k=3, mode="dense")
    assert hits and all(h.tier == "snippet" for h in hits)
    assert (
        retrieve(store, "big dogs", 600, mode="hybrid").items[0].citation.source.endswith("dogs.md")
    )


def test_only_changed_files_are_embedded_again(
    with_model: Path, store: Store, tmp_path: Path
) -> None:
    lib = library(tmp_path)
    first = ingest([str(lib)], make_config(), store, IngestOptions(workers=1))
    again = ingest([str(lib)], make_config(), store, IngestOptions(workers=1))
    assert again.embedded == 0 and len(again.unchanged) == 2
    (lib / "dogs.md").write_text(TEXTS["dogs.md"] + "\n\nA red dog sat.\n")
    changed = ingest([str(lib)], make_config(), store, IngestOptions(workers=1))
    dogs = [d for d in stored_snippets(store) if str(d["source"]).endswith("dogs.md")]
    assert changed.embedded == len(dogs) < first.embedded
    assert all("embedding" in d for d in stored_snippets(store))


def test_without_a_model_retrieval_is_lexical_and_says_why(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(vectors.MODEL_ENV, str(tmp_path / "no-model"))
    monkeypatch.setattr(vectors, "_loaded", {})
    report = ingest([str(library(tmp_path))], make_config(), store, IngestOptions(workers=1))
    assert report.embedder == "" and report.embedded == 0
    assert not any("embedding" in d for d in stored_snippets(store))
    ctx = retrieve(store, "the cat sat on the mat", 600)
    assert ctx.mode == "lexical" and ctx.items
    assert "lexical ranking only" in ctx.note and "no-model" in ctx.note
    with pytest.raises(RetrievalError, match="no-model"):
        retrieve(store, "the cat", 600, mode="dense")


@pytest.mark.parametrize("mode", ["lexical", "dense", "hybrid"])
def test_ranking_is_deterministic_in_and_across_processes(
    with_model: Path, store: Store, tmp_path: Path, folio_env: Path, mode: str
) -> None:
    assert not ingest(
        [str(library(tmp_path))], make_config(), store, IngestOptions(workers=1)
    ).failed
    question = "the big dog sat on the red mat"
    first = [(h.id, h.score) for h in rank(store, question, k=10, mode=mode)]
    assert first and first == [(h.id, h.score) for h in rank(store, question, k=10, mode=mode)]
    ctx = retrieve(store, question, 800, mode=mode)
    run = subprocess.run(
        [sys.executable, "-m", "pipeline", "retrieve", question, "--budget", "800",
         "--mode", mode, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).parent.parent,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    other = json.loads(run.stdout)
    assert [i["snippet_ids"] for i in other["items"]] == [list(i.snippet_ids) for i in ctx.items]
    assert other["mode"] == mode


def test_a_library_ingested_without_vectors_gets_them_once_embedding_is_on(
    with_model: Path, store: Store, tmp_path: Path
) -> None:
    """Weights installed after the first ingest: the next one embeds every stored
    snippet, from the store, without extracting the unchanged files again; status and
    retrieve say how much has vectors meanwhile."""
    lib, library_ = library(tmp_path), Library(store)
    ingest([str(lib)], make_config(), store, IngestOptions(workers=1, embed=False))
    assert not any("embedding" in d for d in stored_snippets(store))
    before = library_.vectors()
    assert before.snippets > 0 and before.snippets_embedded == before.documents_embedded == 0
    assert "have no vector" in retrieve(store, "the cat sat", 600).note
    report = ingest([str(lib)], make_config(), store, IngestOptions(workers=1))
    snippets = stored_snippets(store)
    assert report.embedded == len(snippets) > 0
    assert all(len(d["embedding"]) == 384 for d in snippets)  # type: ignore[arg-type]
    assert {d["embedder"] for d in snippets} == {report.embedder}
    assert len(report.unchanged) == 2 and not report.ingested and not report.failed
    assert sorted(report.vectors_added) == sorted(str(lib / n) for n in TEXTS)
    assert report.seconds["extract"] == 0
    after = library_.vectors()
    assert after.complete and after.documents_embedded == after.documents == 2
    ctx = retrieve(store, "the cat sat", 600)
    assert ctx.mode == "hybrid" and ctx.note == ""
    again = ingest([str(lib)], make_config(), store, IngestOptions(workers=1))
    assert again.embedded == 0 and not again.vectors_added


def test_snippets_that_lost_their_vectors_get_them_back(
    with_model: Path, store: Store, tmp_path: Path
) -> None:
    """What counts is what the snippets hold, not what the record says: one whose
    vector is gone (or is another model's) is embedded again, its file left alone."""
    lib = library(tmp_path)
    ingest([str(lib)], make_config(), store, IngestOptions(workers=1))
    cat = next(d for d in stored_snippets(store) if str(d["source"]).endswith("cats.md"))
    bare = {k: v for k, v in cat.items() if k not in ("embedding", "embedder")}
    assert not store.upsert(CHUNKS, [bare])
    assert Library(store).vectors().missing == 1
    report = ingest([str(lib)], make_config(), store, IngestOptions(workers=1))
    assert report.vectors_added == [str(lib / "cats.md")] and len(report.unchanged) == 2
    assert Library(store).vectors().complete


def test_status_and_the_reader_show_the_coverage(
    with_model: Path, store: Store, tmp_path: Path, folio_env: Path
) -> None:
    """`folio status` (text and --json) and the reader's home page say how many snippets
    hold vectors of the model, and status what to run when some do not."""
    lib = library(tmp_path)
    ingest([str(lib)], make_config(), store, IngestOptions(workers=1, embed=False))
    env = {**os.environ, "COLUMNS": "80"}
    partial = json.loads(folio(env, "status", "--json").stdout)["vectors"]
    assert partial["snippets"] > 0 and partial["snippets_embedded"] == 0
    assert partial["documents"] == 2 and partial["embedder"].endswith("/int8/split")
    assert "`folio ingest` embeds the rest" in folio(env, "status").stdout
    report = ingest([str(lib)], make_config(), store, IngestOptions(workers=1))
    shown = json.loads(folio(env, "status", "--json").stdout)["vectors"]
    assert shown["snippets_embedded"] == shown["snippets"] == partial["snippets"]
    assert shown["documents_embedded"] == 2
    line = next(x for x in folio(env, "status").stdout.splitlines() if x.startswith("vectors:"))
    assert f"{shown['snippets']} of {shown['snippets']} snippets, 2 of 2 documents" in line
    home = TestClient(build_app(Library(store)), base_url="http://127.0.0.1").get("/")
    assert f"{shown['snippets']} with vectors of {report.embedder}" in home.text


def test_a_library_embedded_by_an_older_folio_is_not_extracted_again(
    with_model: Path, store: Store, tmp_path: Path
) -> None:
    """An older Folio put the model's name in the records' fingerprint and stored vectors
    without it: its documents are current (not extracted again), their snippets are
    embedded once more and the records get today's fingerprint."""
    lib = library(tmp_path)
    first = ingest([str(lib)], make_config(), store, IngestOptions(workers=1))
    legacy = config_fingerprint(make_config(), first.embedder)
    records = [r for r in store.export(DOCUMENTS) if r["status"] == "complete"]
    assert not store.upsert(DOCUMENTS, [r | {"config": legacy} for r in records])
    old = [{k: v for k, v in d.items() if k != "embedder"} for d in stored_snippets(store)]
    assert not store.upsert(CHUNKS, old)
    report = ingest([str(lib)], make_config(), store, IngestOptions(workers=1))
    assert len(report.unchanged) == 2 and not report.ingested and len(report.vectors_added) == 2
    assert {r["config"] for r in store.export(DOCUMENTS)} == {config_fingerprint(make_config())}
    assert Library(store).vectors().complete
