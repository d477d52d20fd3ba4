"""The MCP tools as an agent meets them, through the SDK's own client (in memory) on the
real Typesense server: schemas with enums and ranges, typed structured output, and bad
values refused as error results that say what is allowed (the command line's check)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import jsonschema
import pytest

from pipeline import Library, make_config
from pipeline.index.filters import FORMATS, HINTS, TIERS
from pipeline.index.store import Store
from pipeline.ingest import IngestOptions, ingest
from pipeline.retrieve import MODES

from .helpers import folio

ROOT = Path(__file__).parent.parent
EXAMPLES = ROOT / "examples" / "library"
T = TypeVar("T")


@pytest.fixture(scope="module")
def library(module_store: Store, tmp_path_factory: pytest.TempPathFactory) -> Store:
    """Ingested once: every test here only reads it."""
    store = module_store
    lib = tmp_path_factory.mktemp("lib")
    for name in ("rust-ownership.md", "rust-operators.md"):
        shutil.copy(EXAMPLES / name, lib / name)
    assert not ingest([str(lib)], make_config(), store, IngestOptions(workers=1)).failed
    return store


def with_client(work: Callable[[Any], Awaitable[T]]) -> T:
    """``work`` on an SDK client session connected in memory to ``folio mcp``'s server."""
    from mcp.client import Client

    from pipeline.mcp.server import build_server

    async def run() -> T:
        async with Client(build_server()) as client:
            return await work(client)

    return asyncio.run(asyncio.wait_for(run(), 60))


def choices(prop: dict[str, Any]) -> list[str]:
    """The enum of a string property, or of an optional or array one."""
    for part in (prop, prop.get("items", {}), *prop.get("anyOf", [])):
        if "enum" in part:
            return list(part["enum"])
        if "enum" in part.get("items", {}):
            return list(part["items"]["enum"])
    raise AssertionError(f"no enum in {prop}")


def test_the_tool_list_shows_enums_ranges_and_output_schemas(library: Store) -> None:
    async def tools(client: Any) -> dict[str, Any]:
        return {t.name: t for t in (await client.list_tools()).tools}

    listed = with_client(tools)
    assert set(listed) == {"search", "retrieve", "get_section", "get_outline", "list_documents"}
    search = listed["search"].input_schema["properties"]
    assert choices(search["hints"]) == list(HINTS)
    assert choices(search["tier"]) == list(TIERS)
    assert choices(search["format"]) == list(FORMATS)
    assert (search["per_page"]["minimum"], search["per_page"]["maximum"]) == (1, 250)
    assert search["page"]["minimum"] == 1 and search["page"]["default"] == 1
    retrieve = listed["retrieve"].input_schema["properties"]
    assert choices(retrieve["mode"]) == list(MODES) and choices(retrieve["hints"]) == list(HINTS)
    assert retrieve["budget"]["minimum"] == 1 and retrieve["budget"]["default"] == 2000
    # retrieve takes `folio retrieve`'s filters: search's, but the tier (it ranks snippets)
    unfiltered = {"question", "budget", "mode", "query", "tier", "page", "per_page"}
    assert set(retrieve) - unfiltered == set(search) - unfiltered
    assert choices(retrieve["format"]) == list(FORMATS)
    assert retrieve["has_table"]["type"] == "boolean" and retrieve["has_table"]["default"] is False
    for end in ("page_from", "page_to"):
        assert retrieve[end] == search[end] and search[end]["anyOf"][0]["minimum"] == 1
    assert listed["list_documents"].input_schema["properties"]["limit"]["minimum"] == 1
    for tool in listed.values():
        assert tool.output_schema and tool.output_schema["type"] == "object", tool.name
        assert tool.annotations.read_only_hint is True
    assert {"hits", "found", "facets"} <= set(listed["search"].output_schema["properties"])
    assert {"items", "tokens", "mode"} <= set(listed["retrieve"].output_schema["properties"])


@pytest.mark.parametrize(
    ("tool", "args", "said"),
    [
        ("search", {"hints": ["tabel"]}, ["did you mean 'table'?", *HINTS]),
        ("retrieve", {"hints": ["cod"]}, ["did you mean 'code'?", *HINTS]),
        ("search", {"format": "docx"}, ["unknown format 'docx'", *FORMATS]),
        ("search", {"tier": "snipet"}, ["did you mean 'snippet'?", *TIERS]),
        ("search", {"per_page": 500}, ["per_page must be from 1 to 250, not 500"]),
        ("search", {"page": 0}, ["page must be from 1 to 214748364, not 0"]),
        ("retrieve", {"budget": 0}, ["budget must be 1 or more, not 0"]),
        ("retrieve", {"format": "docx"}, ["unknown format 'docx'", *FORMATS]),
        ("retrieve", {"page_from": 5, "page_to": 2}, ["page range 5 to 2 is empty"]),
        ("retrieve", {"page_from": 0}, ["page 0: pages are numbered from 1"]),
        ("retrieve", {"has_table": "maybe"}, ["invalid has_table 'maybe': it must be true or"]),
        ("retrieve", {"doc_id": "0123456789abcdef"}, ["no indexed document matches"]),
        ("search", {"doc_id": "0123456789abcdef"}, ["no indexed document matches"]),
        ("list_documents", {"limit": 0}, ["limit must be 1 or more, not 0"]),
    ],
)
def test_a_bad_value_is_an_mcp_error_saying_what_is_allowed(
    library: Store, tool: str, args: dict[str, Any], said: list[str]
) -> None:
    question = {"search": {"query": "ownership"}, "retrieve": {"question": "ownership"}}

    async def call(client: Any) -> Any:
        return await client.call_tool(tool, question.get(tool, {}) | args)

    result = with_client(call)
    assert result.is_error and result.structured_content is None
    text = result.content[0].text
    assert all(s in text for s in said), text


