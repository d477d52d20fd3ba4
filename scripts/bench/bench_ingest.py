#!/usr/bin/env python3
"""End-to-end ingest benchmark: Folio into a fresh embedded Typesense, against a bare import.

What one run does:

1. starts a fresh embedded Typesense server in a temporary ``FOLIO_HOME``;
2. ingests the corpus with Folio in-process (``pipeline.ingest.ingest``, worker pool and all)
   and reports wall time, files/s, chunks/s (chunks stored / wall), the stage split from
   ``Report.seconds`` (extract and chunk are summed over the workers; index is the time
   spent inside the indexer's flushes, i.e. Typesense round trips), every call the ingest
   made on the store, CPU seconds per party (main process, workers, server) and peak RSS;
3. re-runs the ingest over the unchanged library and times it;
4. exports the chunk documents Folio stored and bare-imports exactly those documents into a
   new collection with the same schema (``documents.import_(docs, {"action": "upsert"},
   batch_size=1000)``); only the import is timed. That rate is the reference: Folio's goal
   is >= 90% of it;
5. replays Folio's own extraction and chunking output (rebuilt from what step 2 stored)
   through ``ingest`` into fresh collections: the same discovery, hashing, hand-off, index
   thread, batches and document records, with extraction and chunking taking no time. It
   says how close Folio's store path comes to the bare import when CPU is not shared with
   extraction, which on a 2-core machine it is;
6. stops the server (also on error or Ctrl-C).

The QA corpus (``qa/``) is not part of this benchmark. Nothing touches the network except
127.0.0.1.

Examples::

    python scripts/bench/bench_ingest.py                      # whole corpus, table
    python scripts/bench/bench_ingest.py --only markdown --json
    python scripts/bench/bench_ingest.py --corpus /data/library --workers 4
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pipeline.index.server import RunningServer
    from pipeline.index.store import Store
    from pipeline.ingest import FileResult, Found, Job, Runner
    from pipeline.shared.config import ChunkConfig

ROOT = Path(__file__).resolve().parents[2]

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))  # scripts/shared
import rooms  # noqa: E402, F401  (puts every room of scripts/ on the path)
from common import text_table  # noqa: E402  (scripts/ is on the path)
from data_dir import data_dir  # noqa: E402

DEFAULT_CORPUS = data_dir() / "corpus"
PARTS = {"markdown": "markdown", "pdf": "pdf", "epub": "epub"}
REFERENCE = "bench_reference_chunks"
BATCH = 1000
MB = 1_000_000
MIB = 1 << 20
CPUS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1

if importlib.util.find_spec("pipeline") is None:  # a fresh checkout, not installed
    sys.path.insert(0, str(ROOT))

try:
    import psutil
except ImportError:  # pragma: no cover - optional
    psutil = None


# --------------------------------------------------------------------------- measuring


@dataclass(slots=True)
class Usage:
    """CPU seconds and peak RSS of one phase, per party."""

    folio_cpu: float = 0.0  # main process (user + sys)
    workers_cpu: float = 0.0  # pool workers (reaped children, excluding the server)
    server_cpu: float = 0.0
    folio_peak: int = 0  # bytes: peak of (main + live workers) RSS, sampled
    main_peak: int = 0  # bytes: kernel high-water mark of this process
    server_peak: int = 0  # bytes, sampled
    method: str = ""


class Monitor:
    """Samples RSS of this process, its worker children and the server (psutil), and
    brackets CPU time; falls back to ``getrusage`` when psutil is not installed."""

    def __init__(self, server_pid: int, interval: float = 0.05) -> None:
        self.server_pid = server_pid
        self.interval = interval
        self.usage = Usage(
            method="psutil (sampled every 50 ms)"
            if psutil
            else "getrusage + /proc VmHWM (peaks since start, not per phase)"
        )
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._server = psutil.Process(server_pid) if psutil else None
        self._me = psutil.Process() if psutil else None

    def _server_cpu(self) -> float:
        if self._server is not None:
            with contextlib.suppress(Exception):
                t = self._server.cpu_times()
                return float(t.user + t.system)
        with contextlib.suppress(OSError, ValueError, IndexError):  # Linux without psutil
            fields = Path(f"/proc/{self.server_pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return 0.0

    def _server_hwm(self) -> int:
        """The server's lifetime RSS high-water mark (VmHWM), for runs without psutil."""
        with contextlib.suppress(OSError, ValueError, IndexError):
            for line in Path(f"/proc/{self.server_pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
        return 0

    def _sample(self) -> None:
        assert self._me is not None and self._server is not None
        while not self._stop.is_set():
            with contextlib.suppress(Exception):
                total = self._me.memory_info().rss
                for child in self._me.children(recursive=True):
                    if child.pid == self.server_pid:
                        continue
                    with contextlib.suppress(Exception):
                        total += child.memory_info().rss
                self.usage.folio_peak = max(self.usage.folio_peak, total)
                self.usage.server_peak = max(self.usage.server_peak, self._server.memory_info().rss)
            self._stop.wait(self.interval)

    @contextlib.contextmanager
    def phase(self) -> Iterator[Usage]:
        self.usage = Usage(method=self.usage.method)
        me0 = resource.getrusage(resource.RUSAGE_SELF)
        ch0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        srv0 = self._server_cpu()
        if psutil is not None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._sample, daemon=True)
            self._thread.start()
        try:
            yield self.usage
        finally:
            if self._thread is not None:
                self._stop.set()
                self._thread.join()
                self._thread = None
            me1 = resource.getrusage(resource.RUSAGE_SELF)
            ch1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            u = self.usage
            u.folio_cpu = (me1.ru_utime + me1.ru_stime) - (me0.ru_utime + me0.ru_stime)
            # The server is not reaped before the end, so RUSAGE_CHILDREN is the workers.
            u.workers_cpu = (ch1.ru_utime + ch1.ru_stime) - (ch0.ru_utime + ch0.ru_stime)
            u.server_cpu = self._server_cpu() - srv0
            u.main_peak = me1.ru_maxrss * 1024  # KiB on Linux
            if psutil is None:
                # No sampling: the best getrusage can say is the main process's high-water
                # mark plus the largest reaped child's (not their simultaneous sum); the
                # server's figure is its high-water mark since it started.
                u.folio_peak = u.main_peak + ch1.ru_maxrss * 1024
                u.server_peak = self._server_hwm()


