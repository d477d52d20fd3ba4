"""A long-running `folio mcp` survives a server restart on a new port and the expiry of
its scoped key; server restarts do not pile up search keys (real server, own FOLIO_HOME)."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
import time
from pathlib import Path

import pytest

from pipeline.index import server
from pipeline.index.keys import search_only_key
from pipeline.index.settings import ServerSettings
from pipeline.index.store import Store

from .helpers import tool_text
from .test_server_lifecycle import folio, own_home

ROOT = Path(__file__).parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def _library(tmp: Path) -> Path:
    lib = tmp / "lib"
    lib.mkdir()
    (lib / "rust.md").write_bytes((FIXTURES / "golden" / "rust-ownership.md").read_bytes())
    return lib


def test_mcp_recovers_when_the_server_restarts_on_a_new_port(tmp_path: Path) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    with own_home(tmp_path) as home:
        assert folio(home, "ingest", str(_library(tmp_path))).returncode == 0
        env = {k: v for k, v in os.environ.items() if not k.startswith("TYPESENSE_")}
        env["FOLIO_HOME"] = str(home)
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "pipeline", "mcp"], env=env, cwd=str(ROOT)
        )

        async def session() -> None:
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                before = await s.call_tool("search", {"query": "ownership"})
                assert not before.is_error, tool_text(before)
                old = server.running(home)
                assert old is not None and server.stop(home)
                with socket.socket() as taken:  # another program took its port meanwhile
                    taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                    taken.bind(("127.0.0.1", old.port))
                    taken.listen()
                    new = server.start(home)
                assert new.port != old.port
                started = time.monotonic()
                after = await s.call_tool("search", {"query": "ownership"})
                assert not after.is_error, tool_text(after)
                # An answer from the new server. Not its hit count: Typesense 0.24.1
                # restarted on another port before its first snapshot (this one is
                # seconds old) shows none of its documents (measured: 0 of 27 after
                # 14 s, all 27 on the same port), which is why Folio keeps the port.
                assert "found" in json.loads(tool_text(after))
                assert time.monotonic() - started < 20

        asyncio.run(asyncio.wait_for(session(), 120))


def _search_keys(admin: Store) -> list[dict[str, object]]:
    keys = admin.client.keys.retrieve()["keys"]
    return [k for k in keys if "search only" in str(k.get("description"))]


def test_restarts_do_not_pile_up_search_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with own_home(tmp_path) as home:
        monkeypatch.setenv("FOLIO_HOME", str(home))
        for _ in range(3):
            running = server.start(home)
            admin = Store(ServerSettings(nodes=(running.node,), api_key=running.api_key))
            search_only_key(admin)
            assert len(_search_keys(admin)) == 1
            server.stop(home)


def test_the_mcp_scoped_key_is_renewed_before_it_expires(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.mcp.server import build_server

    with own_home(tmp_path) as home:
        monkeypatch.setenv("FOLIO_HOME", str(home))
        for k in ("TYPESENSE_URL", "TYPESENSE_API_KEY", "FOLIO_CONFIG"):
            monkeypatch.delenv(k, raising=False)
        assert folio(home, "ingest", str(_library(tmp_path))).returncode == 0
        app = build_server(key_seconds=3)

        async def calls() -> None:
            for _ in range(3):
                res = await app.call_tool("search", {"query": "ownership"})
                assert res.is_error is False, res
                await asyncio.sleep(2.5)

        asyncio.run(asyncio.wait_for(calls(), 60))
