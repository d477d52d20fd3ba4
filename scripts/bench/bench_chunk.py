#!/usr/bin/env python3
"""Benchmark Folio's markdown chunker against peer chunkers on a real markdown corpus.

Every library chunks every document of the corpus separately at a ~420-token target, with one
shared token counter (WordPiece of all-MiniLM-L6-v2 by default, or cl100k). Each library runs in
its own process, forked after the corpus and the counters are loaded; inside it, a fresh chunker
is built for every timed run and the best of ``--repeat`` runs is reported. Nothing touches the
network: the counters come from ``$FOLIO_DATA/tokenizers/`` (see ``data_dir.py``).

Reported per library: throughput (corpus MB / best wall time, MB = 10**6 bytes), chunk count,
share of chunks over the library's own budget and over 420 (in the shared counter and in true
WordPiece), whether reported offsets reproduce the chunk text, how much of the source survives
verbatim, and peak RSS growth while chunking.

``--big-mb N`` is a separate memory test: one synthetic N-MB markdown file made by concatenating
corpus documents, chunked once in a child process (Folio by default).

Run with the benchmark virtualenv, for example::

    ../bench-venv/bin/python scripts/bench/bench_chunk.py
    ../bench-venv/bin/python scripts/bench/bench_chunk.py --only folio,semchunk --json
    ../bench-venv/bin/python scripts/bench/bench_chunk.py --big-mb 100 --only folio
"""

from __future__ import annotations

import argparse
import base64
import gc
import gzip
import json
import multiprocessing
import os
import re
import statistics
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))  # scripts/shared
import rooms  # noqa: E402, F401  (puts every room of scripts/ on the path)
from common import text_table  # noqa: E402  (scripts/ is on the path)
from data_dir import data_dir  # noqa: E402

SHARED = data_dir()
DEFAULT_CORPUS = SHARED / "corpus" / "markdown"
WORDPIECE_PATH = SHARED / "tokenizers" / "all-MiniLM-L6-v2.tokenizer.json"
CL100K_PATH = SHARED / "tokenizers" / "cl100k_base.tiktoken.gz"

TARGET = 420  # the token target every library is asked for
TINY = 50  # chunks under this many WordPiece tokens are reported as tiny fragments
MB = 1_000_000
SUFFIXES = (".md", ".mdx")

CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
CL100K_SPECIAL = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}


# --------------------------------------------------------------------------- corpus & counters


@dataclass(frozen=True, slots=True)
class Corpus:
    root: Path
    paths: tuple[str, ...]
    texts: tuple[str, ...]
    sizes: tuple[int, ...]  # UTF-8 bytes of each normalized text

    @property
    def nbytes(self) -> int:
        return sum(self.sizes)


def load_corpus(root: Path) -> Corpus:
    """Every .md/.mdx file under ``root``, sorted; BOM dropped and newlines normalized to \\n."""
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES)
    paths: list[str] = []
    texts: list[str] = []
    sizes: list[int] = []
    for path in files:
        text = path.read_bytes().decode("utf-8", errors="replace")
        text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
        if not text.strip():
            continue
        paths.append(str(path.relative_to(root)))
        texts.append(text)
        sizes.append(len(text.encode("utf-8")))
    return Corpus(root, tuple(paths), tuple(texts), tuple(sizes))


class WordPiece:
    """Exact WordPiece counts (no special tokens, no truncation, no padding)."""

    name = "wordpiece"

    def __init__(self, path: Path) -> None:
        from tokenizers import Tokenizer

        self.path = path
        self.tokenizer = Tokenizer.from_file(str(path))
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()

    def encode(self, text: str) -> list[int]:
        ids: list[int] = self.tokenizer.encode(text, add_special_tokens=False).ids
        return ids

    def count(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)


class Cl100k:
    """Exact cl100k counts from the local ranks file; also registered for ``get_encoding``."""

    name = "cl100k"

    def __init__(self, path: Path) -> None:
        import tiktoken
        import tiktoken.registry

        self.path = path
        ranks: dict[bytes, int] = {}
        with gzip.open(path, "rt", encoding="ascii") as fh:
            for line in fh:
                if line.strip():
                    token, rank = line.split()
                    ranks[base64.b64decode(token)] = int(rank)
        self.tokenizer = tiktoken.Encoding(
            "cl100k_base",
            pat_str=CL100K_PATTERN,
            mergeable_ranks=ranks,
            special_tokens=CL100K_SPECIAL,
        )
        # Libraries that call tiktoken.get_encoding("cl100k_base") themselves then work offline.
        tiktoken.registry.ENCODINGS["cl100k_base"] = self.tokenizer

    def encode(self, text: str) -> list[int]:
        ids: list[int] = self.tokenizer.encode_ordinary(text)
        return ids

    def count(self, text: str) -> int:
        return len(self.tokenizer.encode_ordinary(text))


Counter = WordPiece | Cl100k


