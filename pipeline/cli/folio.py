"""The ``folio`` command line: stdout is data, stderr is progress and logs."""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

from ..chunking import DocumentOutline, chunk_document, discover, document_outline, extract_file
from ..errors import FolioError, LockBusy
from ..model import Chunk
from ..shared.config import OVERLAPS, PRESETS, ChunkConfig
from ..shared.config_files import load_config
from .common import ConsoleLog, DefaultsShown, add_command, config_option
from .terminal import plain

log = logging.getLogger("folio")
P = TypeVar("P", str, Path)
T = TypeVar("T")


def _config(args: argparse.Namespace) -> ChunkConfig:
    return load_config(
        args.config,
        {"preset": args.preset, "overlap": args.overlap, "tokenizer": args.tokenizer},
    )


def cmd_chunk(args: argparse.Namespace) -> int:
    """Chunk files or folders into sections and snippets.

    Chunk files (pdf, epub, md, mdx, markdown, txt) or whole folders, recursively.
    JSONL goes to stdout, one object per chunk; errors go to stderr and the exit
    code is 1 when any file failed.
    """
    config = _config(args)
    files, problems = discover(args.paths)
    for problem in problems:
        print(plain(f"folio: error: {problem.path}: {problem.reason}"), file=sys.stderr)
    failed = len(problems)
    out = sys.stdout
    rows: list[Chunk] = []
    for chunks in _per_file(files, lambda path: chunk_document(extract_file(path), config)):
        if chunks is None:
            failed += 1
        elif args.format == "jsonl":
            for c in chunks:
                out.write(json.dumps(c.to_dict(), ensure_ascii=False) + "\n")
        else:
            rows.extend(chunks)
    if args.format == "table":
        _print_table(rows)
    return 1 if failed else 0


def _per_file(paths: Iterable[P], work: Callable[[P], T]) -> Iterator[T | None]:
    """``work`` on each path in turn; a file that fails is reported on stderr and gives
    None, and the rest go on."""
    for path in paths:
        try:
            yield work(path)
        except FolioError as exc:
            print(plain(f"folio: error: {exc}"), file=sys.stderr)
            yield None
        except OSError as exc:
            print(plain(f"folio: error: {path}: {exc.strerror or exc}"), file=sys.stderr)
            yield None


def _print_table(chunks: Sequence[Chunk]) -> None:
    header = (
        f"{'tier':<8}{'#':>5} {'tokens':>6} {'pages':>9} {'lines':>11}  {'hints':<18} breadcrumb"
    )
    print(header)
    for c in chunks:
        pages = "" if c.page_start is None else f"{c.page_start}-{c.page_end}"
        lines = f"{c.line_start}-{c.line_end}"
        crumb = plain(" > ".join(c.breadcrumb))
        flag = " (oversized)" if c.oversized else ""
        print(
            f"{c.tier:<8}{c.chunk_index:>5} {c.est_tokens:>6} {pages:>9} {lines:>11}  "
            f"{','.join(c.content_hints):<18} {crumb}{flag}"
        )


