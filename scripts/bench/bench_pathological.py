#!/usr/bin/env python3
"""Chunk time on pathological markdown: does it grow linearly with the input?

Each case is a generated markdown text of 1, 5 and 20 MB (10**6 UTF-8 bytes), chunked once
with ``pipeline.chunk_markdown`` (default config) in a child process of its own:

- ``no-space-line``: one paragraph line without a space or a sentence end
- ``data-uri``: one image whose source is a base64 data URI
- ``distinct-words``: prose in which no word repeats (150k distinct words in 1.28 MB)
- ``link-refs``: link reference definitions, one per line
- ``headings``: 10k headings per MB, each with a short paragraph
- ``deep-nesting``: deeply nested lists and blockquotes, repeated

Times are the child's CPU seconds (the machine may be shared: wall time would measure the
neighbours too). Targets per case: at least 1 MB/s at every size, and the 20 MB time at
most 25x the 1 MB time (20x would be exactly linear). A case that runs past ``--timeout``
seconds of wall time fails.

    python scripts/bench/bench_pathological.py [--sizes 1,5,20] [--only CASE,...] [--timeout S]
"""

from __future__ import annotations

import argparse
import base64
import multiprocessing
import random
import sys
import time
from collections.abc import Callable
from multiprocessing.connection import Connection

MB = 1_000_000
MIN_MB_PER_S = 1.0
MAX_GROWTH = 1.25  # time may grow 1.25x as fast as the input: 25x from 1 to 20 MB


def _fill(n: int, head: str, unit: Callable[[int], str]) -> str:
    """``head`` and then ``unit(0)``, ``unit(1)``, ... until the text has ``n`` bytes."""
    parts = [head]
    size, i = len(head), 0
    while size < n:
        part = unit(i)
        parts.append(part)
        size += len(part.encode())
        i += 1
    return "".join(parts)


def no_space_line(n: int) -> str:
    run = "abcdefghijklmnopqrstuvwxyz0123456789"
    return "# Line\n\n" + (run * (n // len(run) + 1))[:n] + "\n"


def data_uri(n: int) -> str:
    payload = base64.b64encode(random.Random(14).randbytes(n * 3 // 4)).decode()
    return "# Image\n\nSee ![plot](data:image/png;base64," + payload + ").\n"


def word(i: int) -> str:
    """The ``i``-th distinct lowercase word (bijective base 26, three letters or more)."""
    i += 26 * 26 + 26 + 1
    out = []
    while i:
        i, r = divmod(i - 1, 26)
        out.append(chr(97 + r))
    return "".join(reversed(out))


def distinct_words(n: int) -> str:
    def sentence(i: int) -> str:
        words = " ".join(word(12 * i + k) for k in range(12))
        return words.capitalize() + (".\n\n" if i % 10 == 9 else ". ")

    return _fill(n, "# Words\n\n", sentence)


def link_refs(n: int) -> str:
    return _fill(n, "# Links\n\n", lambda i: f'[ref{i}]: https://example.com/p/{i} "Title {i}"\n')


def headings(n: int) -> str:
    # 100 bytes a heading: 10k headings per MB, at every level
    def section(i: int) -> str:
        return f"{'#' * (1 + i % 6)} Heading {i}\n\nText of section {i}.".ljust(98, ".") + "\n\n"

    return _fill(n, "", section)


def deep_nesting(n: int) -> str:
    lists = "".join("  " * d + f"- item {d}\n" for d in range(200))
    compact = "- " * 2000 + "deep\n"
    quotes = ">" * 5000 + " quoted\n"

    def unit(i: int) -> str:
        return f"## Part {i}\n\n{lists}\n{compact}\n{quotes}\nAfter part {i}.\n\n"

    return _fill(n, "# Nesting\n\n", unit)


CASES: dict[str, Callable[[int], str]] = {
    "no-space-line": no_space_line,
    "data-uri": data_uri,
    "distinct-words": distinct_words,
    "link-refs": link_refs,
    "headings": headings,
    "deep-nesting": deep_nesting,
}


def _run(case: str, n: int, conn: Connection) -> None:
    import pipeline

    text = CASES[case](n)
    t0 = time.process_time()
    chunks = pipeline.chunk_markdown(text)
    conn.send((time.process_time() - t0, len(chunks)))


def measure(case: str, megabytes: float, timeout: float) -> tuple[float, int] | None:
    """(seconds, chunks) for one case and size, or None past the timeout."""
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_run, args=(case, int(megabytes * MB), send))
    proc.start()
    send.close()
    try:
        if not recv.poll(timeout):
            return None
        result: tuple[float, int] = recv.recv()
        return result
    except EOFError:
        raise SystemExit(f"{case} at {megabytes} MB: the child died ({proc.exitcode})") from None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1,5,20", help="MB, comma-separated (default 1,5,20)")
    ap.add_argument("--only", default="", help="cases, comma-separated: " + ", ".join(CASES))
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per run (default 300)")
    args = ap.parse_args(argv)
    sizes = [float(s) for s in args.sizes.split(",")]
    cases = args.only.split(",") if args.only else list(CASES)
    unknown = set(cases) - set(CASES)
    if unknown:
        ap.error(f"unknown case(s): {', '.join(sorted(unknown))}")
    header = "".join(f"{f'{s:g} MB s':>11}{'MB/s':>7}" for s in sizes)
    print(f"{'case':<16}{header}{'growth':>9}  result")
    failed = 0
    for case in cases:
        row, ok = "", True
        times: list[float | None] = []
        for size in sizes:
            got = measure(case, size, args.timeout)
            if got is None:
                row += f"{'>' + format(args.timeout, 'g'):>11}{'-':>7}"
                times.append(None)
                ok = False
                continue
            seconds = got[0]
            times.append(seconds)
            rate = size / seconds if seconds > 0 else float("inf")
            ok = ok and rate >= MIN_MB_PER_S
            row += f"{seconds:>11.2f}{rate:>7.1f}"
        growth = ""
        first, last = times[0], times[-1]
        if len(sizes) > 1 and first and last is not None:
            ratio = last / first
            ok = ok and ratio <= MAX_GROWTH * sizes[-1] / sizes[0]
            growth = f"{ratio:.1f}x"
        failed += not ok
        print(f"{case:<16}{row}{growth:>9}  {'pass' if ok else 'FAIL'}", flush=True)
    limit = MAX_GROWTH * sizes[-1] / sizes[0]
    print(f"targets: >= {MIN_MB_PER_S:g} MB/s at every size; growth (time of the largest")
    print(f"size / time of the smallest) <= {limit:g}x; {failed} case(s) failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