@dataclass(frozen=True, slots=True)
class Context:
    """Everything loaded before forking: children share it copy-on-write."""

    corpus: Corpus
    counter: Counter  # the shared counter every library chunks with
    wordpiece: WordPiece  # "true" WordPiece, for the over-budget check


# --------------------------------------------------------------------------- chunk model


@dataclass(frozen=True, slots=True)
class Piece:
    """A library's chunk, normalized for the statistics."""

    text: str
    start: int | None = None  # offsets into the document, when the library reports them
    end: int | None = None
    prefix: int = 0  # Folio: chars of text not in the source (repeated table header / fence)
    suffix: int = 0
    counted: bool = True  # Folio: only snippets count as chunks
    embed_text: str | None = None  # Folio: retrieval_text (what an embedder sees)
    est_tokens: int | None = None  # Folio: its own count of embed_text
    oversized: bool = False  # Folio: flagged as a single unsplittable unit over the budget


@dataclass(frozen=True, slots=True)
class Bench:
    """How to drive one library: ``make`` and ``run`` are timed, ``normalize`` is not."""

    make: Callable[[], Any]
    run: Callable[[Any, str], Any]
    normalize: Callable[[Any, str], list[Piece]]
    budget: int  # the library's own per-chunk maximum


@dataclass(frozen=True, slots=True)
class Library:
    name: str
    label: str
    impl: str  # "py", "py+rust" (hot loop partly native), "rust"
    build: Callable[[Context], Bench]
    default: bool = True


# --------------------------------------------------------------------------- peers


def _langchain(ctx: Context) -> Bench:
    from langchain_text_splitters import (
        MarkdownHeaderTextSplitter,
        RecursiveCharacterTextSplitter,
    )

    count = ctx.counter.count
    headers = [("#", "h1"), ("##", "h2"), ("###", "h3")]

    def make() -> tuple[Any, Any]:
        header = MarkdownHeaderTextSplitter(headers, strip_headers=False)
        recursive = RecursiveCharacterTextSplitter(
            chunk_size=TARGET, chunk_overlap=0, length_function=count
        )
        return header, recursive

    def run(chunker: tuple[Any, Any], doc: str) -> list[Any]:
        header, recursive = chunker
        docs: list[Any] = recursive.split_documents(header.split_text(doc))
        return docs

    def normalize(out: list[Any], doc: str) -> list[Piece]:
        return [Piece(d.page_content) for d in out]

    return Bench(make, run, normalize, TARGET)


def _llamaindex(ctx: Context) -> Bench:
    from llama_index.core import Document
    from llama_index.core.node_parser import MarkdownNodeParser, SentenceSplitter

    encode = ctx.counter.encode

    def make() -> tuple[Any, Any]:
        markdown = MarkdownNodeParser()
        # include_metadata=False: split on the text alone, so the target really is 420 tokens
        # of text (with metadata on, llama-index shrinks chunks by the header-path metadata).
        sentences = SentenceSplitter(
            chunk_size=TARGET, chunk_overlap=0, tokenizer=encode, include_metadata=False
        )
        return markdown, sentences

    def run(chunker: tuple[Any, Any], doc: str) -> list[Any]:
        markdown, sentences = chunker
        sections = markdown.get_nodes_from_documents([Document(text=doc)])
        nodes: list[Any] = sentences.get_nodes_from_documents(sections)
        return nodes

    def normalize(out: list[Any], doc: str) -> list[Piece]:
        return [Piece(n.text, n.start_char_idx, n.end_char_idx) for n in out]

    return Bench(make, run, normalize, TARGET)


def _chonkie(ctx: Context) -> Bench:
    from chonkie import RecursiveChunker, RecursiveLevel, RecursiveRules

    tokenizer: Any = ctx.counter.tokenizer  # chonkie's adapters encode without special tokens

    def markdown_rules() -> Any:
        # RecursiveRules.from_recipe("markdown") downloads the rules from a hub: build them here.
        headings = RecursiveLevel(
            delimiters=["\n" + "#" * level + " " for level in range(1, 7)], include_delim="next"
        )
        defaults = RecursiveRules().levels or []
        return RecursiveRules(levels=[headings, *defaults])

    def make() -> Any:
        return RecursiveChunker(tokenizer=tokenizer, chunk_size=TARGET, rules=markdown_rules())

    def run(chunker: Any, doc: str) -> list[Any]:
        chunks: list[Any] = chunker.chunk(doc)
        return chunks

    def normalize(out: list[Any], doc: str) -> list[Piece]:
        return [Piece(c.text, c.start_index, c.end_index) for c in out]

    return Bench(make, run, normalize, TARGET)


