"""The lexical index against a real server: writers keep it holding exactly the snippets
of the complete documents, by the difference; readers open it and never build it; a
reader on another host catches up by the difference, deletes included; a damaged index
is set aside and rebuilt once; kill -9 mid-ingest converges."""

from __future__ import annotations

import gc
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline import Library, make_config
from pipeline.index import generation, lexical, side_index
from pipeline.index.documents import delete_document
from pipeline.index.keys import search_only_key
from pipeline.index.records import DocumentRecord
from pipeline.index.schema import CHUNKS, DOCUMENTS
from pipeline.index.settings import Node
from pipeline.index.store import Store
from pipeline.ingest import IngestOptions, ingest
from pipeline.retrieve import Filters, rank, retrieve
from pipeline.shared.pathtext import stored

from .test_ingest import copies, wait_for_complete

CONFIG = make_config()


def complete_snippets(store: Store) -> set[str]:
    """What the index must hold: the snippets of documents recorded complete."""
    done = {r["doc_id"] for r in store.export(DOCUMENTS) if r["status"] == "complete"}
    return {d["id"] for d in store.export(CHUNKS) if d["tier"] == "snippet" and d["doc_id"] in done}


def held(store: Store) -> list[str]:
    index = side_index.current(store)
    assert index is not None
    return index.ids()


def assert_agrees(store: Store) -> None:
    ids = held(store)
    assert set(ids) == complete_snippets(store)
    assert len(ids) == len(set(ids))


def commits(store: Store) -> int:
    return lexical.read_meta(side_index.location(store)).generation


def test_agrees_after_ingest_delete_prune_and_reindex(store: Store, tmp_path: Path) -> None:
    lib = copies(tmp_path / "lib", 4)
    ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    assert_agrees(store)
    assert len(held(store)) > 0
    first = sorted(lib.iterdir())[0]
    library = Library(store)
    library.delete(str(first))
    assert_agrees(store)
    sorted(lib.iterdir())[1].unlink()
    report = ingest([str(lib)], CONFIG, store, IngestOptions(workers=1, prune=True))
    assert len(report.pruned) == 1
    assert_agrees(store)
    library.reindex()
    assert_agrees(store)


def test_writers_change_it_by_the_difference_and_readers_never_build(
    store: Store, tmp_path: Path
) -> None:
    lib = copies(tmp_path / "lib", 5)
    ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    path = side_index.location(store)
    segments = {s["segment_id"] for s in json.loads((path / "meta.json").read_text())["segments"]}
    before = commits(store)
    # A reader after the writer: the index is current, nothing is written.
    retrieve(store, "What is ownership?", 500, mode="lexical")
    assert commits(store) == before
    # One file changes: one commit adds it and deletes the old content; the other
    # documents' segment stays as it was (no rebuild).
    changed = sorted(lib.iterdir())[2]
    changed.write_text(changed.read_text() + "\n\nA new paragraph about zanzibar.\n")
    ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    assert commits(store) == before + 1
    kept = {s["segment_id"] for s in json.loads((path / "meta.json").read_text())["segments"]}
    assert segments & kept
    assert_agrees(store)
    assert "zanzibar" in rank(store, "zanzibar", k=1, mode="lexical")[0].text.lower()


