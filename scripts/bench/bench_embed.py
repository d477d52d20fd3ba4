"""Measure the dense embedder: seconds per 1,000 snippets by precision, window, batching, threads.

Usage: python scripts/bench/bench_embed.py [--pdf PDF | --jsonl FILE] [--every K] [--repeat N]
           [--json]
       python scripts/bench/bench_embed.py --ingest FOLDER [--threads T] [--workers W] [--json]

``--ingest FOLDER``: ingest's embedding against the machine's limit, side by side in one
run. ``folio ingest FOLDER`` runs twice as a command of its own, into fresh embedded
servers (bench_ingest.py's), without vectors and with them: wall, CPU seconds, and the
peak summed PSS of the command and its workers. Then the snippets ingest stored go through
a bare onnxruntime session of the same int8 model with ``T`` threads (default: one per
core), tokenised, windowed and padded beforehand exactly as ``embed`` does:
``session.run`` alone, the throughput limit for those snippets at those sequence lengths.
Ingest's embedding throughput is its snippets over ``Report.seconds["embed"]`` and over
the wall time it adds to the lexical ingest. The load average is printed with them.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))  # scripts/shared
import rooms  # noqa: E402, F401  (puts every room of scripts/ on the path)
from data_dir import data_dir  # noqa: E402  (scripts/ is on the path)

from pipeline.embed import load_embedder  # noqa: E402
from pipeline.embed.graph import INPUTS  # noqa: E402
from pipeline.embed.runtime import OnnxEmbedder  # noqa: E402
from pipeline.embed.windows import SPECIAL_TOKENS, WINDOWS, batches, windows  # noqa: E402

MIB = 1 << 20
CPUS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
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


# ---------------------------------------------------------------- ingest against the limit


def prepared(embedder: OnnxEmbedder, texts: Sequence[str]) -> list[dict[str, Any]]:
    """The feeds ``embed`` gives the session for ``texts``: windows, batches, padding."""
    import numpy as np

    encodings = embedder.tokenizer.encode_batch(list(texts), add_special_tokens=False)
    pieces = [p for e in encodings for p in windows(e.ids, embedder.window, embedder.max_positions)]
    lengths = [len(p) + SPECIAL_TOKENS for p in pieces]
    feeds = []
    for batch in batches(lengths, embedder.token_budget, embedder.by_length):
        ids = np.zeros((len(batch), max(lengths[i] for i in batch)), np.int64)
        mask = np.zeros_like(ids)
        for row, i in enumerate(batch):
            ids[row, : lengths[i]] = (embedder.cls_id, *pieces[i], embedder.sep_id)
            mask[row, : lengths[i]] = 1
        feeds.append({INPUTS[0]: ids, INPUTS[1]: mask})
    return feeds


def bare_limit(embedder: OnnxEmbedder, texts: Sequence[str]) -> dict[str, float]:
    """``session.run`` alone over ``texts``' feeds: seconds per 1,000 snippets."""
    feeds = prepared(embedder, texts)
    embedder.session.run(None, feeds[0])  # warm-up
    wall, cpu = timed(lambda: [embedder.session.run(None, f) for f in feeds])
    return {"wall_s": wall, "cpu_s": cpu, "s_per_1000": 1000 * wall / len(texts)}


def ingest_once(folder: Path, embed: bool, workers: int | None, built: Path) -> dict[str, Any]:
    """``folio ingest FOLDER --json`` as a process of its own (what a user runs) into a
    fresh embedded server (bench_ingest.py's), the model file copied into its home first
    (no build inside the measurement). Memory: the peak of the summed PSS of the command
    and its workers (RSS counts the pages they share, forked, once per process), and the
    command's own peak RSS, sampled every 0.2 s."""
    import psutil
    from bench_ingest import Result, _server, _temporary_home

    with _temporary_home() as home, _server(home, Result("", [], 0), _log) as running:
        (home / "models").mkdir()
        shutil.copy(built, home / "models" / built.name)
        cmd = [sys.executable, "-m", "pipeline", "ingest", str(folder.resolve()), "--json"]
        cmd += [] if embed else ["--no-embed"]
        cmd += ["--workers", str(workers)] if workers else []
        env = {
            **os.environ,
            "TYPESENSE_URL": running.node.url(),
            "TYPESENSE_API_KEY": running.api_key,
        }
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        # Run where the imported ``pipeline`` lives: ``-m`` puts the working directory first.
        where = Path(sys.modules["pipeline"].__file__ or ".").parent.parent
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=where
        )
        peaks = {"pss": 0, "rss": 0, "tree_rss": 0}
        sampler = threading.Thread(target=_sample_tree, args=(psutil.Process(proc.pid), peaks))
        sampler.start()
        out, _ = proc.communicate()
        wall = time.perf_counter() - t0
        sampler.join()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        report = json.loads(out)
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        from pipeline.index.schema import CHUNKS
        from pipeline.index.settings import ServerSettings
        from pipeline.index.store import Store

        store = Store(ServerSettings(nodes=(running.node,), api_key=running.api_key))
        texts = [
            str(d["retrieval_text"])
            for d in store.export(CHUNKS, "tier:=snippet", include="retrieval_text")
        ]
        return {
            "wall_s": wall,
            "cpu_s": cpu,
            "embed_s": report["seconds"]["embed"],
            "embedded": report["embedded"],
            "failed": len(report["failed"]),
            "peak_pss_mib": peaks["pss"] / MIB,
            "command_peak_rss_mib": peaks["rss"] / MIB,
            "summed_rss_mib": peaks["tree_rss"] / MIB,
            "texts": texts,
        }


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _sample_tree(proc: Any, peaks: dict[str, int]) -> None:
    """Peak summed PSS and summed RSS of ``proc`` and its children, ``proc``'s peak RSS."""
    import psutil

    while proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE:
        pss = rss = 0
        with contextlib.suppress(psutil.Error):
            for p in [proc, *proc.children(recursive=True)]:
                with contextlib.suppress(psutil.Error):
                    info = p.memory_full_info()
                    pss, rss = pss + info.pss, rss + info.rss
            peaks["rss"] = max(peaks["rss"], proc.memory_info().rss)
        peaks["pss"] = max(peaks["pss"], pss)
        peaks["tree_rss"] = max(peaks["tree_rss"], rss)
        time.sleep(0.2)