def _semchunk(ctx: Context) -> Bench:
    from semchunk.semchunk import chunkerify  # the defining module: the package re-exports it

    tokenizer = ctx.counter.tokenizer
    # semchunk turns off special tokens itself when it sees the parameter; stated explicitly so
    # the count matches the shared counter. Passing the tokenizer object (not a bare counter)
    # lets semchunk use its max-token-length shortcut, as a normal user would get.
    kwargs = {"add_special_tokens": False} if isinstance(ctx.counter, WordPiece) else None

    def make() -> Any:
        return chunkerify(tokenizer, TARGET, tokenizer_kwargs=kwargs)

    def run(chunker: Any, doc: str) -> tuple[list[str], list[tuple[int, int]]]:
        chunks, offsets = chunker(doc, offsets=True)
        return chunks, offsets

    def normalize(out: tuple[list[str], list[tuple[int, int]]], doc: str) -> list[Piece]:
        chunks, offsets = out
        return [Piece(t, s, e) for t, (s, e) in zip(chunks, offsets, strict=True)]

    return Bench(make, run, normalize, TARGET)


def _text_splitter(ctx: Context) -> Bench:
    from semantic_text_splitter import MarkdownSplitter

    counter = ctx.counter

    def make() -> Any:
        if isinstance(counter, WordPiece):
            return MarkdownSplitter.from_huggingface_tokenizer(counter.tokenizer, TARGET)
        return MarkdownSplitter.from_tiktoken_model("gpt-3.5-turbo", TARGET)  # built-in cl100k

    def run(chunker: Any, doc: str) -> list[tuple[int, str]]:
        pairs: list[tuple[int, str]] = chunker.chunk_indices(doc)
        return pairs

    def normalize(out: list[tuple[int, str]], doc: str) -> list[Piece]:
        return [Piece(t, s, s + len(t)) for s, t in out]

    return Bench(make, run, normalize, TARGET)


# --------------------------------------------------------------------------- Folio


def _import_folio() -> Any:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import pipeline

    return pipeline


def _folio_bench(values: dict[str, Any]) -> Callable[[Context], Bench]:
    def build(ctx: Context) -> Bench:
        pipeline = _import_folio()
        config = pipeline.make_config(values)

        def make() -> Any:
            # The config holds only sizes and the tokenizer path, so building it again per run
            # is what an ingest does; any tokenizer loading happens inside chunk_markdown.
            return pipeline.make_config(values)

        def run(chunker: Any, doc: str) -> list[Any]:
            chunks: list[Any] = pipeline.chunk_markdown(doc, chunker)
            return chunks

        def normalize(out: list[Any], doc: str) -> list[Piece]:
            return [
                Piece(
                    c.text,
                    c.char_start,
                    c.char_end,
                    prefix=getattr(c, "prefix_chars", 0) or 0,
                    suffix=getattr(c, "suffix_chars", 0) or 0,
                    counted=c.tier == "snippet",
                    embed_text=getattr(c, "retrieval_text", None),
                    est_tokens=c.est_tokens,
                    oversized=bool(getattr(c, "oversized", False)),
                )
                for c in out
            ]

        return Bench(make, run, normalize, int(config.snippet_max))

    return build


def _folio_exact(ctx: Context) -> Bench:
    return _folio_bench({"tokenizer": str(ctx.counter.path)})(ctx)


LIBRARIES: tuple[Library, ...] = (
    Library("langchain", "LangChain MDHeader+Recursive", "py", _langchain),
    Library("llamaindex", "LlamaIndex MDNode+Sentence", "py", _llamaindex),
    Library("chonkie", "Chonkie Recursive (md rules)", "py+rust", _chonkie),
    Library("semchunk", "semchunk", "py", _semchunk),
    Library("text-splitter", "semantic-text-splitter MD", "rust", _text_splitter),
    Library("folio", "Folio (estimator)", "py", _folio_bench({})),
    Library("folio-exact", "Folio (exact counter)", "py", _folio_exact),
    Library(
        "folio-noovl",
        "Folio (estimator, no overlap)",
        "py",
        _folio_bench({"overlap": "none"}),
        default=False,
    ),
)
BY_NAME = {lib.name: lib for lib in LIBRARIES}


# --------------------------------------------------------------------------- memory probes


_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


def _status_kb(key: str) -> int | None:
    try:
        match = re.search(rf"^{key}:\s+(\d+) kB", _STATUS.read_text(), re.MULTILINE)
    except OSError:
        return None
    return int(match.group(1)) if match else None


def rss_bytes() -> int:
    kb = _status_kb("VmRSS")
    if kb is not None:
        return kb * 1024
    import psutil

    rss: int = psutil.Process().memory_info().rss
    return rss


def reset_peak() -> bool:
    """Reset the kernel's peak-RSS mark (Linux >= 4.0); False when not possible."""
    try:
        _CLEAR_REFS.write_text("5")
    except OSError:
        return False
    return True


def peak_bytes() -> int:
    kb = _status_kb("VmHWM")
    if kb is not None:
        return kb * 1024
    import resource

    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return maxrss if sys.platform == "darwin" else maxrss * 1024


