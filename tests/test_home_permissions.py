"""FOLIO_HOME is this user's alone: created 0700, every file in it 0600 or tighter
(Typesense's data files included), an existing home tightened; the peering port of the
embedded server listens on loopback only."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from pipeline.index import server

ROOT = Path(__file__).parent.parent


def loose(home: Path) -> list[str]:
    """Paths under ``home`` (itself included) that group or others may use."""
    found = [home, *home.rglob("*")]
    return [
        f"{p} {stat.filemode(p.lstat().st_mode)}"
        for p in found
        if not p.is_symlink() and p.lstat().st_mode & 0o077
    ]


def test_the_embedded_server_writes_private_files(
    typesense_home: server.RunningServer,
) -> None:
    home = typesense_home.home
    data = list((home / "typesense-data").rglob("*"))
    assert any(p.is_file() for p in data), "the server wrote no data files"
    assert not loose(home)


def test_an_existing_home_is_tightened_when_the_server_starts(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "side-index").mkdir(parents=True)
    (home / "side-index" / "ids.json").write_text("[]")
    for p in (home, home / "side-index"):
        p.chmod(0o755)
    (home / "side-index" / "ids.json").chmod(0o644)
    running = server.start(home)
    try:
        assert not loose(home)
    finally:
        server.stop(home)
    assert running.pid


def test_cli_creates_a_private_home(folio_env: Path, tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "a.md").write_text("# A\n\nSome private text.\n\n## B\n\nMore.\n\n## C\n\nEnd.\n")
    home = tmp_path / "fresh" / "home"
    env = {**os.environ, "FOLIO_HOME": str(home)}
    ingest = [sys.executable, "-m", "pipeline", "ingest", str(lib)]
    subprocess.run(
        ingest,
        env=env,
        cwd=ROOT,
        timeout=120,
        check=True,
        capture_output=True,
        umask=0o022,  # the usual one: files would be 0644
    )
    assert any(home.rglob("*")), "ingest wrote nothing into FOLIO_HOME"
    assert not loose(home)


def test_peering_listens_on_loopback_only(typesense_home: server.RunningServer) -> None:
    peering = typesense_home.node.port - 1
    listening = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not Path(table).exists():
            continue
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, port = local.rsplit(":", 1)
            if state == "0A" and int(port, 16) == peering:  # LISTEN
                listening.add(address)
    assert listening == {"0100007F"}  # 127.0.0.1, nothing else (no 0.0.0.0, no ::)
