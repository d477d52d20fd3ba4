#!/usr/bin/env python3
"""Failover drill: Folio ingests the corpus into a local 3-node Typesense cluster while
nodes are killed (-9, by pid) and restarted; then every node must hold exactly the
expected documents.

What one run does:

1. computes the expected chunk documents of the corpus (the recipe of
   ``tests/test_ingest.py``: ``extract_file`` with ``doc_id`` = sha256, Folio's chunker,
   ``ChunkRecord.to_store``);
2. starts a 3-node cluster (``scripts/cluster/cluster.py``) in a temporary directory and opens a
   Folio ``Store`` on all three nodes with Folio's own retry settings
   (``ServerSettings`` defaults unless ``--retries``/``--retry-interval`` are given);
3. runs ``pipeline.ingest.ingest`` on the corpus in the main thread while
   - a chaos thread: waits until the first chunk batch is acknowledged, kills a follower,
     kills the leader (1 of 3 alive: no quorum), restarts the follower (quorum back:
     election), restarts the old leader, and (not with ``--quick``) kills the new leader
     while all 3 are up and restarts it;
   - a search thread searches ``folio_chunks`` every 0.2 s through a client on all nodes;
   - a probe thread upserts a tiny document into a ``probe`` collection every 0.2 s, which
     times the write unavailability precisely (Folio writes only once per batch);
   the ingest is paced (a sleep per file in its progress hook, only while the chaos thread
   is running) so that its batches span the whole drill; ``--flush-size`` sets the number of
   chunks per indexer flush (Folio's default is 1000; 200 gives more write events);
4. records whether every node came to the expected counts after that first ingest alone
   (up to 60 s): a node that lost an acknowledged write while it could not be checked
   (Typesense 0.24.1 did, on a restarted node) stays short;
5. runs the same ingest again, as a user repairs: it asks every node before it calls a
   document unchanged, and writes again what one lacks;
6. waits until every node's local counts equal the expected ones for 3 polls in a row,
   exports each node's chunks and compares them with the expected documents, checks
   that every acknowledged probe write is on every node, and through each node alone
   counts every document's chunks and finds every document with a keyword search;
7. prints the timeline, elections, unavailability windows, search and write results per
   phase and the final counts per node; stops every node (also on error or Ctrl-C).

Examples::

    python scripts/cluster/cluster_failover.py                 # whole markdown corpus (~2-3 min)
    python scripts/cluster/cluster_failover.py --quick         # 120 files, shorter drill (~1.5 min)
    python scripts/cluster/cluster_failover.py --json out.json --keep-dir /tmp/drill
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))  # scripts/shared
import rooms  # noqa: E402, F401  (puts every room of scripts/ on the path)
from data_dir import data_dir  # noqa: E402  (scripts/ is on the path)

DEFAULT_CORPUS = data_dir() / "corpus" / "markdown"
if importlib.util.find_spec("pipeline") is None:  # a fresh checkout, not installed
    sys.path.insert(0, str(ROOT))

import typesense  # noqa: E402

from pipeline import chunk_document, make_config  # noqa: E402
from pipeline.errors import StoreError  # noqa: E402
from pipeline.extract import extract_file  # noqa: E402
from pipeline.index.filters import Filters  # noqa: E402
from pipeline.index.records import ChunkRecord  # noqa: E402
from pipeline.index.schema import CHUNKS, DOCUMENTS  # noqa: E402
from pipeline.index.settings import Node, ServerSettings  # noqa: E402
from pipeline.index.store import Store, quote  # noqa: E402
from pipeline.ingest import IngestOptions, Report, ingest  # noqa: E402
from pipeline.ingest.files import discover, file_sha256  # noqa: E402
from pipeline.retrieve import rank  # noqa: E402


def load_cluster_module() -> ModuleType:
    """``scripts/cluster/cluster.py`` as a module (scripts/ is not a package)."""
    name = "folio_cluster_script"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("cluster.py"))
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


cl = load_cluster_module()
PROBE = "probe"
EMPTY: list[str] = []  # files without chunks (ingest may report them as failed)
WORDS = [
    "ownership",
    "borrow",
    "query",
    "template",
    "function",
    "parameter",
    "shortcode",
    "request",
    "struct",
    "trait",
    "content",
    "install",
    "config",
    "response",
    "error",
]


# -- expected documents -------------------------------------------------------------------
def expected_chunks(files: list[Path]) -> tuple[dict[str, dict[str, Any]], int]:
    """The chunk documents Folio must store for ``files`` and the number of distinct
    documents (identical files share one doc id)."""
    config = make_config()
    out: dict[str, dict[str, Any]] = {}
    shas: set[str] = set()
    empty: list[str] = []
    for p in files:
        sha = file_sha256(p)
        if sha in shas:  # ingest keeps the first of identical files
            continue
        shas.add(sha)
        doc = replace(extract_file(str(p)), doc_id=sha)
        chunks = chunk_document(doc, config)
        if not chunks:
            empty.append(str(p))
        for c in chunks:
            out[c.id] = ChunkRecord.from_chunk(c, doc.format).to_store()
    EMPTY[:] = empty
    return out, len(shas)


# -- recording ----------------------------------------------------------------------------
class Timeline:
    def __init__(self, *, verbose: bool = True) -> None:
        self.t0 = time.monotonic()
        self.phase = "setup"
        self.events: list[tuple[float, str]] = []
        self.phases: list[tuple[float, str]] = [(0.0, "setup")]
        self.verbose = verbose
        self.lock = threading.Lock()

    def now(self) -> float:
        return time.monotonic() - self.t0

    def mark(self, text: str, phase: str | None = None) -> float:
        t = self.now()
        with self.lock:
            self.events.append((t, text))
            if phase:
                self.phase = phase
                self.phases.append((t, phase))
        if self.verbose:
            print(f"  [{t:6.1f}s] {text}" + (f"   -> phase: {phase}" if phase else ""), flush=True)
        return t


@dataclass
class Sample:
    start: float
    end: float
    phase: str
    ok: bool
    error: str = ""


@dataclass
class StoreCall:
    what: str
    docs: int
    start: float
    end: float
    phase: str
    ok: bool
    attempt_errors: list[str] = field(default_factory=list)


class TimedStore(Store):
    """Folio's Store, unchanged, with every ``call`` and every HTTP attempt recorded."""

    def __init__(self, settings: ServerSettings, tl: Timeline) -> None:
        super().__init__(settings)
        self.tl = tl
        self.calls: list[StoreCall] = []
        self.http: list[Sample] = []
        self.first_chunk_ack = threading.Event()
        handler = self.client.api_call.request_handler
        original = handler.make_request

        def make_request(*args: Any, **kwargs: Any) -> Any:
            t0, phase = tl.now(), tl.phase
            try:
                res = original(*args, **kwargs)
            except Exception as exc:
                self.http.append(Sample(t0, tl.now(), phase, False, _err(exc)))
                raise
            self.http.append(Sample(t0, tl.now(), phase, True))
            return res

        handler.make_request = make_request

    def call(self, what: str, fn: Callable[[], Any], attempts: int = 4) -> Any:
        docs = 0
        if isinstance(fn, partial):
            docs = next((len(a) for a in fn.args if isinstance(a, list)), 0)
        rec = StoreCall(what, docs, self.tl.now(), 0.0, self.tl.phase, False)

        def attempt() -> Any:
            try:
                return fn()
            except Exception as exc:
                rec.attempt_errors.append(f"{self.tl.now():.1f}s {_err(exc)}")
                raise

        try:
            res = super().call(what, attempt, attempts)
            rec.ok = True
            if what == f"import into {CHUNKS}":
                self.first_chunk_ack.set()
            return res
        finally:
            rec.end = self.tl.now()
            self.calls.append(rec)


