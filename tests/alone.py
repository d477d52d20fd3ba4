"""Tests marked ``alone`` run with no other test beside them under pytest-xdist: they hold
CPU-bound chunking to a wall-clock limit, and beside two other workers' tests on 2 cores
they took three times as long and crossed it (link-refs its 15 s, md-long-line-8mb its
60 s), grouped on one worker or not.

Every test takes a shared lock on a file that all the workers of a run see; an ``alone``
test takes it exclusively. A turnstile lock in front keeps the shared takers from starving
the exclusive one: an ``alone`` test holds the turnstile while it waits and runs, so no
test starts until the running ones have ended and it is done."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

import pytest


def lock_folder(config: pytest.Config) -> Path | None:
    """The folder the workers of this run share (the parent of their temp dirs), or None
    when the run has no workers."""
    basetemp = config.option.basetemp
    if not os.environ.get("PYTEST_XDIST_WORKER") or not basetemp:
        return None
    return Path(basetemp).parent


@contextlib.contextmanager
def turn(folder: Path, alone: bool) -> Iterator[None]:
    """Hold the run's lock for one test: exclusively when it runs ``alone``. The locks
    are released explicitly: a forked child that outlives the test keeps the file open."""
    with open(folder / "turnstile.lock", "a") as gate, open(folder / "running.lock", "a") as lock:
        fcntl.flock(gate, fcntl.LOCK_EX)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        finally:
            if not alone:
                fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
            fcntl.flock(gate, fcntl.LOCK_UN)
