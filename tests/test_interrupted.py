"""Typesense dies in the middle of an ingest: a clear error and a nonzero exit, nothing
marked complete that is not; after a restart a rerun converges to the full collection."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from pipeline.index import server
from pipeline.index.schema import DOCUMENTS
from pipeline.index.settings import ServerSettings
from pipeline.index.store import Store

from .test_ingest import FIXTURES, assert_complete_means_stored, assert_stored, expected_docs

ROOT = Path(__file__).parent.parent


def _store(running: server.RunningServer) -> Store:
    return Store(
        ServerSettings(
            nodes=(running.node,), api_key=running.api_key, retries=1, retry_interval_seconds=0.2
        )
    )


def test_server_killed_mid_ingest_then_restarted(tmp_path: Path) -> None:
    home = tmp_path / "home"
    lib = tmp_path / "lib"
    lib.mkdir()
    src = (FIXTURES / "golden" / "rust-ownership.md").read_text(encoding="utf-8")
    # The kill comes once 3 documents are complete, whatever the library's size; 30 leave
    # the ingest seconds of work at that moment, and keep the rerun short (150: +20 s).
    files = 30
    for i in range(files):
        (lib / f"doc{i:03}.md").write_text(f"# Part {i}\n\n{src}", encoding="utf-8")
    cfg = tmp_path / "folio.yaml"
    cfg.write_text(
        "typesense:\n  retries: 0\n  retry_interval_seconds: 0.1\n  timeout_seconds: 5\n"
    )
    running = server.start(home)
    try:
        env = {
            **os.environ,
            "TYPESENSE_URL": running.node.url(),
            "TYPESENSE_API_KEY": running.api_key,
            "FOLIO_CONFIG": str(cfg),
        }
        cmd = [sys.executable, "-m", "pipeline", "ingest", str(lib), "--workers", "1", "--json"]
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT
        )
        store = _store(running)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if store.count(DOCUMENTS, "status:=complete") >= 3:
                    break
            except Exception:
                pass
            time.sleep(0.02)
        server.stop(home, timeout=0)  # SIGTERM then SIGKILL: the server is gone mid-run
        out, err = proc.communicate(timeout=120)
        assert proc.returncode != 0
        assert "Typesense" in err and "did not answer" in err
        assert running.api_key not in err + out

        # Same data dir, fresh process: start() returns once the log is replayed (what
        # test_start_waits_for_the_log_replay checks), so the counts are final here.
        running = server.start(home)
        store = _store(running)
        assert_complete_means_stored(store)
        env["TYPESENSE_URL"] = running.node.url()
        rerun = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
        assert rerun.returncode == 0, rerun.stderr[-2000:]
        summary = json.loads(rerun.stdout)
        assert len(summary["ingested"]) + len(summary["unchanged"]) == files
        assert_stored(store, expected_docs(sorted(lib.iterdir())))
        assert store.count(DOCUMENTS, "status:=complete") == files
    finally:
        server.stop(home, timeout=0)  # no graceful stop to wait for: past every assertion


def _children(pid: int) -> list[int]:
    kids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[-1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                kids.append(int(entry.name))
    return kids


def _alive(pid: int) -> bool:
    try:
        return (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]) != "Z"
    except OSError:
        return False


def test_workers_die_with_a_killed_ingest(store: Store, tmp_path: Path, folio_env: Path) -> None:
    """kill -9 of `folio ingest` while its worker chunks a big file: the worker goes too."""
    lib = tmp_path / "lib"
    lib.mkdir()
    src = (FIXTURES / "golden" / "rust-ownership.md").read_text(encoding="utf-8")
    (lib / "big.md").write_text(src * 1200, encoding="utf-8")  # ~30 MB: a minute to chunk
    cmd = [sys.executable, "-m", "pipeline", "ingest", str(lib), "--workers", "1", "--json"]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 60
        workers: list[int] = []
        while not workers and time.monotonic() < deadline:
            workers = _children(proc.pid)
            time.sleep(0.1)
        assert workers, "no worker process started"
        time.sleep(2.0)  # the worker is busy with the file
        assert all(_alive(w) for w in workers)
        proc.kill()
        proc.wait(10)
        deadline = time.monotonic() + 5
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(w) for w in workers)
    finally:
        for w in _children(proc.pid) + workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(w, signal.SIGKILL)
