"""Where an ingest's results come from: by default the files processed in supervised
worker processes, one file in flight per worker."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Protocol

from ..model import Stage
from ..shared.limits import Limits, Note, supervise
from .catalog import Found
from .process import FileResult, Job, Process, process_file
from .warm import forks, warm


class Runner(Protocol):
    """Turns the files to do into their results, in any order (``ingest``'s ``run``)."""

    def __call__(self, todo: Sequence[Found], job: Job) -> Iterable[FileResult]: ...


@dataclass(frozen=True, slots=True)
class Pool:
    """Results in completion order, one file in flight per worker (memory stays flat),
    the largest files first: the last to finish are then small ones, so the cores stay
    busy to the end and little is left to index once the last file is done.

    With a time or memory limit every file runs in a supervised worker process (killed
    and replaced when it passes its deadline); with neither and one worker, in-line.
    Workers forked from this process share what ``warm`` built before they start.
    ``workers``: ``None`` is one per core, at most one per file.
    """

    process: Process = process_file
    workers: int | None = None
    limits: Limits = field(default_factory=Limits)

    def __call__(self, todo: Sequence[Found], job: Job) -> Iterator[FileResult]:
        if not todo:
            return
        todo = largest_first(todo)
        limits = self.limits
        workers = self.workers or max(1, min(os.cpu_count() or 1, len(todo)))
        if workers == 1 and limits.file_timeout is None and limits.max_memory_mb is None:
            for work in todo:
                yield self.process(work, job)
            return
        if self.process is process_file and forks():
            warm(job, todo)  # once here rather than once in each worker
        yield from supervise(
            partial(_run_one, process=self.process, job=job),
            todo,
            _failed_in_worker,
            workers=workers,
            timeout=limits.file_timeout,
            memory_mb=limits.max_memory_mb,
        )


def largest_first(todo: Sequence[Found]) -> list[Found]:
    """The files by size, largest first (bytes stand in for the work: pages are not
    known before extraction), in their given order among equals."""
    return sorted(todo, key=lambda f: f.size, reverse=True)


def _run_one(work: Found, note: Note, *, process: Process, job: Job) -> FileResult:
    return process(work, job, note)


def _failed_in_worker(work: Found, stage: Stage, reason: str) -> FileResult:
    return FileResult.failed(work, stage, reason)
