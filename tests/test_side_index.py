"""The lexical side index against a real server: it holds exactly the snippets of the
complete documents after every kind of write, survives kill -9, and ranks by BM25 over
the whole library."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from pipeline import make_config
from pipeline.index import side_index
from pipeline.index.documents import delete_document
from pipeline.index.lexical import library_state
from pipeline.index.schema import CHUNKS, DOCUMENTS
from pipeline.index.store import Store
from pipeline.ingest import IngestOptions, ingest
from pipeline.retrieve import Filters, rank, retrieve

from .test_ingest import copies, wait_for_complete

CONFIG = make_config()


def complete_snippets(store: Store) -> set[str]:
    """What the side index must hold: the snippets of documents recorded complete."""
    done = {r["doc_id"] for r in store.export(DOCUMENTS) if r["status"] == "complete"}
    return {d["id"] for d in store.export(CHUNKS) if d["tier"] == "snippet" and d["doc_id"] in done}


def assert_agrees(store: Store) -> None:
    index = side_index.current(store)
    assert set(index.ids) == complete_snippets(store)
    assert len(index.ids) == len(set(index.ids))


def test_agrees_after_ingest_delete_prune_and_reindex(store: Store, tmp_path: Path) -> None:
    lib = copies(tmp_path / "lib", 4)
    ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    assert_agrees(store)
    assert len(side_index.current(store).ids) > 0
    first = sorted(lib.iterdir())[0]
    delete_document(store, store.export(DOCUMENTS, f"path:=`{first}`")[0]["doc_id"])
    assert_agrees(store)
    sorted(lib.iterdir())[1].unlink()
    report = ingest([str(lib)], CONFIG, store, IngestOptions(workers=1, prune=True))
    assert len(report.pruned) == 1
    assert_agrees(store)
    store.reindex(CHUNKS)
    store.reindex(DOCUMENTS)
    assert_agrees(store)


def test_a_complete_record_without_its_chunks_is_left_out(store: Store, tmp_path: Path) -> None:
    lib = copies(tmp_path / "lib", 2)
    ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    gone = store.export(DOCUMENTS)[0]["doc_id"]
    store.delete_where(CHUNKS, f"doc_id:={gone}")  # as a racing delete or reindex would
    index = side_index.current(store)
    assert all(d.doc_id != gone for d in index.docs)
    assert set(index.ids) == complete_snippets(store) - {
        d["id"] for d in store.export(CHUNKS) if d["doc_id"] == gone
    }


def test_saved_on_disk_and_reloaded_damaged_or_not(store: Store, tmp_path: Path) -> None:
    lib = copies(tmp_path / "lib", 2)
    ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    base = side_index.root(store)
    fingerprint = library_state(store).fingerprint()
    assert (base / fingerprint / "meta.json").is_file()
    built = side_index.current(store)
    terms = ["ownership", "borrow", "scope"]
    assert built.lead is not None  # the rust chapter's headings are the snippets' leads
    side_index._memo.clear()  # a new process: from disk
    loaded = side_index.current(store)
    assert loaded.fingerprint == fingerprint
    scores = built.scores(terms, terms)
    assert scores.max() > 0 and loaded.scores(terms, terms).tolist() == scores.tolist()
    side_index._memo.clear()
    (base / fingerprint / "ids.json").write_text("{not json", encoding="utf-8")
    (base / ".tmp-left-by-kill").mkdir()
    assert_agrees(store)  # rebuilt from the store


def test_kill_9_mid_ingest_then_query(store: Store, tmp_path: Path, folio_env: Path) -> None:
    lib = copies(tmp_path / "big", 60)
    cmd = [sys.executable, "-m", "pipeline", "ingest", str(lib), "--workers", "1", "--json"]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ.copy()
    )
    store.ensure_collections()
    wait_for_complete(store, 3)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert_agrees(store)
    done = subprocess.run(cmd, capture_output=True, text=True, env=os.environ.copy(), timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert_agrees(store)


def test_bm25_finds_the_dense_passage_among_many_matches(store: Store, tmp_path: Path) -> None:
    """A word in 60 snippets: the one about it ranks first, whatever its position (a
    per-word Typesense pool kept the 50 with the highest chunk_index)."""
    lib = tmp_path / "lib"
    lib.mkdir()
    filler = "The quartermaster counted barrels in the store room. " * 40
    parts = ["# Quartz\n\nQuartz quartz quartz: quartz crystals and quartz veins.\n"]
    parts += [f"# Part {i}\n\nOnce, quartz. {filler}\n" for i in range(60)]
    (lib / "book.md").write_text("\n".join(parts), encoding="utf-8")
    shutil.copy(lib / "book.md", lib / "book-copy.md")
    (lib / "book-copy.md").write_text("# Other\n\n" + filler * 3, encoding="utf-8")
    ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    assert store.count(CHUNKS, "tier:=snippet") > 60
    best = rank(store, "quartz", k=3, mode="lexical")
    assert "quartz crystals" in best[0].text
    # not every word needs to match; absent words change nothing
    again = rank(store, "quartz zygomorphic flibbertigibbet", k=3, mode="lexical")
    assert [h.id for h in again] == [h.id for h in best]
    ctx = retrieve(store, "quartz veins", 600, Filters(), mode="lexical")
    assert ctx.mode == "lexical" and "quartz veins" in ctx.items[0].text
