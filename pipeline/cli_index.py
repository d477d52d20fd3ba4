"""`folio` commands that talk to Typesense: ingest, search, docs, delete, status,
server, reindex."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from .config import load_config
from .errors import InvalidInput
from .index import server, side_index
from .index.documents import delete_document
from .index.schema import CHUNKS, DOCUMENTS
from .index.settings import folio_home, load_server_settings, secure_home
from .index.store import Store
from .ingest import Report, ingest
from .library import resolved
from .limits import DEFAULT_FILE_TIMEOUT, DEFAULT_MAX_FILE_MB, DEFAULT_MAX_MEMORY_MB, Limits
from .retrieve import MODES, Filters, retrieve, search
from .terminal import markup, plain

err = Console(stderr=True)
out = Console()


def _store(args: argparse.Namespace) -> Store:
    secure_home(folio_home())  # a home made by an older Folio is tightened here
    return Store.connect(load_server_settings(getattr(args, "config", None)))


def _non_negative(kind: type[float] | type[int]) -> Any:
    def parse(raw: str) -> float | int:
        try:
            value = kind(raw)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {raw!r}") from None
        if value < 0:
            raise argparse.ArgumentTypeError(f"must be 0 (no limit) or more, not {raw}")
        return value

    return parse


def cmd_ingest(args: argparse.Namespace) -> int:
    config = load_config(args.config, {"preset": args.preset, "overlap": args.overlap})
    store = _store(args)
    progress = Progress(
        TextColumn("[bold]ingest"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("files · {task.fields[pages]} pages · {task.fields[chunks]} chunks"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err,
        disable=args.json or not err.is_terminal,
    )
    task = progress.add_task("ingest", total=None, pages=0, chunks=0)

    def hook(event: str, totals: dict[str, int]) -> None:
        if event == "start":
            progress.update(task, total=totals["files"])
        progress.update(
            task, completed=totals["done"], pages=totals["pages"], chunks=totals["chunks"]
        )

    limits = Limits.from_options(args.file_timeout, args.max_file_mb, args.max_memory_mb)
    with store.writing(args.wait, "ingest --prune" if args.prune else "ingest"), progress:
        report = ingest(
            args.paths,
            config,
            store,
            prune=args.prune,
            workers=args.workers,
            progress=hook,
            file_timeout=limits.file_timeout,
            max_file_mb=limits.max_file_mb,
            max_memory_mb=limits.max_memory_mb,
            embed=False if args.no_embed else None,
        )
    if args.json:
        json.dump(report.to_dict(), sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        _print_report(report)
    if report.interrupted:
        return 130
    return 1 if report.failed else 0


def _print_report(report: Report) -> None:
    t = Table(title="folio ingest", show_header=True)
    t.add_column("outcome")
    t.add_column("files", justify="right")
    t.add_column("detail")
    secs = report.seconds
    t.add_row(
        "ingested",
        str(len(report.ingested)),
        f"{report.sections} sections, {report.snippets} snippets, {report.pages} pages",
    )
    t.add_row("unchanged", str(len(report.unchanged)), "skipped (same content and settings)")
    if report.empty:
        t.add_row("empty", str(len(report.empty)), "no indexable text (e.g. front matter only)")
    if report.duplicates:
        t.add_row("duplicate", str(len(report.duplicates)), "same content as another file")
    if report.pruned:
        t.add_row("pruned", str(len(report.pruned)), "files gone: removed from the index")
    t.add_row("failed", str(len(report.failed)), "")
    err.print(t)
    for f in report.failed:
        err.print(
            f"[red]failed[/red] {markup(f.path)} ({f.stage}): {markup(f.reason)}", highlight=False
        )
    if report.embedder and report.embedded:
        per = 1000 * secs["embed"] / report.embedded
        err.print(
            f"embedded {report.embedded} snippets with {markup(report.embedder)}: "
            f"{secs['embed']:.1f}s in workers ({per:.1f}s per 1,000 snippets)"
        )
    err.print(
        f"time {secs['total']:.1f}s (extract {secs['extract']:.1f}s, chunk {secs['chunk']:.1f}s, "
        f"embed {secs['embed']:.1f}s in workers; index {secs['index']:.1f}s)"
        + (" — interrupted: run the same command again to finish" if report.interrupted else "")
    )


def _filters(args: argparse.Namespace) -> Filters:
    return Filters(
        hints=tuple(args.hint or ()),
        tier=getattr(args, "tier", None),
        doc=args.doc,
        format=args.format,
        has_table=True if args.has_table else None,
        page_from=args.pages[0] if args.pages else None,
        page_to=args.pages[1] if args.pages else None,
    )


def cmd_search(args: argparse.Namespace) -> int:
    store = _store(args)
    store.ensure_collections()
    result = search(store, args.query, _filters(args), page=args.page, per_page=args.per_page)
    if args.json:
        json.dump(result.to_dict(), sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    if not result.hits:
        hint = " Try dropping filters (--hint/--tier/--doc/--format/--has-table/--pages)."
        out.print(f"No results for {markup(repr(args.query))}." + (hint if result.filters else ""))
        return 0
    for h in result.hits:
        pages = f" p.{h.page_start}-{h.page_end}" if h.page_start is not None else ""
        out.print(
            f"[bold]{markup(' > '.join(h.breadcrumb))}[/bold]{pages} "
            f"[dim]{h.tier} · {', '.join(h.content_hints)} · {h.id}[/dim]",
            highlight=False,
        )
        text = markup(" ".join(h.highlight.split())[:300])
        out.print(
            "  "
            + text.replace("&lt;mark&gt;", "")
            .replace("<mark>", "[bold]")
            .replace("</mark>", "[/bold]"),
            highlight=False,
        )
    last = min(result.found, result.page * result.per_page)
    s = "s" if result.folded > 1 else ""
    folded = f"; {result.folded} repeated preview{s} folded" if result.folded else ""
    first = (result.page - 1) * result.per_page + 1
    out.print(f"\n{result.found} hits (showing {first}-{last}{folded})")
    for name, counts in result.facets.items():
        shown = ", ".join(f"{value} {count}" for value, count in counts[:8])
        out.print(f"[dim]{name}:[/dim] {markup(shown)}", highlight=False)
    return 0


def cmd_retrieve(args: argparse.Namespace) -> int:
    store = _store(args)
    store.ensure_collections()
    ctx = retrieve(store, args.query, args.budget, _filters(args), mode=args.mode)
    if args.json:
        json.dump(ctx.to_dict(), sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(plain(ctx.to_markdown()))
        if ctx.note:
            err.print(f"[dim]{markup(ctx.note)}[/dim]", highlight=False)
        err.print(f"{len(ctx.items)} items, {ctx.tokens} of {ctx.budget} tokens ({ctx.mode})")
    return 0


def cmd_docs(args: argparse.Namespace) -> int:
    store = _store(args)
    store.ensure_collections()
    records = sorted(store.export(DOCUMENTS), key=lambda r: r["path"])
    if args.json:
        json.dump(records, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    t = Table(show_header=True)
    for col in ("doc_id", "status", "format", "pages", "sections", "snippets", "title", "path"):
        t.add_column(col)
    for r in records:
        t.add_row(
            r["doc_id"][:12],
            r["status"],
            r["format"],
            str(r.get("pages") or ""),
            str(r["sections"]),
            str(r["snippets"]),
            markup(r["title"][:40]),
            markup(r["path"]),
        )
    out.print(t)
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    store = _store(args)
    store.ensure_collections()
    with store.writing(args.wait, "delete"):
        return _delete(store, args.doc)


def _delete(store: Store, doc: str) -> int:
    if not doc.strip():  # a prefix of nothing matches every document
        raise InvalidInput("DOC is empty: give a doc_id (or its first characters) or a path")
    matches = [
        r
        for r in store.export(DOCUMENTS)
        if r["doc_id"].startswith(doc) or r["path"] in (doc, str(resolved(Path(doc))))
    ]
    if not matches:
        err.print(f"folio: no indexed document matches {markup(repr(doc))} (see `folio docs`)")
        return 1
    if len({r["doc_id"] for r in matches}) > 1:
        err.print(f"folio: {markup(repr(doc))} matches several documents; give more of the doc_id")
        return 1
    removed = delete_document(store, matches[0]["doc_id"])
    side_index.refresh(store)
    err.print(f"deleted {markup(matches[0]['path'])} ({removed} chunks)")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    settings = load_server_settings(args.config)
    info: dict[str, Any] = {"home": str(folio_home())}
    if settings.embedded:
        running = server.running()
        info["server"] = (
            {"embedded": True, "pid": running.pid, "url": running.node.url()}
            if running
            else {"embedded": True, "running": False}
        )
        if running is None:
            _emit(info, args.json)
            return 0
    else:
        info["server"] = {"embedded": False, "nodes": [n.url() for n in settings.nodes]}
    store = Store.connect(settings)
    store.ensure_collections()
    info["collections"] = {
        name: {"collection": store.alias_target(name), "documents": store.count(name)}
        for name in (CHUNKS, DOCUMENTS)
    }
    info["sections"] = store.count(CHUNKS, "tier:=section")
    info["snippets"] = store.count(CHUNKS, "tier:=snippet")
    info["failed_documents"] = store.count(DOCUMENTS, "status:=failed")
    _emit(info, args.json)
    return 0


def _emit(info: dict[str, Any], as_json: bool) -> None:
    if as_json:
        json.dump(info, sys.stdout)
        sys.stdout.write("\n")
        return
    for key, value in info.items():
        out.print(f"{key}: {markup(json.dumps(value))}", highlight=False)


def cmd_server(args: argparse.Namespace) -> int:
    if args.action == "start":
        started = server.start()
        home = markup(str(started.home))
        out.print(f"running: pid {started.pid} on {started.node.url()} (home {home})")
    elif args.action == "stop":
        out.print("stopped" if server.stop() else "not running")
    else:
        running = server.running()
        out.print(
            f"running: pid {running.pid} on {running.node.url()}" if running else "not running"
        )
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    from .mcp_server import serve

    serve(args.config)
    return 0


def cmd_reindex(args: argparse.Namespace) -> int:
    store = _store(args)
    store.ensure_collections()
    with store.writing(args.wait, "reindex"):
        for name in (CHUNKS, DOCUMENTS):
            old, new = store.reindex(name)
            err.print(f"{name}: {old} -> {new}")
        side_index.refresh(store)
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from .config import OVERLAPS, PRESETS

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--config",
            metavar="FILE",
            default=None,
            help="YAML config (chunk:, typesense: and dense: sections; default $FOLIO_CONFIG)",
        )

    def wait(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--wait",
            type=_non_negative(float),
            default=None,
            metavar="SECONDS",
            help="when another ingest, delete or reindex is writing to the library, wait "
            "at most this long for it (default: as long as it takes; 0: not at all), "
            "then exit with code 75",
        )

    p = sub.add_parser(
        "ingest",
        help="ingest files and folders into the search index",
        description="Extract, chunk and index files and folders (recursively). "
        "Unchanged files are skipped, changed ones replaced; a bad file is "
        "reported and the rest ingested (exit code 1 if any failed).",
    )
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument(
        "--prune",
        action="store_true",
        help="remove indexed documents under PATH whose files are gone",
    )
    p.add_argument(
        "--no-embed",
        action="store_true",
        help="do not store snippet vectors even when the dense extra is installed "
        "(retrieval is then lexical)",
    )
    p.add_argument("--preset", choices=tuple(PRESETS), default=None)
    p.add_argument("--overlap", choices=tuple(OVERLAPS), default=None)
    p.add_argument("--workers", type=int, default=None, help="worker processes (default: cores)")
    p.add_argument(
        "--file-timeout",
        type=_non_negative(float),
        default=None,
        metavar="SECONDS",
        help=f"give up on a file after this long (default {DEFAULT_FILE_TIMEOUT:g}; 0: no limit)",
    )
    p.add_argument(
        "--max-file-mb",
        type=_non_negative(float),
        default=None,
        metavar="MB",
        help=f"refuse files larger than this (default {DEFAULT_MAX_FILE_MB:g}; 0: no limit)",
    )
    p.add_argument(
        "--max-memory-mb",
        type=_non_negative(int),
        default=None,
        metavar="MB",
        help=f"address space per worker process (default {DEFAULT_MAX_MEMORY_MB}; 0: no limit)",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    wait(p)
    common(p)
    p.set_defaults(func=cmd_ingest)

    def filters(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--hint",
            action="append",
            help="content hint: prose, table, code, list, quote, mixed (repeatable)",
        )
        p.add_argument("--doc", help="only this doc_id")
        p.add_argument("--format", help="only this format: pdf, epub, markdown, mdx, text")
        p.add_argument("--has-table", action="store_true", help="only chunks with a table")
        p.add_argument(
            "--pages",
            type=int,
            nargs=2,
            metavar=("FROM", "TO"),
            help="only chunks overlapping this page range",
        )

    p = sub.add_parser(
        "search",
        help="search the index with facets",
        description="Keyword search (typo tolerant) over headings and text, "
        "with facet counts for content hints, tiers, documents and formats.",
    )
    p.add_argument("query")
    filters(p)
    p.add_argument("--tier", choices=("section", "snippet"))
    p.add_argument("--page", type=int, default=1)
    p.add_argument("--per-page", type=int, default=10)
    p.add_argument("--json", action="store_true")
    common(p)
    p.set_defaults(func=cmd_search)

    p = sub.add_parser(
        "retrieve",
        help="context for an agent: sections around the best "
        "snippets, within a token budget, with citations",
    )
    p.add_argument("query")
    p.add_argument("--budget", type=int, required=True, metavar="TOKENS")
    p.add_argument(
        "--mode",
        choices=MODES,
        default=None,
        help="ranking: lexical (BM25), dense (vectors) or hybrid (both fused); default "
        "hybrid when the dense extra is installed, else lexical",
    )
    filters(p)
    p.add_argument("--json", action="store_true", help="the agent format")
    common(p)
    p.set_defaults(func=cmd_retrieve)

    p = sub.add_parser(
        "mcp",
        help="serve search and retrieval to agents over MCP (stdio)",
        description="An MCP server on stdio with tools search, retrieve, "
        "get_section and list_documents, using a search-only key.",
    )
    common(p)
    p.set_defaults(func=cmd_mcp)

    p = sub.add_parser("docs", help="list indexed documents with counts and status")
    p.add_argument("--json", action="store_true")
    common(p)
    p.set_defaults(func=cmd_docs)

    p = sub.add_parser("delete", help="remove a document (doc_id prefix or path) from the index")
    p.add_argument("doc", metavar="DOC")
    wait(p)
    common(p)
    p.set_defaults(func=cmd_delete)

    p = sub.add_parser("status", help="server, collections and counts")
    p.add_argument("--json", action="store_true")
    common(p)
    p.set_defaults(func=cmd_status)

    p = sub.add_parser("server", help="start, stop or check the embedded Typesense server")
    p.add_argument("action", choices=("start", "stop", "status"))
    p.set_defaults(func=cmd_server)

    p = sub.add_parser("reindex", help="rebuild collections as a new version, swap the aliases")
    wait(p)
    common(p)
    p.set_defaults(func=cmd_reindex)