# --------------------------------------------------------------------------- statistics


def _nonspace(text: str) -> int:
    return len("".join(text.split()))


def _locate(pieces: Sequence[Piece], doc: str) -> tuple[list[tuple[int, int] | None], int]:
    """Source span of each piece: its own offsets when they reproduce the text, else a search.

    Returns the spans (None when the text is nowhere in the source) and how many pieces had
    offsets that reproduce their text exactly.
    """
    spans: list[tuple[int, int] | None] = []
    exact = 0
    cursor = 0
    for p in pieces:
        body = p.text[p.prefix : len(p.text) - p.suffix]
        if p.start is not None and p.end is not None and doc[p.start : p.end] == body:
            exact += 1
            spans.append((p.start, p.end))
            cursor = p.start + 1
            continue
        pos = doc.find(body, cursor) if body else -1
        if pos < 0 and body:
            pos = doc.find(body)
        if pos < 0:
            spans.append(None)
        else:
            spans.append((pos, pos + len(body)))
            cursor = pos + 1
    return spans, exact


def _squeeze(text: str) -> str:
    return "".join(text.split())


FRONTMATTER = re.compile(r"\A(---|\+\+\+)[ \t]*\n.*?\n\1[ \t]*(?:\n|\Z)", re.DOTALL)


def _frontmatter_nonspace(doc: str) -> int:
    match = FRONTMATTER.match(doc)
    return _nonspace(match.group(0)) if match else 0


def _covered_nonspace(pieces: Iterable[Piece], doc: str, skip: int = 0) -> int:
    """Non-space source characters inside some piece, matching with all whitespace removed.

    Whitespace-insensitive on purpose: a splitter that re-indents or strips lines (LangChain's
    header splitter does) still carries the content, and is not counted as losing it. The
    first ``skip`` non-space characters (a leading front matter block) are not counted.
    """
    squeezed = _squeeze(doc)
    spans: list[tuple[int, int]] = []
    cursor = 0
    for p in pieces:
        body = _squeeze(p.text[p.prefix : len(p.text) - p.suffix])
        if not body:
            continue
        pos = squeezed.find(body, cursor)
        if pos < 0:
            pos = squeezed.find(body)
        if pos >= 0:
            spans.append((pos, pos + len(body)))
            cursor = pos + 1
    covered = 0
    end = skip
    for start, stop in sorted(spans):
        start = max(start, end)
        if stop > start:
            covered += stop - start
            end = stop
    return covered


def _pct(part: int, whole: int) -> float:
    return 100.0 * part / whole if whole else 0.0


@dataclass(slots=True)
class _Tally:
    """Running counts over every document's pieces; ``wp`` counts are true WordPiece."""

    budget: int
    n: int = 0
    n_all: int = 0
    with_offsets: int = 0
    exact: int = 0
    found: int = 0
    over_max: int = 0
    over_target: int = 0
    over_max_wp: int = 0
    over_target_wp: int = 0
    wp_sizes: list[int] = field(default_factory=list)
    covered: int = 0
    total_nonspace: int = 0
    tiny: int = 0
    has_embed: bool = False
    embed_over_wp: int = 0
    embed_over: int = 0
    oversized: int = 0
    est_over: int = 0
    est_over_unflagged: int = 0
    est_exact: int = 0
    est_errors: list[float] = field(default_factory=list)


def _tally_offsets(t: _Tally, counted: list[Piece], doc: str) -> None:
    """Offsets that reproduce the text, pieces found verbatim, and source coverage."""
    spans, exact_here = _locate(counted, doc)
    t.exact += exact_here
    t.found += sum(s is not None for s in spans)
    t.with_offsets += sum(p.start is not None for p in counted)
    skip = _frontmatter_nonspace(doc)
    t.total_nonspace += _nonspace(doc) - skip
    t.covered += _covered_nonspace(counted, doc, skip)


def _tally_size(t: _Tally, ctx: Context, p: Piece) -> None:
    """The piece's size against the budget and the target, by both counters."""
    same = isinstance(ctx.counter, WordPiece)
    size = ctx.counter.count(p.text)
    size_wp = size if same else ctx.wordpiece.count(p.text)
    t.n += 1
    t.wp_sizes.append(size_wp)
    t.tiny += size_wp < TINY
    t.over_max += size > t.budget
    t.over_target += size > TARGET
    t.over_max_wp += size_wp > t.budget
    t.over_target_wp += size_wp > TARGET


def _tally_embed(t: _Tally, ctx: Context, p: Piece, embed_text: str) -> None:
    """Folio's retrieval text against the budget, and its own token estimate's error."""
    same = isinstance(ctx.counter, WordPiece)
    t.has_embed = True
    embed_wp = ctx.wordpiece.count(embed_text)
    embed_shared = embed_wp if same else ctx.counter.count(embed_text)
    t.embed_over_wp += embed_wp > t.budget
    t.embed_over += embed_shared > t.budget
    t.oversized += p.oversized
    if p.est_tokens is not None:
        t.est_over += p.est_tokens > t.budget
        t.est_over_unflagged += p.est_tokens > t.budget and not p.oversized
        t.est_exact += p.est_tokens == embed_shared
        if embed_wp:
            t.est_errors.append((p.est_tokens - embed_wp) / embed_wp)


