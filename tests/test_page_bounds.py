"""Page numbers no library can reach are refused at once, at every entry point.

Typesense 0.24.1 never answers a search for a page from 2**31 to 2**32 - 1 (the client
retried for half an hour), and a page filter past its 32-bit fields is a 400. Real
server, real `folio` processes, the SDK's MCP client, the reader's app."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import pytest
from starlette.testclient import TestClient

from pipeline import Filters, IngestOptions, Library
from pipeline.errors import InvalidInput
from pipeline.index.store import Store
from pipeline.web.app import build_app

from .helpers import folio as run_folio

ROOT = Path(__file__).parent.parent
T = TypeVar("T")
HANGING = (2**31, 2**32 - 1)  # pages Typesense 0.24.1 never answers


@pytest.fixture(scope="module")
def library(module_store: Store, tmp_path_factory: pytest.TempPathFactory) -> Library:
    """Ingested once: every test here only reads it."""
    store = module_store
    lib = tmp_path_factory.mktemp("lib")
    shutil.copy(ROOT / "examples" / "library" / "rust-ownership.md", lib / "rust-ownership.md")
    library = Library(store)
    assert not library.ingest([lib], options=IngestOptions(workers=1)).failed
    return library


def folio(*args: str) -> subprocess.CompletedProcess[str]:
    return run_folio(os.environ.copy(), *args, timeout=60)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--page", str(HANGING[0])), "page must be from 1 to 214748364, not 2147483648"),
        (("--page", str(HANGING[1])), "not 4294967295"),
        (("--page", "9" * 30), "page must be from 1 to"),
        (("--page", "8589935", "--per-page", "250"), "page must be from 1 to 8589934, not"),
        (("--per-page", "251"), "per_page must be from 1 to 250, not 251"),
        (("--pages", "1", str(2**31)), "pages are numbered from 1 to 2147483647"),
    ],
)
def test_the_command_line_refuses_pages_that_cannot_exist(
    library: Library, args: tuple[str, ...], said: str
) -> None:
    started = time.monotonic()
    run = folio("search", "ownership", *args)
    assert run.returncode == 2, run.stderr
    assert said in run.stderr and "Traceback" not in run.stderr
    assert time.monotonic() - started < 30


def test_the_last_page_that_can_exist_is_answered(library: Library) -> None:
    run = folio("search", "ownership", "--page", "8589934", "--per-page", "250")
    assert run.returncode == 0, run.stderr
    assert "past the end" in run.stdout


def within(seconds: float, work: Callable[[], T]) -> T:
    """``work()``, or a failure once ``seconds`` pass (a hung search never returns; its
    daemon thread is left behind)."""
    done: list[T] = []
    thread = threading.Thread(target=lambda: done.append(work()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert done, f"no answer in {seconds} s"
    return done[0]


def refused(work: Callable[[], object]) -> str:
    """The InvalidInput ``work`` raises, within 30 seconds."""

    def attempt() -> str:
        try:
            work()
        except InvalidInput as exc:
            return str(exc)
        return "not refused"

    return within(30, attempt)


def test_the_python_api_refuses_them(library: Library) -> None:
    for page in HANGING:
        said = refused(partial(library.search, "ownership", page=page))
        assert said.startswith("page must be from 1 to 214748364"), said
    said = refused(lambda: library.search("ownership", Filters(page_from=2**31)))
    assert "pages are numbered from 1 to" in said
    said = refused(lambda: library.retrieve("ownership", 500, Filters(page_to=2**40)))
    assert "pages are numbered from 1 to" in said
    assert library.search("ownership", page=214748364).hits == ()


def test_mcp_answers_an_unreachable_page_with_an_error(library: Library) -> None:
    from mcp.client import Client

    from pipeline.mcp.server import build_server

    async def run() -> list[Any]:
        async with Client(build_server()) as client:
            schema = next(t for t in (await client.list_tools()).tools if t.name == "search")
            calls = [
                await client.call_tool("search", {"query": "ownership", "page": page})
                for page in HANGING
            ]
            calls.append(await client.call_tool("search", {"query": "ownership", "page_to": 2**31}))
            return [schema.input_schema["properties"], *calls]

    # A tool runs on the client's event loop here: a hung search would block wait_for.
    props, *results = within(60, lambda: asyncio.run(run()))
    assert props["page"]["maximum"] == 2**31 - 1
    assert props["page_to"]["anyOf"][0]["maximum"] == 2**31 - 1
    for result in results:
        assert result.is_error
        assert "page must be from 1 to" in result.content[0].text or (
            "pages are numbered from 1 to" in result.content[0].text
        )


def test_the_reader_refuses_an_unreachable_page(library: Library) -> None:
    client = TestClient(build_app(library.read_only()), base_url="http://127.0.0.1")
    for page in (*HANGING, 10**40):
        params = {"q": "ownership", "page": str(page)}
        answer = within(30, partial(client.get, "/", params=params))
        assert answer.status_code == 400, answer.text
        assert "page must be from 1 to" in answer.text