class StoreTrace:
    """Counts and times the calls the ingest makes on one ``Store`` instance (wraps the
    instance's bound methods; nothing in ``pipeline`` is modified)."""

    def __init__(self, store: Any) -> None:
        self.calls: dict[str, list[float]] = {}
        self.docs: dict[str, int] = {}
        for method in ("upsert", "delete_where", "export"):
            setattr(store, method, self._wrap(method, getattr(store, method)))

    def _wrap(self, method: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def traced(name: str, *args: Any, **kwargs: Any) -> Any:
            key = f"{method} {name}"
            t0 = time.perf_counter()
            try:
                return fn(name, *args, **kwargs)
            finally:
                self.calls.setdefault(key, []).append(time.perf_counter() - t0)
                if method == "upsert" and args:
                    self.docs[key] = self.docs.get(key, 0) + len(args[0])

        return traced

    def reset(self) -> None:
        self.calls.clear()
        self.docs.clear()

    def summary(self) -> dict[str, dict[str, float]]:
        return {
            k: {"calls": len(v), "seconds": round(sum(v), 3), "docs": self.docs.get(k, 0)}
            for k, v in sorted(self.calls.items())
        }


# --------------------------------------------------------------------------- phases


@dataclass(slots=True)
class Result:
    corpus: str
    parts: list[str]
    workers: int
    files: int = 0
    bytes: int = 0
    ingested: int = 0
    duplicates: int = 0
    failed: list[dict[str, str]] = field(default_factory=list)
    sections: int = 0
    snippets: int = 0
    pages: int = 0
    chunks_stored: int = 0
    wall: float = 0.0
    stages: dict[str, float] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=dict)
    calls: dict[str, dict[str, float]] = field(default_factory=dict)
    rerun_wall: float = 0.0
    rerun_unchanged: int = 0
    rerun_ingested: int = 0
    rerun_failed: int = 0
    rerun_calls: dict[str, dict[str, float]] = field(default_factory=dict)
    ref_docs: int = 0
    ref_failed: int = 0
    ref_json_mb: float = 0.0
    ref_wall: float = 0.0
    ref_usage: dict[str, Any] = field(default_factory=dict)
    replay_wall: float = 0.0
    replay_chunks: int = 0
    replay_usage: dict[str, Any] = field(default_factory=dict)
    replay_calls: dict[str, dict[str, float]] = field(default_factory=dict)
    server_start: float = 0.0
    typesense: str = ""
    package: str = ""
    load: dict[str, str] = field(default_factory=dict)

    @property
    def files_per_s(self) -> float:
        return self.files / self.wall if self.wall else 0.0

    @property
    def chunks_per_s(self) -> float:
        return self.chunks_stored / self.wall if self.wall else 0.0

    @property
    def ref_per_s(self) -> float:
        return self.ref_docs / self.ref_wall if self.ref_wall else 0.0

    @property
    def ratio(self) -> float:
        return self.chunks_per_s / self.ref_per_s if self.ref_per_s else 0.0

    @property
    def replay_ratio(self) -> float:
        if not (self.replay_wall and self.ref_per_s):
            return 0.0
        return self.replay_chunks / self.replay_wall / self.ref_per_s

    @property
    def cpu_floor(self) -> float:
        """Seconds the ingest needs at the least if every CPU second it used (main process,
        workers, server) ran in parallel on all of the machine's cores."""
        u = self.usage
        cpu = u.get("folio_cpu_s", 0) + u.get("workers_cpu_s", 0) + u.get("server_cpu_s", 0)
        return float(cpu) / CPUS

    @property
    def ceiling(self) -> float:
        """The best ratio this machine allows for the CPU work measured."""
        return self.ref_wall / max(self.ref_wall, self.cpu_floor) if self.ref_wall else 0.0

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Result:
        names = cls.__slots__
        return cls(**{k: v for k, v in data.items() if k in names})

    def to_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in self.__slots__}
        out |= {
            "files_per_s": round(self.files_per_s, 2),
            "chunks_per_s": round(self.chunks_per_s, 1),
            "reference_chunks_per_s": round(self.ref_per_s, 1),
            "ratio": round(self.ratio, 4),
            "goal_ratio": 0.9,
            "goal_met": self.ratio >= 0.9,
            "cpus": CPUS,
            "cpu_floor_s": round(self.cpu_floor, 3),
            "cpu_ceiling_ratio": round(self.ceiling, 4),
            "replay_ratio": round(self.replay_ratio, 4),
        }
        for key in ("wall", "rerun_wall", "ref_wall", "replay_wall", "server_start"):
            out[key] = round(out[key], 3)
        out["stages"] = {k: round(v, 3) for k, v in self.stages.items()}
        return out