def _size_stats(t: _Tally) -> dict[str, Any]:
    n = t.n
    return {
        "chunks": n,
        "chunks_all_tiers": t.n_all,
        "budget": t.budget,
        "mean_wp_tokens": statistics.fmean(t.wp_sizes) if t.wp_sizes else 0.0,
        "max_wp_tokens": max(t.wp_sizes, default=0),
        "pct_over_max_shared": _pct(t.over_max, n),
        "pct_over_target_shared": _pct(t.over_target, n),
        "pct_over_max_wp": _pct(t.over_max_wp, n),
        "pct_over_target_wp": _pct(t.over_target_wp, n),
        "pct_with_offsets": _pct(t.with_offsets, n),
        "pct_offsets_exact": _pct(t.exact, t.with_offsets) if t.with_offsets else None,
        "pct_verbatim": _pct(t.found, n),
        "pct_coverage": _pct(t.covered, t.total_nonspace),
        "pct_tiny_wp": _pct(t.tiny, n),
    }


def _embed_stats(t: _Tally) -> dict[str, Any]:
    n, errors = t.n, t.est_errors
    return {
        "embed_pct_over_max_wp": _pct(t.embed_over_wp, n),
        "embed_pct_over_max_shared": _pct(t.embed_over, n),
        "pct_oversized": _pct(t.oversized, n),
        "est_pct_over_max": _pct(t.est_over, n),
        "est_pct_over_max_not_oversized": _pct(t.est_over_unflagged, n),
        "est_pct_equal_shared": _pct(t.est_exact, n),
        "est_mean_rel_error_vs_wp": statistics.fmean(errors) if errors else None,
        "est_mean_abs_rel_error_vs_wp": (
            statistics.fmean(abs(e) for e in errors) if errors else None
        ),
    }


def chunk_stats(
    ctx: Context, outputs: Sequence[list[Piece]], texts: Sequence[str], budget: int
) -> dict[str, Any]:
    """Counts, budgets (shared counter and true WordPiece), offsets and coverage."""
    t = _Tally(budget)
    for pieces, doc in zip(outputs, texts, strict=True):
        t.n_all += len(pieces)
        counted = [p for p in pieces if p.counted]
        _tally_offsets(t, counted, doc)
        for p in counted:
            _tally_size(t, ctx, p)
            if p.embed_text is not None:
                _tally_embed(t, ctx, p, p.embed_text)
    stats = _size_stats(t)
    if t.has_embed:
        stats |= _embed_stats(t)
    return stats


# --------------------------------------------------------------------------- child processes


def _child_bench(lib: Library, ctx: Context, repeat: int, conn: Connection) -> None:
    try:
        rss_start = rss_bytes()
        bench = lib.build(ctx)  # imports happen here, outside the timing
        gc.collect()
        rss_imported = rss_bytes()
        times: list[float] = []
        cpu_times: list[float] = []
        peaks: list[int] = []
        outputs: list[Any] | None = None
        exact_peak = True
        for _ in range(repeat):
            outputs = None
            gc.collect()
            base = rss_bytes()
            exact_peak = reset_peak() and exact_peak
            c0 = time.process_time()
            t0 = time.perf_counter()
            chunker = bench.make()  # a fresh chunker for every run: no warm caches
            outputs = [bench.run(chunker, doc) for doc in ctx.corpus.texts]
            elapsed = time.perf_counter() - t0
            cpu_times.append(time.process_time() - c0)
            peaks.append(peak_bytes() - base)
            times.append(elapsed)
            del chunker
        assert outputs is not None
        pieces = [
            bench.normalize(out, doc) for out, doc in zip(outputs, ctx.corpus.texts, strict=True)
        ]
        best = min(times)
        result: dict[str, Any] = {
            "name": lib.name,
            "label": lib.label,
            "impl": lib.impl,
            "times_s": times,
            "best_s": best,
            "cpu_s": cpu_times,
            "best_cpu_s": min(cpu_times),
            "mb_per_s": ctx.corpus.nbytes / MB / best,
            "peak_rss_delta_mb": max(peaks) / MB,
            "peak_exact": exact_peak,
            "import_rss_mb": (rss_imported - rss_start) / MB,
        }
        result.update(chunk_stats(ctx, pieces, ctx.corpus.texts, bench.budget))
        conn.send(result)
    except BaseException:
        conn.send({"name": lib.name, "label": lib.label, "error": traceback.format_exc()})
    finally:
        conn.close()


