"""Folio against a real 3-node Typesense Raft cluster (``scripts/cluster/cluster.py``): the ingest
survives a follower kill and a leader kill (-9, by pid) with Folio's own retry settings,
and every node converges to exactly the expected documents.

The short tests run in CI (~35-45 s each: cluster start ~11 s, election ~8-10 s, the
dead node waited for ~10 s; two followers made to lose a write and restarted). The
``slow`` ones add node restarts and run the whole drill of
``scripts/cluster/cluster_failover.py --quick`` (loss of quorum included)."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from pipeline import chunk_document, make_config
from pipeline.extract import extract_file
from pipeline.index.records import ChunkRecord
from pipeline.index.replicas import node_counts
from pipeline.index.schema import CHUNKS, DOCUMENTS
from pipeline.index.settings import Node, ServerSettings
from pipeline.index.store import Store, quote
from pipeline.ingest import IngestOptions, ingest
from pipeline.ingest.files import file_sha256

ROOT = Path(__file__).parent.parent
CONFIG = make_config()
# Many small batches: writes in every phase. No vectors: the expected chunks are built
# without them (the dense extra may be here).
SMALL_BATCHES = IngestOptions(workers=1, embed=False, batch_size=8)


def _load_cluster() -> ModuleType:
    name = "folio_cluster_script"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / "cluster" / "cluster.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


cl = _load_cluster()


@pytest.fixture()
def cluster(tmp_path: Path) -> Iterator[Any]:
    c, _ = cl.up(tmp_path / "cluster", 3)  # stops what it started if no leader appears
    try:
        yield c
    finally:
        cl.down(c)
        assert not any(cl.pid_alive(n.pid) for n in c.nodes)


def small_library(root: Path, files: int = 24) -> list[Path]:
    root.mkdir()
    paths = []
    for i in range(files):
        body = [f"# Guide {i}\n\nIntroduction to guide {i} about ownership.\n"]
        for part in range(4):
            body.append(f"\n## Part {i}.{part}\n\n")
            for para in range(3):
                words = (f"word{(k * 7 + part + para + i) % 97} borrow" for k in range(20))
                body.append(f"{' '.join(words)} ({i}.{part}.{para}).\n\n")
        path = root / f"guide{i:02}.md"
        path.write_text("".join(body), encoding="utf-8")
        paths.append(path)
    return paths


def expected_docs(paths: list[Path]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for p in paths:
        doc = replace(extract_file(str(p)), doc_id=file_sha256(p))
        for c in chunk_document(doc, CONFIG):
            out[c.id] = ChunkRecord.from_chunk(c, doc.format).to_store()
    return out


def test_ingest_survives_leader_kill(
    cluster: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """CI variant: the leader is killed (-9) mid-ingest with all three up; the ingest
    rides out the election with Folio's default retries and both survivors end with
    exactly the expected documents. Restarting killed nodes is left to the slow tests:
    Typesense 0.24.1 can lose early writes on a node restarted before its first
    snapshot (see scripts/cluster/cluster_failover.py), which would make CI flaky."""
    files = small_library(tmp_path / "lib")
    expected = expected_docs(files)
    settings = ServerSettings(
        nodes=tuple(Node(cl.HOST, n.api_port) for n in cluster.nodes), api_key=cluster.api_key
    )
    store = Store(settings)
    store.ensure_collections()
    cl.wait_visible(cluster, [f"/aliases/{CHUNKS}", f"/aliases/{DOCUMENTS}"])
    seen: dict[str, Any] = {}

    def drill(event: str, totals: dict[str, int]) -> None:
        if event == "advance" and totals.get("done") == 6:
            lead = cl.leader(cluster)
            assert lead is not None
            seen["killed"], seen["t_kill"] = lead, time.monotonic()
            assert cl.kill_node(cluster, lead, signal.SIGKILL)
        elif event == "advance" and totals.get("done") == 10:
            seen["new_leader"], _ = cl.wait_for_leader(cluster, 60, exclude=(seen["killed"],))
            seen["election_s"] = time.monotonic() - seen["t_kill"]

    report = ingest([str(tmp_path / "lib")], CONFIG, store, SMALL_BATCHES, progress=drill)
    assert report.failed == [] and not report.interrupted
    assert len(report.ingested) == len(files)
    assert seen["new_leader"] != seen["killed"] and seen["election_s"] < 60
    # The dead node did not hold up the ingest: it was waited for at the end, then named.
    dead = _node(cluster, seen["killed"]).url()
    said = [r.getMessage() for r in caplog.records if dead in r.getMessage()]
    assert any("did not answer at the end of the ingest" in m for m in said), said
    alive = [n.index for n in cluster.nodes if n.index != seen["killed"]]
    counts = {store.alias_target(CHUNKS): len(expected), store.alias_target(DOCUMENTS): len(files)}
    cl.wait_converged(cluster, counts, timeout=90, nodes=alive)
    for i in alive:
        assert cl.export_docs(cluster, i, CHUNKS) == expected, f"node {i}"
        records = cl.export_docs(cluster, i, DOCUMENTS)
        assert {r["status"] for r in records.values()} == {"complete"}


def _settings(cluster: Any) -> ServerSettings:
    return ServerSettings(
        nodes=tuple(Node(cl.HOST, n.api_port) for n in cluster.nodes), api_key=cluster.api_key
    )


def _node(cluster: Any, i: int) -> Node:
    return Node(cl.HOST, cluster.nodes[i].api_port)


def _node_store(cluster: Any, i: int) -> Store:
    """A client of node ``i`` alone: reads see what that node holds, writes go through
    it to the leader."""
    return Store(_settings(cluster), nodes=(_node(cluster, i),))


def _held(cluster: Any, i: int, doc_id: str) -> int:
    return _node_store(cluster, i).count(CHUNKS, f"doc_id:={quote(doc_id)}")


def _wait_holds(cluster: Any, nodes: Iterable[int], doc_id: str, n: int) -> None:
    deadline = time.monotonic() + 30
    while any(_held(cluster, i, doc_id) != n for i in nodes):
        assert time.monotonic() < deadline, f"nodes {nodes} never held {n} chunks of {doc_id}"
        time.sleep(0.1)


def _restart(cluster: Any, i: int, extra: tuple[str, ...] = ()) -> None:
    """Stop node ``i`` (SIGTERM) and start it again, back as a follower of the leader."""
    cl.stop_node(cluster, i)
    cl.restart_node(cluster, i, wait_healthy=60, extra=extra)
    deadline = time.monotonic() + 60
    while cl.raft_state(cluster, i) != cl.STATE_FOLLOWER:
        assert time.monotonic() < deadline, f"node {i} does not follow a leader"
        time.sleep(0.1)


def lose_write(cluster: Any, node: int, witness: int, write: Callable[[], None]) -> None:
    """``write`` goes through the cluster while ``node`` skips whatever it applies
    (Typesense's own ``--skip-writes``, a flag of one node's start): the cluster
    acknowledges the write, the other nodes hold it, ``node`` never will. That is what
    the failover drill saw a restarted node do to an acknowledged batch, made
    deterministic. Snapshots keep the loss across restarts: a node replays only the log
    after its last snapshot."""
    cl.snapshot(cluster, node)  # else the restart would replay (and skip) the whole log
    _restart(cluster, node, ("--skip-writes",))
    write()  # returns once the other nodes hold it
    reference = cl.snapshot(cluster, witness).index
    deadline = time.monotonic() + 30
    while True:  # ``node`` has applied (skipped) it too, nothing left in flight
        taken = cl.snapshot(cluster, node)
        if taken.index >= reference and taken.in_flight == 0:
            break
        assert time.monotonic() < deadline, f"node {node} did not catch up: {taken}"
        time.sleep(0.2)
    _restart(cluster, node)


def folio_status(cluster: Any, home: Path) -> dict[str, Any]:
    """``folio status --json`` on the cluster."""
    env = os.environ | {
        "TYPESENSE_URL": ",".join(_node(cluster, n.index).url() for n in cluster.nodes),
        "TYPESENSE_API_KEY": cluster.api_key,
        "FOLIO_HOME": str(home),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "pipeline", "status", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    status: dict[str, Any] = json.loads(proc.stdout)
    return status


def test_reingest_repairs_nodes_that_lost_acknowledged_writes(cluster: Any, tmp_path: Path) -> None:
    """Each follower lost the chunks of another document after the cluster acknowledged
    them. Asked through the round-robin client, one node answered whether the documents
    were complete, so the next ingest called at least one of them unchanged and a node
    stayed short for good. Every node is asked now: both documents are written again,
    and every node ends with every chunk (``folio status`` flagged the two nodes)."""
    files = small_library(tmp_path / "lib", files=6)
    expected = expected_docs(files)
    store = Store(_settings(cluster))
    store.ensure_collections()
    cl.wait_visible(cluster, [f"/aliases/{CHUNKS}", f"/aliases/{DOCUMENTS}"])
    first = ingest([str(tmp_path / "lib")], CONFIG, store, SMALL_BATCHES)
    assert first.failed == [] and len(first.ingested) == len(files)
    lead = cl.leader(cluster)
    assert lead is not None
    x, y = (n.index for n in cluster.nodes if n.index != lead)
    leader = _node_store(cluster, lead)
    lost = {x: file_sha256(files[1]), y: file_sha256(files[4])}
    chunks = {doc: leader.export(CHUNKS, f"doc_id:={quote(doc)}") for doc in lost.values()}
    for doc in lost.values():  # gone from every node, then written while one skips
        leader.delete_where(CHUNKS, f"doc_id:={quote(doc)}")
        _wait_holds(cluster, range(3), doc, 0)
    for node, doc in lost.items():
        others = [i for i in range(3) if i != node]

        def write(doc: str = doc, others: list[int] = others) -> None:
            assert leader.upsert(CHUNKS, chunks[doc]) == []
            _wait_holds(cluster, others, doc, len(chunks[doc]))

        lose_write(cluster, node, lead, write)
    held = {(i, doc): _held(cluster, i, doc) for i in range(3) for doc in lost.values()}
    assert held == {
        (i, doc): 0 if lost.get(i) == doc else len(chunks[doc])
        for i in range(3)
        for doc in lost.values()
    }
    status = folio_status(cluster, tmp_path / "home")
    flagged = {n["url"] for n in status["nodes"] if n["differs"]}
    assert flagged == {_node(cluster, x).url(), _node(cluster, y).url()}
    assert {n["chunks"] for n in status["nodes"]} == {
        len(expected) - len(chunks[lost[i]]) if i in lost else len(expected) for i in range(3)
    }

    again = ingest([str(tmp_path / "lib")], CONFIG, store, SMALL_BATCHES)

    assert again.failed == []
    assert sorted(Path(p).name for p in again.ingested) == [files[1].name, files[4].name]
    assert len(again.unchanged) == len(files) - 2
    targets = {store.alias_target(CHUNKS): len(expected), store.alias_target(DOCUMENTS): len(files)}
    cl.wait_converged(cluster, targets, timeout=60)
    for n in cluster.nodes:
        assert cl.export_docs(cluster, n.index, CHUNKS) == expected, f"node {n.index}"
    assert not any(c.differs for c in node_counts(store))


@pytest.mark.slow
def test_ingest_survives_follower_and_leader_kill(cluster: Any, tmp_path: Path) -> None:
    files = small_library(tmp_path / "lib")
    expected = expected_docs(files)
    assert 50 <= len(expected) <= 200
    settings = ServerSettings(  # Folio's default timeout and retry budget
        nodes=tuple(Node(cl.HOST, n.api_port) for n in cluster.nodes), api_key=cluster.api_key
    )
    store = Store(settings)
    # Workaround for a Folio read-after-write race on clusters (see the module docstring):
    # ingest() reads folio_documents right after creating it, and a follower may not
    # have applied the creation yet (404). Create first, wait until every node sees it.
    store.ensure_collections()
    cl.wait_visible(cluster, [f"/aliases/{CHUNKS}", f"/aliases/{DOCUMENTS}"])
    first_leader = cl.leader(cluster)
    assert first_leader is not None
    follower = next(n.index for n in cluster.nodes if n.index != first_leader)
    seen: dict[str, Any] = {}

    def drill(event: str, totals: dict[str, int]) -> None:
        """Runs in the ingest loop: each step happens between two files."""
        done = totals.get("done", 0)
        if event != "advance":
            return
        if done == 4:  # follower dies: quorum remains
            assert cl.kill_node(cluster, follower, signal.SIGKILL)
        elif done == 8:  # it comes back; wait until it answers so a quorum exists again
            cl.restart_node(cluster, follower, wait_healthy=60)
            seen["leader_kept"] = cl.leader(cluster)
        elif done == 12:  # the leader dies: the next batches must ride out the election
            lead = cl.leader(cluster)
            assert lead is not None
            seen["killed_leader"] = lead
            seen["t_kill"] = time.monotonic()
            assert cl.kill_node(cluster, lead, signal.SIGKILL)
        elif done == 16:
            seen["new_leader"], _ = cl.wait_for_leader(
                cluster, 60, exclude=(seen["killed_leader"],)
            )
            seen["election_s"] = time.monotonic() - seen["t_kill"]
            cl.restart_node(cluster, seen["killed_leader"])

    report = ingest([str(tmp_path / "lib")], CONFIG, store, SMALL_BATCHES, progress=drill)

    assert report.failed == [] and not report.interrupted
    assert len(report.ingested) == len(files)
    assert seen["leader_kept"] == first_leader  # losing a follower did not move the leader
    assert seen["new_leader"] != seen["killed_leader"]
    assert seen["election_s"] < 60
    chunks_v = store.alias_target(CHUNKS)
    docs_v = store.alias_target(DOCUMENTS)
    cl.wait_converged(cluster, {chunks_v: len(expected), docs_v: len(files)}, timeout=90)
    for n in cluster.nodes:
        assert cl.export_docs(cluster, n.index, CHUNKS) == expected, f"node {n.index}"
        records = cl.export_docs(cluster, n.index, DOCUMENTS)
        assert {r["status"] for r in records.values()} == {"complete"}
        assert len(records) == len(files)


def test_cluster_cli_up_status_kill_restart_down(tmp_path: Path) -> None:
    script = [sys.executable, str(ROOT / "scripts" / "cluster" / "cluster.py")]
    d = str(tmp_path / "c")
    try:
        up = subprocess.run(
            [*script, "up", "--nodes", "3", "--dir", d], capture_output=True, text=True, timeout=120
        )
        assert up.returncode == 0, up.stderr
        assert "leader node" in up.stdout
        c = cl.Cluster.load(d)
        assert (Path(d) / "nodes").read_text().strip() == c.nodes_line()
        ports = {p for n in c.nodes for p in (n.api_port, n.peering_port)}
        assert len(ports) == 6
        kill = subprocess.run(
            [*script, "kill", "--dir", d, "--node", "0"], capture_output=True, text=True, timeout=30
        )
        assert kill.returncode == 0, kill.stderr
        st = subprocess.run(
            [*script, "status", "--dir", d], capture_output=True, text=True, timeout=30
        )
        assert "dead" in st.stdout.splitlines()[1]
        re = subprocess.run(
            [*script, "restart", "--dir", d, "--node", "0"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert re.returncode == 0, re.stderr
    finally:
        down = subprocess.run(
            [*script, "down", "--dir", d], capture_output=True, text=True, timeout=60
        )
    assert down.returncode == 0, down.stderr
    c = cl.Cluster.load(d)
    assert not any(cl.pid_alive(n.pid) for n in c.nodes)


@pytest.mark.slow
def test_failover_drill_quick() -> None:
    """The full drill (follower, then leader: no quorum; restarts) on 120 corpus files."""
    data = os.environ.get("FOLIO_DATA")
    if not data or not (Path(data) / "corpus" / "markdown").is_dir():
        pytest.skip(
            "set FOLIO_DATA to the folder holding corpus/markdown (scripts/shared/data_dir.py)"
        )
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "cluster" / "cluster_failover.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "RESULT: PASS" in proc.stdout