def _usage_dict(u: Usage) -> dict[str, Any]:
    return {
        "folio_cpu_s": round(u.folio_cpu, 2),
        "workers_cpu_s": round(u.workers_cpu, 2),
        "server_cpu_s": round(u.server_cpu, 2),
        "folio_peak_rss_mib": round(u.folio_peak / MIB, 1),
        "main_maxrss_mib": round(u.main_peak / MIB, 1),
        "server_peak_rss_mib": round(u.server_peak / MIB, 1),
        "rss_method": u.method,
    }


def machine_load() -> str:
    """1-minute load average and, where the kernel has PSI, the share of the last 10 s in
    which some runnable task waited for a CPU: other work on the box skews every rate."""
    out = f"load {os.getloadavg()[0]:.1f}/{os.cpu_count()} cpus"
    with contextlib.suppress(OSError, ValueError, IndexError):
        first = Path("/proc/pressure/cpu").read_text().split("\n")[0]
        avg10 = first.split()[1].split("=")[1]
        out += f", cpu pressure {float(avg10):.0f}%"
    return out


def _corpus_paths(corpus: Path, only: str) -> list[Path]:
    names = list(PARTS) if only == "all" else [only]
    paths = [corpus / PARTS[n] for n in names]
    missing = [str(p) for p in paths if not p.is_dir()]
    if missing:
        raise SystemExit(f"corpus folder(s) not found: {', '.join(missing)}")
    return paths


