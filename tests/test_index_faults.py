"""Faults around the lexical index (#40), each through real `folio` processes where the
fault is a process fault: a writer killed between its store writes and its index sync
leaves readers behind, so they repair the index themselves; what the index rows carry
besides the content (path, format, title) reaches them; a killed delete leaves nothing
complete without its chunks; errors quote hostile values short."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from pipeline.index.schema import CHUNKS, DOCUMENTS
from pipeline.index.store import Store

from .helpers import ROOT, folio

WORD = "zanzibarite"
FILLER = (
    "The committee met every week to review the accounts, the minutes and the letters "
    "that had arrived since the last meeting, and each member spoke in turn. "
)


def _book(lib: Path) -> Path:
    """A text whose word sits in its last paragraph: under another preset that paragraph
    is in a snippet of another index, so a stale index names a chunk the store lacks."""
    lib.mkdir()
    paragraphs = [f"## Part {i}\n\n" + FILLER * 12 for i in range(10)]
    paragraphs.append(f"## Last\n\nThe mineral {WORD} was found in the quarry.\n")
    (lib / "book.md").write_text("# Book\n\n" + "\n\n".join(paragraphs), encoding="utf-8")
    return lib


_HOLD = """
import sys, time
from pathlib import Path
from pipeline.index.lock import library_lock
with library_lock(Path(sys.argv[1]), wait=None):
    print("held", flush=True)
    time.sleep(300)
"""


def _kill_at_lexical_lock(store: Store, env: dict[str, str], *args: str) -> None:
    """`folio ARGS`, killed (-9) once it waits for the lexical index lock: after its store
    writes, before its index sync."""
    lock = Path(env["FOLIO_HOME"]) / "locks" / f"{store.identity()}.lexical.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(lock)], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        proc = subprocess.Popen(
            [sys.executable, "-m", "pipeline", *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        assert proc.stderr is not None
        said = ""
        for line in proc.stderr:
            said += line
            if "waiting for the library lock" in line:
                break
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert "waiting for the library lock" in said, said[-2000:]
    finally:
        holder.kill()
        holder.wait()


def _retrieved(env: dict[str, str], *args: str) -> list[dict[str, object]]:
    run = folio(env, "retrieve", WORD, "--mode", "lexical", "--json", *args)
    assert run.returncode == 0, run.stderr[-2000:]
    return list(json.loads(run.stdout)["items"])


def test_a_settings_change_killed_before_its_sync_is_repaired_by_readers(
    store: Store, tmp_path: Path, folio_env: Path
) -> None:
    """#40.1: the store holds the new chunks, the index the old rows; the readers' state
    token did not move (same counter, count and newest record), so they kept answering
    from the old rows ("No context found") until the next writer."""
    env = os.environ.copy()
    lib = _book(tmp_path / "lib")
    first = folio(env, "ingest", str(lib))
    assert first.returncode == 0, first.stderr[-2000:]
    other = env | {"FOLIO_HOME": str(tmp_path / "other-host")}
    assert _retrieved(env) and _retrieved(other)  # each host's index is current
    before = {c["id"] for c in store.export(CHUNKS)}
    _kill_at_lexical_lock(store, env, "ingest", str(lib), "--preset", "large")
    records = store.export(DOCUMENTS)
    assert [r["status"] for r in records] == ["complete"]
    assert {c["id"] for c in store.export(CHUNKS)} != before  # the new chunks are in
    for reader in (env, other):
        items = _retrieved(reader)
        assert items and WORD in str(items[0]["text"]), items


def _formats(env: dict[str, str]) -> dict[str, int]:
    """How many lexical hits for WORD each format filter gives."""
    return {f: len(_retrieved(env, "--format", f)) for f in ("markdown", "text")}


def test_a_renamed_file_reaches_the_index_with_its_new_format_and_name(
    store: Store, tmp_path: Path, folio_env: Path
) -> None:
    """#40.2: `mv notes.txt notes.md` + `folio ingest --prune` left the index's rows
    under format text and its catalog (the title pull) under the old name: the
    catalog's key was (settings, snippets) only."""
    from pipeline.index import side_index

    env = os.environ.copy()
    lib = tmp_path / "lib"
    lib.mkdir()
    text = f"Field notes\n\nThe mineral {WORD} was found in the quarry.\n" + FILLER * 3
    (lib / "notes.txt").write_text(text, encoding="utf-8")
    assert folio(env, "ingest", str(lib)).returncode == 0
    assert _formats(env) == {"markdown": 0, "text": 1}
    (lib / "notes.txt").rename(lib / "notes.md")
    again = folio(env, "ingest", str(lib), "--prune")
    assert again.returncode == 0, again.stderr[-2000:]
    assert _formats(env) == {"markdown": 1, "text": 0}
    index = side_index.current(store)
    assert index is not None
    assert [(Path(d.path).name, d.format) for d in index.docs] == [("notes.md", "markdown")]


