#!/usr/bin/env python3
"""What an ingest reads to find what changed: the cost of a one-file change as the library
grows, and the bytes an unchanged re-ingest reads.

(a) For each size (default 7,600 and 76,000 snippets as calibrated, 10 a file: 760
and 7,600 files of ~13 snippets as Folio counts them, ~10k and ~100k in all) a library
of book-sized markdown files made from the corpus (as ``bench_scale.py`` makes them) is
ingested (``folio ingest DIR --no-embed --json``, its own ``FOLIO_HOME`` and embedded
server, left running); then ``--repeat`` rounds, in each of which one file of every
size's library gets a paragraph appended and is ingested, the sizes one after the other
so that they meet the same machine, timed (wall, and the report's plan seconds): once
trusting the hashes kept from the last run and once with ``--rehash`` (every file read
and hashed, as every ingest did before the cache). Reported: each size's medians, the
ratio of the largest size's median to the smallest's, and the median of the rounds'
ratios.

(b) ``--pdf-gb`` of generated PDFs (``--pdf-mb`` each: a page of corpus text, a text
layer so no OCR runs, and an incompressible image; distinct bytes per file) are
ingested; then their pages are dropped from the page cache (``posix_fadvise
DONTNEED``) and an unchanged re-ingest runs under a wrapper that records its
``/proc/self/io`` at exit: ``read_bytes`` (fetched from the disk) and ``rchar`` (every
``read``, page cache included) against the PDFs' total size; the same with ``--rehash``.

Every server it started is stopped (``folio server stop`` per home); the generated data
lives under ``--dir`` and is deleted at the end unless ``--keep``. ``--reuse`` keeps it
too, and a later ``--reuse`` run starts from a size's library and home as a run left
them (no build, no full ingest: its numbers are the ones recorded then), so another
checkout can be measured on the same libraries.

    python scripts/bench/bench_plan.py --dir /tmp/bench-plan
    python scripts/bench/bench_plan.py --only pdf --pdf-gb 2
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # runnable from a fresh checkout without installing
    sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))  # scripts/shared
import rooms  # noqa: E402, F401  (puts every room of scripts/ on the path)
from bench_scale import (  # noqa: E402  (scripts/ is on the path)
    DEFAULT_CORPUS,
    Folio,
    build_library,
    child_env,
    edit_paragraph,
    machine_load,
    middle_file,
    snippets_per_char,
    text_pool,
)
from common import text_table  # noqa: E402

from tests.hostile.generate import raw_pdf  # noqa: E402  (the PDF writer of the hostile tests)

MB = 1_000_000
RACY_S = 2.1  # a file hashed within 2 s of being written is hashed again next run
# ``python -c WRAP ARGS`` runs ``folio ARGS`` and, at its exit, copies its /proc/self/io
# to $FOLIO_IO_OUT: the bytes the process read, counted by the kernel.
WRAP = """
import atexit, os, runpy, sys
def _io():
    with open("/proc/self/io") as src, open(os.environ["FOLIO_IO_OUT"], "w") as dst:
        dst.write(src.read())
