"""``folio`` commands that read the library: search, retrieve, show, docs, status and
the outline of an indexed document."""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import asdict
from typing import Any

from rich.text import Text

from ..errors import FolioError, RetrievalError
from ..library import (
    FORMATS,
    HINTS,
    MODES,
    TIERS,
    DocumentInfo,
    Filters,
    Hit,
    Library,
    OutlineEntry,
    citation_text,
)
from ..shared.home import folio_home
from .common import Commands, add_command, at_least, err, open_library, out, print_json
from .terminal import elide_end, elide_middle, marked, markup, one_line, plain

FILTER_FLAGS = "--hint/--tier/--doc/--format/--has-table/--pages"


def _filters(lib: Library, args: argparse.Namespace) -> Filters:
    return lib.filters(
        hints=args.hint,
        tier=getattr(args, "tier", None),  # search only: retrieve ranks snippets
        doc=args.doc,
        format=args.format,
        has_table=args.has_table,
        page_from=args.pages[0] if args.pages else None,
        page_to=args.pages[1] if args.pages else None,
    )


EMPTY = "the library is empty: run `folio ingest PATH` first"


def _never_started(args: argparse.Namespace) -> bool:
    """Nothing can be indexed yet: starting the embedded server for a read would only
    create an empty library."""
    return Library.never_started(args.config)


def _library(args: argparse.Namespace) -> Library:
    """The library to read, refused when it cannot hold anything yet."""
    if _never_started(args):
        raise FolioError(EMPTY)
    return open_library(args)


def _refuse_empty(lib: Library) -> None:
    """Nothing found because nothing is indexed: say what to do."""
    counts = lib.counts()
    if counts.sections + counts.snippets == 0:
        files = sum(counts.statuses.values())
        held = f" ({files} file records, none with text: see `folio docs`)" if files else ""
        raise FolioError(EMPTY.replace(":", f"{held}:", 1))


def cmd_search(args: argparse.Namespace) -> int:
    """Search the index with facets.

    Keyword search (typo tolerant) over headings and text, with facet counts for
    content hints, tiers, documents and formats.
    """
    lib = _library(args)
    result = lib.search(args.query, _filters(lib, args), page=args.page, per_page=args.per_page)
    if result.found == 0:
        _refuse_empty(lib)
    if args.json:
        print_json(result.to_dict())
        return 0
    if not result.hits:
        if result.found:
            pages = math.ceil(result.found / result.per_page)
            out.print(
                f"Page {result.page} is past the end: {result.found} results for "
                f"{markup(repr(args.query))}, {pages} page{'s' if pages > 1 else ''} of "
                f"{result.per_page} (--page 1 to {pages})."
            )
            return 0
        hint = f" Try dropping filters ({FILTER_FLAGS})."
        out.print(f"No results for {markup(repr(args.query))}." + (hint if result.filters else ""))
        return 0
    for h in result.hits:
        _print_hit(h)
    last = min(result.found, result.page * result.per_page)
    s = "s" if result.folded > 1 else ""
    folded = f"; {result.folded} repeated preview{s} folded" if result.folded else ""
    first = (result.page - 1) * result.per_page + 1
    out.print(f"\n{result.found} hits (showing {first}-{last}{folded})")
    for name, counts in result.facets.items():
        shown = ", ".join(f"{value} {count}" for value, count in counts[:8])
        out.print(Text.assemble((f"{name}:", "dim"), " ", plain(shown)), highlight=False)
    return 0


def _print_hit(h: Hit) -> None:
    """A hit in three parts that each fit the terminal: its breadcrumb (the middle elided)
    and pages; its id (whole, first on its line, to copy into `folio show`), tier and
    hints; its preview, wrapped under them. Text with styles, never markup strings: a
    document's backslashes and brackets stay as written (see terminal.marked)."""
    width = max(40, out.width)
    pages = f"  p.{h.page_start}-{h.page_end}" if h.page_start is not None else ""
    crumb = elide_middle(one_line(" > ".join(h.breadcrumb)), width - len(pages))
    out.print(Text.assemble((crumb, "bold"), pages), highlight=False)
    what = f"  {h.id}  {h.tier} · {', '.join(h.content_hints)}"
    out.print(Text(what, style="dim"), highlight=False)
    for line in marked(h.highlight).wrap(out, width - 2):
        line.rstrip()
        out.print(Text("  ") + line, highlight=False)