def cmd_extract(args: argparse.Namespace) -> int:
    """Print the normalized text that chunk offsets index into.

    Print the normalized text of FILE (headings as ATX lines); with --json also its
    pages, outline and metadata.
    """
    doc = extract_file(args.file, pdf_backend=args.pdf_backend, use_outline=not args.no_outline)
    if not args.json:
        # Piped, this is the text chunk offsets index into: exact. On a terminal, safe.
        sys.stdout.write(plain(doc.text) if sys.stdout.isatty() else doc.text)
        return 0
    payload = {
        "text": doc.text,
        "pages": [
            {
                "number": p.number,
                "label": p.label,
                "char_start": p.char_start,
                "char_end": p.char_end,
            }
            for p in doc.pages
        ],
        "outline": [
            {"level": o.level, "title": o.title, "page": o.page, "char_start": o.char_start}
            for o in doc.outline
        ],
        "metadata": {"format": doc.format, "title": doc.title, "heading_mode": doc.heading_mode}
        | doc.info.to_dict(),
    }
    json.dump(payload, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


def cmd_outline(args: argparse.Namespace) -> int:
    """Print the heading tree of files, or of an indexed document.

    Print each FILE's heading tree as the chunker reads it, with page ranges and the
    number of sections and snippets under each heading, to check a book before
    ingesting it. Given an indexed document instead (its doc_id, a unique prefix as
    `folio docs` shows it, or its path), print its stored sections in order with
    their ids.
    """
    if len(args.files) == 1 and not Path(args.files[0]).exists():
        # Not a file here: a document of the library (doc_id, its prefix, its path).
        from .read import print_library_outline

        print_library_outline(args, args.files[0])
        return 0
    config = _config(args)
    failed = 0
    results: list[dict[str, object]] = []

    def outline_of(path: str) -> DocumentOutline:
        return document_outline(extract_file(path, use_outline=not args.no_outline), config)

    for path, tree in zip(args.files, _per_file(args.files, outline_of), strict=True):
        if tree is None:
            failed += 1
        elif args.json:
            results.append(
                {
                    "source": str(Path(path).resolve()),
                    "title": tree.title,
                    "heading_mode": tree.heading_mode,
                    "sections": tree.sections,
                    "snippets": tree.snippets,
                    "headings": [n.to_dict() for n in tree.headings],
                }
            )
        else:
            _print_outline(path, tree)
    if args.json:
        json.dump(results, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    return 1 if failed else 0


def _print_outline(path: str, tree: DocumentOutline) -> None:
    # Titles come from the document: no control characters reach the terminal.
    print(
        plain(
            f"{path}: {tree.title} ({tree.heading_mode} headings, {len(tree.headings)} "
            f"headings, {tree.sections} sections, {tree.snippets} snippets)"
        )
    )
    for n in tree.headings:
        pages = "" if n.page_start is None else f"  p. {n.page_start}-{n.page_end}"
        counts = f"[{n.sections} sections, {n.snippets} snippets]"
        print(plain(f"{'  ' * (n.level - 1)}{n.title}{pages}  {counts}"))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="folio",
        description="Turn a library of books and documents into heading-aware, two-tier, "
        "search-ready chunks; index, search and retrieve them. `folio COMMAND --help` "
        "describes each command.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug details")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    chunk = add_command(sub, cmd_chunk, parents=[config_option()])
    chunk.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")
    chunk.add_argument(
        "--format",
        choices=("jsonl", "table"),
        default="jsonl",
        help="jsonl (one object per chunk) or a human-readable table",
    )
    _chunk_options(chunk)

    extract = add_command(sub, cmd_extract, json="structured output")
    extract.add_argument("file", metavar="FILE", help="a pdf, epub, md, mdx, markdown or txt file")
    extract.add_argument(
        "--pdf-backend",
        choices=("auto", "pdfium", "pypdf", "marker"),
        default="auto",
        help="PDF reader: marker when installed with its models (auto), else PDFium's text "
        "layer; pypdf reads it in pure Python (slower)",
    )
    extract.add_argument(
        "--no-outline",
        action="store_true",
        help="ignore PDF bookmarks / EPUB nav (to measure fallback headings)",
    )

    outline = add_command(sub, cmd_outline, parents=[config_option()], json="structured output")
    outline.add_argument("files", nargs="+", metavar="FILE", help="files, or one indexed DOC")
    outline.add_argument(
        "--no-outline", action="store_true", help="ignore PDF bookmarks / EPUB nav"
    )
    _chunk_options(outline)

    from .config import add_config
    from .index import add_commands
    from .serve import add_serve

    add_commands(sub)
    add_config(sub)
    add_serve(sub)
    _explain(parser)
    return parser


def _chunk_options(p: argparse.ArgumentParser) -> None:
    from .index import OVERLAP_HELP, PRESET_HELP

    p.add_argument("--preset", choices=tuple(PRESETS), default=None, help=PRESET_HELP)
    p.add_argument("--overlap", choices=tuple(OVERLAPS), default=None, help=OVERLAP_HELP)
    p.add_argument(
        "--tokenizer",
        metavar="FILE",
        default=None,
        help="count exactly with a tokenizer.json or tiktoken BPE file (default: estimate)",
    )


def _explain(parser: argparse.ArgumentParser) -> None:
    """Every parser: no abbreviations (``--prun`` was taken as the destructive
    ``--prune``) and help that names the defaults."""
    parser.allow_abbrev = False
    parser.formatter_class = DefaultsShown
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                _explain(child)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    # Everything Folio writes (FOLIO_HOME: state, keys, side index; private copies of the
    # files it reads) is for this user alone.
    os.umask(0o077)
    level = logging.DEBUG if args.verbose else logging.INFO
    # The handler's level too: a library may set its own logger to DEBUG (bm25s does).
    logging.basicConfig(level=level, handlers=[ConsoleLog(level)])
    # One line per HTTP request is noise for a person; our own messages say what matters.
    for noisy in ("httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    # pypdf warns about what it repairs ("EOF marker not found", "incorrect startxref
    # pointer", outline objects dumped whole): internals of a file that then reads or
    # fails with a reason of ours. -v shows them.
    logging.getLogger("pypdf").setLevel(level if args.verbose else logging.ERROR)
    if getattr(args, "config", None):
        # Every stage and worker process reads its own section of the same file.
        os.environ["FOLIO_CONFIG"] = str(Path(args.config).resolve())
    # What exists now (modules, classes, the parser) lives as long as the process: the
    # collector's full passes need not walk it again (two such passes over it were 70 ms
    # of a one-file change in a library of 7,600 files).
    gc.freeze()
    try:
        code: int = args.func(args)
    except LockBusy as exc:
        print(plain(f"folio: {exc} (--wait SECONDS)"), file=sys.stderr)
        return 75  # EX_TEMPFAIL: try again later
    except FolioError as exc:
        print(plain(f"folio: error: {exc}"), file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:  # e.g. while waiting for the library lock
        print("folio: interrupted", file=sys.stderr)
        return 130
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
