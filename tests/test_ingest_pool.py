"""The worker pool of an ingest hands out the largest files first, so the last files to
finish are small ones (the cores stay busy to the end and little is left to index)."""

from __future__ import annotations

import time
from pathlib import Path

from pipeline import make_config
from pipeline.ingest import FileResult, Found, Job, Pool
from pipeline.shared.limits import Note


def _started(work: Found, job: Job, note: Note | None = None) -> FileResult:
    """When the worker began this file (``extract_s``: a monotonic time, comparable
    across processes), after a pause that keeps both workers busy."""
    began = time.monotonic()
    time.sleep(0.2)
    return FileResult(work.path, work.sha256, work.size, None, (), None, began, 0.0)


def test_two_workers_take_the_largest_files_first(tmp_path: Path) -> None:
    sizes = [3, 40, 7, 1, 25, 12]  # the order the plan found them in
    todo = [Found(str(tmp_path / f"f{i}"), f"{i:064x}", n) for i, n in enumerate(sizes)]
    job = Job(make_config(), "fingerprint")
    results = list(Pool(_started, workers=2)(todo, job))
    begun = [r.size for r in sorted(results, key=lambda r: r.extract_s)]
    assert set(begun[:2]) == {40, 25}  # one each, given together
    assert set(begun[2:4]) == {12, 7}
    assert set(begun[4:]) == {3, 1}  # the smallest last