def _err(exc: BaseException) -> str:
    text = str(exc).replace("\n", " ")
    return f"{type(exc).__name__}: {text[:90]}"


def _client(cluster: Any, *, timeout: float, retries: int, interval: float) -> Any:
    return typesense.Client(
        {
            "nodes": [
                {"host": cl.HOST, "port": n.api_port, "protocol": "http"} for n in cluster.nodes
            ],
            "api_key": cluster.api_key,
            "connection_timeout_seconds": timeout,
            "num_retries": retries,
            "retry_interval_seconds": interval,
            "healthcheck_interval_seconds": 2,
        }
    )


def probe_writer(
    cluster: Any, tl: Timeline, stop: threading.Event, out: list[Sample], acked: list[str]
) -> None:
    """Upsert one tiny document every 0.2 s (client: all nodes, 3 fast retries)."""
    client = _client(cluster, timeout=2.0, retries=3, interval=0.05)
    i = 0
    while not stop.is_set():
        t0, phase = tl.now(), tl.phase
        doc_id = f"p{i}"
        try:
            client.collections[PROBE].documents.upsert({"id": doc_id, "n": i})
            out.append(Sample(t0, tl.now(), phase, True))
            acked.append(doc_id)
        except Exception as exc:
            out.append(Sample(t0, tl.now(), phase, False, _err(exc)))
        i += 1
        stop.wait(0.2)


def searcher(cluster: Any, tl: Timeline, stop: threading.Event, out: list[Sample]) -> None:
    """A keyword search every 0.2 s (client: all nodes, 2 fast retries, 2 s timeout)."""
    client = _client(cluster, timeout=2.0, retries=2, interval=0.1)
    rng = random.Random(7)
    while not stop.is_set():
        t0, phase = tl.now(), tl.phase
        params = {
            "q": rng.choice(WORDS),
            "query_by": "text",
            "per_page": 5,
            "exclude_fields": "text",
        }
        try:
            client.collections[CHUNKS].documents.search(params)
            out.append(Sample(t0, tl.now(), phase, True))
        except Exception as exc:
            out.append(Sample(t0, tl.now(), phase, False, _err(exc)))
        stop.wait(0.2)


# -- chaos --------------------------------------------------------------------------------
def _poll_until(cond: Callable[[], bool], timeout: float, poll: float = 0.1) -> float | None:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if cond():
            return time.monotonic() - t0
        time.sleep(poll)
    return None


