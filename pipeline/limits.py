"""Per-file resource limits for the ingest: a wall-clock deadline, a size cap and an
address-space cap, enforced by running the work in supervised worker processes.

``supervise`` streams results in completion order with at most one item per worker in
flight. A worker that passes its item's deadline is killed (with its process group, so
a PDF page pool it started goes too) and replaced; one that dies (a segfault, the
kernel's OOM killer) is reported and replaced; the rest of the items go on.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, Generic, TypeVar

from . import logs

DEFAULT_FILE_TIMEOUT = 300.0
DEFAULT_MAX_FILE_MB = 512.0
DEFAULT_MAX_MEMORY_MB = 4096
_MIN_HEADROOM = 256 << 20  # never cap a worker below its size at start plus this
_MAX_TASKS = 200  # a worker is replaced after this many files (returns its peak memory)

T = TypeVar("T")
R = TypeVar("R")
Note = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Limits:
    """``None`` (or 0 from the CLI) switches a limit off."""

    file_timeout: float | None = DEFAULT_FILE_TIMEOUT  # seconds per file
    max_file_mb: float | None = DEFAULT_MAX_FILE_MB  # bytes on disk
    max_memory_mb: int | None = DEFAULT_MAX_MEMORY_MB  # address space per worker

    def __post_init__(self) -> None:
        for name in ("file_timeout", "max_file_mb", "max_memory_mb"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be positive or None, not {value!r}")

    @classmethod
    def from_options(
        cls, file_timeout: float | None, max_file_mb: float | None, max_memory_mb: int | None
    ) -> Limits:
        """CLI style: ``None`` keeps the default, ``0`` switches the limit off."""

        def pick(value: Any, default: Any) -> Any:
            if value is None:
                return default
            return None if value == 0 else value

        return cls(
            pick(file_timeout, DEFAULT_FILE_TIMEOUT),
            pick(max_file_mb, DEFAULT_MAX_FILE_MB),
            pick(max_memory_mb, DEFAULT_MAX_MEMORY_MB),
        )


NO_LIMITS = Limits(None, None, None)


def size_problem(size: int, limits: Limits) -> str | None:
    """Why a file of ``size`` bytes is refused, or ``None``."""
    cap = limits.max_file_mb
    if cap is not None and size > cap * (1 << 20):
        return f"file too large: {size / (1 << 20):.1f} MB > limit {cap:g} MB (--max-file-mb)"
    return None


def memory_reason(limits_mb: int | None) -> str:
    cap = f" ({limits_mb} MB, --max-memory-mb)" if limits_mb else ""
    return f"memory limit exceeded{cap}"


def cap_memory(megabytes: int) -> None:
    """Limit this process's address space (RLIMIT_AS) to ``megabytes``, but never below
    its current size plus some headroom, so that it can still work."""
    import resource

    try:
        with open("/proc/self/statm") as fh:
            current = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        current = 0
    want = max(megabytes << 20, current + _MIN_HEADROOM)
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        want = min(want, hard)
    resource.setrlimit(resource.RLIMIT_AS, (want, hard))


# --- the worker side -------------------------------------------------------------------------

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """Have the kernel kill this process when ``parent`` ends (Linux; kill -9 of the
    parent included), so that no worker outlives the command that started it, blocked
    writing a result nobody reads. Elsewhere the workers check their parent's pid."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # it ended before the request took effect
        os._exit(1)


def _worker_main(
    conn: Connection, fn: Callable[[Any, Note], Any], memory_mb: int | None, parent: int
) -> None:
    os.setpgrp()  # own process group: a kill takes this worker's children with it
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    if memory_mb:
        cap_memory(memory_mb)

    def note(stage: str) -> None:
        conn.send(("stage", stage))

    # Log lines go to the parent, which prints them above its progress bar.
    logs.forward(lambda record: conn.send(("log", record)))

    while True:
        if not conn.poll(1.0):
            if os.getppid() != parent:  # the parent is gone: nobody will read results
                return
            continue
        try:
            item = conn.recv()
        except (EOFError, OSError):
            return
        if item is None:
            return
        try:
            msg: tuple[str, Any] = ("ok", fn(item, note))
        except MemoryError:
            msg = ("error", memory_reason(memory_mb))
        except BaseException as exc:
            msg = ("error", f"{type(exc).__name__}: {exc}")
        if os.getppid() != parent:  # nobody will read the result
            return
        try:
            conn.send(msg)
        except MemoryError:
            conn.send(("error", memory_reason(memory_mb)))
        except (BrokenPipeError, EOFError):
            return


# --- the parent side -------------------------------------------------------------------------