atexit.register(_io)
sys.argv = ["folio", *sys.argv[1:]]
runpy.run_module("pipeline", run_name="__main__", alter_sys=True)
"""


# --------------------------------------------------------------------------- PDFs


def _pdf_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(path: Path, lines: Sequence[str], image: bytes, side: int) -> int:
    """A one-page PDF: ``lines`` as a Helvetica text layer over a ``side`` x ``side``
    RGB image whose pixels are ``image`` (stored as they are, no filter). Returns its size."""
    assert len(image) == side * side * 3
    body = "\n".join(f"({_pdf_text(line)}) Tj T*" for line in lines)
    content = f"q 468 0 0 300 72 60 cm /Im1 Do Q\nBT /F1 11 Tf 14 TL 72 740 Td\n{body}\nET"
    page = (
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font "
        "<< /F1 4 0 R >> /XObject << /Im1 5 0 R >> >> /Contents 6 0 R >>"
    )
    head = (
        f"<< /Type /XObject /Subtype /Image /Width {side} /Height {side} /ColorSpace "
        f"/DeviceRGB /BitsPerComponent 8 /Length {len(image)} >>\nstream\n"
    ).encode()
    stream = content.encode("latin-1", "replace")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        page.encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        head + image + b"\nendstream",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    data = raw_pdf(objects)
    path.write_bytes(data)
    return len(data)


def page_lines(pool: Sequence[str], rng: random.Random, n: int = 40, width: int = 90) -> list[str]:
    """``n`` lines of prose from the pool, wrapped at ``width`` characters."""
    words: list[str] = []
    while len(words) < n * 14:
        words += [w for w in rng.choice(pool).split() if not w.startswith(("#", "|", "`"))]
    lines, line = [], ""
    for w in words:
        if len(line) + len(w) + 1 > width:
            lines.append(line)
            line = ""
            if len(lines) == n:
                break
        line = f"{line} {w}" if line else w
    return lines


def pdf_library(folder: Path, total_bytes: int, each_bytes: int, pool: Sequence[str]) -> int:
    """PDFs of about ``each_bytes`` until ``total_bytes`` are written; their total size."""
    folder.mkdir(parents=True, exist_ok=True)
    side = int((each_bytes / 3) ** 0.5)
    rng = random.Random(0)
    total, n = 0, 0
    while total < total_bytes:
        n += 1
        lines = [f"Generated document {n:05d} of the plan benchmark.", *page_lines(pool, rng)]
        total += make_pdf(folder / f"doc-{n:05d}.pdf", lines, os.urandom(side * side * 3), side)
    return total


def drop_from_page_cache(files: Sequence[Path]) -> None:
    """Their pages out of the page cache, so that a read of them shows in read_bytes."""
    for f in files:
        fd = os.open(f, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def proc_io(text: str) -> dict[str, int]:
    return {k: int(v) for k, v in (line.split(": ") for line in text.splitlines() if line)}


# --------------------------------------------------------------------------- runs


def wrapped(home: Path, io_out: Path) -> Folio:
    env = child_env(home) | {"FOLIO_IO_OUT": str(io_out)}
    return Folio((sys.executable, "-c", WRAP), env, ROOT)


def ingest(folio: Folio, lib: Path, *extra: str) -> dict[str, Any]:
    t0 = time.perf_counter()
    run = folio.run("ingest", str(lib), "--no-embed", "--json", *extra, timeout=24 * 3600.0)
    report = run.json()
    return {
        "wall": time.perf_counter() - t0,
        "plan": report["seconds"]["plan"],
        "total": report["seconds"]["total"],
        "ingested": len(report["ingested"]),
        "unchanged": len(report["unchanged"]),
        "failed": len(report["failed"]),
        "snippets": report["snippets"],
    }


def stop(folio: Folio) -> None:
    with contextlib.suppress(Exception):
        folio.run("server", "stop", timeout=120, check=False)


@dataclass
class Sized:
    """One size's library and home, ready for one-file changes, and its numbers."""

    size: int
    lib: Path
    home: Path
    folio: Folio
    row: dict[str, Any]


def ready(size: int, args: argparse.Namespace, pool: Sequence[str], rate: float) -> Sized:
    """The library of ``size`` snippets built and ingested (or kept from a ``--reuse``
    run), then ingested once unchanged (its server started and warm)."""
    lib, home = args.dir / f"lib-{size}", args.dir / f"home-{size}"
    built_mark = args.dir / f"built-{size}.json"
    reused = args.reuse and built_mark.is_file() and lib.is_dir() and home.is_dir()
    if not reused:
        shutil.rmtree(home, ignore_errors=True)
        built_mark.unlink(missing_ok=True)
    sized = Sized(size, lib, home, wrapped(home, args.dir / f"io-{size}"), {})
    sized.row["load_start"] = machine_load()
    if reused:
        sized.row |= json.loads(built_mark.read_text(encoding="utf-8")) | {"reused": True}
        log(f"size {size:,}: reusing {sized.row['files']} files and {home}")
    else:
        built = build_library(lib, size, pool, args.seed, rate, per_file=args.per_file)
        sized.row |= {"files": built.files, "bytes": built.bytes}
        log(f"size {size:,}: {built.files} files, {built.bytes / MB:.0f} MB")
        time.sleep(RACY_S)
        full = sized.row["full"] = ingest(sized.folio, lib)
        log(f"  full ingest {full['wall']:.0f} s, {full['snippets']} snippets")
        if args.reuse:
            keep = {k: sized.row[k] for k in ("files", "bytes", "full")}
            built_mark.write_text(json.dumps(keep), encoding="utf-8")
    sized.row["unchanged"] = ingest(sized.folio, lib)
    return sized