@dataclass(frozen=True, slots=True)
class _Bench:
    """What every phase of one run works with."""

    store: Store
    trace: StoreTrace
    monitor: Monitor
    paths: list[str]
    config: ChunkConfig
    workers: int | None
    log: Callable[[str], None]


def run(corpus: Path, only: str, workers: int | None, log: Callable[[str], None]) -> Result:
    from pipeline.index.settings import ServerSettings
    from pipeline.index.store import Store
    from pipeline.ingest.files import discover
    from pipeline.shared.config_files import load_config

    paths = [str(p) for p in _corpus_paths(corpus, only)]
    files, _ = discover(paths)
    nworkers = workers or max(1, min(os.cpu_count() or 1, len(files)))
    res = Result(str(corpus), [Path(p).name for p in paths], nworkers)
    res.files = len(files)
    res.bytes = sum(f.stat().st_size for f in files)
    config = load_config(None, {})
    with _temporary_home() as home, _server(home, res, log) as running:
        store = Store(ServerSettings(nodes=(running.node,), api_key=running.api_key))
        with contextlib.suppress(Exception):
            res.typesense = str(store.client.debug.retrieve().get("version", ""))
        res.package = str(Path(sys.modules["pipeline"].__file__ or "").parent)
        bench = _Bench(store, StoreTrace(store), Monitor(running.pid), paths, config, workers, log)
        _measure_ingest(bench, res)
        _measure_rerun(bench, res)
        docs = _measure_reference(bench, res)
        log("replay: the same results through ingest into fresh collections ...")
        results = _stored_results(store, docs)
        del docs
        _measure_replay(bench, res, results)
        return res


@contextlib.contextmanager
def _temporary_home() -> Iterator[Path]:
    """A fresh ``FOLIO_HOME``, set in the environment for anything that looks it up."""
    home = Path(tempfile.mkdtemp(prefix="folio-bench-"))
    old_home = os.environ.get("FOLIO_HOME")
    os.environ["FOLIO_HOME"] = str(home)
    try:
        yield home
    finally:
        if old_home is None:
            os.environ.pop("FOLIO_HOME", None)
        else:
            os.environ["FOLIO_HOME"] = old_home
        shutil.rmtree(home, ignore_errors=True)


@contextlib.contextmanager
def _server(home: Path, res: Result, log: Callable[[str], None]) -> Iterator[RunningServer]:
    """The embedded server in ``home``, stopped also on error or Ctrl-C."""
    from pipeline.index import server

    t0 = time.perf_counter()
    running = server.start(home)
    res.server_start = time.perf_counter() - t0
    log(f"server pid {running.pid} on 127.0.0.1:{running.port} ({res.server_start:.1f} s)")
    try:
        yield running
    finally:
        stopped = server.stop(home)
        log(f"server pid {running.pid} stopped" if stopped else "server was not running")