def test_a_reader_on_another_host_catches_up_with_deletes(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second FOLIO_HOME against the same server, through a search-only key."""
    lib = copies(tmp_path / "lib", 4)
    ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    writer_home = os.environ["FOLIO_HOME"]
    reader = Store(store.settings, nodes=store.nodes, api_key=search_only_key(store))
    monkeypatch.setenv("FOLIO_HOME", str(tmp_path / "other-host"))
    assert set(held(reader)) == complete_snippets(store)  # built once, by search
    path = side_index.location(reader)
    inode, first = path.stat().st_ino, commits(reader)
    monkeypatch.setenv("FOLIO_HOME", writer_home)
    delete_document(store, store.export(DOCUMENTS)[0]["doc_id"])
    side_index.refresh(store)
    (lib / "new.md").write_text("# New\n\nQuokkas live on Rottnest Island.\n" * 20)
    ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    monkeypatch.setenv("FOLIO_HOME", str(tmp_path / "other-host"))
    assert set(held(reader)) == complete_snippets(store)
    assert path.stat().st_ino == inode and commits(reader) == first + 1  # by the difference
    assert "quokkas" in rank(reader, "quokkas Rottnest", k=1, mode="lexical")[0].text.lower()


def _truncate_segment(path: Path) -> None:
    name = next(p for p in sorted(path.iterdir()) if p.suffix == ".idx")
    name.write_bytes(name.read_bytes()[:10])


def _delete_segment_file(path: Path) -> None:
    next(p for p in sorted(path.iterdir()) if p.suffix == ".store").unlink()


def _empty_tantivy_meta(path: Path) -> None:
    (path / "meta.json").write_text("{}", encoding="utf-8")


def _garbage_folio_meta(path: Path) -> None:
    (path / lexical.META_FILE).write_text('{"format": 3, "commit": "x"', encoding="utf-8")


def _rows_without_catalog(path: Path) -> None:
    writer = lexical.LexicalWriter(path)
    snippet = {"id": "stray", "doc_id": "stray", "retrieval_text": "stray words"}
    doc = lexical.DocInfo("stray", "Stray", "stray.md", "markdown", 1, "")
    writer._writer.add_document(lexical._snippet_row(snippet, doc))
    writer._writer.commit()
    writer.close()


def _older_format(path: Path) -> None:
    meta = json.loads((path / lexical.META_FILE).read_text())
    (path / lexical.META_FILE).write_text(json.dumps(meta | {"format": 2}), encoding="utf-8")


DAMAGE: dict[str, Callable[[Path], None]] = {
    "truncated segment": _truncate_segment,
    "deleted segment file": _delete_segment_file,
    "empty meta.json": _empty_tantivy_meta,
    "unreadable folio.json": _garbage_folio_meta,
    "rows without catalog": _rows_without_catalog,
    "older format": _older_format,
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_index_is_set_aside_and_rebuilt(
    store: Store, tmp_path: Path, folio_env: Path, damage: str
) -> None:
    lib = copies(tmp_path / "lib", 3)
    ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    path = side_index.location(store)
    side_index._open.clear()  # a new process: no mapping of the files left in this one
    gc.collect()
    DAMAGE[damage](path)
    # As a user meets it: a CLI retrieve answers (its process rebuilds the index).
    cmd = [sys.executable, "-m", "pipeline", "retrieve", "What is ownership?", "--json"]
    done = subprocess.run(cmd, capture_output=True, text=True, env=os.environ.copy(), timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["items"]
    assert_agrees(store)
    if damage != "unreadable folio.json":  # that one is only "behind": caught up in place
        assert path.with_name(path.name + ".damaged").is_dir()


def test_while_another_process_rebuilds_readers_answer_from_typesense(
    store: Store, tmp_path: Path
) -> None:
    lib = copies(tmp_path / "lib", 2)
    ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    shutil.rmtree(side_index.location(store))
    side_index._open.clear()
    lock = Path(os.environ["FOLIO_HOME"]) / "locks" / f"{store.identity()}.lexical.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(lock)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        ctx = retrieve(store, "What is ownership?", 500, mode="lexical")
        assert ctx.items and "being rebuilt" in ctx.note
        assert time.monotonic() - started < 30
    finally:
        holder.kill()
        holder.wait()
    assert not retrieve(store, "What is ownership?", 500, mode="lexical").note
    assert_agrees(store)


_HOLD = """
import sys, time
from pathlib import Path
from pipeline.index.lock import library_lock
with library_lock(Path(sys.argv[1]), wait=None):
    print("held", flush=True)
    time.sleep(120)
"""


def test_a_complete_record_without_its_chunks_is_left_out(store: Store, tmp_path: Path) -> None:
    lib = copies(tmp_path / "lib", 2)
    ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    gone = store.export(DOCUMENTS)[0]["doc_id"]
    store.delete_where(CHUNKS, f"doc_id:={gone}")  # as a racing delete or reindex would
    shutil.rmtree(side_index.location(store))
    side_index._open.clear()
    index = side_index.current(store, generation.read(store))
    assert index is not None and all(d.doc_id != gone for d in index.docs)
    assert set(index.ids()) == complete_snippets(store) - {
        d["id"] for d in store.export(CHUNKS) if d["doc_id"] == gone
    }


def test_a_cluster_node_that_is_down_is_not_the_one_read(store: Store, tmp_path: Path) -> None:
    """The index reads records and snippets from one node: one that answers, not the
    first one whatever its state (with node 0 killed, each ingest on a cluster spent
    ~47 s in retries at its end and left the index behind)."""
    lib = copies(tmp_path / "lib", 2)
    ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        down = Node("127.0.0.1", int(closed.getsockname()[1]))
    cluster = Store(store.settings, nodes=(down, *store.nodes), api_key=store.api_key)
    started = time.monotonic()
    index = side_index.current(cluster, generation.read(store))
    assert index is not None and set(index.ids()) == complete_snippets(store)
    assert time.monotonic() - started < 10


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
    assert_agrees(store)  # the completed documents are found, without their writer's sync
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


def test_the_catalog_of_typed_records_is_that_of_the_stored_rows() -> None:
    """The ledger's catalog (``catalog_of_records``) is the one a read of the store gives
    (``catalog_of``): the keeper's record over a copy's, complete documents only, a path
    that is not UTF-8 in its stored form (else the index's rows of it differ from what a
    reader compares them with)."""
    odd = os.fsdecode(b"/lib/caf\xe9.md")

    def row(i: str, doc: str, path: str, status: str = "complete") -> dict[str, object]:
        return {
            "id": i, "doc_id": doc, "path": path, "title": f"T {path}", "format": "markdown",
            "bytes": 5, "sha256": doc, "status": status, "snippets": 3, "config": "c",
        }  # fmt: skip

    rows = [
        row("b" * 64, "b" * 64, stored(odd)),
        row("copy-1", "a" * 64, "/lib/0-copy.md", "duplicate"),
        row("a" * 64, "a" * 64, "/lib/z-keeper.md"),
        row("copy-2", "c" * 64, "/lib/only-copy.md"),  # complete, no keeper's record
        row("d" * 64, "d" * 64, "/lib/failed.md", "failed"),
    ]
    records = [DocumentRecord.from_store(r) for r in rows]
    assert records[0].path == odd  # as Python opens it
    want = side_index.catalog_of(rows)
    assert [(d.doc_id, d.path) for d in want] == [
        ("a" * 64, "/lib/z-keeper.md"),
        ("b" * 64, stored(odd)),
        ("c" * 64, "/lib/only-copy.md"),
    ]
    assert side_index.catalog_of_records(records) == want