@dataclass(frozen=True, slots=True)
class Chaos:
    """What the chaos steps share: the cluster, the timeline and the results they fill."""

    cluster: Any
    tl: Timeline
    res: dict[str, Any]
    hold: float


def chaos(
    cluster: Any,
    tl: Timeline,
    store: TimedStore,
    args: argparse.Namespace,
    res: dict[str, Any],
    done: threading.Event,
) -> None:
    d = Chaos(cluster, tl, res, args.hold)
    try:
        store.first_chunk_ack.wait(120)
        time.sleep(args.warmup)
        lead = cl.leader(cluster)
        if lead is None:
            lead, _ = cl.wait_for_leader(cluster, 60)
        follower = next(n.index for n in cluster.nodes if n.index != lead)
        survivor = next(n.index for n in cluster.nodes if n.index not in (lead, follower))
        res["roles"] = {"leader": lead, "follower_killed": follower, "survivor": survivor}
        _kill_follower(d, follower)
        lead = _kill_leader(d, lead, follower, args.outage)
        _restart_follower(d, follower)
        _restart_old_leader(d, lead)
        if not args.quick:
            _kill_leader_with_three_up(d)
        tl.mark("drill done", "all up (after drill)")
    except Exception as exc:  # reported, and the run still tears down cleanly
        res["chaos_error"] = _err(exc)
        tl.mark(f"chaos thread failed: {res['chaos_error']}")
    finally:
        done.set()


def _kill_follower(d: Chaos, follower: int) -> None:
    """1. A follower dies: quorum (2 of 3) remains, the leader stays."""
    cluster, tl, res = d.cluster, d.tl, d.res
    res["t_kill_follower"] = tl.mark(
        f"kill -9 follower node {follower} (pid {cluster.nodes[follower].pid})",
        "follower down (2/3)",
    )
    cl.kill_node(cluster, follower, signal.SIGKILL)
    time.sleep(d.hold)
    res["leader_after_follower_loss"] = cl.leader(cluster)
    tl.mark(f"leader is node {res['leader_after_follower_loss']} after {d.hold:.0f}s")


def _kill_leader(d: Chaos, lead: int, follower: int, outage: float) -> int:
    """2. The leader dies: 1 of 3 alive, no quorum, writes cannot succeed. Returns the
    leader that was killed."""
    cluster, tl, res = d.cluster, d.tl, d.res
    if res["leader_after_follower_loss"] is not None:
        lead = res["leader_after_follower_loss"]
    survivor = next(n.index for n in cluster.nodes if n.index not in (lead, follower))
    res["roles"].update(leader=lead, survivor=survivor)
    res["t_kill_leader"] = tl.mark(
        f"kill -9 leader node {lead} (pid {cluster.nodes[lead].pid})", "no quorum (1/3)"
    )
    cl.kill_node(cluster, lead, signal.SIGKILL)
    saw = _poll_until(lambda: cl.leader(cluster) is not None, outage)
    res["leader_during_outage"] = saw is not None
    res["survivor_health_during_outage"] = cl.health(cluster, survivor)
    return lead


def _restart_follower(d: Chaos, follower: int) -> None:
    """3. The follower comes back: quorum (2 of 3), a leader is elected."""
    cluster, tl, res = d.cluster, d.tl, d.res
    res["t_restart_follower"] = tl.mark(f"restart node {follower}", "quorum back, electing (2/3)")
    cl.restart_node(cluster, follower)
    t_r = time.monotonic()
    healthy_at = leader_at = None
    new_leader = None
    while time.monotonic() - t_r < 120 and (healthy_at is None or leader_at is None):
        if healthy_at is None and cl.health(cluster, follower, 0.5):
            healthy_at = time.monotonic() - t_r
            tl.mark(f"node {follower} /health ok ({healthy_at:.1f}s after restart)")
        if leader_at is None:
            new_leader = cl.leader(cluster)
            if new_leader is not None:
                leader_at = time.monotonic() - t_r
                tl.mark(
                    f"new leader node {new_leader} ({leader_at:.1f}s after restart, "
                    f"{tl.now() - res['t_kill_leader']:.1f}s after the leader died)",
                    "leader back (2/3)",
                )
        time.sleep(0.05)
    res.update(
        follower_healthy_after_restart_s=healthy_at,
        election_after_restart_s=leader_at,
        new_leader=new_leader,
        t_new_leader=None if leader_at is None else res["t_restart_follower"] + leader_at,
    )
    time.sleep(d.hold)


def _restart_old_leader(d: Chaos, lead: int) -> None:
    """4. The old leader comes back."""
    tl, res = d.tl, d.res
    res["t_restart_leader"] = tl.mark(f"restart node {lead}", "old leader rejoining (3/3)")
    res["old_leader_healthy_after_restart_s"] = _restart_until_healthy(d, lead)
    time.sleep(d.hold)


