"""A file is known by its absolute, resolved path; its content by the hash of the bytes
that were read and extracted. Against the real server."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from pipeline import make_config
from pipeline.index.documents import Deletion
from pipeline.index.schema import CHUNKS, DOCUMENTS
from pipeline.index.store import Store
from pipeline.ingest import IngestOptions, ingest, ledger
from pipeline.library import Library

from .test_ingest import (
    FIXTURES,
    assert_complete_means_stored,
    assert_stored,
    copies,
    expected_docs,
    stored,
)

CONFIG = make_config()
FOLIO = [sys.executable, "-m", "pipeline"]


def records(store: Store) -> dict[str, dict[str, object]]:
    return {str(r["path"]): r for r in store.export(DOCUMENTS)}


def folio_in(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [*FOLIO, *args], capture_output=True, text=True, env=os.environ.copy(), cwd=cwd,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def notes(root: Path, words: str) -> Path:
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "readme.md").write_text(f"# Readme\n\n{words} readme.\n")
    (root / "notes" / "other.md").write_text(f"# Other\n\n{words} other notes.\n")
    return root / "notes"


def test_rerun_repairs_a_complete_document_with_missing_chunks(
    store: Store, tmp_path: Path
) -> None:
    lib = copies(tmp_path / "lib", 3)
    ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    victim = store.export(DOCUMENTS)[0]
    store.delete_where(CHUNKS, f"doc_id:={victim['doc_id']}")  # as a racing writer did
    report = ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    assert report.ingested == [victim["path"]]
    assert len(report.unchanged) == 2
    assert_stored(store, expected_docs(sorted(lib.iterdir())))
    assert_complete_means_stored(store)


def test_same_relative_path_from_two_folders(store: Store, tmp_path: Path, folio_env: Path) -> None:
    a, b = tmp_path / "A", tmp_path / "B"
    notes(a, "Apples")
    notes(b, "Bananas")
    folio_in(a, "ingest", "notes")
    folio_in(b, "ingest", "notes")
    (b / "notes" / "other.md").unlink()
    folio_in(b, "ingest", "notes", "--prune")
    want = [a / "notes" / "other.md", a / "notes" / "readme.md", b / "notes" / "readme.md"]
    assert sorted(records(store)) == [str(p.resolve()) for p in want]
    assert_stored(store, expected_docs(want))
    assert {d["source"] for d in stored(store).values()} == {str(p) for p in want}


def test_prune_of_dot_from_inside_the_library(
    store: Store, tmp_path: Path, folio_env: Path
) -> None:
    lib = copies(tmp_path / "lib", 3)
    folio_in(lib, "ingest", ".")
    gone = sorted(lib.iterdir())[0]
    gone.unlink()
    done = folio_in(lib, "ingest", ".", "--prune", "--json")
    assert str(gone) in done.stdout
    assert sorted(records(store)) == sorted(str(p) for p in lib.iterdir())
    assert_stored(store, expected_docs(sorted(lib.iterdir())))


def test_records_stored_relative_by_an_older_folio_are_migrated(
    store: Store, tmp_path: Path
) -> None:
    lib = copies(tmp_path / "lib", 2)
    ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    # what an older Folio stored for `cd tmp_path && folio ingest lib`
    old = [r | {"path": os.path.relpath(r["path"], tmp_path)} for r in store.export(DOCUMENTS)]
    store.upsert(DOCUMENTS, old)
    chunks = [c | {"source": os.path.relpath(c["source"], tmp_path)} for c in store.export(CHUNKS)]
    store.upsert(CHUNKS, chunks)
    # An older Folio kept no ledger of the store (``ingest/ledger.py``): its home has none.
    ledger.discard(store)
    report = ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    assert sorted(report.ingested) == sorted(str(p) for p in lib.iterdir())
    assert sorted(records(store)) == sorted(str(p) for p in lib.iterdir())
    assert_stored(store, expected_docs(sorted(lib.iterdir())))


def test_a_file_rewritten_during_ingest_is_reported_not_stored(
    store: Store, tmp_path: Path
) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    book = lib / "book.md"
    src = (FIXTURES / "golden" / "rust-ownership.md").read_text(encoding="utf-8")
    book.write_text(src, encoding="utf-8")
    short = "# Rewritten\n\nOnly a little is left.\n"

    def rewrite(event: str, totals: dict[str, int]) -> None:
        if event == "start":  # hashed already, not yet extracted
            book.write_text(short, encoding="utf-8")

    report = ingest([str(lib)], CONFIG, store, IngestOptions(workers=1), progress=rewrite)
    assert [(f.path, f.stage) for f in report.failed] == [(str(book), "read")]
    assert "changed while it was being ingested" in report.failed[0].reason
    assert report.ingested == []
    assert stored(store) == {}  # nothing stored under the hash of bytes it did not read
    assert_complete_means_stored(store)
    again = ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    assert again.ingested == [str(book)]
    (record,) = store.export(DOCUMENTS)
    assert record["doc_id"] == hashlib.sha256(short.encode()).hexdigest()
    assert_stored(store, expected_docs([book]))


def test_editing_one_of_two_identical_files_keeps_the_other(store: Store, tmp_path: Path) -> None:
    lib = copies(tmp_path / "lib", 1)
    first = lib / "doc000.md"
    twin = lib / "twin.md"
    shutil.copy(first, twin)
    report = ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    assert report.duplicates == [(str(twin), str(first))]
    first.write_text("# Edited\n\nA new text.\n", encoding="utf-8")
    report = ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    assert str(first) in report.ingested
    assert_stored(store, expected_docs([first, twin]))
    assert_complete_means_stored(store)
    assert records(store)[str(twin)]["status"] == "complete"


def test_the_same_book_in_two_folders_is_tracked_per_path(store: Store, tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    shutil.copy(FIXTURES / "golden" / "rust-ownership.md", one / "book.md")
    shutil.copy(one / "book.md", two / "book.md")
    ingest([str(one)], CONFIG, store, IngestOptions(workers=1))
    report = ingest([str(two)], CONFIG, store, IngestOptions(workers=1))
    assert report.duplicates == [(str(two / "book.md"), str(one / "book.md"))]
    assert report.unchanged == []
    assert records(store)[str(two / "book.md")]["status"] == "duplicate"
    (one / "book.md").unlink()
    report = ingest([str(one)], CONFIG, store, IngestOptions(workers=1, prune=True))
    assert report.pruned == [str(one / "book.md")]
    assert_stored(store, expected_docs([two / "book.md"]))
    assert sorted(records(store)) == [str(two / "book.md")]
    assert records(store)[str(two / "book.md")]["status"] == "complete"
    assert_complete_means_stored(store)


def test_deleting_one_of_two_identical_files_by_path_keeps_the_content(
    store: Store, tmp_path: Path
) -> None:
    lib = copies(tmp_path / "lib", 1)
    first, twin = lib / "doc000.md", lib / "twin.md"
    shutil.copy(first, twin)
    ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    # A copy's record names its format as a read file's does, not by its suffix ("md").
    assert {r["format"] for r in records(store).values()} == {"markdown"}
    library = Library(store)
    deleted = library.delete(str(twin))
    assert sorted(records(store)) == [str(first)]
    assert_stored(store, expected_docs([first]))
    assert deleted == Deletion(0, (str(first),))
    # The keeper's file named: the other file holds the content now, its chunks cite it.
    ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    assert library.delete(str(first)) == Deletion(0, (str(twin),))
    assert sorted(records(store)) == [str(twin)]
    assert records(store)[str(twin)]["status"] == "complete"
    assert_stored(store, expected_docs([twin]))
    assert_complete_means_stored(store)
    # The last file of the content takes it with it.
    chunks = store.count(CHUNKS)
    assert library.delete(str(twin)) == Deletion(chunks)
    assert records(store) == {} and store.count(CHUNKS) == 0


def permission_bits_hold() -> list[str]:
    """A command prefix under which a file's permission bits bind: root passes them
    unless it gives up the two capabilities that let it (setpriv, from util-linux)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    assert setpriv, "setpriv (util-linux) is needed to test permissions as root"
    return [setpriv, "--bounding-set", "-dac_override,-dac_read_search", "--"]


def test_prune_keeps_the_books_of_a_folder_it_cannot_read(
    store: Store, tmp_path: Path, folio_env: Path
) -> None:
    notes(tmp_path, "Unreadable")
    folio_in(tmp_path, "ingest", "notes")
    kept = sorted(records(store))
    shut = tmp_path / "notes"
    shut.chmod(0)
    try:
        run = subprocess.run(
            [*permission_bits_hold(), *FOLIO, "ingest", "notes", "--prune", "--no-embed"],
            capture_output=True, text=True, env=os.environ.copy(), cwd=tmp_path, timeout=300,
        )  # fmt: skip
    finally:
        shut.chmod(0o755)
    assert run.returncode == 1 and "Permission denied" in run.stderr, run.stderr[-2000:]
    assert "pruned" not in run.stderr.replace("0 pruned", "")
    assert sorted(records(store)) == kept
    assert_complete_means_stored(store)