def build_big_text(corpus: Corpus, megabytes: float) -> str:
    """Concatenate corpus documents (cycling) into about ``megabytes`` MB of markdown.

    The last document is cut at a line end so the size lands close to the target.
    """
    want = int(megabytes * MB)
    parts: list[str] = []
    size = 0
    while size < want:
        for text, nbytes in zip(corpus.texts, corpus.sizes, strict=True):
            room = want - size
            if nbytes + 1 > room:
                head = text.encode("utf-8")[:room].decode("utf-8", errors="ignore")
                text = head[: head.rfind("\n") + 1] or head
                nbytes = len(text.encode("utf-8"))
            parts.append(text if text.endswith("\n") else text + "\n")
            size += nbytes + 1
            if size >= want:
                break
    return "\n".join(parts)


def _child_big(lib: Library, ctx: Context, megabytes: float, conn: Connection) -> None:
    try:
        text = build_big_text(ctx.corpus, megabytes)
        nbytes = len(text.encode("utf-8"))
        bench = lib.build(ctx)
        gc.collect()
        base = rss_bytes()
        exact_peak = reset_peak()
        c0 = time.process_time()
        t0 = time.perf_counter()
        chunker = bench.make()
        out = bench.run(chunker, text)
        elapsed = time.perf_counter() - t0
        cpu = time.process_time() - c0
        peak = peak_bytes()
        after = rss_bytes()  # the result is still alive here
        pieces = bench.normalize(out, text)
        counted = [p for p in pieces if p.counted]
        spans, exact = _locate(counted, text)
        with_offsets = sum(p.start is not None for p in counted)
        conn.send(
            {
                "name": lib.name,
                "label": lib.label,
                "bytes": nbytes,
                "seconds": elapsed,
                "cpu_s": cpu,
                "mb_per_s": nbytes / MB / elapsed,
                "text_object_mb": sys.getsizeof(text) / MB,
                "rss_before_mb": base / MB,
                "rss_after_mb": after / MB,
                "chunk_strings_mb": sum(
                    sys.getsizeof(p.text) + (sys.getsizeof(p.embed_text) if p.embed_text else 0)
                    for p in pieces
                )
                / MB,
                "peak_rss_mb": peak / MB,
                "peak_rss_delta_mb": (peak - base) / MB,
                "peak_exact": exact_peak,
                "chunks": len(counted),
                "chunks_all_tiers": len(pieces),
                "pct_offsets_exact": _pct(exact, with_offsets) if with_offsets else None,
                "pct_verbatim": _pct(sum(s is not None for s in spans), len(counted)),
            }
        )
    except BaseException:
        conn.send({"name": lib.name, "label": lib.label, "error": traceback.format_exc()})
    finally:
        conn.close()


def run_child(
    target: Callable[..., None], args: tuple[Any, ...], timeout: float, name: str
) -> dict[str, Any]:
    """Fork ``target(*args, conn)`` and wait for its one message (or the timeout)."""
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=target, args=(*args, send), name=f"bench-{name}")
    proc.start()
    send.close()
    result: dict[str, Any]
    if recv.poll(timeout):
        try:
            result = recv.recv()
        except EOFError:
            result = {"name": name, "error": "child exited without a result"}
    else:
        result = {"name": name, "error": f"timed out after {timeout:.0f} s"}
    proc.join(5)
    if proc.is_alive():
        proc.kill()
        proc.join()
    if "error" in result or proc.exitcode in (0, None):
        return result
    return {"name": name, "error": f"child exit code {proc.exitcode}"}


# --------------------------------------------------------------------------- output


def _fmt_pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}%"