def one_file_changes(sizes: Sequence[Sized], args: argparse.Namespace) -> dict[str, Any]:
    """``--repeat`` rounds per mode; each round appends a paragraph to one file of every
    size's library and ingests it, the sizes one after the other, so that both meet the
    same machine (a drift of the load between one size's runs and the next's moved the
    ratio of medians by 0.2). Each size's medians go in its row; returned, per mode, each
    round's ratio of the largest size to the smallest, and their median."""
    ratios: dict[str, Any] = {}
    for mode, extra in (("cached", ()), ("rehash", ("--rehash",))):
        runs: dict[int, list[dict[str, Any]]] = {s.size: [] for s in sizes}
        for i in range(args.repeat):
            for s in sizes:
                with middle_file(s.lib).open("a", encoding="utf-8") as fh:
                    fh.write(edit_paragraph(f"{mode} {i}"))
                runs[s.size].append(ingest(s.folio, s.lib, *extra))
                assert runs[s.size][-1]["ingested"] == 1, runs[s.size][-1]
        for s in sizes:
            walls = [r["wall"] for r in runs[s.size]]
            plan = statistics.median(r["plan"] for r in runs[s.size])
            s.row[mode] = {"wall": statistics.median(walls), "plan": plan, "walls": walls}
            log(f"  size {s.size:,}, one-file change ({mode}): {walls}")
        large, small = runs[sizes[-1].size], runs[sizes[0].size]
        each = [a["wall"] / b["wall"] for a, b in zip(large, small, strict=True)]
        ratios[mode] = {"each": each, "median": statistics.median(each)}
    return ratios


def finish(sized: Sized, args: argparse.Namespace) -> None:
    stop(sized.folio)
    sized.row["load_end"] = machine_load()
    if not (args.keep or args.reuse):
        shutil.rmtree(sized.home, ignore_errors=True)
        shutil.rmtree(sized.lib, ignore_errors=True)


def scale(args: argparse.Namespace, pool: Sequence[str], out: dict[str, Any]) -> None:
    """Part (a): every size made ready (each server left running), then the one-file
    changes interleaved; every server stopped at the end."""
    rate = snippets_per_char(pool, args.seed)
    sizes: list[Sized] = []
    try:
        for size in (int(s) for s in args.sizes.split(",")):
            sizes.append(ready(size, args, pool, rate))
            out["sizes"][str(size)] = sizes[-1].row
            _write(args.json, out)
        out["ratios"] = one_file_changes(sizes, args)
    finally:
        for s in sizes:
            finish(s, args)
    _write(args.json, out)


