"""The embedded server's lifecycle with real processes, each test on its own FOLIO_HOME:
stop signals only its own Typesense, one server per data directory whatever
``server.json`` says, readiness includes the log replay, a lost port race is retried, and
a full disk is named as such."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from pipeline.index import server
from pipeline.index.settings import ServerSettings
from pipeline.index.store import Store

ROOT = Path(__file__).parent.parent
FOLIO = [sys.executable, "-m", "pipeline"]


def typesense_on(data: Path) -> list[int]:
    """Pids of the Typesense processes serving ``data`` (read from /proc)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"--data-dir" in argv[:-1] and argv[argv.index(b"--data-dir") + 1] == bytes(data):
            state = (entry / "stat").read_text().rsplit(")", 1)[-1].split()[0]
            if state != "Z":
                pids.append(int(entry.name))
    return pids


@contextlib.contextmanager
def own_home(tmp: Path) -> Iterator[Path]:
    """A FOLIO_HOME whose servers are all killed at the end (found by their data dir)."""
    home = tmp / "home"
    try:
        yield home
    finally:
        for pid in typesense_on(home / "typesense-data"):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def folio(home: Path, *args: str, timeout: float = 150) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TYPESENSE_")}
    env["FOLIO_HOME"] = str(home)
    return subprocess.run(
        [*FOLIO, *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=timeout
    )


def test_stop_never_signals_a_process_that_is_not_its_server(tmp_path: Path) -> None:
    other = subprocess.Popen(["sleep", "60"])
    try:
        home = tmp_path / "home"
        home.mkdir()
        (home / "server.json").write_text(f'{{"pid": {other.pid}, "port": 1}}')
        run = folio(home, "server", "stop")
        assert run.returncode == 0, run.stderr
        assert "not running" in run.stdout
        time.sleep(0.2)
        assert other.poll() is None  # the unrelated process lives on
    finally:
        other.kill()
        other.wait()


@pytest.mark.parametrize("state", ["{garbage", "", '{"pid": 1, "port": 2}'])
def test_a_corrupt_state_file_never_starts_a_second_server(tmp_path: Path, state: str) -> None:
    with own_home(tmp_path) as home:
        first = folio(home, "server", "start")
        assert first.returncode == 0, first.stderr
        data = home / "typesense-data"
        [pid] = typesense_on(data)
        (home / "server.json").write_text(state)
        status = folio(home, "status", "--json")
        assert status.returncode == 0, status.stderr
        assert json.loads(status.stdout)["server"]["pid"] == pid
        again = folio(home, "server", "start")
        assert again.returncode == 0, again.stderr
        assert typesense_on(data) == [pid]
        (home / "server.json").write_text(state)
        stop = folio(home, "server", "stop")
        assert stop.returncode == 0 and "stopped" in stop.stdout, stop.stdout + stop.stderr
        assert typesense_on(data) == []


def _import_batches(
    running: server.RunningServer, collection: str, batches: Iterable[list[dict[str, str]]]
) -> None:
    """One import request per batch, as JSON lines on one kept-alive connection: through
    the Typesense client (httpx) 2000 imports took twice as long (16.5 s against 8.6 s)."""
    conn = http.client.HTTPConnection("127.0.0.1", running.port, timeout=60)
    try:
        for batch in batches:
            conn.request(
                "POST",
                f"/collections/{collection}/documents/import?action=upsert",
                "\n".join(json.dumps(d) for d in batch),
                {"X-TYPESENSE-API-KEY": running.api_key},
            )
            reply = conn.getresponse()
            answer = reply.read().decode()
            assert reply.status == 200 and '"success":false' not in answer, answer[:500]
    finally:
        conn.close()


def test_start_waits_for_the_log_replay(tmp_path: Path) -> None:
    """Typesense answers /health while it still replays its log (more than 1000 queued
    batches): start() returns only once every acknowledged document is back."""
    with own_home(tmp_path) as home:
        running = server.start(home)
        store = Store(ServerSettings(nodes=(running.node,), api_key=running.api_key))
        store.client.collections.create(
            {"name": "replay", "fields": [{"name": "t", "type": "string"}]}
        )
        # Each import is one log entry, so the batch count is what makes the replay
        # queue long; 60 words a document keep each batch's replay work big enough
        # (without the settle, start() returned at ~31,000 of 40,000 documents).
        text = " ".join(f"w{i}" for i in range(60))
        batches, size = 2000, 20
        _import_batches(
            running,
            "replay",
            ([{"id": f"{b}-{i}", "t": text} for i in range(size)] for b in range(batches)),
        )
        assert server.stop(home)
        running = server.start(home)
        store = Store(ServerSettings(nodes=(running.node,), api_key=running.api_key))
        assert store.count("replay") == batches * size


def test_a_lost_port_race_is_retried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process takes the port between our probe and Typesense's bind."""
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = int(taken.getsockname()[1])
    picks = iter([port])
    real = server._free_port_pair
    monkeypatch.setattr(server, "_free_port_pair", lambda: next(picks, None) or real())
    with own_home(tmp_path) as home:
        try:
            running = server.start(home)
            assert running.port != port and server.healthy(running.port)
        finally:
            taken.close()


@pytest.fixture()
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mnt = tmp_path / "disk"
    mnt.mkdir()
    if (
        os.geteuid() != 0
        or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=96m", "tmpfs", str(mnt)], capture_output=True
        ).returncode
    ):
        pytest.skip("needs root to mount a small tmpfs")
    try:
        yield mnt
    finally:
        for pid in typesense_on(mnt / "home" / "typesense-data"):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.5)
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_a_full_disk_is_named_not_waited_on(small_disk: Path, tmp_path: Path) -> None:
    home = small_disk / "home"
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "a.md").write_text("# A\n\ntext\n\n## B\n\nmore words\n\n## C\n\nend\n")
    assert folio(home, "server", "start").returncode == 0
    # fill the disk to the last byte
    with open(small_disk / "filler", "wb") as fh, contextlib.suppress(OSError):
        while True:
            fh.write(b"\0" * (1 << 20))
            fh.flush()
    started = time.monotonic()
    run = folio(home, "ingest", str(lib), timeout=120)
    assert run.returncode != 0
    assert "disk" in run.stderr and "free" in run.stderr, run.stderr[-2000:]
    assert time.monotonic() - started < 60


def test_a_busy_server_is_reused_at_once(tmp_path: Path) -> None:
    """Another command writing all the time must not keep a reader's start waiting."""
    import threading

    with own_home(tmp_path) as home:
        running = server.start(home)
        store = Store(ServerSettings(nodes=(running.node,), api_key=running.api_key))
        store.client.collections.create(
            {"name": "busy", "fields": [{"name": "t", "type": "string"}]}
        )
        stop = threading.Event()

        def write() -> None:
            n = 0
            while not stop.is_set():
                store.client.collections["busy"].documents.import_(
                    [{"id": f"{n}-{i}", "t": "some words"} for i in range(200)]
                )
                n += 1

        writer = threading.Thread(target=write)
        writer.start()
        try:
            time.sleep(1.0)
            started = time.monotonic()
            assert server.start(home).pid == running.pid
            assert time.monotonic() - started < 5
        finally:
            stop.set()
            writer.join(30)
