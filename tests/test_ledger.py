"""The ingest's ledger (issue #40 item 7): the store's records and chunk counts kept on
disk per store state, so a one-file change reads back only what it changed. Used when
its state is the store's; rebuilt from the store when it is missing, damaged, or of
another state (another FOLIO_HOME wrote, a writer was killed): what an ingest then does
and leaves is what it would with a fresh read."""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pipeline import make_config
from pipeline.index import generation, side_index, vectors
from pipeline.index.coverage import embedded_per_doc
from pipeline.index.schema import CHUNKS, DOCUMENTS
from pipeline.index.store import Store
from pipeline.ingest import IngestOptions, ingest, ledger
from pipeline.ingest.hashes import RACY_NS

from .helpers import folio
from .test_embed import make_tiny_model
from .test_index_faults import _kill_at_lexical_lock

CONFIG = make_config()
ONE = IngestOptions(workers=1)
PAST_RACY = RACY_NS / 1e9 + 0.1


def book(path: Path, words: str) -> Path:
    path.write_text(f"# {words.title()}\n\nA page about {words}, long enough to chunk.\n" * 3)
    return path


def library(tmp_path: Path) -> Path:
    lib = tmp_path / "lib"
    lib.mkdir()
    for word in ("apples", "bananas", "cherries"):
        book(lib / f"{word}.md", word)
    time.sleep(PAST_RACY)
    return lib


def assert_fresh(store: Store) -> None:
    """The ledger on disk holds the store as a fresh read gives it, for the store's state
    now; and the lexical index holds the store's complete documents."""
    saved = ledger.saved(ledger.path(store))
    assert saved.token == generation.read(store)
    assert saved.records == ledger.read(store).records
    assert saved.counts == store.facet_counts(CHUNKS, "doc_id", 1000)
    if saved.model:
        assert saved.vectors == embedded_per_doc(store, saved.model, 1000)
    index = side_index.current(store)
    assert index is not None
    assert list(index.docs) == side_index.complete_documents(store)


