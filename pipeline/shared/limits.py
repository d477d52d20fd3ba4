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

from ..errors import InvalidInput
from ..model import STAGES, Stage
from . import logs
from .inputs import quoted

DEFAULT_FILE_TIMEOUT = 300.0
DEFAULT_MAX_FILE_MB = 512.0
DEFAULT_MAX_MEMORY_MB = 4096
_MIN_HEADROOM = 256 << 20  # never cap a worker below its size at start plus this
_MAX_TASKS = 200  # a worker is replaced after this many files (returns its peak memory)

T = TypeVar("T")
R = TypeVar("R")
Note = Callable[[Stage], None]


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
                raise InvalidInput(f"{name} must be positive or None, not {quoted(value)}")

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


def size_problem(size: int, limits: Limits) -> str | None:
    """Why a file of ``size`` bytes is refused, or ``None``."""
    cap = limits.max_file_mb
    if cap is not None and size > cap * (1 << 20):
        return f"file too large: {size / (1 << 20):.1f} MB > limit {cap:g} MB (max_file_mb)"
    return None


def memory_reason(limits_mb: int | None) -> str:
    cap = f" ({limits_mb} MB, max_memory_mb)" if limits_mb else ""
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

    def note(stage: Stage) -> None:
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
        self.stage: Stage = "extract"
        self.deadline = float("inf")
        self.tasks = 0

    def start(self) -> None:
        self.proc.start()
        self._there.close()

    def give(self, item: T, timeout: float | None, stage: Stage) -> None:
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


class _Pool(Generic[T, R]):
    """The worker processes of one ``supervise`` call: items handed out, answers,
    deaths and deadlines turned into results."""

    def __init__(
        self,
        fn: Callable[[T, Note], R],
        failed: Callable[[T, Stage, str], R],
        timeout: float | None,
        memory_mb: int | None,
    ) -> None:
        self.ctx = multiprocessing.get_context()
        self.fn, self.failed, self.timeout, self.memory_mb = fn, failed, timeout, memory_mb
        self.idle: list[_Worker[T]] = []
        self.busy: list[_Worker[T]] = []
        # Every worker ever made, registered before it starts: a Ctrl-C can land while a
        # worker is in neither ``idle`` nor ``busy`` (just made, or moving from one to the
        # other), and a worker nobody stops keeps the interpreter's exit waiting forever.
        self.made: list[_Worker[T]] = []

    def _new_worker(self) -> _Worker[T]:
        w = _Worker(self.ctx, self.fn, self.memory_mb)
        self.made.append(w)
        w.start()
        return w

    def give(self, item: T, stage: Stage) -> None:
        w = self.idle.pop() if self.idle else self._new_worker()
        try:
            w.give(item, self.timeout, stage)
        except (BrokenPipeError, OSError):  # it died while idle
            w.kill()
            w = self._new_worker()
            w.give(item, self.timeout, stage)
        self.busy.append(w)

    def settle(self) -> Iterator[R]:
        """Wait for the first answer, death or deadline among the busy workers; the
        results of every worker that has one."""
        wait_s = max(0.0, min(w.deadline for w in self.busy) - time.monotonic())
        handles: list[Any] = [w.conn for w in self.busy] + [w.proc.sentinel for w in self.busy]
        ready = set(wait(handles, timeout=None if wait_s == float("inf") else wait_s))
        now = time.monotonic()
        for w in list(self.busy):
            if w.conn in ready:
                yield from self._answer(w)
            elif w.proc.sentinel in ready:
                yield self._died(w)
            elif now >= w.deadline:
                self.busy.remove(w)
                w.kill()
                yield self._failed(w, f"timed out after {self.timeout:g} s (file_timeout)")

    def _answer(self, w: _Worker[T]) -> Iterator[R]:
        try:
            kind, payload = w.conn.recv()
        except (EOFError, OSError):
            yield self._died(w)
            return
        if kind == "stage":
            w.stage = payload if payload in STAGES else w.stage
            return
        if kind == "log":
            logs.replay(payload)
            return
        self.busy.remove(w)
        if w.tasks >= _MAX_TASKS:
            w.stop()
        else:
            self.idle.append(w)
        yield payload if kind == "ok" else self._failed(w, str(payload))

    def _died(self, w: _Worker[T]) -> R:
        w.proc.join(1)
        self.busy.remove(w)
        result = self._failed(w, _death(w.proc.exitcode))
        w.kill()
        return result

    def _failed(self, w: _Worker[T], reason: str) -> R:
        assert w.item is not None
        return self.failed(w.item, w.stage, reason)

    def close(self) -> None:
        for w in self.busy:
            w.kill()
        for w in self.idle:
            w.stop()
        for w in self.made:  # any caught between lists; a no-op for those already ended
            w.kill()


def supervise(
    fn: Callable[[T, Note], R],
    items: Iterable[T],
    failed: Callable[[T, Stage, str], R],
    *,
    workers: int,
    timeout: float | None,
    memory_mb: int | None,
    first_stage: Stage = "extract",
) -> Iterator[R]:
    """``fn(item, note)`` for every item in worker processes, results as they finish.

    ``fn`` must be picklable (a module-level function or a ``functools.partial`` of
    one); it may call ``note(stage)`` to say which stage it is in, so that a timeout
    is reported against the right stage. An item whose worker raises, dies or passes
    ``timeout`` seconds gives ``failed(item, stage, reason)`` instead.
    """
    pool: _Pool[T, R] = _Pool(fn, failed, timeout, memory_mb)
    queue = iter(items)
    exhausted = False
    try:
        while True:
            while not exhausted and len(pool.busy) < workers:
                nxt = next(queue, None)
                exhausted = nxt is None
                if nxt is not None:
                    pool.give(nxt, first_stage)
            if not pool.busy:
                return
            yield from pool.settle()
    finally:
        pool.close()


__all__ = [
    "DEFAULT_FILE_TIMEOUT",
    "DEFAULT_MAX_FILE_MB",
    "DEFAULT_MAX_MEMORY_MB",
    "Limits",
    "cap_memory",
    "die_with_parent",
    "memory_reason",
    "size_problem",
    "supervise",
]
