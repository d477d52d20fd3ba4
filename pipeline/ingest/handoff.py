"""The hand-off between the workers' results and the index thread, bounded in chunks."""

from __future__ import annotations

import threading
from collections import deque

from ..index.store import BATCH_SIZE
from .indexer import Sink
from .process import FileResult

MIN_BATCH = 250  # chunks: the smallest batch sent early when Typesense would idle


class IndexThread:
    """Runs a ``Sink`` on a thread of its own, fed through a hand-off that holds at
    most ``limit`` chunks (one result larger than that is let through alone), so memory
    stays bounded when Typesense is slower than the workers.

    An error on the thread (Typesense down after retries, say) stops it; the next
    ``put`` or ``finish`` raises it on the caller's thread.
    """

    def __init__(self, sink: Sink, limit: int = 4 * BATCH_SIZE, min_batch: int = MIN_BATCH) -> None:
        self.sink = sink
        self.limit = limit
        self.min_batch = min_batch
        self.cond = threading.Condition()
        self.items: deque[FileResult] = deque()
        self.queued = 0  # chunks in ``items``
        self.closed = False  # no more results: flush and stop
        self.stopped = False  # stop now, without flushing
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="folio-index", daemon=True)
        self.thread.start()

    def put(self, result: FileResult) -> None:
        n = len(result.chunks)
        with self.cond:
            self.cond.wait_for(
                lambda: self.error is not None or not self.items or self.queued + n <= self.limit
            )
            self._raise()
            self.items.append(result)
            self.queued += n
            self.cond.notify_all()

    def finish(self) -> None:
        """Index what is queued, flush the last batch and wait for the thread."""
        with self.cond:
            self.closed = True
            self.cond.notify_all()
        self.thread.join()
        self._raise()

    def abandon(self) -> None:
        """Stop after the call in flight; what is queued stays for the next run."""
        with self.cond:
            self.stopped = True
            self.cond.notify_all()
        self.thread.join()

    def _raise(self) -> None:
        if self.error is not None:
            error, self.error = self.error, None
            self.stopped = True
            raise error

    def _run(self) -> None:
        try:
            while True:
                with self.cond:
                    self.cond.wait_for(lambda: self.items or self.closed or self.stopped)
                    if self.stopped:
                        return
                    if not self.items:  # closed and drained
                        break
                    result = self.items.popleft()
                    self.queued -= len(result.chunks)
                    idle = not self.items
                    self.cond.notify_all()
                self.sink.add(result)
                if idle and self.sink.pending >= self.min_batch:
                    # nothing else waiting: keep Typesense busy rather than let it idle
                    # until a full batch has been chunked (matters at the start of a run)
                    self.sink.flush(final=False)
            self.sink.flush()
        except BaseException as exc:  # handed to the caller's thread
            with self.cond:
                self.error = exc
                self.cond.notify_all()