def _measure_ingest(b: _Bench, res: Result) -> None:
    """1. Folio into the fresh server."""
    from pipeline.index.schema import CHUNKS
    from pipeline.ingest import IngestOptions, ingest

    res.load["before"] = machine_load()
    b.log(f"ingest {res.files} files ({res.bytes / MB:.1f} MB) with {res.workers} workers ...")
    with b.monitor.phase() as usage:
        t0 = time.perf_counter()
        report = ingest(b.paths, b.config, b.store, IngestOptions(workers=b.workers))
        res.wall = time.perf_counter() - t0
    if report.interrupted:  # ingest() turns Ctrl-C into a flag; a benchmark stops
        raise KeyboardInterrupt
    res.usage = _usage_dict(usage)
    res.load["after_ingest"] = machine_load()
    res.calls = b.trace.summary()
    res.stages = dict(report.seconds)
    res.ingested = len(report.ingested)
    res.duplicates = len(report.duplicates)
    res.failed = [{"path": f.path, "stage": f.stage, "reason": f.reason} for f in report.failed]
    res.sections, res.snippets, res.pages = report.sections, report.snippets, report.pages
    res.chunks_stored = b.store.count(CHUNKS)
    b.log(f"  {res.chunks_stored} chunks in {res.wall:.1f} s")


def _measure_rerun(b: _Bench, res: Result) -> None:
    """2. The same ingest again over the unchanged library."""
    from pipeline.ingest import IngestOptions, ingest

    b.trace.reset()
    t0 = time.perf_counter()
    again = ingest(b.paths, b.config, b.store, IngestOptions(workers=b.workers))
    if again.interrupted:
        raise KeyboardInterrupt
    res.rerun_wall = time.perf_counter() - t0
    res.rerun_unchanged, res.rerun_ingested = len(again.unchanged), len(again.ingested)
    res.rerun_failed = len(again.failed)
    res.rerun_calls = b.trace.summary()
    b.log(f"  re-run: {res.rerun_unchanged} unchanged in {res.rerun_wall:.2f} s")


def _measure_reference(b: _Bench, res: Result) -> list[dict[str, Any]]:
    """3. The reference: the documents Folio stored, bare-imported into a new collection.
    Returns those documents."""
    from pipeline.index.schema import CHUNKS, schema

    docs = b.store.export(CHUNKS)
    res.ref_docs = len(docs)
    res.ref_json_mb = sum(len(json.dumps(d)) + 1 for d in docs) / MB
    body = dict(schema(CHUNKS))
    body["name"] = REFERENCE
    b.store.client.collections.create(body)
    documents = b.store.client.collections[REFERENCE].documents
    b.log(f"reference: bare import_ of {res.ref_docs} documents ...")
    with b.monitor.phase() as usage:
        t0 = time.perf_counter()
        results = documents.import_(docs, {"action": "upsert"}, batch_size=BATCH)
        res.ref_wall = time.perf_counter() - t0
    res.ref_usage = _usage_dict(usage)
    res.load["after_reference"] = machine_load()
    res.ref_failed = sum(1 for r in results if not r.get("success"))
    stored = b.store.count(REFERENCE)
    if stored != res.ref_docs:
        b.log(f"  warning: reference collection holds {stored}, imported {res.ref_docs}")
    b.log(f"  {res.ref_docs} documents in {res.ref_wall:.1f} s")
    return docs


def _measure_replay(b: _Bench, res: Result, results: dict[str, FileResult]) -> None:
    """4. Folio's store path alone: its own results replayed into fresh collections."""
    from pipeline.index.schema import CHUNKS
    from pipeline.ingest import IngestOptions, ingest

    _drop_folio_collections(b.store)
    b.trace.reset()
    with b.monitor.phase() as usage:
        t0 = time.perf_counter()
        options = IngestOptions(workers=b.workers)
        replay = ingest(b.paths, b.config, b.store, options, run=_replaying(results))
        res.replay_wall = time.perf_counter() - t0
    if replay.interrupted:
        raise KeyboardInterrupt
    res.replay_usage = _usage_dict(usage)
    res.replay_calls = b.trace.summary()
    res.replay_chunks = b.store.count(CHUNKS)
    b.log(f"  {res.replay_chunks} chunks in {res.replay_wall:.1f} s")