def compare(folder: Path, threads: int, workers: int | None, as_json: bool) -> None:
    """Lexical ingest, ingest with vectors and the bare session, side by side."""
    from pipeline.index import vectors

    load = {"start": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="folio-bench-embed-") as cache:
        # Built in a process of its own: this one's memory stays out of the way.
        build = "from pipeline.embed import load_embedder; import sys, pathlib; "
        build += "load_embedder(cache_dir=pathlib.Path(sys.argv[1]))"
        subprocess.run([sys.executable, "-c", build, cache], check=True)
        (built,) = Path(cache).glob("*int8*.onnx")
        lexical = ingest_once(folder, False, workers, built)
        dense = ingest_once(folder, True, workers, built)
        load["after_ingest"] = os.getloadavg()
        embedder = load_embedder(vectors.model_dir(), cache_dir=Path(cache), threads=threads)
        assert isinstance(embedder, OnnxEmbedder)
        texts = dense.pop("texts")
        lexical.pop("texts")
        limit = bare_limit(embedder, texts)
    load["end"] = os.getloadavg()
    n = len(texts)
    added = dense["wall_s"] - lexical["wall_s"]
    out = {
        "folder": str(folder),
        "snippets": n,
        "embedded": dense["embedded"],
        "threads": threads,
        "token_stats": token_stats(embedder, texts),
        "lexical_ingest": lexical,
        "ingest_with_vectors": dense,
        "bare_session": limit,
        "ingest_embed_s_per_1000": 1000 * dense["embed_s"] / n,
        "ingest_added_wall_s_per_1000": 1000 * added / n,
        "share_of_limit_embed": limit["wall_s"] / dense["embed_s"] if dense["embed_s"] else 0,
        "share_of_limit_wall": limit["wall_s"] / added if added > 0 else 0,
        # CPU seconds: the steadier figure when other processes compete for the cores.
        "share_of_limit_cpu": limit["cpu_s"] / (dense["cpu_s"] - lexical["cpu_s"]),
        "load_average": load,
    }
    print(json.dumps(out, indent=2) if as_json else render_compare(out))


def render_compare(r: dict[str, Any]) -> str:
    lex, dense, bare = r["lexical_ingest"], r["ingest_with_vectors"], r["bare_session"]
    n = r["snippets"]

    def rss(run: dict[str, Any]) -> str:
        return f"{run['peak_pss_mib']:.0f}/{run['summed_rss_mib']:.0f} MiB"

    rows = [
        ("ingest --no-embed", lex["wall_s"], 1000 * lex["wall_s"] / n, rss(lex), lex["cpu_s"]),
        ("ingest with vectors", dense["wall_s"], 1000 * dense["wall_s"] / n, rss(dense),
         dense["cpu_s"]),
        ("  its embedding (Report embed)", dense["embed_s"], r["ingest_embed_s_per_1000"], "",
         None),
        ("  wall added to --no-embed", dense["wall_s"] - lex["wall_s"],
         r["ingest_added_wall_s_per_1000"], "", dense["cpu_s"] - lex["cpu_s"]),
        (f"bare session.run, {r['threads']} threads", bare["wall_s"], bare["s_per_1000"], "",
         bare["cpu_s"]),
    ]  # fmt: skip
    lines = [f"{r['folder']}: {r['token_stats']}; {r['embedded']} embedded by ingest"]
    head = f"{'':34s} {'wall s':>8s} {'s/1000 snippets':>16s} {'PSS/RSS':>14s} {'CPU s':>8s}"
    lines.append(head)
    lines += [
        f"{a:34s} {b:8.1f} {c:16.1f} {d:>14s} {'' if e is None else f'{e:8.1f}'}"
        for a, b, c, d, e in rows
    ]
    lines.append(
        f"ingest's embedding reaches {r['share_of_limit_embed']:.0%} of the bare session's "
        f"throughput ({r['share_of_limit_wall']:.0%} counting all the wall time it adds; "
        f"{r['share_of_limit_cpu']:.0%} in CPU seconds)"
    )
    lines.append("PSS/RSS: peaks of the command's and its workers' memory, summed")
    lines.append(f"load average (1, 5, 15 min): {r['load_average']}")
    return "\n".join(lines)


def main() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    parser = argparse.ArgumentParser()
    parser.add_argument("--ingest", type=Path, help="ingest's embedding against the limit")
    parser.add_argument("--threads", type=int, default=CPUS)
    parser.add_argument("--workers", type=int)
    parser.add_argument("--pdf", type=Path, default=DEFAULT_PDF)
    parser.add_argument("--jsonl", type=Path)
    parser.add_argument("--every", type=int, default=1, help="take every K-th snippet")
    parser.add_argument("--repeat", type=int, default=1, help="report the best of N runs")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.ingest is not None:
        compare(args.ingest, args.threads, args.workers, args.json)
        return
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
