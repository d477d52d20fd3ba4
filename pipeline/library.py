"""The library on disk: which files to read, and their content hashes."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .extract import SUPPORTED_SUFFIXES


@dataclass(frozen=True, slots=True)
class Failure:
    path: str
    stage: str  # read | extract | chunk | embed | index
    reason: str


def discover(paths: Sequence[str]) -> tuple[list[Path], list[Failure]]:
    """Supported files under ``paths`` (files as given; folders recursively, sorted,
    symlinked folders not followed so loops cannot happen)."""
    found: list[Path] = []
    problems: list[Failure] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            for root, dirs, files in os.walk(
                p,
                onerror=lambda e: problems.append(
                    Failure(str(e.filename), "read", e.strerror or str(e))
                ),
            ):
                dirs.sort()
                for name in sorted(files):
                    f = Path(root) / name
                    if f.suffix.lower() in SUPPORTED_SUFFIXES and not name.startswith("."):
                        found.append(f)
        elif p.exists():
            found.append(p)
        else:
            problems.append(Failure(raw, "read", "no such file or directory"))
    return found, problems


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
