#!/usr/bin/env python3
"""In-process ``retrieve`` latency with both dev QA libraries loaded in one store.

Both question sets' documents (``chunking_evaluation/corpora/*.md`` and
``financebench-dev/pdfs/*.pdf`` under ``--qa-root``) are ingested into one embedded
Typesense server, then every question of both sets is retrieved at ``--budget`` tokens in
each mode the installed Folio can run (``lexical``; ``dense`` and ``hybrid`` with the dense
extra and weights). Each call is timed in process, server round trips included; a few
untimed warm-up calls come first (connection set-up, the side index read from disk, the
embedding model loaded). Printed per mode: calls, p50, p95, max in ms, and the load
average, which says how busy the machine was.

Targets (issue 12): p95 <= 150 ms lexical, <= 300 ms hybrid on 2 cores.

    python scripts/bench/bench_retrieve.py                       # temporary library, removed after
    python scripts/bench/bench_retrieve.py --home /tmp/bench-lib # kept: the next run skips ingest
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # runnable from a fresh checkout without installing
    sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))  # scripts/shared
import rooms  # noqa: E402, F401  (puts every room of scripts/ on the path)
from data_dir import data_dir  # noqa: E402  (scripts/ is on the path)
from eval_retrieval import embedded_store  # noqa: E402  (scripts/ is on the path)
from stats import percentile  # noqa: E402

DEFAULT_QA_ROOT = data_dir() / "corpus" / "qa"
WARM_UP = 3


def questions(qa: Path) -> list[str]:
    with (qa / "chunking_evaluation" / "questions_df.csv").open(encoding="utf-8") as fh:
        out = [row["question"] for row in csv.DictReader(fh)]
    with (qa / "financebench-dev" / "questions.jsonl").open(encoding="utf-8") as fh:
        out += [json.loads(line)["question"] for line in fh if line.strip()]
    return out


def library(qa: Path) -> list[str]:
    md = sorted((qa / "chunking_evaluation" / "corpora").glob("*.md"))
    pdf = sorted((qa / "financebench-dev" / "pdfs").glob("*.pdf"))
    return [str(p) for p in (*md, *pdf)]


def modes() -> list[str]:
    from pipeline.index import vectors

    why = vectors.unavailable()
    if why:
        print(f"note: dense and hybrid skipped: {why}", file=sys.stderr)
        return ["lexical"]
    return ["lexical", "dense", "hybrid"]


@dataclass(frozen=True, slots=True)
class Latency:
    """One mode's timings; ``loadavg`` is the 1-minute load average before and after."""

    mode: str
    calls: int
    p50_ms: float
    p95_ms: float
    max_ms: float
    loadavg: tuple[float, float]


def timed(store: Any, qs: Sequence[str], mode: str, budget: int) -> list[float]:
    from pipeline.retrieve import retrieve

    for q in qs[:WARM_UP]:
        retrieve(store, q, budget, mode=mode)
    ms: list[float] = []
    for q in qs:
        t0 = time.perf_counter()
        retrieve(store, q, budget, mode=mode)
        ms.append((time.perf_counter() - t0) * 1000)
    return ms


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--qa-root", type=Path, default=DEFAULT_QA_ROOT)
    ap.add_argument("--home", type=Path, default=None, help="keep the library here")
    ap.add_argument("--budget", type=int, default=2000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    from pipeline import make_config
    from pipeline.ingest import ingest

    qs = questions(args.qa_root)
    with embedded_store(args.home) as store:
        t0 = time.perf_counter()
        report = ingest(library(args.qa_root), make_config(), store)
        if report.failed:
            print(f"warning: {len(report.failed)} files failed to ingest", file=sys.stderr)
        print(f"ingest {time.perf_counter() - t0:.0f} s", file=sys.stderr)
        rows = []
        for mode in modes():
            load = os.getloadavg()[0]
            ms = timed(store, qs, mode, args.budget)
            rows.append(
                Latency(
                    mode=mode,
                    calls=len(ms),
                    p50_ms=percentile(ms, 50),
                    p95_ms=percentile(ms, 95),
                    max_ms=max(ms),
                    loadavg=(load, os.getloadavg()[0]),
                )
            )
    if args.json:
        modes_json = [asdict(r) for r in rows]
        print(json.dumps({"budget": args.budget, "cpus": os.cpu_count(), "modes": modes_json}))
        return 0
    print(f"retrieve latency, budget {args.budget}, {os.cpu_count()} cpus, {len(qs)} questions")
    print(f"{'mode':<8} {'calls':>6} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}  load avg")
    for r in rows:
        loads = "→".join(f"{x:.1f}" for x in r.loadavg)
        print(
            f"{r.mode:<8} {r.calls:>6} {r.p50_ms:>8.1f} {r.p95_ms:>8.1f} {r.max_ms:>8.1f}  {loads}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