def test_a_copy_made_keeper_reaches_the_index_under_its_own_name(
    store: Store, tmp_path: Path, folio_env: Path
) -> None:
    """#40.2: when the keeper of two identical files goes, the copy holds the content;
    the index's catalog kept the gone file's name (the title pull looked for it)."""
    from pipeline.index import side_index

    env = os.environ.copy()
    lib = tmp_path / "lib"
    lib.mkdir()
    text = f"# Field notes\n\nThe mineral {WORD} was found in the quarry.\n"
    for name in ("a-notes.md", "b-notes.md"):
        (lib / name).write_text(text, encoding="utf-8")
    assert folio(env, "ingest", str(lib)).returncode == 0
    (lib / "a-notes.md").unlink()
    again = folio(env, "ingest", str(lib), "--prune")
    assert again.returncode == 0, again.stderr[-2000:]
    index = side_index.current(store)
    assert index is not None
    assert [Path(d.path).name for d in index.docs] == ["b-notes.md"]


# `folio delete`, killed (-9) by itself right after its chunk delete returns: the store
# is the real one, only the moment of the kill is chosen.
_KILLED_DELETE = """
import os, signal, sys
from pipeline.cli import main
from pipeline.index.schema import CHUNKS
from pipeline.index.store import Store

plain = Store.delete_where

def delete_where(self, collection, filter_by):
    removed = plain(self, collection, filter_by)
    if collection == CHUNKS:
        os.kill(os.getpid(), signal.SIGKILL)
    return removed

Store.delete_where = delete_where
sys.exit(main(sys.argv[1:]))
"""


