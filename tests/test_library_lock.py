"""Writers take turns: ingest, delete, prune and reindex hold one library lock (real
`folio` processes against the real server, bounded in time); readers never wait."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from pipeline.index.schema import DOCUMENTS
from pipeline.index.store import Store

from .test_ingest import (
    assert_complete_means_stored,
    assert_stored,
    copies,
    expected_docs,
    wait_for_complete,
)

FOLIO = [sys.executable, "-m", "pipeline"]


def ingest_under_way(store: Store, lib: Path, done: int = 3) -> subprocess.Popen[str]:
    """An ingest of ``lib`` in another process, past its ``done``-th document."""
    cmd = [*FOLIO, "ingest", str(lib), "--workers", "1", "--json"]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy()
    )
    store.ensure_collections()
    wait_for_complete(store, done)
    return proc


def folio(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*FOLIO, *args], capture_output=True, text=True, env=os.environ.copy(), timeout=timeout
    )


def while_held(proc: subprocess.Popen[str], *args: str) -> subprocess.CompletedProcess[str]:
    """``folio *args`` started while the ingest ``proc`` is stopped holding the library
    lock, the ingest let go on once the command announces its wait: started against a
    running ingest, a command could find the small library already done and not wait."""
    proc.send_signal(signal.SIGSTOP)
    try:
        cmd = [*FOLIO, *args]
        writer = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy()
        )
        assert writer.stderr is not None
        seen = ""
        while "library lock" not in seen and (line := writer.stderr.readline()):
            seen += line
    finally:
        proc.send_signal(signal.SIGCONT)
    out, err = writer.communicate(timeout=300)
    return subprocess.CompletedProcess(cmd, writer.returncode, out, seen + err)


def test_reindex_during_ingest_waits_and_loses_nothing(
    store: Store, tmp_path: Path, folio_env: Path
) -> None:
    lib = copies(tmp_path / "lib", 60)
    proc = ingest_under_way(store, lib)
    reindex = while_held(proc, "reindex")
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-2000:]
    assert reindex.returncode == 0, reindex.stderr[-2000:]
    assert_complete_means_stored(store)
    assert store.count(DOCUMENTS, "status:=complete") == 60
    assert_stored(store, expected_docs(sorted(lib.iterdir())))
    assert "waiting for the library lock" in reindex.stderr


def test_delete_during_ingest_applies_after_it(
    store: Store, tmp_path: Path, folio_env: Path
) -> None:
    lib = copies(tmp_path / "lib", 60)
    last = sorted(lib.iterdir())[-1]
    proc = ingest_under_way(store, lib)
    delete = while_held(proc, "delete", str(last))
    proc.communicate(timeout=300)
    assert delete.returncode == 0, delete.stderr[-2000:]
    assert "waiting for the library lock" in delete.stderr
    assert_complete_means_stored(store)
    assert store.export(DOCUMENTS, f"path:=`{last}`") == []
    rest = sorted(lib.iterdir())[:-1]
    assert_stored(store, expected_docs(rest))


def test_no_wait_gives_up_at_once_naming_the_holder(
    store: Store, tmp_path: Path, folio_env: Path
) -> None:
    lib = copies(tmp_path / "lib", 200)
    proc = ingest_under_way(store, lib, 2)
    t0 = time.monotonic()
    busy = folio("ingest", str(lib), "--prune", "--wait", "0", timeout=60)
    assert time.monotonic() - t0 < 30
    assert busy.returncode == 75, busy.stderr[-2000:]
    assert "library lock" in busy.stderr and f"pid {proc.pid}" in busy.stderr
    assert "ingest" in busy.stderr
    # readers are not held up by the writer
    found = folio("search", "ownership", "--json", timeout=60)
    assert found.returncode == 0, found.stderr[-2000:]
    status = folio("status", "--json", timeout=60)
    assert status.returncode == 0, status.stderr[-2000:]
    assert proc.poll() is None, "the readers should have run while the ingest held the lock"
    proc.communicate(timeout=300)
    assert proc.returncode == 0


def test_ctrl_c_while_waiting_stops_cleanly(store: Store, tmp_path: Path, folio_env: Path) -> None:
    lib = copies(tmp_path / "lib", 200)
    proc = ingest_under_way(store, lib, 2)
    waiting = subprocess.Popen(
        [*FOLIO, "delete", str(sorted(lib.iterdir())[0])],
        stderr=subprocess.PIPE, text=True, env=os.environ.copy(),
    )  # fmt: skip
    assert waiting.stderr is not None
    line = waiting.stderr.readline()  # blocks until it announces the wait
    assert "waiting for the library lock" in line and f"pid {proc.pid}" in line
    waiting.send_signal(signal.SIGINT)
    _, err = waiting.communicate(timeout=60)
    assert waiting.returncode == 130 and "Traceback" not in err
    assert proc.poll() is None
    proc.communicate(timeout=300)
    assert proc.returncode == 0
    assert store.count(DOCUMENTS, "status:=complete") == 200


def test_kill_9_releases_the_lock(store: Store, tmp_path: Path, folio_env: Path) -> None:
    lib = copies(tmp_path / "lib", 60)
    proc = ingest_under_way(store, lib, 2)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    again = folio("ingest", str(lib), "--workers", "1", "--json", "--wait", "5")
    assert again.returncode == 0, again.stderr[-2000:]
    assert_complete_means_stored(store)
    assert_stored(store, expected_docs(sorted(lib.iterdir())))
