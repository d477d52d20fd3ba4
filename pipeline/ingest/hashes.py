"""The content hashes of the library's files from earlier runs, so that an ingest reads
only the files that changed, as git's index does.

A file's hash is taken from the cache only when what ``stat`` says of the file now is
what it said when the file was hashed: size, mtime, ctime (in nanoseconds), inode and
device. Rewriting a file in place changes its mtime and ctime; replacing it (an editor's
save, ``mv``, ``cp``, ``rsync``) gives it another inode or ctime; a tool can set mtime
back, but not ctime (``utime`` sets ctime to now). One exception is the racy file (git's
word): a file written within ``RACY_NS`` of the moment it was hashed may be written again
later with the same timestamps (file systems keep time in ticks of a few milliseconds,
FAT in 2 s), so its entry is not trusted: it is hashed again next run, and then its
timestamps are old enough. A file whose mtime is in the future is hashed on every run.

The cache is derived state: one JSON file per store under ``$FOLIO_HOME/hashes/``,
written by the ingest (which holds the library lock) to a temporary file and renamed into
place; one that cannot be read or makes no sense is ignored (every file is hashed again)
and replaced. ``--rehash`` ignores it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger("folio.ingest")
FORMAT = 1
# A file whose mtime or ctime is within this of the moment before it was stat'ed and
# hashed may change again without a new timestamp: hashed again next run. The coarsest
# common file-system clock is FAT's (2 s).
RACY_NS = 2_000_000_000
_HEX = frozenset("0123456789abcdef")


@dataclass(frozen=True, slots=True)
class Stat:
    """What ``stat`` says of a file that an entry must match."""

    size: int
    mtime_ns: int
    ctime_ns: int
    ino: int
    dev: int

    @classmethod
    def of(cls, st: os.stat_result) -> Stat:
        return cls(st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


@dataclass(frozen=True, slots=True)
class Entry:
    """A file's hash, its stat when it was hashed, and the clock just before that stat
    (``seen_ns``)."""

    sha256: str
    stat: Stat
    seen_ns: int

    def trusted(self, now: Stat) -> bool:
        """The file is as it was hashed, and was not written so close to the hashing
        that a later write could leave the same timestamps."""
        newest = max(self.stat.mtime_ns, self.stat.ctime_ns)
        return now == self.stat and newest + RACY_NS <= self.seen_ns

    def to_json(self) -> list[Any]:
        s = self.stat
        return [self.sha256, s.size, s.mtime_ns, s.ctime_ns, s.ino, s.dev, self.seen_ns]

    @classmethod
    def from_json(cls, raw: Any) -> Entry:
        sha, *numbers = raw
        if not (isinstance(sha, str) and len(sha) == 64 and set(sha) <= _HEX):
            raise ValueError(f"not a sha256: {sha!r}")
        if len(numbers) != 6 or not all(type(n) is int and n >= 0 for n in numbers):
            raise ValueError(f"not a stat: {numbers!r}")
        size, mtime, ctime, ino, dev, seen = numbers
        return cls(sha, Stat(size, mtime, ctime, ino, dev), seen)


class HashCache:
    """The entries read at the start of a run (``old``) and those of this run's files
    (``new``); ``save`` writes both, less the old ones under this run's folders that
    this run did not find (gone, or no longer read)."""

    def __init__(self, path: Path, old: dict[str, Entry] | None = None) -> None:
        self.path = path
        self.old = old or {}
        self.new: dict[str, Entry] = {}

    @classmethod
    def load(cls, path: Path, *, trust: bool = True) -> HashCache:
        """The cache at ``path``; empty when ``trust`` is False (``--rehash``), when there
        is none yet, or when it cannot be read or is not one (said once, then rebuilt)."""
        if not trust:
            return cls(path)
        try:
            raw = json.loads(path.read_bytes())
            if raw.get("format") != FORMAT:
                raise ValueError(f"format {raw.get('format')!r}, not {FORMAT}")
            files = raw["files"]
            if not isinstance(files, dict):
                raise ValueError("no files")
            old = {str(p): Entry.from_json(e) for p, e in files.items()}
        except FileNotFoundError:
            return cls(path)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
            log.warning(
                "the cache of file hashes %s cannot be used (%s): every file is read and "
                "hashed again, and the cache rebuilt",
                path,
                exc.strerror if isinstance(exc, OSError) else exc,
            )
            return cls(path)
        return cls(path, old)

    def known(self, path: str, st: os.stat_result) -> str | None:
        """The hash of ``path`` when its entry can be trusted with the file as ``st``
        says it is now (the entry is kept); else None (the file must be hashed)."""
        entry = self.old.get(path)
        if entry is None or not entry.trusted(Stat.of(st)):
            return None
        self.new[path] = entry
        return entry.sha256

    def put(self, path: str, sha256: str, before: os.stat_result, seen_ns: int) -> None:
        """``path`` hashed to ``sha256`` between ``before`` (taken at ``seen_ns``) and
        now: remembered only if its stat did not change meanwhile."""
        try:
            after = os.stat(path)
        except OSError:
            return
        if Stat.of(after) == Stat.of(before):
            self.new[path] = Entry(sha256, Stat.of(before), seen_ns)

    def forget(self, path: str) -> None:
        """Not to be trusted (the file's bytes were not those of its hash)."""
        self.new.pop(path, None)
        self.old.pop(path, None)

    def save(self, roots: Iterable[Path] = ()) -> None:
        """Write the cache: this run's entries, and the earlier ones outside ``roots``
        (the folders and files this run looked at). Atomic (a temporary file renamed into
        place); a failure to write is said and the run goes on. What was written is
        ``old`` from then on."""
        under = [str(r) for r in roots]
        self.old = {p: e for p, e in self.old.items() if not _under(p, under)} | self.new
        files = {p: e.to_json() for p, e in self.old.items()}
        blob = json.dumps({"format": FORMAT, "written_ns": time.time_ns(), "files": files})
        tmp = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, tmp = tempfile.mkstemp(prefix=".hashes-", dir=self.path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:  # ASCII: json escapes the rest
                fh.write(blob)
            os.replace(tmp, self.path)
            tmp = None
        except OSError as exc:
            log.warning(
                "the cache of file hashes %s was not written (%s): the next ingest reads "
                "every file again",
                self.path,
                exc.strerror or exc,
            )
        finally:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)


def _under(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)