def test_retrieve_filters_mean_what_the_command_line_s_mean(library: Store) -> None:
    """The same filters give `folio retrieve --json`'s items, and each holds a table."""
    reader = Library(library)
    doc = next(d for d in reader.documents() if d.path.endswith("rust-operators.md"))
    args = {"hints": ["table"], "doc_id": doc.doc_id[:8], "format": "markdown", "has_table": True}

    async def call(client: Any) -> Any:
        res = await client.call_tool("retrieve", {"question": "operator", "budget": 900} | args)
        assert not res.is_error, res.content[0].text
        return res.structured_content

    got = with_client(call)
    flags = ["--hint", "table", "--doc", doc.doc_id[:8], "--format", "markdown", "--has-table"]
    command = ["retrieve", "operator", "--budget", "900", "--json", *flags]
    cli = folio(os.environ.copy(), *command)
    assert cli.returncode == 0, cli.stderr
    assert got["items"] and got["items"] == json.loads(cli.stdout)["items"]
    for item in got["items"]:
        assert item["citation"]["doc_id"] == doc.doc_id
        assert all("table" in reader.show(s).chunk.content_hints for s in item["snippet_ids"])


def test_the_cli_and_mcp_refuse_a_misspelled_hint_in_the_same_words(library: Store) -> None:
    async def call(client: Any) -> str:
        res = await client.call_tool("search", {"query": "ownership", "hints": ["tabel"]})
        return str(res.content[0].text)

    said = with_client(call)
    cli = folio(os.environ.copy(), "search", "ownership", "--hint", "tabel")
    assert cli.returncode == 2
    message = cli.stderr.strip().removeprefix("folio: error: ")
    assert "allowed" in message and said.endswith(message), (said, cli.stderr)


def test_good_calls_return_structured_content_matching_the_schema(library: Store) -> None:
    async def calls(client: Any) -> dict[str, Any]:
        schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}
        out: dict[str, Any] = {}

        async def call(tool: str, args: dict[str, Any]) -> Any:
            res = await client.call_tool(tool, args)
            assert not res.is_error, res.content[0].text
            jsonschema.validate(res.structured_content, schemas[tool])
            return res.structured_content

        docs = (await call("list_documents", {}))["documents"]
        operators = next(d for d in docs if d["path"].endswith("rust-operators.md"))
        short = operators["doc_id"][:8]
        out["docs"] = docs
        out["search"] = await call(
            "search", {"query": "operator", "hints": ["table"], "doc_id": short, "per_page": 5}
        )
        out["retrieve"] = await call("retrieve", {"question": "ownership rules", "budget": 600})
        snippet = next(h for h in out["search"]["hits"] if h["tier"] == "snippet")
        out["snippet"] = snippet
        out["section"] = await call("get_section", {"section_id": snippet["id"]})
        out["outline"] = await call("get_outline", {"doc_id": short})
        out["operators"] = operators
        return out

    got = with_client(calls)
    assert len(got["docs"]) == 2 and all(d["status"] == "complete" for d in got["docs"])
    doc_id = got["operators"]["doc_id"]
    hits = got["search"]["hits"]
    assert got["search"]["found"] > 0 and 0 < len(hits) <= 5
    assert all(h["doc_id"] == doc_id and "table" in h["content_hints"] for h in hits)
    assert all("text" not in h and "score" not in h for h in hits)  # excerpts only
    ctx = got["retrieve"]
    assert ctx["items"] and ctx["tokens"] <= 600 and ctx["mode"] == "lexical"
    assert all(i["citation"]["source"].endswith(".md") for i in ctx["items"])
    section = got["section"]
    # A snippet id opens the section holding it, with that section's citation.
    assert section["section"]["id"] == got["snippet"]["parent_id"]
    assert section["section"]["tier"] == "section" and section["text"]
    assert section["citation"]["doc_id"] == doc_id
    outline = got["outline"]
    assert outline["document"]["doc_id"] == doc_id
    headings = outline["headings"]  # each once, in order, with the section holding it
    assert len({tuple(h["breadcrumb"]) for h in headings}) == len(headings) > 0
    indexes = [h["chunk_index"] for h in headings]
    assert indexes == sorted(indexes) and indexes[-1] < got["operators"]["sections"]


HOSTILE = "a" * 1_000_000


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("retrieve", {"question": "ownership", "doc_id": HOSTILE}),
        ("search", {"query": "ownership", "doc_id": "0" * 1_000_000}),
        ("get_section", {"id": HOSTILE}),
        ("get_outline", {"doc_id": HOSTILE}),
        ("search", {"query": "ownership", "format": HOSTILE}),
        ("search", {"query": "ownership", "hints": ["tabel"] * 200_000}),
        ("search", {"query": "ownership", "hints": [HOSTILE]}),
        ("search", {"query": "ownership", "page": [1] * 200_000}),
        ("search", {"query": "ownership", HOSTILE: 1}),
    ],
)
def test_an_error_quotes_a_hostile_value_short(
    library: Store, tool: str, args: dict[str, Any]
) -> None:
    """#40.6: a 1 MB doc_id or a 200,000-element list came back whole in the error text
    (1-1.5 MB); an error quotes at most ~100 characters of a value."""

    async def call(client: Any) -> Any:
        return await client.call_tool(tool, args)

    result = with_client(call)
    assert result.is_error
    text = result.content[0].text
    assert len(text) < 1000, (len(text), text[:300])
