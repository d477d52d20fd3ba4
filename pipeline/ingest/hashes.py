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
place; one that cannot be read or is not one is ignored (every file is hashed again) and
replaced, and an entry whose values make no sense is not trusted (its file is hashed).
``--rehash`` ignores it. Entries stay in their JSON form (a list, ``Entry.to_json``) and
are checked one at a time as their files are looked up: typing all 7,600 of a library
up front was ~50 ms of every one-file change.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
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
_SHA256 = re.compile("[0-9a-f]{64}")


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

    def numbers(self) -> list[int]:
        return [self.size, self.mtime_ns, self.ctime_ns, self.ino, self.dev]


def _numbers(st: os.stat_result) -> list[int]:
    """``Stat.of(st).numbers()`` without the object (once per file of the library)."""
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]


@dataclass(frozen=True, slots=True)
class Entry:
    """A file's hash, its stat when it was hashed, and the clock just before that stat
    (``seen_ns``)."""

    sha256: str
    stat: Stat
    seen_ns: int

    def trusted(self, now: Stat) -> bool:
        return trusted(self.to_json(), now.numbers())

    def to_json(self) -> list[Any]:
        return [self.sha256, *self.stat.numbers(), self.seen_ns]


def trusted(entry: Any, now: list[int]) -> bool:
    """Whether an entry as stored (``Entry.to_json``) holds the hash of a file whose stat
    numbers are ``now``: the file is as it was hashed, and was not written so close to
    the hashing that a later write could leave the same timestamps. An entry that is not
    one (a damaged or hand-edited cache) is not trusted."""
    if type(entry) is not list or len(entry) != 7:
        return False
    sha, size, mtime, ctime, ino, dev, seen = entry
    return (
        [size, mtime, ctime, ino, dev] == now
        and type(seen) is int
        and max(mtime, ctime) + RACY_NS <= seen
        and type(sha) is str
        and _SHA256.fullmatch(sha) is not None
    )


class HashCache:
    """The entries read at the start of a run (``old``) and those of this run's files
    (``new``); ``save`` writes both, less the old ones under this run's folders that
    this run did not find (gone, or no longer read)."""

    def __init__(self, path: Path, old: dict[str, Any] | None = None) -> None:
        self.path = path
        self.old = old or {}  # path: its entry as stored, checked when it is looked up
        self.new: dict[str, Any] = {}

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
            # The shape only (cheap); each entry's values when its file is looked up.
            if not all(type(e) is list and len(e) == 7 for e in files.values()):
                raise ValueError("an entry is not a list of 7")
            old = dict(files)
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
        if entry is None or not trusted(entry, _numbers(st)):
            return None
        self.new[path] = entry
        return str(entry[0])

    def put(self, path: str, sha256: str, before: os.stat_result, seen_ns: int) -> None:
        """``path`` hashed to ``sha256`` between ``before`` (taken at ``seen_ns``) and
        now: remembered only if its stat did not change meanwhile."""
        try:
            after = os.stat(path)
        except OSError:
            return
        if Stat.of(after) == Stat.of(before):
            self.new[path] = Entry(sha256, Stat.of(before), seen_ns).to_json()

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
        folders = tuple(r.rstrip(os.sep) + os.sep for r in under)
        kept = {p: e for p, e in self.old.items() if p not in under and not p.startswith(folders)}
        self.old = kept | self.new
        blob = json.dumps({"format": FORMAT, "written_ns": time.time_ns(), "files": self.old})
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
