"""Ingest into a real Typesense server: counts, facets, parents, failures, idempotence,
replacement of changed files, and convergence after a SIGKILL."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from pipeline import chunk_file, make_config
from pipeline.index.records import ChunkRecord
from pipeline.index.schema import CHUNKS, DOCUMENTS, Encoded
from pipeline.index.store import Store
from pipeline.ingest import (
    FileResult,
    Found,
    Indexer,
    IngestOptions,
    Job,
    Report,
    ingest,
    process_file,
)
from pipeline.ingest.catalog import Plan
from pipeline.ingest.files import file_sha256

ROOT = Path(__file__).parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
CONFIG = make_config()


def library(tmp: Path) -> Path:
    lib = tmp / "lib"
    (lib / "md").mkdir(parents=True)
    shutil.copy(FIXTURES / "golden" / "rust-ownership.md", lib / "md" / "ownership.md")
    shutil.copy(FIXTURES / "golden" / "fastapi-query-params.md", lib / "md" / "query.md")
    shutil.copy(FIXTURES / "extract" / "pdflatex-outline.pdf", lib / "outline.pdf")
    shutil.copy(FIXTURES / "extract" / "childrens-literature.epub", lib / "kids.epub")
    (lib / "notes.txt").write_text("CHAPTER I\n\nSome plain text.\n\nCHAPTER II\n\nMore text.\n")
    (lib / "broken.pdf").write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog >>\ntruncated")
    return lib


def copies(lib: Path, n: int) -> Path:
    """``n`` markdown files with distinct content (so distinct documents)."""
    lib.mkdir()
    src = (FIXTURES / "golden" / "rust-ownership.md").read_text(encoding="utf-8")
    for i in range(n):
        (lib / f"doc{i:03}.md").write_text(f"# Copy {i}\n\n{src}", encoding="utf-8")
    return lib


def expected_docs(paths: list[Path]) -> dict[str, dict[str, object]]:
    from pipeline.extract import extract_file
    from pipeline.ingest.files import file_sha256

    out: dict[str, dict[str, object]] = {}
    for p in paths:
        doc = extract_file(str(p))
        from dataclasses import replace

        doc = replace(doc, doc_id=file_sha256(p))
        from pipeline import chunk_document

        for c in chunk_document(doc, CONFIG):
            out[c.id] = ChunkRecord.from_chunk(c, doc.format).to_store()
    return out


def stored(store: Store) -> dict[str, dict[str, Any]]:
    return {d["id"]: d for d in store.export(CHUNKS)}


def differences(got: dict[str, dict[str, Any]], want: dict[str, dict[str, Any]]) -> list[str]:
    """What stands between the stored chunks and the expected ones, short enough to read
    in a CI log: missing and extra ids, and per differing chunk the fields that differ."""
    out = [f"missing {i} ({want[i].get('doc_title')})" for i in sorted(want.keys() - got.keys())]
    out += [f"extra {i} ({got[i].get('doc_title')})" for i in sorted(got.keys() - want.keys())]
    for i in sorted(want.keys() & got.keys()):
        g, w = got[i], want[i]
        fields = sorted(k for k in g.keys() | w.keys() if g.get(k) != w.get(k))
        out += [f"{i} {k}: {_mismatch(g.get(k), w.get(k))}" for k in fields]
    return out


def _mismatch(got: object, want: object) -> str:
    """The two values; strings from a little before the first character that differs."""
    if isinstance(got, str) and isinstance(want, str):
        same = next((n for n, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), None)
        at = max(0, (min(len(got), len(want)) if same is None else same) - 20)
        return (
            f"stored [{at}:] of {len(got)} chars {got[at : at + 100]!r}, "
            f"expected of {len(want)} chars {want[at : at + 100]!r}"
        )
    return f"stored {got!s:.160} expected {want!s:.160}"


def assert_stored(store: Store, want: dict[str, dict[str, Any]]) -> None:
    problems = differences(stored(store), want)
    assert not problems, f"{len(problems)} differences:\n" + "\n".join(problems[:20])


def good_files(lib: Path) -> list[Path]:
    return sorted(p for p in lib.rglob("*") if p.is_file() and p.name != "broken.pdf")


def test_mixed_library_counts_facets_parents_failures(store: Store, tmp_path: Path) -> None:
    lib = library(tmp_path)
    report = ingest([str(lib)], CONFIG, store, IngestOptions(workers=2))
    assert len(report.ingested) == 5
    assert [(f.path, f.stage) for f in report.failed] == [(str(lib / "broken.pdf"), "extract")]
    assert "pdf" in report.failed[0].reason.lower() or report.failed[0].reason
    docs = stored(store)
    assert docs == expected_docs(good_files(lib))
    # facet counts match what is stored
    res = store.search(CHUNKS, {"q": "*", "facet_by": "tier,content_hints,format", "per_page": 0})
    facets = {
        f["field_name"]: {c["value"]: c["count"] for c in f["counts"]} for f in res["facet_counts"]
    }
    assert facets["tier"] == {
        t: sum(1 for d in docs.values() if d["tier"] == t) for t in ("section", "snippet")
    }
    tables = sum(1 for d in docs.values() if "table" in d["content_hints"])
    assert facets["content_hints"].get("table", 0) == tables
    assert set(facets["format"]) == {"markdown", "pdf", "epub", "text"}
    # every snippet's parent is a stored section of the same document
    for d in docs.values():
        if d["tier"] == "snippet":
            parent = docs[str(d["parent_id"])]
            assert parent["tier"] == "section" and parent["doc_id"] == d["doc_id"]
    records = {r["path"]: r for r in store.export(DOCUMENTS)}
    assert records[str(lib / "broken.pdf")]["status"] == "failed"
    assert {r["status"] for p, r in records.items() if p != str(lib / "broken.pdf")} == {"complete"}


def test_front_matter_only_file_is_reported_empty(store: Store, tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "_index.md").write_text("---\ntitle: Section\nweight: 3\n---\n")
    (lib / "page.md").write_text("# Page\n\nSome text.\n")
    report = ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    assert report.empty == [str(lib / "_index.md")] and report.failed == []
    assert report.ingested == [str(lib / "page.md")]
    assert store.count(DOCUMENTS, "status:=empty") == 1
    again = ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    assert sorted(again.unchanged) == sorted(str(p) for p in lib.iterdir())


def test_second_run_changes_nothing(store: Store, tmp_path: Path) -> None:
    lib = library(tmp_path)
    ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    before = stored(store)
    report = ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    assert report.ingested == [] and len(report.unchanged) == 5
    assert stored(store) == before


def test_changed_file_leaves_no_stale_chunks(store: Store, tmp_path: Path) -> None:
    lib = library(tmp_path)
    ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    target = lib / "md" / "ownership.md"
    old_ids = {c.id for c in chunk_file(target)}
    target.write_text("# Replaced\n\nThe whole chapter was rewritten.\n", encoding="utf-8")
    report = ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    assert report.ingested == [str(target)]
    docs = stored(store)
    assert not old_ids & set(docs)
    assert docs == expected_docs(good_files(lib))
    assert store.count(DOCUMENTS, "status:=complete") == 5


def test_prune_and_delete(store: Store, tmp_path: Path) -> None:
    lib = library(tmp_path)
    ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    (lib / "notes.txt").unlink()
    report = ingest([str(lib)], CONFIG, store, IngestOptions(workers=1, prune=True))
    assert report.pruned == [str(lib / "notes.txt")]
    assert_stored(store, expected_docs(good_files(lib)))


def test_config_change_rechunks(store: Store, tmp_path: Path) -> None:
    lib = library(tmp_path)
    ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    small = make_config({"preset": "small"})
    report = ingest([str(lib)], small, store, IngestOptions(workers=1))
    assert len(report.ingested) == 5
    n = sum(len(chunk_file(p, small)) for p in good_files(lib))
    assert store.count(CHUNKS) == n


def test_batch_size_option_sets_the_import_size(store: Store, tmp_path: Path) -> None:
    """``IngestOptions.batch_size`` reaches the indexer: a batch goes out every that many
    chunks, and the document is complete only after the last, partial one."""
    doc = tmp_path / "doc.md"
    shutil.copy(FIXTURES / "golden" / "rust-ownership.md", doc)
    found = Found(str(doc), file_sha256(doc), doc.stat().st_size)
    result = process_file(found, Job(CONFIG, "fingerprint"))
    n = len(result.chunks)
    assert n > 16 and n % 8, n  # two full batches and a partial one at least
    store.ensure_collections()
    report = Report()
    work = Plan((found,), (), (), (), {}, frozenset({found.sha256}))
    options = IngestOptions(batch_size=8)
    indexer = Indexer(store, work, set(), report, "fingerprint", options.batch_size)
    indexer.add(result)
    assert (store.count(CHUNKS), indexer.pending) == (n - n % 8, n % 8)
    assert store.count(DOCUMENTS, "status:=indexing") == 1 and report.ingested == []
    indexer.flush()
    assert store.count(CHUNKS) == n and report.ingested == [str(doc)]
    assert store.count(DOCUMENTS, "status:=complete") == 1


def test_worker_sends_its_chunks_encoded_as_ascii_json(tmp_path: Path) -> None:
    """A worker of a run without vectors encodes its chunks (the ingesting process only
    joins the lines): each line is the stored document, ASCII (0.24 drops bytes of a
    raw UTF-8 body); a run that adds vectors gets records, to add them to."""
    lib = library(tmp_path)
    for path in good_files(lib):
        found = Found(str(path), file_sha256(path), path.stat().st_size)
        result = process_file(found, Job(CONFIG, "fingerprint"))
        lines = [c.line for c in result.chunks if isinstance(c, Encoded)]
        assert len(lines) == len(result.chunks) > 0 and all(line.isascii() for line in lines)
        want = expected_docs([path])
        assert [json.loads(line) for line in lines] == list(want.values())
        records = process_file(found, Job(CONFIG, "fingerprint", embed=True)).chunks
        assert [c.to_store() for c in records if isinstance(c, ChunkRecord)] == list(want.values())


def test_run_replaces_the_worker_pool(store: Store, tmp_path: Path) -> None:
    """The results ``run`` gives are what is indexed and reported: no file is processed."""
    lib = copies(tmp_path / "lib", 2)
    asked: list[str] = []

    def replay(todo: Sequence[Found], job: Job) -> Iterator[FileResult]:
        for work in todo:
            asked.append(work.path)
            yield FileResult.failed(work, "extract", "replayed")

    report = ingest([str(lib)], CONFIG, store, IngestOptions(workers=1), run=replay)
    assert sorted(asked) == sorted(str(p) for p in lib.iterdir())
    assert sorted((f.path, f.stage, f.reason) for f in report.failed) == [
        (path, "extract", "replayed") for path in sorted(asked)
    ]
    assert store.count(DOCUMENTS, "status:=failed") == 2 and store.count(CHUNKS) == 0


def wait_for_complete(store: Store, n: int, limit: float = 120.0) -> None:
    """Until ``n`` documents are marked complete: the ingest is under way."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and store.count(DOCUMENTS, "status:=complete") < n:
        time.sleep(0.02)