def _stored_results(store: Any, chunk_docs: list[dict[str, Any]]) -> dict[str, FileResult]:
    """What the workers handed to the indexer, per doc_id, rebuilt from the collections."""
    from pipeline.index.records import ChunkRecord, DocumentRecord
    from pipeline.index.schema import DOCUMENTS
    from pipeline.ingest import FileResult
    from pipeline.ingest.files import Failure

    by_doc: dict[str, list[dict[str, Any]]] = {}
    for d in chunk_docs:
        by_doc.setdefault(d["doc_id"], []).append(d)
    out: dict[str, FileResult] = {}
    for r in store.export(DOCUMENTS):
        sha = r["doc_id"]
        if r["id"] != sha:  # a copy's record: the content's own record holds the result
            continue
        if r["status"] == "failed":
            failure = Failure(r["path"], r.get("stage", "extract"), r.get("error", ""))
            out[sha] = FileResult(r["path"], sha, r["bytes"], None, (), failure, 0.0, 0.0)
            continue
        chunks = sorted(by_doc.get(sha, []), key=lambda d: (d["tier"] != "section",
                                                            d["chunk_index"]))  # fmt: skip
        record = DocumentRecord.from_store(r | {"status": "indexing"})
        records = tuple(ChunkRecord.from_store(c) for c in chunks)
        out[sha] = FileResult(r["path"], sha, r["bytes"], record, records, None, 0.0, 0.0)
    return out


def _drop_folio_collections(store: Any) -> None:
    from pipeline.index.schema import CHUNKS, DOCUMENTS

    for name in (CHUNKS, DOCUMENTS):
        target = store.client.aliases[name].retrieve()["collection_name"]
        store.client.aliases[name].delete()
        store.client.collections[target].delete()


def _replaying(results: dict[str, FileResult]) -> Runner:
    """``ingest``'s results looked up among earlier ones instead of the worker pool's."""

    def replay(todo: Sequence[Found], job: Job) -> Iterator[FileResult]:
        for work in todo:
            yield results[work.sha256]

    return replay


# --------------------------------------------------------------------------- output