def cmd_retrieve(args: argparse.Namespace) -> int:
    """Context for an agent: the best sections, cited, within a token budget.

    Rank snippets for QUERY and return the sections around the best ones, cut to fit
    the token budget, each with its citation (breadcrumb, file, pages). Markdown on
    stdout; --json gives the agent format.
    """
    lib = _library(args)
    ctx = lib.retrieve(args.query, args.budget, _filters(lib, args), mode=args.mode)
    if not ctx.items:
        _refuse_empty(lib)
    if args.json:
        print_json(ctx.to_dict())
        return 0
    sys.stdout.write(plain(ctx.to_markdown()))
    if ctx.note:
        err.print(Text(plain(ctx.note), style="dim"), highlight=False)
    err.print(f"{len(ctx.items)} items, {ctx.tokens} of {ctx.budget} tokens ({ctx.mode})")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    """Print a section or snippet by id, with its citation.

    Print the section or snippet with this id (as search and retrieve show it), its
    citation (breadcrumb, file, pages) and its neighbours' ids.
    """
    shown = _library(args).show(args.id)
    if args.json:
        print_json(shown)
        return 0
    c = shown.chunk
    out.print(Text(plain(citation_text(shown.citation)), style="bold"), highlight=False)
    where = f"{c.tier} {c.id} · doc {c.doc_id[:12]} · {shown.citation.source}"
    out.print(Text(plain(where), style="dim"), highlight=False)
    sys.stdout.flush()
    sys.stdout.write("\n" + plain(c.text).rstrip("\n") + "\n\n")
    for label, near in (("previous", shown.previous), ("next", shown.next)):
        if near is not None:
            crumb = " > ".join(near.breadcrumb)
            out.print(Text(plain(f"{label}: {near.id}  {crumb}"), style="dim"), highlight=False)
    return 0


def cmd_docs(args: argparse.Namespace) -> int:
    """List indexed documents with counts and status.

    List every indexed file: the first 12 characters of its doc_id (enough for
    --doc, delete and outline), status, format, pages, sections, snippets, title and
    path.
    """
    found = [] if _never_started(args) else open_library(args).documents()
    docs = sorted(found, key=lambda d: d.path)
    if args.json:
        print_json([_doc_json(d) for d in docs])
        return 0
    if not docs:
        out.print("The library is empty: run `folio ingest PATH` to add files.")
        return 0
    width = max(60, out.width)
    out.print(_ROW.format("doc_id", "status", "format", "pages", "sect", "snip") + "title")
    for d in docs:
        head = _ROW.format(d.doc_id[:12], d.status, d.format, d.pages or "", d.sections, d.snippets)
        title = elide_middle(one_line(d.title) or "(untitled)", width - len(head))
        out.print(markup(head + title), highlight=False)
        out.print(markup("  " + elide_middle(one_line(d.path), width - 2)), highlight=False)
        if d.error:
            out.print(markup("  " + elide_middle(one_line(d.error), width - 2)), highlight=False)
    return 0


# 56 characters before the title: at 80 columns the title gets 24, the path (a line of
# its own) 78, both with their middle elided when longer.
_ROW = "{:<12}  {:<9} {:<8} {:>5} {:>5} {:>6}  "


def _doc_json(d: DocumentInfo) -> dict[str, object]:
    return {k: getattr(d, k) for k in DocumentInfo.__slots__}


def cmd_status(args: argparse.Namespace) -> int:
    """Server, collections and counts.

    Where the library lives (home, server), the collections behind its aliases, and
    how many files and chunks it holds. Does not start the embedded server.
    """
    settings = Library.settings(args.config)
    info: dict[str, object] = {"home": str(folio_home())}
    if settings.embedded:
        running = Library.running_server()
        info["server"] = {"embedded": True, "running": running is not None}
        if running is None:
            return _status(info, args.json)
        url = running.node.url()
        info["server"] = {"embedded": True, "running": True, "pid": running.pid, "url": url}
    else:
        info["server"] = {"embedded": False, "nodes": [n.url() for n in settings.nodes]}
    lib = open_library(args)
    info["collections"] = {
        name: {"collection": target, "documents": count}
        for name, (target, count) in lib.collections().items()
    }
    counts = lib.counts()
    info["files"] = counts.statuses
    info["sections"] = counts.sections
    info["snippets"] = counts.snippets
    info["failed_documents"] = counts.statuses.get("failed", 0)
    info["vectors"] = asdict(lib.vectors())
    nodes = lib.node_counts()  # a cluster's nodes, each asked on its own
    if nodes:
        info["nodes"] = [asdict(n) for n in nodes]
    return _status(info, args.json)


def _status(info: dict[str, object], as_json: bool) -> int:
    if as_json:
        print_json(info)
        return 0
    width = max(60, out.width)
    srv = info["server"]
    assert isinstance(srv, dict)
    if not srv["embedded"]:
        where = f"external: {', '.join(srv['nodes'])}"
    elif srv["running"]:
        where = f"embedded, pid {srv['pid']} on {srv['url']}"
    else:
        where = "embedded, not running (`folio server start`, or any command that needs it)"
    lines = [f"home:     {elide_middle(str(info['home']), width - 10)}", f"server:   {where}"]
    collections = info.get("collections")
    if isinstance(collections, dict):
        for name, c in collections.items():
            lines.append(f"{name + ':':<9} {c['documents']} records in {c['collection']}")
        files = info["files"]
        assert isinstance(files, dict)
        by_status = ", ".join(f"{n} {s}" for s, n in sorted(files.items())) or "none"
        lines.append(f"files:    {by_status}")
        lines.append(f"chunks:   {info['sections']} sections, {info['snippets']} snippets")
        lines.append(f"vectors:  {_vectors_line(info['vectors'])}")
    nodes = info.get("nodes")
    if isinstance(nodes, list):
        lines.extend(_node_line(n) for n in nodes)
    for text in lines:
        out.print(markup(plain(text)), highlight=False)
    return 0