def pdfs(args: argparse.Namespace, pool: Sequence[str]) -> dict[str, Any]:
    folder, home = args.dir / "pdfs", args.dir / "home-pdf"
    shutil.rmtree(home, ignore_errors=True)
    io_out = args.dir / "io-pdf"
    folio = wrapped(home, io_out)
    row: dict[str, Any] = {"load_start": machine_load()}
    try:
        total = pdf_library(folder, int(args.pdf_gb * 1e9), int(args.pdf_mb * MB), pool)
        files = sorted(folder.glob("*.pdf"))
        row |= {"files": len(files), "bytes": total}
        log(f"pdfs: {len(files)} files, {total / MB:.0f} MB")
        time.sleep(RACY_S)
        row["full"] = ingest(folio, folder)
        log(f"  full ingest {row['full']['wall']:.0f} s")
        for mode, extra in (("cached", ()), ("rehash", ("--rehash",))):
            drop_from_page_cache(files)
            run = ingest(folio, folder, *extra)
            io = proc_io(io_out.read_text())
            row[mode] = run | {"read_bytes": io["read_bytes"], "rchar": io["rchar"]}
            log(f"  unchanged ({mode}): {row[mode]}")
    finally:
        stop(folio)
        row["load_end"] = machine_load()
        if not args.keep:
            shutil.rmtree(home, ignore_errors=True)
            shutil.rmtree(folder, ignore_errors=True)
    return row


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def render(out: dict[str, Any]) -> str:
    lines = []
    sizes = out.get("sizes", {})
    if sizes:
        rows = [
            [
                f"{int(s):,}",
                str(r["files"]),
                str(r["full"]["snippets"]),
                f"{r['cached']['wall']:.2f} s",
                f"{r['cached']['plan']:.2f} s",
                f"{r['rehash']['wall']:.2f} s",
                f"{r['rehash']['plan']:.2f} s",
            ]
            for s, r in sizes.items()
        ]
        lines.append(
            text_table(
                ["size", "files", "snippets", "change", "plan", "--rehash", "plan"],
                rows,
                right=range(7),
            )
        )
        walls = [r for r in sizes.values()]
        if len(walls) >= 2:
            for mode in ("cached", "rehash"):
                ratio = walls[-1][mode]["wall"] / walls[0][mode]["wall"]
                each = out["ratios"][mode]
                lines.append(
                    f"one-file change, largest / smallest ({mode}): {ratio:.2f}x of the "
                    f"medians; round by round {each['median']:.2f}x median "
                    f"({min(each['each']):.2f}-{max(each['each']):.2f}x)"
                )
    p = out.get("pdf")
    if p:
        lines.append(
            f"PDFs: {p['files']} files, {p['bytes'] / MB:,.0f} MB; full ingest "
            f"{p['full']['wall']:.0f} s"
        )
        for mode in ("cached", "rehash"):
            r = p[mode]
            lines.append(
                f"  unchanged re-ingest ({mode}): {r['wall']:.2f} s, read_bytes "
                f"{r['read_bytes'] / MB:,.1f} MB ({100 * r['read_bytes'] / p['bytes']:.2f}%), "
                f"rchar {r['rchar'] / MB:,.1f} MB ({100 * r['rchar'] / p['bytes']:.2f}%)"
            )
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", type=Path, default=Path("/tmp/bench-plan"), help="work directory")
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="markdown/ and epub/")
    ap.add_argument("--sizes", default="7600,76000", help="snippet counts (7600,76000)")
    ap.add_argument("--per-file", type=int, default=10, help="snippets per file (10)")
    ap.add_argument("--repeat", type=int, default=3, help="one-file changes per mode (3)")
    ap.add_argument("--pdf-gb", type=float, default=2.1, help="PDFs to generate, GB (2.1)")
    ap.add_argument("--pdf-mb", type=float, default=10.0, help="size of each PDF, MB (10)")
    ap.add_argument("--only", choices=("scale", "pdf"), default=None, help="one part only")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep", action="store_true", help="keep libraries and homes")
    ap.add_argument(
        "--reuse", action="store_true", help="keep them, and start from what a run kept"
    )
    ap.add_argument("--json", type=Path, default=None, help="write the numbers to FILE")
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    args.dir.mkdir(parents=True, exist_ok=True)
    out: dict[str, Any] = {"cpus": os.cpu_count(), "load_start": machine_load(), "sizes": {}}
    log(f"load at start: {out['load_start']}")
    pool = text_pool(args.corpus)
    if args.only != "pdf":
        scale(args, pool, out)
    if args.only != "scale":
        out["pdf"] = pdfs(args, pool)
    out["load_end"] = machine_load()
    _write(args.json, out)
    print(render(out))
    print(f"load average at start {out['load_start']}, at end {out['load_end']}")
    return 0


def _write(path: Path | None, out: dict[str, Any]) -> None:
    if path is not None:
        path.write_text(json.dumps(out, indent=2), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