def _kill_leader_with_three_up(d: Chaos) -> None:
    """5. (full run) The leader dies while all 3 are up: a pure election."""
    cluster, tl, res = d.cluster, d.tl, d.res
    lead2 = cl.leader(cluster)
    if lead2 is None:
        lead2, _ = cl.wait_for_leader(cluster, 60)
    res["t_kill_leader_3up"] = tl.mark(
        f"kill -9 leader node {lead2} with 3 up (pid {cluster.nodes[lead2].pid})",
        "leader down, electing (2/3)",
    )
    cl.kill_node(cluster, lead2, signal.SIGKILL)
    who, secs = cl.wait_for_leader(cluster, 60, exclude=(lead2,), poll=0.05)
    res["election_3up_s"] = secs
    res["t_new_leader_3up"] = res["t_kill_leader_3up"] + secs
    tl.mark(f"new leader node {who} after {secs:.1f}s", "leader back (2/3)")
    time.sleep(d.hold)
    res["t_restart_leader_3up"] = tl.mark(f"restart node {lead2}", "node rejoining (3/3)")
    res["leader_3up_healthy_after_restart_s"] = _restart_until_healthy(d, lead2)


def _restart_until_healthy(d: Chaos, node: int) -> float | None:
    """Restart ``node`` and wait (up to 120 s) for its /health: the seconds it took."""
    cl.restart_node(d.cluster, node)
    took = _poll_until(lambda: cl.health(d.cluster, node, 0.5), 120, 0.05)
    d.tl.mark(
        f"node {node} /health ok ({took if took is None else round(took, 1)}s)",
        "all up (3/3, mid-drill)",
    )
    return took


# -- analysis -----------------------------------------------------------------------------
def window(samples: list[Sample], t: float | None) -> dict[str, Any] | None:
    """Around an event at ``t``: last success that ended before it, first success that
    started after it (requests straddling the event don't count), failures between."""
    if t is None:
        return None
    before = [s.end for s in samples if s.ok and s.end <= t]
    after = [s for s in samples if s.ok and s.start >= t]
    if not after:
        return {"last_ok_before": max(before, default=None), "first_ok_after": None}
    first = min(after, key=lambda s: s.end)
    last = max(before, default=None)
    fails = [s for s in samples if not s.ok and s.start >= (last or t) and s.end <= first.end]
    return {
        "last_ok_before": last,
        "first_ok_after": first.end,
        "gap_s": None if last is None else first.end - last,
        "since_event_s": first.end - t,
        "failed_requests": len(fails),
        "errors": dict(Counter(s.error.split(":")[0] for s in fails)),
    }


def per_phase(samples: list[Sample], order: list[str]) -> list[dict[str, Any]]:
    by: dict[str, list[Sample]] = defaultdict(list)
    for s in samples:
        by[s.phase].append(s)
    rows = []
    for ph in order:
        ss = by.get(ph, [])
        if not ss:
            continue
        lat = sorted(s.end - s.start for s in ss if s.ok)
        rows.append(
            {
                "phase": ph,
                "ok": sum(s.ok for s in ss),
                "failed": sum(not s.ok for s in ss),
                "p50_ms": round(1000 * lat[len(lat) // 2]) if lat else None,
                "max_ms": round(1000 * lat[-1]) if lat else None,
                "errors": dict(Counter(s.error.split(":")[0] for s in ss if not s.ok)),
            }
        )
    return rows


def phase_order(tl: Timeline) -> list[str]:
    seen: list[str] = []
    for _, ph in tl.phases:
        if ph not in seen:
            seen.append(ph)
    return seen


def verify_nodes(
    cluster: Any, expected: dict[str, dict[str, Any]], n_docs: int, probe_acked: list[str]
) -> list[dict[str, Any]]:
    rows = []
    for n in cluster.nodes:
        chunks = cl.export_docs(cluster, n.index, CHUNKS)
        records = cl.export_docs(cluster, n.index, DOCUMENTS)
        probe = cl.export_ids(cluster, n.index, PROBE)
        ids = set(chunks)
        rows.append(
            {
                "node": n.index,
                "chunks": len(chunks),
                "missing": len(set(expected) - ids),
                "unexpected": len(ids - set(expected)),
                "differing": sum(1 for k in ids & set(expected) if chunks[k] != expected[k]),
                "documents": len(records),
                "complete": sum(1 for r in records.values() if r.get("status") == "complete"),
                "failed_records": sum(1 for r in records.values() if r.get("status") == "failed"),
                "probe_docs": len(probe),
                "probe_acked_missing": len(set(probe_acked) - probe),
                "exact": ids == set(expected)
                and all(chunks[k] == expected[k] for k in ids)
                and len(records) == n_docs,
            }
        )
    return rows


# -- main ---------------------------------------------------------------------------------
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=str(DEFAULT_CORPUS))
    ap.add_argument("--quick", action="store_true", help="120 files, no 3-up leader kill")
    ap.add_argument("--files", type=int, help="use only the first N files")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--flush-size",
        type=int,
        help="chunks per indexer flush (Folio's default is 1000; default here: about one "
        "flush per second of the paced ingest, for more write events during the drill)",
    )
    ap.add_argument("--pace", type=float, help="seconds of sleep per file while the drill runs")
    ap.add_argument("--warmup", type=float, default=3.0)
    ap.add_argument("--hold", type=float, default=5.0, help="seconds between drill steps")
    ap.add_argument("--outage", type=float, default=5.0, help="seconds with 1 of 3 alive")
    defaults = ServerSettings()
    ap.add_argument("--retries", type=int, default=defaults.retries)
    ap.add_argument("--retry-interval", type=float, default=defaults.retry_interval_seconds)
    ap.add_argument("--timeout", type=float, default=defaults.timeout_seconds)
    ap.add_argument("--keep-dir", help="cluster directory to keep (default: a temp dir)")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)
    if args.quick:
        args.files = args.files or 120
        args.hold = min(args.hold, 3.0)
        args.outage = min(args.outage, 3.0)
    return args