def render_bench(report: dict[str, Any]) -> str:
    ctr = report["counter"]
    header = [
        "library", "impl", "MB/s", "best s", "cpu s", "chunks", "mean WP", f"<{TINY} WP", "max",
        f">max {ctr}", f">420 {ctr}", ">max WP", ">420 WP",
        "offsets ok", "verbatim", "coverage", "peak MB", "import MB",
    ]  # fmt: skip
    rows: list[list[str]] = []
    failed: list[dict[str, Any]] = []
    for r in report["results"]:
        if "error" in r:
            failed.append(r)
            rows.append([r["name"], "", "FAILED", *[""] * (len(header) - 3)])
            continue
        rows.append(
            [
                r["name"],
                r["impl"],
                f"{r['mb_per_s']:.2f}",
                f"{r['best_s']:.2f}",
                f"{r['best_cpu_s']:.2f}",
                str(r["chunks"]),
                f"{r['mean_wp_tokens']:.0f}",
                _fmt_pct(r["pct_tiny_wp"]),
                str(r["budget"]),
                _fmt_pct(r["pct_over_max_shared"]),
                _fmt_pct(r["pct_over_target_shared"]),
                _fmt_pct(r["pct_over_max_wp"]),
                _fmt_pct(r["pct_over_target_wp"]),
                _fmt_pct(r["pct_offsets_exact"]),
                _fmt_pct(r["pct_verbatim"]),
                _fmt_pct(r["pct_coverage"]),
                f"{r['peak_rss_delta_mb']:.1f}",
                f"{r['import_rss_mb']:.1f}",
            ]
        )
    corpus = report["corpus"]
    lines = [
        f"corpus: {corpus['path']}  ({corpus['documents']} documents, "
        f"{corpus['bytes'] / MB:.2f} MB)",
        f"counter: {ctr}; target {TARGET} tokens; best of {report['repeat']} runs; "
        "one forked process per library; fresh chunker per run",
        "",
        text_table(header, rows, right=range(2, len(header))),
    ]
    folio = [r for r in report["results"] if "error" not in r and "embed_pct_over_max_wp" in r]
    if folio:
        lines += [
            "",
            "Folio snippets: retrieval_text (prefix + text, what is embedded) against the snippet "
            "max, in the shared counter and in true WordPiece. est = Folio's own est_tokens; "
            "'est>max unflagged' = est_tokens over max without the oversized flag (breaks "
            "the budget invariant); bias/|err| = est_tokens vs true WordPiece of retrieval_text.",
        ]
        frows = [
            [
                r["name"],
                str(r["chunks_all_tiers"] - r["chunks"]),
                _fmt_pct(r["embed_pct_over_max_shared"]),
                _fmt_pct(r["embed_pct_over_max_wp"]),
                _fmt_pct(r["pct_oversized"]),
                _fmt_pct(r["est_pct_over_max"]),
                _fmt_pct(r["est_pct_over_max_not_oversized"]),
                _fmt_pct(r["est_pct_equal_shared"]),
                _fmt_pct(_times100(r["est_mean_rel_error_vs_wp"])),
                _fmt_pct(_times100(r["est_mean_abs_rel_error_vs_wp"])),
            ]
            for r in folio
        ]
        fheader = [
            "library", "sections", f"retr>max {ctr}", "retr>max WP", "oversized", "est>max",
            "est>max unflagged", f"est=={ctr}", "est bias vs WP", "est |err| vs WP",
        ]  # fmt: skip
        lines.append(text_table(fheader, frows, right=range(1, len(fheader))))
    lines += [
        "",
        "MB/s: corpus bytes / best wall time (10^6 B). cpu s: least process CPU time of the runs "
        "(less sensitive to other load). chunks: snippets only for Folio. max: the library's "
        "own budget.",
        "offsets ok: reported offsets reproduce the chunk text (— = none reported). verbatim: "
        "chunk text found in the source. coverage: non-space chars of the source (leading front "
        "matter excluded) inside some chunk, whitespace-insensitive.",
        f"mean WP: mean chunk size in WordPiece tokens; <{TINY} WP: share of tiny chunks.",
        "peak MB: max RSS growth during a timed run. import MB: RSS growth from imports.",
        "impl: py = pure Python around the Rust tokenizer; py+rust = Python with a native core; "
        "rust = native splitter (not pure Python).",
    ]
    for r in failed:
        lines += ["", f"{r['name']} FAILED:", r["error"].rstrip()]
    return "\n".join(lines)


def _times100(value: float | None) -> float | None:
    return None if value is None else 100.0 * value


def render_big(report: dict[str, Any]) -> str:
    header = [
        "library", "MB", "seconds", "cpu s", "MB/s", "chunks", "all tiers",
        "str MB", "RSS before MB", "peak RSS MB", "peak delta MB", "RSS after MB", "chunk str MB",
        "offsets ok",
    ]  # fmt: skip
    rows: list[list[str]] = []
    failed: list[dict[str, Any]] = []
    for r in report["big"]:
        if "error" in r:
            failed.append(r)
            rows.append([r["name"], "FAILED", *[""] * (len(header) - 2)])
            continue
        rows.append(
            [
                r["name"],
                f"{r['bytes'] / MB:.1f}",
                f"{r['seconds']:.1f}",
                f"{r['cpu_s']:.1f}",
                f"{r['mb_per_s']:.2f}",
                str(r["chunks"]),
                str(r["chunks_all_tiers"]),
                f"{r['text_object_mb']:.0f}",
                f"{r['rss_before_mb']:.0f}",
                f"{r['peak_rss_mb']:.0f}",
                f"{r['peak_rss_delta_mb']:.0f}",
                f"{r['rss_after_mb']:.0f}",
                f"{r['chunk_strings_mb']:.0f}",
                _fmt_pct(r["pct_offsets_exact"]),
            ]
        )
    lines = [
        f"synthetic file: {report['big_mb']} MB of concatenated corpus documents "
        "(memory test only; repeated text)",
        "",
        text_table(header, rows, right=range(1, len(header))),
        "",
        "str MB: size of the input str object (Python stores it at 1, 2 or 4 bytes per char, "
        "set by its widest char). RSS before: child RSS with the input built, before chunking.",
        "peak RSS MB: the child's high-water RSS while chunking (includes the input and the "
        "shared corpus pages); goal for Folio: < 1500 MB at 100 MB. RSS after: with the "
        "returned chunks still alive. chunk str MB: "
        "text (+ retrieval_text) strings of all returned chunks, both tiers.",
    ]
    for r in failed:
        lines += ["", f"{r['name']} FAILED:", r["error"].rstrip()]
    return "\n".join(lines)


