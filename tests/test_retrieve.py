"""Search and retrieval against a real Typesense server, and the MCP server over stdio."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from pipeline import make_config
from pipeline.chunk.tokens import Estimator, estimate_tokens
from pipeline.errors import StoreError
from pipeline.extract import extract_file
from pipeline.index.keys import search_only_key
from pipeline.index.schema import CHUNKS
from pipeline.index.settings import ServerSettings
from pipeline.index.store import Store
from pipeline.ingest import IngestOptions, ingest
from pipeline.retrieve import Filters, get_section, neighbors, retrieve, search

from .helpers import tool_text

ROOT = Path(__file__).parent.parent
EXAMPLES = ROOT / "examples" / "library"


@pytest.fixture()
def loaded(store: Store, tmp_path: Path) -> Store:
    lib = tmp_path / "lib"
    lib.mkdir()
    for name in (
        "rust-ownership.md",
        "rust-operators.md",
        "fastapi-first-steps.md",
        "state-of-the-union-2024.txt",
        "tufte-sample-book.pdf",
    ):
        shutil.copy(EXAMPLES / name, lib / name)
    report = ingest([str(lib)], make_config(), store, IngestOptions(workers=1))
    assert not report.failed
    return store


def test_facet_counts_match_indexed_chunks(loaded: Store) -> None:
    everything = loaded.export(CHUNKS)
    result = search(loaded, "*", per_page=1)
    assert result.found == len(everything)
    tiers = dict(result.facets["tier"])
    assert tiers == {t: sum(1 for d in everything if d["tier"] == t) for t in tiers}
    hints = dict(result.facets["content_hints"])
    for hint, count in hints.items():
        assert count == sum(1 for d in everything if hint in d["content_hints"])


def test_hint_filter_returns_only_tables(loaded: Store) -> None:
    result = search(loaded, "operator", Filters(hints=("table",)), per_page=50)
    assert result.hits
    assert all("table" in h.content_hints for h in result.hits)
    assert dict(result.facets["content_hints"])["table"] == result.found


def test_no_hits_is_empty_not_an_error(loaded: Store) -> None:
    assert search(loaded, "xylophonequartz", Filters(hints=("code",))).hits == ()


@pytest.mark.parametrize("budget", [300, 1000, 2000, 4000])
@pytest.mark.parametrize(
    "question",
    [
        "What happens when a variable goes out of scope?",
        "How do I run the FastAPI dev server?",
        "What did the president say about Ukraine?",
        "margin notes and sidenotes",
    ],
)
def test_retrieve_budget_no_repeats_parents_and_citations(
    loaded: Store, question: str, budget: int
) -> None:
    ctx = retrieve(loaded, question, budget)
    assert ctx.tokens <= budget
    assert sum(i.tokens for i in ctx.items) == ctx.tokens
    spans: dict[str, list[tuple[int, int]]] = {}
    texts: dict[str, str] = {}
    for item in ctx.items:
        c = item.citation
        if c.source not in texts:
            texts[c.source] = extract_file(c.source).text
        # the cited char range reproduces the text exactly
        assert texts[c.source][c.char_start : c.char_end] == item.text
        # no text repeated: ranges of one document never overlap
        for a, b in spans.get(c.doc_id, []):
            assert c.char_end <= a or c.char_start >= b
        spans.setdefault(c.doc_id, []).append((c.char_start, c.char_end))
        # every returned snippet lies in (or overlaps) its parent's window
        section = get_section(loaded, item.section_id)
        assert section is not None and section.tier == "section"
        assert section.char_start <= c.char_start and c.char_end <= section.char_end
        for sid in item.snippet_ids:
            res = loaded.search(CHUNKS, {"q": "*", "filter_by": f"id:={sid}"})
            snip = res["hits"][0]["document"]
            assert snip["parent_id"] == item.section_id
            assert snip["char_start"] < c.char_end and snip["char_end"] > c.char_start
        # the budget pays for the text, counted as retrieve counts by default
        assert item.tokens >= Estimator("prose").count(item.text)
    if budget >= 1000:
        assert ctx.items, "a real question should find context"


@pytest.mark.parametrize("query", ["ownership", "borrow", "union"])
def test_search_page_shows_each_preview_of_a_section_once(loaded: Store, query: str) -> None:
    raw = loaded.search(CHUNKS, {"q": query, "query_by": "section_title,retrieval_text"})
    result = search(loaded, query, per_page=10)
    places = [
        (h.parent_id if h.tier == "snippet" else h.id, " ".join(h.highlight.split()))
        for h in result.hits
    ]
    assert len(places) == len(set(places))
    assert len(result.hits) + result.folded == min(10, raw["found"])


def test_a_table_hit_brings_the_whole_table(store: Store, tmp_path: Path) -> None:
    rows = "\n".join(f"| Line item {i} | {i * 7} | {i * 11} |" for i in range(50))
    prose = " ".join(f"Sentence number {i} says little of note." for i in range(60))
    (tmp_path / "report.md").write_text(
        f"# Annual report\n\n## Statements\n\n{prose}\n\n"
        "CONSOLIDATED STATEMENT OF WIDGETS (in millions)\n\n"
        f"| Item | 2018 | 2019 |\n|---|---|---|\n{rows}\n| Zanzibar total | 1 | 2 |\n\n"
        f"{prose}\n"
    )
    assert not ingest([str(tmp_path)], make_config(), store, IngestOptions(workers=1)).failed
    chunks = store.export(CHUNKS)
    assert sum("Line item" in d["text"] for d in chunks if d["tier"] == "snippet") > 1
    section = next(d for d in chunks if d["tier"] == "section" and "Zanzibar" in d["text"])
    budget = 1200
    assert estimate_tokens(section["text"]) > budget  # widening to the section cannot help
    ctx = retrieve(store, "Zanzibar total", budget, mode="lexical")
    item = ctx.items[0]
    assert "Zanzibar total" in item.text
    assert "CONSOLIDATED STATEMENT OF WIDGETS" in item.text and "| Line item 0 |" in item.text
    assert ctx.tokens <= budget
    small = retrieve(store, "Zanzibar total", 300, mode="lexical")
    assert small.tokens <= 300 and small.items  # a table that does not fit stays a snippet


def test_neighbors(loaded: Store) -> None:
    hit = search(loaded, "ownership", Filters(tier="section"), per_page=1).hits[0]
    before, after = neighbors(loaded, hit.id)
    for other in (before, after):
        if other is not None:
            assert other.doc_id == hit.doc_id and other.tier == "section"
    assert before is not None or after is not None


def test_scoped_key_searches_but_cannot_write(loaded: Store) -> None:
    key = search_only_key(loaded)
    reader = Store(ServerSettings(nodes=loaded.nodes, api_key=key, retries=0))
    assert search(reader, "ownership").found > 0
    with pytest.raises(StoreError, match=r"401|API key"):
        reader.upsert(CHUNKS, [{"id": "x"}])
    with pytest.raises(StoreError):
        reader.delete_where(CHUNKS, "tier:=section")
    assert loaded.count(CHUNKS) > 0


def test_mcp_tools_over_stdio(
    loaded: Store, typesense_home: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    node = loaded.nodes[0]
    env = {**os.environ, "TYPESENSE_URL": node.url(), "TYPESENSE_API_KEY": loaded.api_key}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "pipeline", "mcp"], env=env, cwd=str(ROOT)
    )

    async def session() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            tools = {t.name: t for t in (await s.list_tools()).tools}
            assert set(tools) >= {"search", "retrieve", "get_section", "list_documents"}
            assert "question" in json.dumps(tools["retrieve"].input_schema)
            res = await s.call_tool("retrieve", {"question": "ownership rules", "budget": 800})
            data = json.loads(tool_text(res))
            assert data["items"] and data["tokens"] <= 800
            sid = data["items"][0]["section_id"]
            sec = json.loads(tool_text(await s.call_tool("get_section", {"section_id": sid})))
            assert sec["section"]["id"] == sid
            found = json.loads(
                tool_text(await s.call_tool("search", {"query": "operator", "hints": ["table"]}))
            )
            assert all("table" in h["content_hints"] for h in found["hits"])
            docs = await s.call_tool("list_documents", {})
            assert len(json.loads(tool_text(docs)) if len(docs.content) == 1 else docs.content) >= 1

    asyncio.run(session())


def test_a_question_naming_a_statement_finds_the_statement(store: Store, tmp_path: Path) -> None:
    # The prose repeats the question's words; only the statement's title (its lead) says
    # which snippet holds the figures, and it is printed as filings print it.
    talk = " ".join(
        f"Point {i}: the income statement shows net income moved in 2019 as discussed."
        for i in range(60)
    )
    rows = "\n".join(f"| Expense line {i} | {i * 3} | {i * 5} |" for i in range(30))
    (tmp_path / "acme.md").write_text(
        "# Acme annual report\n\n## Management discussion\n\n"
        f"{talk}\n\n## Consolidated Statements of Operations\n\n"
        f"| Item | 2018 | 2019 |\n|---|---|---|\n| Net sales | 900 | 1,000 |\n{rows}\n"
        "| Net income | 80 | 95 |\n\n## Legal proceedings\n\nNone of note.\n"
    )
    assert not ingest([str(tmp_path)], make_config(), store, IngestOptions(workers=1)).failed
    ctx = retrieve(
        store, "What was net income in 2019 per the income statement?", 800, mode="lexical"
    )
    assert "| Net income | 80 | 95 |" in ctx.items[0].text


def test_a_question_about_several_periods_covers_each_filing(store: Store, tmp_path: Path) -> None:
    # One quarter's report says "net sales" over and over; the others say it once. A
    # question over the quarters takes each report's best snippet before any report's
    # second (ranked alone, the first report's snippets fill the budget).
    talk = " ".join(
        f"Net sales point {i}: net sales rose on net sales of goods." for i in range(120)
    )
    for quarter in ("q1", "q2", "q3"):
        other = " ".join(f"Remark {i} about staffing, offices and leases." for i in range(120))
        if quarter != "q1":
            other += f" Net sales were {quarter[1]}00 million."
        results = f"## Results\n\n{talk}\n" if quarter == "q1" else ""
        (tmp_path / f"acme-{quarter}.md").write_text(
            f"# Acme quarterly report {quarter.upper()}\n\n## Other\n\n{other}\n\n{results}"
        )
    assert not ingest([str(tmp_path)], make_config(), store, IngestOptions(workers=1)).failed

    def sources(question: str) -> list[str]:
        """The documents of the context's items, best ranked first."""
        ctx = retrieve(store, question, 1400, mode="lexical")
        return [Path(it.citation.source).stem for it in sorted(ctx.items, key=lambda i: i.rank)]

    over_time = sources("How have net sales changed over the reported quarters?")
    assert sorted(over_time[:3]) == ["acme-q1", "acme-q2", "acme-q3"]
    assert sources("What were the net sales?")[:2] == ["acme-q1", "acme-q1"]


def test_a_question_naming_a_company_keeps_to_its_filing(store: Store, tmp_path: Path) -> None:
    # Another company's report repeats the question's words; the named one answers in its
    # own words. Naming the company must outweigh that (a reader asking about Acme has no
    # use for Globex's driver of net income).
    echo = "The primary driver behind the change in net income was pricing."
    for company in ("Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark"):
        body = f"Remarks on staffing, offices and leases at {company}. " * 10
        if company == "Acme":
            body += "\n\nNet income fell because net sales decreased 3% on lower Mac sales."
        if company == "Globex":
            body += f"\n\n{echo}"
        (tmp_path / f"{company.lower()}-10q.md").write_text(
            f"# {company} Corp. quarterly report\n\n## Results of operations\n\n{body}\n"
        )
    assert not ingest([str(tmp_path)], make_config(), store, IngestOptions(workers=1)).failed
    question = "What was the primary driver behind the change in Acme's net income?"
    ctx = retrieve(store, question, 1000, mode="lexical")
    best = min(ctx.items, key=lambda i: i.rank)
    assert Path(best.citation.source).stem == "acme-10q", best.citation.source
    assert "lower Mac sales" in best.text