@dataclass(slots=True)
class Run:
    """One run's inputs, and what its threads record."""

    args: argparse.Namespace
    files: list[Path]
    expected: dict[str, dict[str, Any]]
    n_docs: int
    pace: float
    res: dict[str, Any]
    tl: Timeline = field(default_factory=Timeline)
    stop: threading.Event = field(default_factory=threading.Event)
    chaos_done: threading.Event = field(default_factory=threading.Event)
    probe: list[Sample] = field(default_factory=list)
    probe_acked: list[str] = field(default_factory=list)
    searches: list[Sample] = field(default_factory=list)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    files, problems = discover([args.corpus])
    if problems or not files:
        print(f"corpus problem: {problems or 'no supported files'}", file=sys.stderr)
        return 2
    files = files[: args.files] if args.files else files
    t = time.perf_counter()
    expected, n_docs = expected_chunks(files)
    print(
        f"corpus: {len(files)} files, {n_docs} distinct documents, {len(expected)} chunks "
        f"expected ({time.perf_counter() - t:.1f}s to compute)"
    )
    chaos_estimate = (55.0 if args.quick else 80.0) + 3 * (args.hold - 3) + args.outage
    pace = args.pace if args.pace is not None else chaos_estimate / len(files)
    if args.flush_size is None:
        args.flush_size = max(20, round(len(expected) / len(files) / max(pace, 0.01)))

    base = Path(args.keep_dir) if args.keep_dir else Path(tempfile.mkdtemp(prefix="folio-cluster-"))
    # Folio's own state (the lexical index, the lock) beside the cluster, not the user's.
    os.environ["FOLIO_HOME"] = str(base / "folio-home")
    cluster = None
    res: dict[str, Any] = {
        "files": len(files),
        "expected_chunks": len(expected),
        "documents": n_docs,
        "pace_s_per_file": round(pace, 4),
        "flush_size": args.flush_size,
        "retries": args.retries,
        "retry_interval_s": args.retry_interval,
        "timeout_s": args.timeout,
    }
    rc = 1
    run = Run(args, files, expected, n_docs, pace, res)
    try:
        print(f"starting 3 nodes in {base}", flush=True)
        cluster, took = cl.up(base, 3)
        rc = drill(run, cluster, took)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        rc = 130
    finally:
        run.stop.set()
        if cluster is not None:
            pids = cl.down(cluster)
            print(f"stopped nodes (pids {pids})")
        if args.json:
            Path(args.json).write_text(json.dumps(res, indent=2, default=str), encoding="utf-8")
        if not args.keep_dir:
            shutil.rmtree(base, ignore_errors=True)
    return rc


def drill(run: Run, cluster: Any, took: float) -> int:
    """Ingest through the drill, wait for the nodes to converge, check and report them."""
    res, tl = run.res, run.tl
    res["first_leader_s"] = took
    tl.mark(
        f"cluster up: leader node {cl.leader(cluster)} after {took:.1f}s "
        f"(ports {cluster.nodes_line()})",
        "all up (before drill)",
    )
    store = open_store(run, cluster)
    threads = [
        threading.Thread(
            target=probe_writer,
            args=(cluster, tl, run.stop, run.probe, run.probe_acked),
            daemon=True,
        ),
        threading.Thread(target=searcher, args=(cluster, tl, run.stop, run.searches), daemon=True),
        threading.Thread(
            target=chaos, args=(cluster, tl, store, run.args, res, run.chaos_done), daemon=True
        ),
    ]
    for th in threads:
        th.start()
    report = paced_ingest(run, store)
    res["ingest_end"] = tl.now()
    run.chaos_done.wait(300)
    time.sleep(1.0)
    run.stop.set()
    for th in threads:
        th.join(30)
    if report is not None:
        after_first_ingest(run, cluster, store)
    again = second_ingest(run, store)
    await_convergence(run, cluster, store, again)
    nodes = verify_nodes(cluster, run.expected, run.n_docs, run.probe_acked)
    res["nodes"] = nodes
    res["searched"] = search_nodes(cluster, run.expected)
    res["retrieved"] = retrieve_documents(store, run.expected)
    analyse(run, store, report)
    ok = (
        complete(report, run.n_docs, len(report.ingested) if report else 0)
        and complete(again, run.n_docs, len(again.ingested) + len(again.unchanged) if again else 0)
        and "converge_error" not in res
        and "chaos_error" not in res
        and all(r["exact"] and r["probe_acked_missing"] == 0 for r in nodes)
        and all(r["all_seen"] for r in res["searched"])
        and res["retrieved"] == run.n_docs
    )
    res["pass"] = ok
    print_summary(res)
    return 0 if ok else 1