def test_a_delete_killed_after_its_chunks_leaves_nothing_complete_without_them(
    store: Store, tmp_path: Path, folio_env: Path
) -> None:
    """#40.5: the chunks went first and the records after, so a kill between the two left
    the document `complete` with 0 chunks, in `folio docs`, `outline` and the index."""
    env = os.environ.copy()
    lib = _book(tmp_path / "lib")
    (lib / "other.md").write_text("# Other\n\n" + FILLER * 4, encoding="utf-8")
    assert folio(env, "ingest", str(lib)).returncode == 0
    doc_id = next(r["doc_id"] for r in store.export(DOCUMENTS) if r["title"] == "Book")
    killed = subprocess.run(
        [sys.executable, "-c", _KILLED_DELETE, "delete", doc_id],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    assert all(c["doc_id"] != doc_id for c in store.export(CHUNKS))  # killed after those
    docs = folio(env, "docs", "--json")
    assert docs.returncode == 0, docs.stderr[-2000:]
    listed = json.loads(docs.stdout)
    assert all(d["status"] != "complete" for d in listed if d["doc_id"] == doc_id), listed
    assert not _retrieved(env)
    outline = folio(env, "outline", doc_id)
    assert outline.returncode != 0 or "Last" not in outline.stdout, outline.stdout
    again = folio(env, "delete", doc_id)  # the delete can be finished
    assert again.returncode == 0, again.stderr[-2000:]
    assert all(r["doc_id"] != doc_id for r in store.export(DOCUMENTS))


def _immutable(path: Path, on: bool) -> bool:
    """``chattr +i``/``-i`` (root on a file system that has it): nothing in the folder
    can be created, removed or renamed, whoever asks."""
    flag = "+i" if on else "-i"
    return subprocess.run(["chattr", flag, str(path)], capture_output=True).returncode == 0


def test_an_index_folder_that_cannot_be_written_costs_only_the_catch_up(
    store: Store, tmp_path: Path, folio_env: Path
) -> None:
    """#40.3: with the lexical folder immutable, `folio ingest` and `folio retrieve`
    exited 1 with a tantivy ValueError traceback, although the store was intact."""
    import pytest

    from pipeline.index import side_index

    env = os.environ.copy()
    lib = _book(tmp_path / "lib")
    assert folio(env, "ingest", str(lib)).returncode == 0
    folders = [side_index.location(store), side_index.root(store)]
    if not all(_immutable(f, True) for f in folders):
        for f in folders:
            _immutable(f, False)
        pytest.skip("needs root and chattr to make a folder immutable")
    try:
        _ingest_more_and_find_it(env, lib)
    finally:
        for f in folders:
            _immutable(f, False)


def _ingest_more_and_find_it(env: dict[str, str], lib: Path) -> None:
    """With the index folder unwritable: an ingest of one more file succeeds and says the
    lexical index was not brought up to date, and retrieve still finds the word."""
    (lib / "more.md").write_text(f"# More\n\nAnother {WORD} sample.\n", encoding="utf-8")
    more = folio(env, "ingest", str(lib))
    assert more.returncode == 0, more.stderr[-2000:]
    assert "Traceback" not in more.stderr and "lexical index" in more.stderr
    items = _retrieved(env)
    assert items and any(WORD in str(i["text"]) for i in items)


def test_an_index_folder_on_a_full_disk_costs_only_the_catch_up(
    store: Store, tmp_path: Path, folio_env: Path
) -> None:
    """#40.3: `$FOLIO_HOME/lexical` on a small tmpfs filled up: ingest and retrieve
    exited 1 with tantivy's ValueError (no space left on device)."""
    import pytest

    env = os.environ.copy()
    lib = _book(tmp_path / "lib")
    assert folio(env, "ingest", str(lib)).returncode == 0
    lexical = Path(env["FOLIO_HOME"]) / "lexical"
    full = tmp_path / "full"
    full.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(full)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip("needs root to mount a small tmpfs")
    try:
        subprocess.run(["cp", "-a", f"{lexical}/.", str(full)], check=True)
        subprocess.run(["rm", "-rf", str(lexical)], check=True)
        lexical.symlink_to(full)
        filler = subprocess.run(
            ["dd", "if=/dev/zero", f"of={full / 'filler'}", "bs=64k"], capture_output=True
        )
        assert b"No space left" in filler.stderr
        _ingest_more_and_find_it(env, lib)
    finally:
        subprocess.run(["umount", "-l", str(full)], capture_output=True)


def test_folio_s_own_search_only_key_serves_a_second_host(
    store: Store, tmp_path: Path, folio_env: Path
) -> None:
    """#40.4: another FOLIO_HOME with TYPESENSE_URL and the first home's `search-key-*`:
    retrieve, search and docs failed with "read alias folio_chunks: Typesense refused
    the API key (401)" (opening a library read aliases and collections)."""
    from pipeline.index.keys import parent_key

    env = os.environ.copy()
    lib = _book(tmp_path / "lib")
    assert folio(env, "ingest", str(lib)).returncode == 0
    parent_key(store)
    (kept,) = Path(env["FOLIO_HOME"]).glob("search-key-*")
    reader = env | {
        "FOLIO_HOME": str(tmp_path / "other-host"),
        "TYPESENSE_API_KEY": kept.read_text(encoding="ascii").strip(),
    }
    assert WORD in str(_retrieved(reader)[0]["text"])
    for args in (("search", WORD), ("docs",)):
        run = folio(reader, *args)
        assert run.returncode == 0, run.stderr[-2000:]
        assert "Book" in run.stdout or "book.md" in run.stdout, run.stdout