class _Worker(Generic[T]):
    def __init__(self, ctx: Any, fn: Callable[[T, Note], Any], memory_mb: int | None) -> None:
        here, there = ctx.Pipe(duplex=True)
        self.conn: Connection = here
        self.proc = ctx.Process(
            target=_worker_main, args=(there, fn, memory_mb, os.getpid()), name="folio-worker"
        )
        self._there = there
        self.item: T | None = None
        self.stage = ""
        self.deadline = float("inf")
        self.tasks = 0

    def start(self) -> None:
        self.proc.start()
        self._there.close()

    def give(self, item: T, timeout: float | None, stage: str) -> None:
        self.item, self.stage, self.tasks = item, stage, self.tasks + 1
        self.deadline = time.monotonic() + timeout if timeout else float("inf")
        self.conn.send(item)

    def kill(self) -> None:
        pid = self.proc.pid
        if pid is not None and self.proc.is_alive():
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
        if pid is not None:
            self.proc.join(5)
        self.conn.close()
        self._there.close()

    def stop(self) -> None:
        with contextlib.suppress(BrokenPipeError, OSError):
            self.conn.send(None)
        self.proc.join(2)
        if self.proc.is_alive():
            self.kill()
        else:
            self.conn.close()


def _death(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        hint = " (killed: out of memory?)" if exitcode == -signal.SIGKILL else ""
        return f"worker process died with {name}{hint}"
    return f"worker process exited unexpectedly (exit code {exitcode})"


def supervise(
    fn: Callable[[T, Note], R],
    items: Iterable[T],
    failed: Callable[[T, str, str], R],
    *,
    workers: int,
    timeout: float | None,
    memory_mb: int | None,
    first_stage: str = "extract",
) -> Iterator[R]:
    """``fn(item, note)`` for every item in worker processes, results as they finish.

    ``fn`` must be picklable (a module-level function or a ``functools.partial`` of
    one); it may call ``note(stage)`` to say which stage it is in, so that a timeout
    is reported against the right stage. An item whose worker raises, dies or passes
    ``timeout`` seconds gives ``failed(item, stage, reason)`` instead.
    """
    ctx = multiprocessing.get_context()
    idle: list[_Worker[T]] = []
    busy: list[_Worker[T]] = []
    # Every worker ever made, registered before it starts: a Ctrl-C can land while a
    # worker is in neither ``idle`` nor ``busy`` (just made, or moving from one to the
    # other), and a worker nobody stops keeps the interpreter's exit waiting forever.
    made: list[_Worker[T]] = []

    def new_worker() -> _Worker[T]:
        w = _Worker(ctx, fn, memory_mb)
        made.append(w)
        w.start()
        return w

    queue = iter(items)
    exhausted = False
    try:
        while True:
            while not exhausted and len(busy) < workers:
                nxt = next(queue, None)
                if nxt is None:
                    exhausted = True
                    break
                w = idle.pop() if idle else new_worker()
                try:
                    w.give(nxt, timeout, first_stage)
                except (BrokenPipeError, OSError):  # it died while idle
                    w.kill()
                    w = new_worker()
                    w.give(nxt, timeout, first_stage)
                busy.append(w)
            if not busy:
                return
            now = time.monotonic()
            wait_s = max(0.0, min(w.deadline for w in busy) - now)
            handles: list[Any] = [w.conn for w in busy] + [w.proc.sentinel for w in busy]
            ready = set(wait(handles, timeout=None if wait_s == float("inf") else wait_s))
            now = time.monotonic()
            for w in list(busy):
                item = w.item
                assert item is not None
                if w.conn in ready:
                    try:
                        kind, payload = w.conn.recv()
                    except (EOFError, OSError):
                        w.proc.join(1)
                        busy.remove(w)
                        yield failed(item, w.stage, _death(w.proc.exitcode))
                        w.kill()
                        continue
                    if kind == "stage":
                        w.stage = str(payload)
                        continue
                    if kind == "log":
                        logs.replay(payload)
                        continue
                    busy.remove(w)
                    if w.tasks >= _MAX_TASKS:
                        w.stop()
                    else:
                        idle.append(w)
                    if kind == "ok":
                        yield payload
                    else:
                        yield failed(item, w.stage, str(payload))
                elif w.proc.sentinel in ready:
                    w.proc.join(1)
                    busy.remove(w)
                    yield failed(item, w.stage, _death(w.proc.exitcode))
                    w.kill()
                elif now >= w.deadline:
                    busy.remove(w)
                    w.kill()
                    yield failed(item, w.stage, f"timed out after {timeout:g} s (--file-timeout)")
    finally:
        for w in busy:
            w.kill()
        for w in idle:
            w.stop()
        for w in made:  # any caught between lists; a no-op for those already ended
            w.kill()


__all__ = [
    "DEFAULT_FILE_TIMEOUT",
    "DEFAULT_MAX_FILE_MB",
    "DEFAULT_MAX_MEMORY_MB",
    "NO_LIMITS",
    "Limits",
    "cap_memory",
    "die_with_parent",
    "memory_reason",
    "size_problem",
    "supervise",
]