def complete(report: Report | None, n_docs: int, done: int) -> bool:
    """The ingest ran to the end, failed only on files without chunks, and accounted for
    every document (``done``: ingested, or ingested and unchanged)."""
    return (
        report is not None
        and all(f.path in EMPTY and f.stage == "chunk" for f in report.failed)
        and not report.interrupted
        and done + len(report.empty) + len(report.failed) == n_docs
    )


def after_first_ingest(run: Run, cluster: Any, store: TimedStore) -> None:
    """Whether every node came to the expected counts after the first ingest alone (up to
    60 s): recorded, not required. A node that lost an acknowledged write while the
    ingest could not check it (it was down) needs the second ingest to be repaired."""
    want = {
        str(store.alias_target(CHUNKS)): len(run.expected),
        str(store.alias_target(DOCUMENTS)): run.n_docs,
    }
    try:
        secs, _ = cl.wait_converged(cluster, want, timeout=60)
        run.res["first_converged_after_s"] = secs
    except cl.ClusterError as exc:
        run.res["first_not_converged"] = str(exc)
    run.res["counts_after_first"] = [cl.collection_counts(cluster, n.index) for n in cluster.nodes]
    run.tl.mark(f"after the first ingest: {run.res['counts_after_first']}")


def second_ingest(run: Run, store: TimedStore) -> Report | None:
    """What a user does to repair: the same ingest again, unpaced, after the drill. It asks
    every node before it calls a document unchanged, and writes again what one lacks."""
    run.tl.mark("second ingest starts", "second ingest")
    try:
        again = ingest(
            [str(f) for f in run.files],
            make_config(),
            store,
            IngestOptions(workers=run.args.workers, embed=False, batch_size=run.args.flush_size),
        )
    except StoreError as exc:
        run.res["second_ingest_error"] = str(exc)
        run.tl.mark(f"SECOND INGEST RAISED StoreError: {exc}")
        return None
    run.res["second_ingest"] = report_summary(again)
    run.tl.mark(
        f"second ingest returned: {len(again.unchanged)} unchanged, {len(again.ingested)} "
        f"ingested again, {len(again.failed)} failed"
    )
    return again