def render(res: Result) -> str:
    u, ru = res.usage, res.ref_usage
    out = [
        f"corpus {res.corpus} [{', '.join(res.parts)}]: {res.files} files, "
        f"{res.bytes / MB:.1f} MB; {res.workers} workers; Typesense {res.typesense or '?'} "
        f"(started in {res.server_start:.1f} s); qa/ not included",
        f"pipeline from {res.package}; machine: {' -> '.join(res.load.values())}",
        "",
    ]
    rows = [
        ["run", "files", "chunks", "wall s", "file/s", "chunks/s", "vs bare", "CPU s main/wk/ts"],
        [
            "folio ingest (fresh)",
            str(res.files),
            str(res.chunks_stored),
            f"{res.wall:.2f}",
            f"{res.files_per_s:.1f}",
            f"{res.chunks_per_s:.0f}",
            f"{res.ratio:.1%}",
            f"{u['folio_cpu_s']:.1f}/{u['workers_cpu_s']:.1f}/{u['server_cpu_s']:.1f}",
        ],
        [
            "folio re-run (unchanged)",
            str(res.files),
            "0",
            f"{res.rerun_wall:.2f}",
            f"{res.files / res.rerun_wall:.0f}" if res.rerun_wall else "-",
            "-",
            "-",
            "-",
        ],
        [
            "bare documents.import_",
            "-",
            str(res.ref_docs),
            f"{res.ref_wall:.2f}",
            "-",
            f"{res.ref_per_s:.0f}",
            "100.0%",
            f"{ru['folio_cpu_s']:.1f}/-/{ru['server_cpu_s']:.1f}",
        ],
    ]
    if res.replay_wall:
        pu = res.replay_usage
        rows.append(
            [
                "folio, extract+chunk replayed",
                str(res.files),
                str(res.replay_chunks),
                f"{res.replay_wall:.2f}",
                f"{res.files / res.replay_wall:.1f}",
                f"{res.replay_chunks / res.replay_wall:.0f}",
                f"{res.replay_ratio:.1%}",
                f"{pu['folio_cpu_s']:.1f}/-/{pu['server_cpu_s']:.1f}",
            ]
        )
    out.append(text_table(rows[0], rows[1:], right={1, 2, 3, 4, 5, 6, 7}))
    goal = "met" if res.ratio >= 0.9 else "NOT met"
    out.append(
        f"goal: folio chunks/s >= 90% of bare import -> {res.ratio:.1%} ({goal}); "
        f"bare import payload {res.ref_json_mb:.1f} MB JSON, {res.ref_failed} refused"
    )
    out.append(
        f"CPU bound: the ingest used {res.cpu_floor * CPUS:.1f} CPU s (main+workers+server), "
        f"so on {CPUS} cores it cannot finish under {res.cpu_floor:.2f} s -> at best "
        f"{res.ceiling:.0%} of bare here; this run reached {res.cpu_floor / res.wall:.0%} of "
        f"that floor"
    )
    if res.replay_wall:
        out.append(
            f"store path alone (the same results replayed, no extraction or chunking): "
            f"{res.replay_ratio:.1%} of bare"
        )
    out.append("")
    st = res.stages
    rows = [
        ["stage", "seconds", "share of wall", "note"],
        ["extract", f"{st.get('extract', 0):.2f}", f"{st.get('extract', 0) / res.wall:.0%}",
         f"summed over {res.workers} workers"],
        ["chunk", f"{st.get('chunk', 0):.2f}", f"{st.get('chunk', 0) / res.wall:.0%}",
         f"summed over {res.workers} workers"],
        ["index", f"{st.get('index', 0):.2f}", f"{st.get('index', 0) / res.wall:.0%}",
         "inside indexer flushes (Typesense calls)"],
        ["total", f"{st.get('total', 0):.2f}", f"{st.get('total', 0) / res.wall:.0%}",
         "Report.seconds['total']"],
    ]  # fmt: skip
    out.append(text_table(rows[0], rows[1:], right={1, 2}))
    out.append("")
    rows = [["store call (fresh ingest)", "calls", "docs", "seconds"]]
    for key, v in res.calls.items():
        rows.append([key, str(v["calls"]), str(v["docs"]), f"{v['seconds']:.2f}"])
    for label, calls in (("re-run", res.rerun_calls), ("replay", res.replay_calls)):
        for key, v in calls.items():
            rows.append(
                [f"{key} ({label})", str(v["calls"]), str(v["docs"]), f"{v['seconds']:.2f}"]
            )
    out.append(text_table(rows[0], rows[1:], right={1, 2, 3}))
    out.append("")
    rows = [
        ["peak RSS", "MiB"],
        ["folio main + workers (peak of sum)", f"{u['folio_peak_rss_mib']:.0f}"],
        ["folio main process (ru_maxrss)", f"{u['main_maxrss_mib']:.0f}"],
        ["typesense server during ingest", f"{u['server_peak_rss_mib']:.0f}"],
        ["typesense server during bare import", f"{ru['server_peak_rss_mib']:.0f}"],
    ]
    out.append(text_table(rows[0], rows[1:], right={1}))
    out.append(f"(RSS via {u['rss_method']})")
    out.append("")
    out.append(
        f"documents: {res.ingested} ingested ({res.sections} sections, {res.snippets} snippets, "
        f"{res.pages} pages), {res.duplicates} duplicate files skipped; "
        f"re-run: {res.rerun_unchanged} unchanged, {res.rerun_ingested} re-ingested, "
        f"{res.rerun_failed} failed again (failed files are retried on every run)"
    )
    if res.failed:
        out.append(f"failures ({len(res.failed)}), grouped by stage and reason:")
        groups: dict[tuple[str, str], list[str]] = {}
        for f in res.failed:
            groups.setdefault((f["stage"], f["reason"]), []).append(f["path"])
        for (stage, reason), group in groups.items():
            shown = ", ".join(os.path.relpath(p, res.corpus) for p in group[:3])
            more = f" and {len(group) - 3} more" if len(group) > 3 else ""
            out.append(f"  {len(group):>4} x {stage}: {reason}  [{shown}{more}]")
    return "\n".join(out)


