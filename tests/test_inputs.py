"""Bad ids and inputs at every edge (CLI, Python API, MCP) are refused with a message
before anything reaches Typesense (0.24.1 segfaults on ``id:=`` with an empty value)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline import make_config
from pipeline.errors import InvalidInput
from pipeline.index import server
from pipeline.index.schema import DOCUMENTS
from pipeline.index.store import Store, quote
from pipeline.ingest import IngestOptions, ingest
from pipeline.retrieve import Filters, get_section, neighbors, retrieve, search

from .helpers import tool_text
from .test_ingest import FIXTURES

ROOT = Path(__file__).parent.parent
FOLIO = [sys.executable, "-m", "pipeline"]
BAD_IDS = ["", "`", " ", "a`b", "id && tier:=x", "x\n"]


def folio(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*FOLIO, *args],
        capture_output=True,
        text=True,
        env=env or os.environ.copy(),
        cwd=ROOT,
        timeout=120,
    )


@pytest.fixture()
def one_doc(store: Store, tmp_path: Path) -> Store:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "rust.md").write_bytes((FIXTURES / "golden" / "rust-ownership.md").read_bytes())
    assert not ingest([str(lib)], make_config(), store, IngestOptions(workers=1)).failed
    return store


@pytest.mark.parametrize("bad", BAD_IDS)
def test_python_api_refuses_bad_ids(one_doc: Store, bad: str) -> None:
    with pytest.raises(InvalidInput, match="id"):
        get_section(one_doc, bad)
    with pytest.raises(InvalidInput, match="id"):
        neighbors(one_doc, bad)
    with pytest.raises(InvalidInput, match="doc"):
        search(one_doc, "ownership", Filters(doc=bad))
    if bad != "id && tier:=x":  # a literal may hold operators: backticks guard them
        with pytest.raises(InvalidInput):
            quote(bad)
    assert server.healthy(one_doc.nodes[0].port)  # nothing reached (or crashed) Typesense


def test_python_api_refuses_bad_queries_and_ranges(one_doc: Store) -> None:
    with pytest.raises(InvalidInput, match="page"):
        Filters(page_from=10, page_to=1)
    with pytest.raises(InvalidInput, match="page"):
        Filters(page_from=0)
    with pytest.raises(InvalidInput, match="KB"):
        search(one_doc, "word " * 20_000)
    with pytest.raises(InvalidInput, match="surrogate"):
        retrieve(one_doc, "own\ud800ership", 500)
    with pytest.raises(InvalidInput, match="tier"):
        Filters(tier="chapter")


def test_cli_refuses_empty_doc_filter_and_reversed_pages(one_doc: Store, folio_env: Path) -> None:
    for args in (
        ["search", "ownership", "--doc", ""],
        ["retrieve", "x", "--budget", "300", "--doc", ""],
    ):
        run = folio(*args)
        assert run.returncode == 2 and "doc" in run.stderr and "Traceback" not in run.stderr
    run = folio("search", "ownership", "--pages", "10", "1")
    assert run.returncode == 2 and "page" in run.stderr and "Traceback" not in run.stderr


def test_cli_delete_of_an_empty_id_deletes_nothing(one_doc: Store, folio_env: Path) -> None:
    for bad in ("", " "):
        run = folio("delete", bad)
        assert run.returncode == 2, run.stderr
        assert "Traceback" not in run.stderr and "doc_id" in run.stderr
    run = folio("delete", "`")
    assert run.returncode == 2 and "no indexed document" in run.stderr
    assert one_doc.count(DOCUMENTS) == 1


def test_cli_long_and_undecodable_queries_are_messages(one_doc: Store, folio_env: Path) -> None:
    run = folio("search", "ownership " * 8000)
    assert run.returncode == 2 and "KB" in run.stderr and "Traceback" not in run.stderr
    # argv bytes that are not UTF-8 arrive as lone surrogates (surrogateescape)
    run = subprocess.run(
        [*FOLIO, "search", b"own\xffership"],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        cwd=ROOT,
        timeout=120,
    )
    assert run.returncode == 2 and "UTF-8" in run.stderr and "Traceback" not in run.stderr


def test_api_key_path_that_is_a_directory_is_a_message(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "api-key").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TYPESENSE_")}
    env["FOLIO_HOME"] = str(home)
    # (a search no longer starts a server that never ran: it says the library is empty)
    run = folio("server", "start", env=env)
    assert run.returncode == 2, run.stderr
    assert "api-key" in run.stderr and "directory" in run.stderr
    assert "Traceback" not in run.stderr
    assert server.running(home) is None


def test_mcp_bad_section_ids_are_error_results_and_the_server_lives(
    one_doc: Store, folio_env: Path
) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pipeline", "mcp"],
        env=os.environ.copy(),
        cwd=str(ROOT),
    )

    async def session() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            for bad in ("", "`"):
                res = await s.call_tool("get_section", {"section_id": bad})
                assert res.is_error
                assert "chunk id" in tool_text(res), tool_text(res)
            res = await s.call_tool("search", {"query": "ownership", "doc_id": ""})
            assert res.is_error and "doc" in tool_text(res)
            res = await s.call_tool("get_section", {"section_id": "no-such-section"})
            assert res.is_error and "no section" in tool_text(res)
            res = await s.call_tool("search", {"query": "ownership"})
            assert not res.is_error and json.loads(tool_text(res))["found"] > 0

    asyncio.run(asyncio.wait_for(session(), 60))
    assert server.healthy(one_doc.nodes[0].port)