def search_nodes(cluster: Any, expected: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Through each node alone, as a search that reaches it would: every document's chunk
    count (one faceted count), and a keyword search per document (words of one of its
    chunks, filtered to it) that must find it."""
    chunks: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for doc in expected.values():
        chunks[doc["doc_id"]].append(doc)
    searches = [
        {
            "collection": CHUNKS,
            "q": " ".join(re.findall(r"\w+", min(cs, key=lambda c: c["id"])["text"])[:6]) or "*",
            "query_by": "text",
            "filter_by": f"doc_id:={quote(doc_id)}",
            "per_page": 0,
        }
        for doc_id, cs in sorted(chunks.items())
    ]
    rows = []
    for n in cluster.nodes:
        node = Store(ServerSettings(nodes=(Node(cl.HOST, n.api_port),), api_key=cluster.api_key))
        counts = node.chunk_counts(chunks)
        whole = sum(counts.get(d, 0) == len(cs) for d, cs in chunks.items())
        found = sum(r["found"] > 0 for r in node.searches(searches))
        rows.append(
            {
                "node": n.index,
                "documents_with_every_chunk": whole,
                "documents_found_by_search": found,
                "all_seen": whole == found == len(chunks),
            }
        )
    return rows


def retrieve_documents(store: Store, expected: dict[str, dict[str, Any]]) -> int:
    """How many documents Folio's ranking finds: for each, the words of one of its
    snippets, asked with the document as the filter (the lexical index must hold it)."""
    snippets: dict[str, dict[str, Any]] = {}
    for doc in expected.values():
        if doc["tier"] == "snippet":
            snippets.setdefault(doc["doc_id"], doc)
    found = 0
    for doc_id, doc in sorted(snippets.items()):
        question = " ".join(re.findall(r"\w+", doc["text"])[:12]) or "the"
        found += bool(rank(store, question, Filters(doc=doc_id), k=1, mode="lexical"))
    return found


def open_store(run: Run, cluster: Any) -> TimedStore:
    """Folio's store on all three nodes, its collections and the probe collection made."""
    settings = ServerSettings(
        nodes=tuple(Node(cl.HOST, n.api_port) for n in cluster.nodes),
        api_key=cluster.api_key,
        timeout_seconds=run.args.timeout,
        retries=run.args.retries,
        retry_interval_seconds=run.args.retry_interval,
    )
    store = TimedStore(settings, run.tl)
    store.ensure_collections()
    store.client.collections.create({"name": PROBE, "fields": [{"name": "n", "type": "int32"}]})
    return store


def paced_ingest(run: Run, store: TimedStore) -> Report | None:
    """Folio's ingest, slowed down per file while the drill runs; None if it raised."""

    def paced(event: str, totals: dict[str, int]) -> None:
        if event == "advance" and not run.chaos_done.is_set():
            time.sleep(run.pace)

    tl = run.tl
    tl.mark(
        f"ingest starts ({len(run.files)} files, {run.pace * 1000:.0f} ms/file pacing "
        f"while the drill runs, flush every {run.args.flush_size} chunks)"
    )
    try:
        report = ingest(
            [str(f) for f in run.files],
            make_config(),
            store,
            IngestOptions(
                workers=run.args.workers,
                embed=False,  # the expected chunks carry no vectors (the dense extra may be here)
                batch_size=run.args.flush_size,  # the indexer's flush size: workload shaping
            ),
            progress=paced,
        )
    except StoreError as exc:
        run.res["ingest_error"] = str(exc)
        tl.mark(f"INGEST RAISED StoreError: {exc}")
        return None
    tl.mark(
        f"ingest returned: {len(report.ingested)} ingested, "
        f"{len(report.failed)} failed, interrupted={report.interrupted}"
    )
    return report


def await_convergence(run: Run, cluster: Any, store: TimedStore, report: Report | None) -> None:
    """Wait until every node holds the expected counts (or, when the ingest failed, the
    leader's), then record every node's counts."""
    res = run.res
    print("waiting for every node to hold the expected counts ...", flush=True)
    names = {CHUNKS: store.alias_target(CHUNKS), DOCUMENTS: store.alias_target(DOCUMENTS)}
    want = {
        names[CHUNKS]: len(run.expected),
        names[DOCUMENTS]: run.n_docs,
        PROBE: len(set(run.probe_acked)),
    }
    if report is None:  # the ingest failed: only ask that the nodes agree
        lead = cl.leader(cluster)
        now = cl.collection_counts(cluster, lead) if lead is not None else None
        want = {k: (now or {}).get(k, -1) for k in want}
    try:
        secs, _ = cl.wait_converged(
            cluster,
            {k: v for k, v in want.items() if k != PROBE},
            timeout=240 if report is not None else 60,
        )
        res["converged_after_s"] = secs
    except cl.ClusterError as exc:
        res["converge_error"] = str(exc)
    res["final_counts"] = [cl.collection_counts(cluster, n.index) for n in cluster.nodes]


def analyse(run: Run, store: TimedStore, report: Report | None) -> None:
    """Per-phase results, write unavailability windows, slow calls, events and the report."""
    res, tl = run.res, run.tl
    order = phase_order(tl)
    res["search_by_phase"] = per_phase(run.searches, order)
    res["probe_by_phase"] = per_phase(run.probe, order)
    writes = [
        Sample(c.start, c.end, c.phase, c.ok, "")
        for c in store.calls
        if c.what.startswith(("import into", "delete from"))
    ]
    res["folio_http_by_phase"] = per_phase(store.http, order)
    acked_by_phase: Counter[str] = Counter()
    for c in store.calls:
        if c.ok and c.what == f"import into {CHUNKS}":
            acked_by_phase[tl_phase_at(tl, c.end)] += c.docs
    res["chunks_acked_by_phase"] = {ph: acked_by_phase[ph] for ph in order if acked_by_phase[ph]}
    res["slow_store_calls"] = slow_store_calls(store)
    res["windows"] = {}
    for key, label in (
        ("t_kill_follower", "follower killed"),
        ("t_kill_leader", "leader killed (1/3 left)"),
        ("t_kill_leader_3up", "leader killed with 3 up"),
    ):
        res["windows"][label] = {
            "probe": window(run.probe, res.get(key)),
            "folio": window(writes, res.get(key)),
        }
    res["events"] = [(round(t, 2), e) for t, e in tl.events]
    if report is not None:
        res["report"] = report_summary(report)


def slow_store_calls(store: TimedStore) -> list[dict[str, Any]]:
    """Folio's store calls that took over 2 s or retried for more than a missing alias."""
    return [
        {
            "what": c.what,
            "docs": c.docs,
            "start": round(c.start, 1),
            "seconds": round(c.end - c.start, 1),
            "ok": c.ok,
            "store_level_retries": c.attempt_errors,
        }
        for c in store.calls
        if c.end - c.start > 2.0
        or any(not e.split(" ", 1)[1].startswith("ObjectNotFound") for e in c.attempt_errors)
    ]


def report_summary(report: Report) -> dict[str, Any]:
    return {
        "ingested": len(report.ingested),
        "unchanged": len(report.unchanged),
        "empty": len(report.empty),
        "failed_no_chunks": sum(f.path in EMPTY for f in report.failed),
        "failed": [(f.path, f.stage, f.reason) for f in report.failed if f.path not in EMPTY],
        "duplicates": len(report.duplicates),
        "interrupted": report.interrupted,
        "sections": report.sections,
        "snippets": report.snippets,
        "seconds": {k: round(v, 1) for k, v in report.seconds.items()},
    }


def tl_phase_at(tl: Timeline, t: float) -> str:
    current = tl.phases[0][1]
    for start, ph in tl.phases:
        if start <= t:
            current = ph
    return current


def _f(x: Any, unit: str = "s") -> str:
    return "-" if x is None else f"{x:.1f}{unit}"


def print_summary(res: dict[str, Any]) -> None:
    print("\n=== failover timings ===")
    print(f"first leader after cluster start        {_f(res.get('first_leader_s'))}")
    print(f"leader kept after follower loss         node {res.get('leader_after_follower_loss')}")
    print(
        f"leader during 1/3 outage                {res.get('leader_during_outage')} "
        f"(survivor /health ok: {res.get('survivor_health_during_outage')})"
    )
    print(
        f"restarted follower /health ok after     {_f(res.get('follower_healthy_after_restart_s'))}"
    )
    el = res.get("election_after_restart_s")
    since = None
    if res.get("t_new_leader") is not None:
        since = res["t_new_leader"] - res["t_kill_leader"]
    print(
        f"new leader after follower restart       {_f(el)} "
        f"({_f(since)} after the leader was killed)"
    )
    print(
        "old leader /health ok after restart     "
        + _f(res.get("old_leader_healthy_after_restart_s"))
    )
    if "election_3up_s" in res:
        print(f"election after leader kill with 3 up    {_f(res['election_3up_s'])}")
        print(
            f"that node /health ok after restart      "
            f"{_f(res.get('leader_3up_healthy_after_restart_s'))}"
        )
    print(f"nodes converged after ingest/drill      {_f(res.get('converged_after_s'))}")
    print("\n=== write unavailability (gap = last ok write before -> first ok write after) ===")
    for label, w in res["windows"].items():
        for who in ("probe", "folio"):
            x = w[who]
            if x is None:
                continue
            print(
                f"{label:<26} {who:<5} gap {_f(x.get('gap_s'))}  first ok "
                f"{_f(x.get('since_event_s'))} after the kill  failed requests "
                f"{x.get('failed_requests', '-')} {x.get('errors', '')}"
            )
    for title, key in (
        ("searches (every 0.2 s, all nodes)", "search_by_phase"),
        ("probe writes (every 0.2 s)", "probe_by_phase"),
        ("Folio HTTP attempts (client level)", "folio_http_by_phase"),
    ):
        print(f"\n=== {title} per phase ===")
        for r in res[key]:
            print(
                f"  {r['phase']:<30} ok {r['ok']:>4}  failed {r['failed']:>3}  "
                f"p50 {r['p50_ms']} ms  max {r['max_ms']} ms  {r['errors'] or ''}"
            )
    print("\n=== Folio chunks acknowledged per phase ===")
    for ph, n in res["chunks_acked_by_phase"].items():
        print(f"  {ph:<30} {n}")
    if res["slow_store_calls"]:
        print("\n=== Folio store calls that retried or took > 2 s ===")
        for c in res["slow_store_calls"]:
            print(
                f"  t={c['start']}s {c['what']} ({c['docs']} docs) {c['seconds']}s "
                f"ok={c['ok']} store-level retries: {c['store_level_retries']}"
            )
    print_outcome(res)


def print_outcome(res: dict[str, Any]) -> None:
    """The two ingests and what each node holds at the end."""
    print("\n=== ingest report ===")
    print(f"  {res.get('report')}")
    if "ingest_error" in res:
        print(f"  INGEST ERROR: {res['ingest_error']}")
    print("\n=== after the first ingest (before the second) ===")
    if "first_converged_after_s" in res:
        print(f"  every node held every chunk {res['first_converged_after_s']:.1f}s later")
    else:
        print(f"  not converged: {res.get('first_not_converged', 'the first ingest failed')}")
    print(f"  counts per node: {res.get('counts_after_first')}")
    print("\n=== second ingest (the repair) ===")
    print(f"  {res.get('second_ingest') or res.get('second_ingest_error')}")
    print("\n=== final counts per node ===")
    for r, counts in zip(res["nodes"], res["final_counts"], strict=True):
        print(
            f"  node {r['node']}: chunks {r['chunks']} (expected {res['expected_chunks']}, "
            f"missing {r['missing']}, unexpected {r['unexpected']}, differing {r['differing']})"
            f"  documents {r['documents']} ({r['complete']} complete)  probe {r['probe_docs']} "
            f"(acknowledged missing {r['probe_acked_missing']})  exact={r['exact']}"
        )
        print(f"          collections: {counts}")
    for r in res["searched"]:
        print(
            f"  node {r['node']} alone: {r['documents_with_every_chunk']} documents with every "
            f"chunk, {r['documents_found_by_search']} found by a keyword search "
            f"(of {res['documents']})"
        )
    found = res.get("retrieved")
    print(f"  retrieve (lexical index): {found} of {res['documents']} documents found")
    for key in ("chaos_error", "converge_error"):
        if key in res:
            print(f"{key}: {res[key]}")
    print(f"\nRESULT: {'PASS' if res['pass'] else 'FAIL'}")


if __name__ == "__main__":
    sys.exit(main())