def _median_index(values: Sequence[float]) -> int:
    order = sorted(range(len(values)), key=lambda i: values[i])
    return order[(len(order) - 1) // 2]


def summary(runs: Sequence[Result]) -> dict[str, Any]:
    ratios = [r.ratio for r in runs]
    mid = _median_index(ratios)
    best_folio = max(r.chunks_per_s for r in runs)
    best_ref = max(r.ref_per_s for r in runs)
    return {
        "runs": len(runs),
        "median_ratio": round(ratios[mid], 4),
        "median_run": mid + 1,
        "best_folio_chunks_per_s": round(best_folio, 1),
        "best_reference_chunks_per_s": round(best_ref, 1),
        "best_over_best_ratio": round(best_folio / best_ref, 4) if best_ref else 0.0,
        "max_rerun_s": round(max(r.rerun_wall for r in runs), 3),
        "goal_met": ratios[mid] >= 0.9,
    }


def render_runs(runs: Sequence[Result]) -> str:
    rows = [["run", "folio s", "folio chunks/s", "bare s", "bare chunks/s", "ratio", "re-run s",
             "load before -> after ingest -> after import"]]  # fmt: skip
    for i, r in enumerate(runs, 1):
        rows.append(
            [
                str(i),
                f"{r.wall:.2f}",
                f"{r.chunks_per_s:.0f}",
                f"{r.ref_wall:.2f}",
                f"{r.ref_per_s:.0f}",
                f"{r.ratio:.1%}",
                f"{r.rerun_wall:.2f}",
                " -> ".join(r.load.values()),
            ]
        )
    s = summary(runs)
    return "\n".join(
        [
            text_table(rows[0], rows[1:], right={1, 2, 3, 4, 5, 6}),
            f"median ratio {s['median_ratio']:.1%} (run {s['median_run']}, tables above); "
            f"best folio / best bare {s['best_over_best_ratio']:.1%}; "
            f"goal >= 90%: {'met' if s['goal_met'] else 'NOT met'}",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument(
        "--corpus",
        type=Path,
        default=DEFAULT_CORPUS,
        help=f"folder holding markdown/, pdf/, epub/ (default {DEFAULT_CORPUS})",
    )
    ap.add_argument("--only", choices=[*PARTS, "all"], default="all")
    ap.add_argument(
        "--workers",
        type=int,
        default=None,
        help="ingest worker processes (default: Folio's own default, CPU count)",
    )
    ap.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="whole runs, each on a fresh server (default 1); the median ratio counts",
    )
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = ap.parse_args(argv)  # fmt: skip
    if args.workers is not None and args.workers < 1:
        ap.error("--workers must be >= 1")
    if args.repeat < 1:
        ap.error("--repeat must be >= 1")

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    runs = []
    if args.repeat == 1:
        try:
            runs.append(run(args.corpus.resolve(), args.only, args.workers, log))
        except KeyboardInterrupt:
            log("interrupted")
            return 130
    for i in range(args.repeat if args.repeat > 1 else 0):
        # Each run in a fresh interpreter: peak RSS and allocator state do not carry over.
        log(f"-- run {i + 1}/{args.repeat}")
        cmd = [sys.executable, str(Path(__file__).resolve()), "--json", "--only", args.only]
        cmd += ["--corpus", str(args.corpus.resolve())]
        if args.workers is not None:
            cmd += ["--workers", str(args.workers)]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=False)
        if proc.returncode != 0:
            log(f"run {i + 1} failed with exit code {proc.returncode}")
            return proc.returncode
        runs.append(Result.from_dict(json.loads(proc.stdout)["runs"][0]))
    if args.json:
        out = {"runs": [r.to_dict() for r in runs], "summary": summary(runs)}
        json.dump(out, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    mid = _median_index([r.ratio for r in runs])
    print(render(runs[mid]))
    if len(runs) > 1:
        print()
        print(render_runs(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