def _vectors_line(v: Any) -> str:
    """Coverage by the model that runs here, and what to do when it is partial."""
    if not v["embedder"]:
        return "none: no embedding model here (lexical retrieval only)"
    line = (
        f"{v['snippets_embedded']} of {v['snippets']} snippets, {v['documents_embedded']} "
        f"of {v['documents']} documents ({v['embedder']})"
    )
    if v["snippets_embedded"] < v["snippets"]:
        line += "; `folio ingest` embeds the rest"
    return line


def _node_line(node: dict[str, Any]) -> str:
    """One node of a cluster: what it holds itself, flagged when another holds more."""
    if node["chunks"] is None:
        return f"node:     {node['url']} did not answer: {node['error']}"
    line = f"node:     {node['url']} {node['documents']} records, {node['chunks']} chunks"
    return line + ("  DIFFERS (another node holds more)" if node["differs"] else "")


def print_library_outline(args: argparse.Namespace, doc: str) -> None:
    """`folio outline DOC` (DOC not a file here): the headings of an indexed document,
    each once, in order."""
    if _never_started(args):
        raise FolioError(f"{doc}: no such file (and the library is empty)")
    lib = open_library(args)
    try:
        found = lib.document(doc)
    except RetrievalError as exc:
        raise RetrievalError(f"{doc}: no such file; {exc}") from None
    entries = lib.outline(found.doc_id)
    if args.json:
        print_json({"doc": _doc_json(found), "headings": [_entry_json(e) for e in entries]})
        return
    head = f"{found.path}: {found.title} ({len(entries)} headings)"
    out.print(markup(one_line(head)), highlight=False, soft_wrap=True)  # a path stays whole
    for e in entries:
        out.print(markup(_outline_line(e, max(60, out.width))), highlight=False)


def _outline_line(e: OutlineEntry, width: int) -> str:
    """The id of the section holding the heading first (whole, a column of its own, to
    copy into `folio show`), then the heading indented by its level and cut at the end
    to fit, then its pages: the tree stays a tree at 80 columns (ids after long titles
    wrapped onto lines of their own)."""
    pages = "" if e.page_start is None else f"  p. {e.page_start}-{e.page_end}"
    indent = "  " * e.level
    room = width - len(e.id) - 2 - len(indent) - len(pages)
    return f"{e.id}  {indent}{elide_end(one_line(e.section_title), room)}{pages}"


def _entry_json(e: OutlineEntry) -> dict[str, object]:
    return {k: getattr(e, k) for k in OutlineEntry.__slots__}


def add_filters(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--hint",
        action="append",
        metavar="HINT",
        help=f"only chunks with this content hint: {', '.join(HINTS)} (repeatable: all of them)",
    )
    p.add_argument(
        "--doc",
        metavar="DOC",
        help="only this document: its doc_id, its first characters as `folio docs` shows "
        "them, or its file's path",
    )
    p.add_argument("--format", help=f"only this format: {', '.join(FORMATS)}")
    p.add_argument("--has-table", action="store_true", help="only chunks holding a table")
    p.add_argument(
        "--pages",
        type=int,
        nargs=2,
        metavar=("FROM", "TO"),
        help="only chunks overlapping this page range (pages from 1)",
    )


def add_read_commands(
    sub: Commands,
    common: argparse.ArgumentParser,
) -> None:
    p = add_command(sub, cmd_search, parents=[common], json="hits, counts and facets as JSON")
    p.add_argument("query", metavar="QUERY", help="a few keywords")
    add_filters(p)
    p.add_argument("--tier", help=f"only this tier: {', '.join(TIERS)}")
    p.add_argument("--page", type=at_least(1, int), default=1, help="which page of results")
    p.add_argument(
        "--per-page", type=at_least(1, int), default=10, help="results per page (at most 250)"
    )

    p = add_command(
        sub, cmd_retrieve, parents=[common], json="the agent format: items with citations"
    )
    p.add_argument("query", metavar="QUERY", help="the question, in words")
    p.add_argument(
        "--budget",
        type=at_least(1, int),
        default=2000,
        metavar="TOKENS",
        help="tokens of context at most",
    )
    p.add_argument(
        "--mode",
        choices=MODES,
        default=None,
        help="ranking: lexical (BM25), dense (vectors) or hybrid (both fused); default "
        "hybrid when the dense extra is installed, else lexical",
    )
    add_filters(p)

    p = add_command(sub, cmd_show, parents=[common], json="the chunk, citation and neighbours")
    p.add_argument("id", metavar="ID", help="a section or snippet id")

    add_command(sub, cmd_docs, parents=[common], json="every record in full, as JSON")
    add_command(sub, cmd_status, parents=[common], json="the same as JSON")
