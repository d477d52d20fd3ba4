"""The library lock: one writer at a time (ingest, prune, delete, reindex) per store.

A POSIX record lock (``fcntl.lockf``) on a file under ``$FOLIO_HOME/locks/``: the kernel
drops it when its process ends, kill -9 included, so it is never left stale; and it is
not inherited by forked worker processes, so a worker outliving its parent does not keep
it. Readers (search, retrieve, status) never take it. Within one process it is
re-entrant on the thread that holds it and serializes other threads.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from ..errors import FolioError, LockBusy

log = logging.getLogger("folio.lock")
_POLL_S = 0.2


@dataclass(slots=True)
class _Held:
    thread_lock: threading.RLock = field(default_factory=threading.RLock)
    depth: int = 0
    fh: IO[str] | None = None


_held: dict[Path, _Held] = {}
_guard = threading.Lock()


@contextlib.contextmanager
def library_lock(path: Path, *, wait: float | None = None, what: str = "") -> Iterator[None]:
    """Hold the lock at ``path`` for the block. ``wait``: seconds to wait for another
    holder (``None``: as long as it takes, 0: not at all), then ``LockBusy``. A wait is
    announced once on the ``folio.lock`` logger (stderr for the CLI), naming the holder."""
    with _guard:
        held = _held.setdefault(path, _Held())
    deadline = None if wait is None else time.monotonic() + wait
    if not held.thread_lock.acquire(timeout=-1 if wait is None else wait):
        raise LockBusy(f"the library lock {path} is held by another thread of this process")
    try:
        if held.depth == 0:
            held.fh = _take(path, deadline, what)
        held.depth += 1
    except BaseException:
        held.thread_lock.release()
        raise
    try:
        yield
    finally:
        held.depth -= 1
        if held.depth == 0 and held.fh is not None:
            held.fh.close()  # closing the file releases the record lock
            held.fh = None
        held.thread_lock.release()


def _take(path: Path, deadline: float | None, what: str) -> IO[str]:
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise FolioError(
            f"cannot take the library lock {path}: {exc.strerror or exc} "
            "(FOLIO_HOME must be writable by the user who writes to the library)"
        ) from exc
    fh = os.fdopen(fd, "r+", encoding="utf-8")
    announced = False
    try:
        while True:
            try:
                fcntl.lockf(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:  # EAGAIN/EACCES: held by another process
                holder = _holder(fh)
                if deadline is not None and time.monotonic() >= deadline:
                    raise LockBusy(
                        f"the library lock is taken: {holder} is writing to this library. "
                        "Run again when it is done, or wait longer for it"
                    ) from None
                if not announced:
                    log.warning(
                        "waiting for the library lock: %s is writing to this library "
                        "(Ctrl-C to stop waiting)",
                        holder,
                    )
                    announced = True
                pause = _POLL_S if deadline is None else min(_POLL_S, deadline - time.monotonic())
                time.sleep(max(pause, 0.0))
        since = time.strftime("%H:%M:%S", time.localtime())
        with contextlib.suppress(OSError):  # who holds it is information only (disk full?)
            fh.seek(0)
            fh.truncate()
            fh.write(json.dumps({"pid": os.getpid(), "command": what, "since": since}))
            fh.flush()
    except BaseException:
        fh.close()
        raise
    return fh


def _holder(fh: IO[str]) -> str:
    """Who holds the lock, as its holder wrote it (informative only: the lock is the
    kernel's, this text may lag a moment behind it)."""
    try:
        fh.seek(0)
        info = json.loads(fh.read() or "{}")
        command = f"`folio {info['command']}`" if info.get("command") else "a Folio command"
        return f"{command} (pid {int(info['pid'])}, since {info['since']})"
    except (OSError, ValueError, KeyError, TypeError):
        return "another Folio command"
