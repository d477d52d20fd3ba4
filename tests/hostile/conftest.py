"""Fixtures of the hostile-input suite: files are generated per test (see generate.py)."""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest

from pipeline.shared.limits import supervise

from . import generate

CASE_SECONDS = 60.0  # a case that takes longer is a hang (the fast ones take < 10 s)
CASE_MEMORY_MB = 3072


def _call(fn: Callable[[object], object], item: object, _note: object) -> object:
    return fn(item)


def run_limited(
    fn: Callable[[object], object], arg: object, timeout: float = CASE_SECONDS
) -> object:
    """``fn(arg)`` in a supervised child process: a hang or a memory blow-up fails the
    test instead of stalling the suite."""

    def failed(_item: object, stage: str, reason: str) -> object:
        return ("limit", stage, reason)

    results = list(
        supervise(
            partial(_call, fn),
            [arg],
            failed,
            workers=1,
            timeout=timeout,
            memory_mb=CASE_MEMORY_MB,
        )
    )
    return results[0]


@pytest.fixture()
def hostile_dir(tmp_path: Path) -> Path:
    d = tmp_path / "hostile"
    d.mkdir()
    return d


def running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


__all__ = ["generate", "run_limited", "running_as_root"]
