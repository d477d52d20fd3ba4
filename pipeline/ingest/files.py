"""The library on disk: which files to read, and their content hashes.

A file is known by its absolute, resolved path (the same file named from another
directory, or through a symlink, is the same file) and its content by the SHA-256 of
its bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..extract import SUPPORTED_SUFFIXES
from ..model import Stage
from ..shared.pathtext import resolved


@dataclass(frozen=True, slots=True)
class Failure:
    path: str
    stage: Stage
    reason: str


def discover(paths: Sequence[str], *, missing_ok: bool = False) -> tuple[list[Path], list[Failure]]:
    """``find``'s files as paths."""
    found, problems = find(paths, missing_ok=missing_ok)
    return [Path(f) for f in found], problems


def find(paths: Sequence[str], *, missing_ok: bool = False) -> tuple[list[str], list[Failure]]:
    """Supported files under ``paths`` as absolute, resolved paths, each once (files as
    given; folders recursively, sorted, symlinked folders not followed so loops cannot
    happen). A path that does not exist is a failure unless ``missing_ok`` (a prune of
    a removed folder: its files are gone, which is what a prune is for). Text, not
    ``Path``: making a ``Path`` of each of 7,600 files was three quarters of the walk."""
    found: list[str] = []
    problems: list[Failure] = []
    for raw in paths:
        p = resolved(Path(raw))
        if p.is_dir():
            # A file walked to through folders that are not symlinks, under a resolved
            # one, is named by its resolved path already: only a symlink needs ``known``
            # (realpath for each of 7,600 files was most of a one-file change's walk).
            found.extend(str(known(Path(f))) if link else f for f, link in _supported(p, problems))
        elif p.exists():
            found.append(str(known(p)))
        elif not missing_ok:
            problems.append(Failure(raw, "read", "no such file or directory"))
    return list(dict.fromkeys(found)), problems


def holds_supported(folder: Path) -> bool:
    """Whether ``folder`` holds a file Folio reads (the walk stops at the first)."""
    return any(True for _ in _supported(resolved(folder), []))


def _supported(top: Path, problems: list[Failure]) -> Iterator[tuple[str, bool]]:
    """Files under ``top`` that Folio reads, each with whether it is a symlink."""
    for entry in _walk(str(top), problems):
        name = entry.name
        if os.path.splitext(name)[1].lower() in SUPPORTED_SUFFIXES and not name.startswith("."):
            yield entry.path, _is_link(entry)


def known(path: Path) -> Path:
    """The path a file is known by: resolved (one file, however it is named), except
    through a symlink to something that is not a regular file nor a folder (a device, a
    socket): that fails to read, and is reported under the library's name for it, not
    as ``/dev/zero``."""
    target = resolved(path)
    try:
        mode = target.stat().st_mode
    except OSError:
        return target  # a dangling link or a loop: the read reports it
    if path.is_symlink() and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        return Path(os.path.abspath(path))
    return target


def _walk(top: str, problems: list[Failure]) -> Iterator[os.DirEntry[str]]:
    """Files under ``top``, depth first in sorted order, with a stack of its own:
    ``os.walk`` recurses (before Python 3.12), so a thousand nested folders ended the
    ingest with a RecursionError. Symlinked folders are listed, not entered."""
    stack = [top]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as e:
            problems.append(Failure(folder, "read", e.strerror or str(e)))
            continue
        subfolders: list[str] = []
        for entry in entries:
            if _is_dir(entry):
                if not entry.is_symlink():
                    subfolders.append(entry.path)
            else:
                yield entry
        stack.extend(reversed(subfolders))


def _is_link(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return True  # ``known`` looks at it again, and the read reports it


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@contextlib.contextmanager
def snapshot(path: str) -> Iterator[tuple[Path, str, int]]:
    """A private copy of the file, its SHA-256 and size, from one read of its bytes: what
    is extracted from the copy is exactly what was hashed, even if the file is rewritten
    meanwhile. The copy keeps the file's name (titles fall back to it)."""
    with tempfile.TemporaryDirectory(prefix="folio-read-") as tmp:
        copy = Path(tmp) / Path(path).name
        h = hashlib.sha256()
        size = 0
        with open(path, "rb") as src, copy.open("wb") as dst:
            for block in iter(lambda: src.read(1 << 20), b""):
                h.update(block)
                dst.write(block)
                size += len(block)
        yield copy, h.hexdigest(), size
