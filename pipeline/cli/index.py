"""`folio` commands that write the library or run its servers: ingest, delete,
reindex, server, mcp; and the registration of every library command."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from ..chunking import SUPPORTED_SUFFIXES, holds_supported
from ..errors import FolioError
from ..library import IngestOptions, Library, Report
from ..shared.config import OVERLAPS, PRESETS
from ..shared.config_files import load_config
from ..shared.limits import DEFAULT_FILE_TIMEOUT, DEFAULT_MAX_FILE_MB, DEFAULT_MAX_MEMORY_MB, Limits
from .common import (
    Commands,
    add_command,
    at_least,
    config_option,
    err,
    open_library,
    out,
    print_json,
)
from .read import add_read_commands
from .terminal import markup, one_line

PROGRESS_LINE_S = 30.0  # how often a plain progress line is printed without a terminal


def cmd_ingest(args: argparse.Namespace) -> int:
    """Ingest files and folders into the search index.

    Extract, chunk and index files and folders (recursively). Unchanged files are
    skipped, changed ones replaced; a bad file is reported and the rest ingested
    (exit code 1 if any failed).
    """
    config = load_config(args.config, {"preset": args.preset, "overlap": args.overlap})
    if not args.prune:
        _refuse_nothing_to_read(args.paths)
    lib = open_library(args)
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
    # Shown once the files to read are counted (it said 0/? while they were hashed).
    task = progress.add_task("ingest", total=None, pages=0, chunks=0, visible=False)
    lines = ProgressLines() if not args.json and not err.is_terminal else None

    def hook(event: str, totals: dict[str, int]) -> None:
        if event == "start":
            progress.update(task, total=totals["files"], visible=True)
        progress.update(
            task, completed=totals["done"], pages=totals["pages"], chunks=totals["chunks"]
        )
        if lines is not None:
            lines.update(event, totals)

    options = IngestOptions(
        prune=args.prune,
        workers=args.workers,
        embed=False if args.no_embed else None,
        rehash=args.rehash,
        limits=Limits.from_options(args.file_timeout, args.max_file_mb, args.max_memory_mb),
    )
    with progress:
        report = lib.ingest(args.paths, config, options, progress=hook, wait=args.wait)
    if args.json:
        print_json(report.to_dict())
    else:
        _print_report(report)
    if report.interrupted:
        return 130
    return 1 if report.failed else 0


class ProgressLines:
    """Progress as a plain line every ``every`` seconds, where no bar can be drawn (output
    to a log file or a pipe): a long ingest said nothing until its summary."""

    def __init__(self, every: float = PROGRESS_LINE_S) -> None:
        self.every = every
        self.started = self.said = time.monotonic()

    def update(self, event: str, totals: dict[str, int]) -> None:
        now = time.monotonic()
        if event == "start":
            files = totals["files"]
            err.print(f"ingest: {files} file{'' if files == 1 else 's'} to read", highlight=False)
        elif now - self.said >= self.every and totals["done"] < totals["files"]:
            err.print(
                f"ingest: {totals['done']} of {totals['files']} files, {totals['chunks']} "
                f"chunks, {totals['pages']} pages, {now - self.started:.0f}s",
                highlight=False,
            )
        else:
            return
        self.said = now


def _refuse_nothing_to_read(paths: list[str]) -> None:
    """A folder without a file Folio reads would ingest nothing, silently."""
    for raw in paths:
        if Path(raw).is_dir() and not holds_supported(Path(raw)):
            kinds = " ".join(sorted(SUPPORTED_SUFFIXES))
            raise FolioError(
                f"{raw}: no file Folio can read in this folder (it reads {kinds}); "
                "give a folder that holds some, or the files themselves"
            )


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
    if report.vectors_added:
        detail = "unchanged, stored without vectors of this model: embedded"
        t.add_row("vectors", str(len(report.vectors_added)), detail)
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
            f"[red]failed[/red] {markup(one_line(f.path))} ({f.stage}): {markup(f.reason)}",
            highlight=False,
        )
    if report.model_change:
        err.print(markup(report.model_change), highlight=False)
    if report.embedder and report.embedded:
        per = 1000 * secs["embed"] / report.embedded
        err.print(
            f"embedded {report.embedded} snippets with {markup(report.embedder)}: "
            f"{secs['embed']:.1f}s ({per:.1f}s per 1,000 snippets)"
        )
    workers = "summed over the worker processes, which run side by side"
    err.print(
        f"time {secs['total']:.1f}s wall clock; extract {secs['extract']:.1f}s, chunk "
        f"{secs['chunk']:.1f}s {workers}; embed {secs['embed']:.1f}s; plan "
        f"{secs['plan']:.1f}s, index {secs['index']:.1f}s, BM25 index {secs['lexical']:.1f}s"
        + (" — interrupted: run the same command again to finish" if report.interrupted else "")
    )


def cmd_delete(args: argparse.Namespace) -> int:
    """Remove a document from the index.

    Remove a document and every chunk of it from the index. DOC is its doc_id, its
    first characters (unique among the documents) or its file's path. Given a path
    whose bytes another indexed file also holds (a duplicate), only that file's record
    goes: the content stays indexed under the other file.
    """
    # Looked up under the library lock: an ingest under way may be adding it. No such
    # document is `folio: error: …`, exit 2, as for --doc and outline.
    removed = open_library(args).delete(args.doc, wait=args.wait)
    if removed.kept_by:
        kept = ", ".join(removed.kept_by)
        err.print(
            f"deleted {markup(repr(args.doc))}: its content stays indexed, held by "
            f"{markup(kept)} (the same bytes)",
            highlight=False,
        )
    else:
        err.print(f"deleted {markup(repr(args.doc))} ({removed.chunks} chunks)", highlight=False)
    return 0


def cmd_server(args: argparse.Namespace) -> int:
    """Start, stop or check the embedded Typesense server.

    The Typesense server Folio runs under $FOLIO_HOME when no TYPESENSE_URL or
    typesense: config names one. Commands start it when they need it.
    """
    if args.action == "start":
        started = Library.start_server()
        home = markup(str(started.home))
        out.print(f"running: pid {started.pid} on {started.node.url()} (home {home})")
    elif args.action == "stop":
        out.print("stopped" if Library.stop_server() else "not running")
    else:
        running = Library.running_server()
        out.print(
            f"running: pid {running.pid} on {running.node.url()}" if running else "not running"
        )
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    """Serve search and retrieval to agents over MCP (stdio).

    An MCP server on stdio with tools search, retrieve, get_section, get_outline and
    list_documents, using a search-only key.
    """
    from ..mcp.server import serve

    serve(args.config)
    return 0


def cmd_reindex(args: argparse.Namespace) -> int:
    """Rebuild collections as a new version, swap the aliases, rebuild the BM25 index.

    Copy each collection into its next version and point the alias at it, under the
    library lock: how a schema change reaches an existing library. The lexical index
    under FOLIO_HOME is then built anew from the store.
    """
    for name, old, new in open_library(args).reindex(wait=args.wait):
        err.print(f"{name}: {old} -> {new}")
    err.print("lexical index: rebuilt")
    return 0


def add_commands(sub: Commands) -> None:
    common = config_option()
    waiting = argparse.ArgumentParser(add_help=False)
    waiting.add_argument(
        "--wait",
        type=at_least(0, float),
        default=None,
        metavar="SECONDS",
        help="when another ingest, delete or reindex is writing to the library, wait "
        "at most this long for it (default: as long as it takes; 0: not at all), "
        "then exit with code 75",
    )
    _add_ingest(sub, [common, waiting])
    add_read_commands(sub, common)

    p = add_command(sub, cmd_delete, parents=[waiting, common])
    p.add_argument("doc", metavar="DOC", help="doc_id, a unique prefix of it, or a path")

    add_command(sub, cmd_reindex, parents=[waiting, common])
    add_command(sub, cmd_mcp, parents=[common])

    p = add_command(sub, cmd_server)
    p.add_argument("action", choices=("start", "stop", "status"), help="start, stop or status")


def _add_ingest(
    sub: Commands,
    parents: list[argparse.ArgumentParser],
) -> None:
    p = add_command(sub, cmd_ingest, parents=parents, json="print the summary as JSON")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")
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
    p.add_argument(
        "--rehash",
        action="store_true",
        help="read and hash every file; by default a file whose size, mtime, ctime, inode "
        "and device are those it had when an earlier ingest hashed it is not read again",
    )
    p.add_argument("--preset", choices=tuple(PRESETS), default=None, help=PRESET_HELP)
    p.add_argument("--overlap", choices=tuple(OVERLAPS), default=None, help=OVERLAP_HELP)
    p.add_argument(
        "--workers",
        type=at_least(1, int),
        default=None,
        help="worker processes (default: one per core, at most one per file)",
    )
    for flag, kind, unit, what, default in _LIMITS:
        p.add_argument(
            flag,
            type=at_least(0, kind),
            default=None,
            metavar=unit,
            help=f"{what} (default {default:g}; 0: no limit)",
        )


# Each per-file limit: ``None`` keeps the default, ``0`` switches it off (Limits.from_options).
_LIMITS: tuple[tuple[str, type, str, str, float], ...] = (
    ("--file-timeout", float, "SECONDS", "give up on a file after this long", DEFAULT_FILE_TIMEOUT),
    ("--max-file-mb", float, "MB", "refuse files larger than this", DEFAULT_MAX_FILE_MB),
    ("--max-memory-mb", int, "MB", "address space per worker process", DEFAULT_MAX_MEMORY_MB),
)

PRESET_HELP = (
    "chunk sizes: small | medium (sections 1700/2000, snippets 420/512 tokens) | large "
    "(default: the config's, else medium)"
)
OVERLAP_HELP = (
    "overlap between neighbours: none | low | medium (120/80 tokens) | high "
    "(default: the config's, else medium)"
)
