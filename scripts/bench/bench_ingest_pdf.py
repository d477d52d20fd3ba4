#!/usr/bin/env python3
"""Pages per second of ``folio ingest --no-embed`` of a PDF library vs extraction alone.

Extraction alone: ``extract_file`` of every PDF by a process pool of one worker per core
(files spread over the cores, as ingest spreads them), in a process of its own. Ingest:
the ``folio ingest --no-embed`` command as a process, into a fresh ``FOLIO_HOME`` whose
embedded Typesense server is started beforehand (not timed) and stopped after, through
``folio server stop`` of that home. Interleaved (extraction, ingest, ...), best of
``--repeat``, wall seconds and the CPU seconds of the measured process and its children;
the Typesense server's own CPU during the ingest (read from /proc) is reported beside
them, and a second CPU ratio counts it: the goal is per page, and the server shares the
cores. The load average before and after. Goal (issue #42): ingest within 1.3x of
extraction alone per page.

    python scripts/bench/bench_ingest_pdf.py [--corpus $FOLIO_DATA/corpus] [--extra DIR ...]
        [--repeat 2]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))  # scripts/shared
import rooms  # noqa: E402, F401  (puts every room of scripts/ on the path)
from bench_extract import floor_loop  # noqa: E402  (scripts/ is on the path)
from common import add_corpus, load_average, text_table  # noqa: E402

from pipeline.index import server  # noqa: E402

FOLIO = [sys.executable, "-m", "pipeline"]
EXTRACT = """
import os, sys
from concurrent.futures import ProcessPoolExecutor
from pipeline.extract import extract_file
with ProcessPoolExecutor(os.cpu_count()) as pool:
    list(pool.map(extract_file, sys.argv[1:]))
"""


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """CPU (the process and its children) and wall seconds of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, capture_output=True, cwd=ROOT)
    wall = time.perf_counter() - w0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), wall


def server_cpu(pid: int) -> float:
    """CPU seconds (user + system) the process ``pid`` has used so far."""
    stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")


def ingest(library: Path, env: dict[str, str]) -> tuple[float, float, float]:
    """CPU and wall seconds of the ingest, and the server's CPU seconds meanwhile."""
    with tempfile.TemporaryDirectory(prefix="bench_ingest_pdf_") as home:
        env = {**env, "FOLIO_HOME": home}
        subprocess.run([*FOLIO, "server", "start"], env=env, check=True, capture_output=True)
        try:
            running = server.running(Path(home))
            assert running is not None, "the embedded server did not start"
            before = server_cpu(running.pid)
            cpu, wall = run([*FOLIO, "ingest", "--no-embed", str(library)], env)
            return cpu, wall, server_cpu(running.pid) - before
        finally:
            subprocess.run([*FOLIO, "server", "stop"], env=env, check=False, capture_output=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_corpus(ap)
    ap.add_argument("--extra", type=Path, nargs="*", default=[], help="more PDF folders")
    ap.add_argument("--repeat", type=int, default=2, help="best of this many runs (2)")
    args = ap.parse_args(argv)
    pdfs = sorted((args.corpus / "pdf").glob("*.pdf"))
    for folder in args.extra:
        pdfs += sorted(folder.glob("*.pdf"))
    texts, pages = [], 0
    for f in pdfs:  # text PDFs only, as bench_extract.py takes them: OCR is measured apart
        n, bare = floor_loop(f)
        if 2 * bare < n:
            texts.append(f)
            pages += n
    env = {k: v for k, v in os.environ.items() if k not in ("TYPESENSE_URL", "FOLIO_CONFIG")}
    env["PYTHONPATH"] = str(ROOT)
    print(f"{len(texts)} PDFs, {pages} pages; cores {os.cpu_count()}, "
          f"load before: {load_average()}, best of {args.repeat}")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="bench_ingest_pdf_lib_") as lib:
        for f in texts:  # the library: links to the PDFs, one folder
            (Path(lib) / f.name).symlink_to(f.resolve())
        best = [float("inf")] * 5  # extract cpu, wall, ingest cpu, wall, server cpu
        for _ in range(args.repeat):
            ec, ew = run([sys.executable, "-c", EXTRACT, *map(str, texts)], env)
            ic, iw, sc = ingest(Path(lib), env)
            best = [min(b, v) for b, v in zip(best, (ec, ew, ic, iw, sc), strict=True)]
    ec, ew, ic, iw, sc = best
    rows = [
        ("extraction alone (pool)", f"{ec:.2f}", "", f"{ew:.2f}", f"{pages / ew:.0f}"),
        ("folio ingest --no-embed", f"{ic:.2f}", f"{sc:.2f}", f"{iw:.2f}", f"{pages / iw:.0f}"),
    ]
    head = ("", "CPU s", "server CPU s", "wall s", "pages/s (wall)")
    print(text_table(head, rows, right={1, 2, 3, 4}))
    print(f"load after: {load_average()}")
    print(f"ingest takes {iw / ew:.2f}x the wall time of extraction alone per page, "
          f"{ic / ec:.2f}x its CPU ({(ic + sc) / ec:.2f}x with the server's; "
          "goal ≤ 1.3x)")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