@pytest.fixture()
def whole_reads(store: Store, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The whole-collection reads the store is asked for (exports without a filter and
    faceted counts of every document), counted as they pass through to the server."""
    seen: list[str] = []
    export, facets = store.export, store.facet_counts

    def counted_export(
        name: str, filter_by: str | None = None, include: str | None = None
    ) -> list[dict[str, Any]]:
        if name == DOCUMENTS and (not filter_by or filter_by == "status:=complete"):
            seen.append(f"export {name} {filter_by or ''}")
        return export(name, filter_by, include)

    def counted_facets(name: str, field: str, limit: int) -> dict[str, int]:
        seen.append(f"facet {name}")
        return facets(name, field, limit)

    def counted_search(name: str, params: dict[str, Any]) -> dict[str, Any]:
        if params.get("facet_by") == "doc_id" and "doc_id:=" not in params.get("filter_by", ""):
            seen.append(f"facet {name} {params.get('filter_by', '')}")
        return search(name, params)

    search = store.search
    monkeypatch.setattr(store, "export", counted_export)
    monkeypatch.setattr(store, "facet_counts", counted_facets)
    monkeypatch.setattr(store, "search", counted_search)
    yield seen


def test_a_one_file_change_reads_none_of_the_library_back(
    store: Store, tmp_path: Path, whole_reads: list[str]
) -> None:
    lib = library(tmp_path)
    ingest([str(lib)], CONFIG, store, ONE)
    assert_fresh(store)
    whole_reads.clear()
    book(lib / "apples.md", "apples and pears")
    report = ingest([str(lib)], CONFIG, store, ONE)
    assert report.ingested == [str(lib / "apples.md")]
    assert len(report.unchanged) == 2
    assert whole_reads == []
    assert_fresh(store)


def test_copies_renames_and_prunes_leave_the_ledger_as_a_fresh_read(
    store: Store, tmp_path: Path, whole_reads: list[str]
) -> None:
    lib = library(tmp_path)
    ingest([str(lib)], CONFIG, store, ONE)
    steps: list[Callable[[], object]] = [
        lambda: shutil.copy(lib / "apples.md", lib / "apples-copy.md"),  # a duplicate
        lambda: (lib / "apples.md").unlink(),  # the copy becomes the keeper
        lambda: (lib / "bananas.md").rename(lib / "plantains.md"),  # a rename
        lambda: book(lib / "cherries.md", "sour cherries"),  # a change
        lambda: (lib / "cherries.md").unlink(),  # gone
    ]
    for step in steps:
        step()
        whole_reads.clear()
        ingest([str(lib)], CONFIG, store, IngestOptions(workers=1, prune=True))
        assert whole_reads == [], step
        assert_fresh(store)
    # The keeper that moved to the copy kept what the ledger leaves out of its records.
    kept = [r for r in store.export(DOCUMENTS) if r["status"] == "complete"]
    assert kept and all(r.get("headings") for r in kept), kept
    # A last unchanged run reads nothing back and changes nothing.
    whole_reads.clear()
    ingest([str(lib)], CONFIG, store, ONE)
    assert whole_reads == []
    assert_fresh(store)


@pytest.mark.parametrize(
    "damage",
    [
        "garbage",
        "truncated",
        "wrong shape",
        "unknown status",
        "fewer records",
        "short record",
        "other fields",
    ],
)
def test_a_damaged_ledger_is_ignored_and_rebuilt(
    store: Store, tmp_path: Path, whole_reads: list[str], damage: str, caplog: Any
) -> None:
    lib = library(tmp_path)
    ingest([str(lib)], CONFIG, store, ONE)
    where = ledger.path(store)
    good = json.loads(where.read_bytes())
    bad: dict[str, Any] = json.loads(json.dumps(good))
    if damage == "unknown status":
        bad["records"][0][ledger.NAMES.index("status")] = "sideways"
    elif damage == "short record":
        bad["records"][0] = bad["records"][0][:-1]
    elif damage == "other fields":  # another Folio's records, in another order
        bad["fields"] = bad["fields"][::-1]
    elif damage == "fewer records":  # one complete document forgotten
        bad["records"] = bad["records"][1:]
    elif damage == "wrong shape":
        bad["counts"] = [1, 2]
    blob = json.dumps(bad).encode()
    where.write_bytes(
        {"garbage": b"\x00\xff not json", "truncated": blob[: len(blob) // 2]}.get(damage, blob)
    )
    whole_reads.clear()
    report = ingest([str(lib)], CONFIG, store, ONE)
    assert len(report.unchanged) == 3 and not report.failed
    assert whole_reads  # read from the store instead
    assert "ledger" in caplog.text
    assert_fresh(store)  # and rebuilt


def test_a_write_from_another_home_is_seen(store: Store, tmp_path: Path, folio_env: Path) -> None:
    """A ledger trusted after another FOLIO_HOME deleted a document would call its file
    unchanged (same hash, same record as far as the ledger knows) and never put it back."""
    env = os.environ.copy()
    lib = library(tmp_path)
    assert folio(env, "ingest", str(lib)).returncode == 0
    (doc_id,) = [r["doc_id"] for r in store.export(DOCUMENTS) if "apples" in r["path"]]
    other = env | {"FOLIO_HOME": str(tmp_path / "other-host")}
    gone = folio(other, "delete", doc_id)
    assert gone.returncode == 0, gone.stderr[-2000:]
    run = folio(env, "ingest", str(lib), "--json")
    assert run.returncode == 0, run.stderr[-2000:]
    assert json.loads(run.stdout)["ingested"] == [str(lib / "apples.md")]
    assert_fresh(store)


def test_an_ingest_killed_mid_way_leaves_a_ledger_the_next_run_does_not_trust(
    store: Store, tmp_path: Path, folio_env: Path
) -> None:
    """Killed (-9) after its store writes, before its index sync and its ledger: the next
    run finds the store as the killed run left it (the changed file is in: unchanged)."""
    env = os.environ.copy()
    lib = library(tmp_path)
    assert folio(env, "ingest", str(lib)).returncode == 0
    old = ledger.path(store).read_bytes()
    book(lib / "apples.md", "apples and quinces")
    _kill_at_lexical_lock(store, env, "ingest", str(lib))
    assert ledger.path(store).read_bytes() == old  # what the killed run found
    run = folio(env, "ingest", str(lib), "--json")
    assert run.returncode == 0, run.stderr[-2000:]
    report = json.loads(run.stdout)
    assert report["ingested"] == [] and len(report["unchanged"]) == 3, report
    assert_fresh(store)


def test_a_write_from_outside_folio_is_seen(store: Store, tmp_path: Path) -> None:
    """Chunks deleted through Typesense's own API move no generation: the store's totals
    no longer match the ledger's, so the ingest reads the store and puts them back."""
    lib = library(tmp_path)
    ingest([str(lib)], CONFIG, store, ONE)
    (doc_id,) = [r["doc_id"] for r in store.export(DOCUMENTS) if "apples" in r["path"]]
    assert store.delete_where(CHUNKS, f"doc_id:={doc_id}") > 0
    report = ingest([str(lib)], CONFIG, store, ONE)
    assert report.ingested == [str(lib / "apples.md")]
    assert_fresh(store)


@pytest.fixture()
def with_model(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> str:
    """A generated BERT as the embedding model (whatever is installed): its name."""
    pytest.importorskip("onnxruntime")
    model = make_tiny_model(tmp_path_factory.mktemp("bert-384"), hidden=384)
    monkeypatch.setenv(vectors.MODEL_ENV, str(model))
    monkeypatch.setattr(vectors, "_loaded", {})  # the process-wide model of another test
    return str(vectors.embedder().name)


def test_an_embedding_ingest_counts_the_librarys_vectors_once(
    store: Store, tmp_path: Path, whole_reads: list[str], with_model: str
) -> None:
    """Which unchanged documents lack vectors was a faceted count over every snippet on
    each run (~1 s at 100k): the ledger keeps the count, per model."""
    lib = library(tmp_path)
    ingest([str(lib)], CONFIG, store, ONE)
    saved = ledger.saved(ledger.path(store))
    assert saved.model == with_model and sum(saved.vectors.values()) > 0
    assert_fresh(store)
    whole_reads.clear()
    book(lib / "apples.md", "apples and pears")
    report = ingest([str(lib)], CONFIG, store, ONE)
    assert report.ingested == [str(lib / "apples.md")] and report.embedded > 0
    assert whole_reads == []
    assert_fresh(store)


def test_vectors_changed_from_outside_are_seen_and_made_again(
    store: Store, tmp_path: Path, with_model: str, caplog: Any
) -> None:
    """A snippet's vector relabelled through the API moves no generation; the ledger's
    vector total no longer matches, so the ingest counts the store and embeds the
    document again."""
    caplog.set_level(logging.INFO, "folio.ingest")
    lib = library(tmp_path)
    ingest([str(lib)], CONFIG, store, ONE)
    snippet = next(d for d in store.export(CHUNKS) if d.get("embedder") == with_model)
    store.upsert(CHUNKS, [snippet | {"embedder": "another-model"}])
    report = ingest([str(lib)], CONFIG, store, ONE)
    assert "other vectors" in caplog.text
    assert report.vectors_added == [snippet["source"]]
    assert_fresh(store)
