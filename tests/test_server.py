"""The embedded server lifecycle and store error handling (real Typesense)."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from pipeline.errors import ConfigError, StoreError
from pipeline.index import server
from pipeline.index.settings import Node, ServerSettings, load_server_settings
from pipeline.index.store import Store

from .helpers import folio_each


def test_session_server_is_reused_and_key_is_private(
    typesense_home: server.RunningServer,
) -> None:
    again = server.start(typesense_home.home)
    assert again.pid == typesense_home.pid and again.port == typesense_home.port
    mode = stat.S_IMODE(os.stat(typesense_home.home / "api-key").st_mode)
    assert mode == 0o600
    assert server.healthy(typesense_home.port)
    state = (typesense_home.home / "server.json").read_text()
    assert typesense_home.api_key not in state  # the key lives only in its 0600 file


def test_api_bound_to_loopback_only(typesense_home: server.RunningServer) -> None:
    cmdline = Path(f"/proc/{typesense_home.pid}/cmdline").read_bytes().split(b"\0")
    assert cmdline[cmdline.index(b"--api-address") + 1] == b"127.0.0.1"
    assert cmdline[cmdline.index(b"--peering-address") + 1] == b"127.0.0.1"


def test_start_stop_fresh_home(tmp_path: Path) -> None:
    running = server.start(tmp_path)
    try:
        assert server.running(tmp_path) == running
    finally:
        assert server.stop(tmp_path) is True
    assert server.running(tmp_path) is None
    assert server.stop(tmp_path) is False


def test_wrong_key_is_a_clear_error(typesense_home: server.RunningServer) -> None:
    bad = Store(ServerSettings(nodes=(typesense_home.node,), api_key="not-the-key"))
    with pytest.raises(StoreError) as err:
        bad.ensure_collections()
    assert "API key" in str(err.value) and "not-the-key" not in str(err.value)


def test_server_down_is_a_clear_error() -> None:
    down = Store(
        ServerSettings(
            nodes=(Node("127.0.0.1", 1),), api_key="k", retries=0, retry_interval_seconds=0.01
        )
    )
    with pytest.raises(StoreError, match="did not answer"):
        down.call("probe", lambda: down.client.collections.retrieve(), attempts=2)


def test_retries_0_means_one_attempt() -> None:
    """A user who sets ``retries: 0`` is told at once that the server does not answer:
    no retry of the client's, and none of the store's with its back-off (1 + 2 + 4 s)."""
    down = Store(ServerSettings(nodes=(Node("127.0.0.1", 1),), api_key="k", retries=0))
    tries: list[float] = []

    def probe() -> object:
        tries.append(time.monotonic())
        return down.client.collections.retrieve()

    started = time.monotonic()
    with pytest.raises(StoreError, match="did not answer after 1 try"):
        down.call("probe", probe)
    assert len(tries) == 1 and time.monotonic() - started < 1.0


def test_settings_from_env_and_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TYPESENSE_URL", raising=False)
    monkeypatch.delenv("TYPESENSE_API_KEY", raising=False)
    monkeypatch.delenv("FOLIO_CONFIG", raising=False)
    assert load_server_settings().embedded
    cfg = tmp_path / "folio.yaml"
    cfg.write_text(
        "typesense:\n  api_key: k\n  nodes:\n    - {host: 127.0.0.1, port: 7108}\n"
        "    - {host: 127.0.0.1, port: 7118}\n"
    )
    s = load_server_settings(cfg)
    assert [n.port for n in s.nodes] == [7108, 7118] and s.api_key == "k"
    monkeypatch.setenv("TYPESENSE_URL", "http://127.0.0.1:9000,http://127.0.0.1:9001")
    monkeypatch.setenv("TYPESENSE_API_KEY", "env")
    s = load_server_settings(cfg)
    assert [n.port for n in s.nodes] == [9000, 9001] and s.api_key == "env"
    cfg.write_text("typesense:\n  nodez: []\n")
    with pytest.raises(ConfigError, match="nodez"):
        load_server_settings(cfg)


def test_admin_key_never_in_argv_output_or_logs(tmp_path: Path) -> None:
    import subprocess
    import sys

    home = tmp_path / "home"
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "a.md").write_text("# A\n\ntext\n\n## B\n\nmore\n\n## C\n\nend\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TYPESENSE_")}
    env["FOLIO_HOME"] = str(home)
    root = Path(__file__).parent.parent
    outputs = []
    try:
        ingest = subprocess.run(
            [sys.executable, "-m", "pipeline", "ingest", str(lib)],
            capture_output=True,
            text=True,
            env=env,
            cwd=root,
            timeout=120,
        )
        assert ingest.returncode == 0, ingest.stderr
        outputs.append(ingest.stdout + ingest.stderr)
        for run in folio_each(
            env,
            ("status",),
            ("docs",),
            ("search", "text"),
            ("server", "status"),
            ("-v", "retrieve", "text", "--budget", "200"),
        ):
            assert run.returncode == 0, run.stderr
            outputs.append(run.stdout + run.stderr)
        key = (home / "api-key").read_text().strip()
        pid = server.running(home)
        assert pid is not None
        assert key.encode() not in Path(f"/proc/{pid.pid}/cmdline").read_bytes()
        assert not any(key in o for o in outputs)
        for f in home.rglob("*"):
            if (
                f.is_file()
                and f.name != "api-key"
                and not f.name.startswith("search-key")
                and "typesense-data" not in f.parts
            ):
                assert key.encode() not in f.read_bytes(), f
    finally:
        server.stop(home, timeout=0)  # no graceful stop to wait for: past every assertion


def test_constructing_a_store_starts_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only ``Store.connect`` starts the embedded server; the constructor talks to the
    nodes it is given."""
    monkeypatch.setenv("FOLIO_HOME", str(tmp_path))
    with pytest.raises(StoreError, match=r"Store\.connect"):
        Store(ServerSettings())
    assert server.running(tmp_path) is None
    store = Store.connect(ServerSettings())
    try:
        assert server.running(tmp_path) is not None
        assert store.nodes == (server.start(tmp_path).node,)
    finally:
        assert server.stop(tmp_path) is True


def test_a_large_library_gets_time_to_load(tmp_path: Path) -> None:
    """Typesense loads every collection before it answers: a 100k-snippet library (1 GiB)
    took up to 165 s, and a fixed 90 s limit stopped it half loaded."""
    small = server.start_timeout(tmp_path / "empty-home")
    data = tmp_path / "home" / server.DATA / "db"
    data.mkdir(parents=True)
    with open(data / "000042.sst", "wb") as fh:  # sparse: no disk used
        fh.truncate(2 * 2**30)
    large = server.start_timeout(tmp_path / "home")
    assert small == server.START_TIMEOUT
    assert large >= small + 2 * 165
