"""Where the lexical index lives on disk, and the one way to get it: ``current(store)``.

Layout under ``$FOLIO_HOME/lexical/<store>/``: one directory per fingerprint, written
under a temporary name and renamed into place (a kill -9 mid-write leaves only a
temporary directory, removed later), so a reader never sees half an index.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import threading
import time
from dataclasses import asdict
from pathlib import Path

from ..errors import FolioError
from ..home import folio_home
from .lexical import DocInfo, LexicalIndex, LibraryState, build, library_state
from .schema import CHUNKS
from .store import Store

log = logging.getLogger("folio.lexical")
_STALE_TMP_S = 3600.0  # a build directory this old was left by a killed process
_memo: dict[Path, LexicalIndex] = {}
_lock = threading.Lock()


def root(store: Store) -> Path:
    """One folder per store: the embedded server, or the URLs of a remote one."""
    return folio_home() / "lexical" / store.identity()


def current(store: Store, state: LibraryState | None = None) -> LexicalIndex:
    """The lexical index of what the store holds now (``state``, else read): from
    memory, else disk, else built from the store (and saved) when the records changed
    since it was last built."""
    state = state or library_state(store)
    fingerprint = state.fingerprint()
    base = root(store)
    with _lock:
        cached = _memo.get(base)
        if cached is not None and cached.fingerprint == fingerprint:
            return cached
        index = _load(base / fingerprint)
        if index is None:
            index = build(store, state)
            _save(base, index)
        _memo[base] = index
        return index


def refresh(store: Store) -> LexicalIndex | None:
    """Bring the index up to date after a write (ingest, delete, prune, reindex), so
    the next question does not pay for the rebuild. Best effort: the next query
    rebuilds it anyway, so a failure here is logged, never raised. ``None`` when there
    is no chunk collection yet or the refresh failed."""
    try:
        if store.alias_target(CHUNKS) is None:
            return None
        return current(store)
    except (OSError, ImportError, FolioError) as exc:
        log.warning("lexical index not refreshed (the next query rebuilds it): %s", exc)
        return None


def _save(base: Path, index: LexicalIndex) -> None:
    """Best effort: a state folder that cannot be written costs a rebuild in the next
    process, never a failed command."""
    import numpy as np

    try:
        base.mkdir(parents=True, exist_ok=True, mode=0o700)
        _sweep(base, keep=index.fingerprint)
        tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=base))
    except OSError as exc:
        log.warning("lexical index not saved under %s: %s", base, exc)
        return
    try:
        if index.ids:
            index.bm25.save(str(tmp / "bm25"), show_progress=False)
        if index.lead is not None:
            index.lead.save(str(tmp / "lead"), show_progress=False)
        meta = {"fingerprint": index.fingerprint, "docs": [asdict(d) for d in index.docs]}
        (tmp / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
        rows = {"ids": index.ids, "parents": index.parents}
        (tmp / "ids.json").write_text(json.dumps(rows), encoding="utf-8")
        np.savez(
            tmp / "rows.npz",
            doc=index.doc,
            hints=index.hints,
            table=index.table,
            page_start=index.page_start,
            page_end=index.page_end,
        )
        _fsync_tree(tmp)
        os.rename(tmp, base / index.fingerprint)
    except OSError:
        # Another process saved the same fingerprint first (same content), or the disk
        # refused: the index in memory still serves this process.
        shutil.rmtree(tmp, ignore_errors=True)


def _load(path: Path) -> LexicalIndex | None:
    try:
        if not (path / "meta.json").is_file():
            return None
    except OSError:  # unreadable state folder: rebuilt from the store
        return None
    import bm25s
    import numpy as np

    try:
        meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
        names = json.loads((path / "ids.json").read_text(encoding="utf-8"))
        ids, parents = tuple(names["ids"]), tuple(names["parents"])
        rows = np.load(path / "rows.npz")
        bm25 = (
            bm25s.BM25.load(str(path / "bm25"), mmap=True, show_progress=False)
            if ids
            else bm25s.BM25()
        )
        lead = (
            bm25s.BM25.load(str(path / "lead"), mmap=True, show_progress=False)
            if (path / "lead").is_dir()
            else None
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None  # damaged: rebuilt from the store
    return LexicalIndex(
        fingerprint=str(meta["fingerprint"]),
        docs=tuple(DocInfo(**d) for d in meta["docs"]),
        ids=ids,
        parents=parents,
        doc=rows["doc"],
        hints=rows["hints"],
        table=rows["table"],
        page_start=rows["page_start"],
        page_end=rows["page_end"],
        bm25=bm25,
        lead=lead,
    )


def _sweep(base: Path, keep: str) -> None:
    """Drop older fingerprints and build folders left by killed processes."""
    now = time.time()
    for entry in base.iterdir():
        if entry.name == keep:
            continue
        try:
            if entry.name.startswith(".tmp-"):
                if now - entry.stat().st_mtime > _STALE_TMP_S:
                    shutil.rmtree(entry, ignore_errors=True)
            else:
                shutil.rmtree(entry, ignore_errors=True)
        except OSError:
            continue


def _fsync_tree(path: Path) -> None:
    for entry in sorted(path.rglob("*")):
        if entry.is_file():
            with entry.open("rb") as fh:
                os.fsync(fh.fileno())