# --------------------------------------------------------------------------- main


@dataclass(slots=True)
class Options:
    corpus: Path
    counter: str
    only: list[str] = field(default_factory=list)
    repeat: int = 3
    as_json: bool = False
    big_mb: float | None = None
    timeout: float = 3600.0


def parse_args(argv: Sequence[str] | None) -> Options:
    names = ", ".join(lib.name + ("" if lib.default else " (opt-in)") for lib in LIBRARIES)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--corpus",
        type=Path,
        default=DEFAULT_CORPUS,
        help=f"directory of .md/.mdx files (default: {DEFAULT_CORPUS})",
    )
    parser.add_argument(
        "--counter",
        choices=("wordpiece", "cl100k"),
        default="wordpiece",
        help="the token counter every library chunks with (default: wordpiece)",
    )
    parser.add_argument(
        "--only", default="", help=f"comma-separated libraries to run; known: {names}"
    )
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per library (best kept)")
    parser.add_argument(
        "--json", dest="as_json", action="store_true", help="print JSON instead of the table"
    )
    parser.add_argument(
        "--big-mb",
        type=float,
        default=None,
        metavar="N",
        help="memory test: chunk one synthetic N-MB file (Folio unless --only)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=3600.0,
        help="seconds allowed per library child process (default: 3600)",
    )
    ns = parser.parse_args(argv)
    only = [n.strip() for n in ns.only.split(",") if n.strip()]
    unknown = [n for n in only if n not in BY_NAME]
    if unknown:
        parser.error(f"unknown libraries: {', '.join(unknown)}; known: {names}")
    if ns.repeat < 1:
        parser.error("--repeat must be >= 1")
    if ns.big_mb is not None and ns.big_mb <= 0:
        parser.error("--big-mb must be > 0")
    return Options(ns.corpus, ns.counter, only, ns.repeat, ns.as_json, ns.big_mb, ns.timeout)


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    for key in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
        os.environ[key] = "1"
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    opts = parse_args(argv)
    if not opts.corpus.is_dir():
        _log(f"corpus directory not found: {opts.corpus}")
        return 2

    corpus = load_corpus(opts.corpus)
    if not corpus.texts:
        _log(f"no .md/.mdx documents under {opts.corpus}")
        return 2
    wordpiece = WordPiece(WORDPIECE_PATH)
    counter: Counter = wordpiece if opts.counter == "wordpiece" else Cl100k(CL100K_PATH)
    ctx = Context(corpus, counter, wordpiece)
    gc.collect()
    _log(f"corpus: {len(corpus.texts)} docs, {corpus.nbytes / MB:.2f} MB; counter {counter.name}")

    if opts.big_mb is not None:
        names = opts.only or ["folio"]
        big: list[dict[str, Any]] = []
        for name in names:
            _log(f"[big {opts.big_mb} MB] {name} ...")
            res = run_child(_child_big, (BY_NAME[name], ctx, opts.big_mb), opts.timeout, name)
            if "error" in res:
                _log(f"  {name}: FAILED\n{res['error']}")
            else:
                _log(f"  {name}: {res['seconds']:.1f} s, peak RSS {res['peak_rss_mb']:.0f} MB")
            big.append(res)
        report: dict[str, Any] = {"counter": counter.name, "big_mb": opts.big_mb, "big": big}
        print(json.dumps(report, indent=2) if opts.as_json else render_big(report))
        return 1 if any("error" in r for r in big) else 0

    names = opts.only or [lib.name for lib in LIBRARIES if lib.default]
    results: list[dict[str, Any]] = []
    for name in names:
        _log(f"[bench] {name} ...")
        res = run_child(_child_bench, (BY_NAME[name], ctx, opts.repeat), opts.timeout, name)
        res.setdefault("label", BY_NAME[name].label)
        if "error" in res:
            _log(f"  {name}: FAILED\n{res['error']}")
        else:
            runs = [round(t, 2) for t in res["times_s"]]
            _log(f"  {name}: best {res['best_s']:.2f} s of {runs}; cpu {res['best_cpu_s']:.2f} s")
        results.append(res)
    report = {
        "corpus": {
            "path": str(opts.corpus),
            "documents": len(corpus.texts),
            "bytes": corpus.nbytes,
        },
        "counter": counter.name,
        "target": TARGET,
        "repeat": opts.repeat,
        "results": results,
    }
    print(json.dumps(report, indent=2) if opts.as_json else render_bench(report))
    return 1 if any("error" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