def assert_complete_means_stored(store: Store) -> None:
    """Nothing is marked complete unless all of its chunks are there."""
    for record in store.export(DOCUMENTS):
        if record["status"] == "complete":
            n = store.count(CHUNKS, f"doc_id:={record['doc_id']}")
            assert n == record["sections"] + record["snippets"], record["path"]


def assert_rerun_converges(cmd: list[str], store: Store, lib: Path) -> None:
    rerun = subprocess.run(cmd, capture_output=True, text=True, env=os.environ.copy(), timeout=300)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert_stored(store, expected_docs(sorted(lib.iterdir())))
    assert store.count(DOCUMENTS, "status:=complete") == len(list(lib.iterdir()))


def test_sigkill_mid_ingest_then_rerun_converges(
    store: Store, tmp_path: Path, folio_env: Path
) -> None:
    lib = copies(tmp_path / "big", 120)
    cmd = [sys.executable, "-m", "pipeline", "ingest", str(lib), "--workers", "1", "--json"]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ.copy()
    )
    store.ensure_collections()
    wait_for_complete(store, 5)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = store.count(DOCUMENTS, "status:=complete")
    assert 0 < partial < 120, "the kill should land mid-run"
    assert_rerun_converges(cmd, store, lib)


def test_ctrl_c_mid_ingest_summarises_then_rerun_converges(
    store: Store, tmp_path: Path, folio_env: Path
) -> None:
    lib = copies(tmp_path / "big", 120)
    cmd = [sys.executable, "-m", "pipeline", "ingest", str(lib), "--workers", "2", "--json"]
    # a terminal's Ctrl-C reaches the whole foreground process group
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=os.environ.copy(), start_new_session=True,
    )  # fmt: skip
    store.ensure_collections()
    wait_for_complete(store, 5)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err
    summary = json.loads(out)
    assert summary["interrupted"] is True
    assert 0 < len(summary["ingested"]) < 120, "the interrupt should land mid-run"
    # the summary counts what the store holds as complete, no more and no less
    assert len(summary["ingested"]) == store.count(DOCUMENTS, "status:=complete")
    assert_complete_means_stored(store)
    assert_rerun_converges(cmd, store, lib)
