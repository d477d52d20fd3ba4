"""What an ingest does with each file it found, given the records in the index.

One record per file path (absolute, resolved). The content of identical files is stored
once, under its hash: the record whose ``id`` is that hash holds it (the keeper), the
other files get a ``duplicate`` record of their own that points to it by ``doc_id``.
So a content stays while any file holds it, and each file is pruned on its own.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..index.records import DONE, DocumentRecord


@dataclass(frozen=True, slots=True)
class Found:
    """A file of this run and the hash and size of its bytes."""

    path: str
    sha256: str
    size: int


@dataclass(frozen=True, slots=True)
class Plan:
    todo: tuple[Found, ...]  # extract, chunk and index
    unchanged: tuple[str, ...]
    # (file, the path whose record holds its content, whether its record says so already)
    copies: tuple[tuple[Found, str, bool], ...]
    stale: tuple[DocumentRecord, ...]  # other records of the files' paths: release now
    replaced: Mapping[str, tuple[DocumentRecord, ...]]  # ...of todo: once it is indexed
    held: frozenset[str]  # hashes some file of this run holds


def copy_id(path: str) -> str:
    """The record id of a file whose content another file's record holds."""
    return "copy-" + hashlib.sha256(path.encode()).hexdigest()[:40]


def is_legacy(record: DocumentRecord) -> bool:
    """Recorded by a Folio that stored paths as typed (relative to a directory it did
    not record): such a record is matched by content only, and rewritten when a file
    with that content is ingested again."""
    return not os.path.isabs(record.path)


def plan(
    found: Sequence[Found],
    records: Sequence[DocumentRecord],
    stored: Mapping[str, int],
    fingerprint: str,
) -> Plan:
    """``stored``: chunks in the collection per doc_id. A file is unchanged only when its
    record is current and the collection holds every chunk the record counts."""
    by_path: dict[str, list[DocumentRecord]] = {}
    for r in records:
        if not is_legacy(r):
            by_path.setdefault(r.path, []).append(r)
    keepers = {r.doc_id: r for r in records if not r.is_copy}
    groups: dict[str, list[str]] = {}
    for f in found:
        groups.setdefault(f.sha256, []).append(f.path)
    in_run = {f.path for f in found}
    keeper = {sha: _keeper(paths, keepers.get(sha), in_run) for sha, paths in groups.items()}
    todo: list[Found] = []
    unchanged: list[str] = []
    copies: list[tuple[Found, str, bool]] = []
    stale: list[DocumentRecord] = []
    replaced: dict[str, tuple[DocumentRecord, ...]] = {}
    for f in found:
        # The one record this path keeps (a copy's own, or the content's); any other
        # record of the path (an earlier content, a failure) is released.
        kept = f.sha256 if f.path == keeper[f.sha256] else copy_id(f.path)
        mine = by_path.get(f.path, [])
        others = tuple(r for r in mine if r.id != kept)
        if kept != f.sha256:
            current = any(r.id == kept and r.doc_id == f.sha256 for r in mine)
            copies.append((f, keeper[f.sha256], current))
            stale.extend(others)
        elif _current(keepers.get(f.sha256), f.path, stored, fingerprint):
            unchanged.append(f.path)
            stale.extend(others)
        else:
            todo.append(f)
            if others:
                replaced[f.path] = others
    return Plan(
        tuple(todo), tuple(unchanged), tuple(copies), tuple(stale), replaced, frozenset(groups)
    )


def _keeper(paths: list[str], record: DocumentRecord | None, in_run: set[str]) -> str:
    """The file whose record holds the content: the one that held it while it still does
    (found in this run, or outside it, still there and indexed), else the first found."""
    if record is not None and not is_legacy(record):
        where = record.path
        if where in paths:
            return where
        if where not in in_run and record.status in DONE and os.path.exists(where):
            return where  # a failed one is tried again here
    return paths[0]


def _current(
    record: DocumentRecord | None, path: str, stored: Mapping[str, int], fingerprint: str
) -> bool:
    return (
        record is not None
        and record.path == path
        and record.status in DONE
        and record.config == fingerprint
        and stored.get(record.doc_id, 0) == record.chunks
    )
