"""The last step of an ingest: forget the files that are gone, and say which records
of an older Folio this run could not place."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from ..index.documents import release
from ..index.records import DocumentRecord
from ..index.store import Store
from ..shared.pathtext import gone, resolved
from .catalog import is_legacy
from .report import Report

log = logging.getLogger("folio.ingest")


def prune(
    store: Store,
    roots: Sequence[str],
    records: Sequence[DocumentRecord],
    files: Sequence[str],
    held: frozenset[str],
    report: Report,
) -> None:
    """Forget the files under the given roots that are gone. A content goes with its
    last file; records of relative paths (an older Folio's) cannot be placed: kept."""
    present = set(files)
    prefixes = [str(resolved(Path(r))).rstrip("/") + "/" for r in roots]
    for record in records:
        path = record.path
        if (
            is_legacy(record)
            or path in present
            or not any((path + "/").startswith(p) for p in prefixes)
        ):
            continue
        if gone(path):
            release(store, record, held)
            report.pruned.append(path)


def warn_legacy(records: Sequence[DocumentRecord], held: frozenset[str]) -> None:
    left = sum(1 for r in records if is_legacy(r) and r.doc_id not in held)
    if left:
        log.warning(
            "%d documents recorded under relative paths by an older Folio were not found "
            "by content in this run; `folio docs` lists them, `folio delete` removes them",
            left,
        )
