"""What the store held when this home's last ingest ended (every file record and the
chunks of each document), kept on disk so that the next ingest reads back from Typesense
only what it changes, not the whole library (issue #40: at 7,600 files the records,
the chunk counts and the lexical index's catalog were ~3 s of every one-file change).

The ledger is derived state, trusted only for the store state (``index.generation``) it
was written at: an ingest uses it when the state it found before it began (``Store.writing``
yields it) is that one, and settled. Every other writer raises the counter, so a delete,
a reindex, another ``FOLIO_HOME`` or host writing to the same server, a writer killed
mid-way (its ``writing`` mark stays), or an older, missing or damaged file all mean the
ingest reads the store as before and writes the ledger again at its end. On a cluster it
is not used: each node is asked for itself there (``plan.stored_counts``).

At the end of a run the ledger is brought up to date by reading back the records and
chunk counts of the documents the run touched (``touched``), then written, atomically
(a temporary file renamed into place, as tantivy commits its ``meta.json``), beside the
lexical index with the state the run's last ``advance`` returned; a run that did not end
as one writer alone (interrupted, the lexical refresh failed, the counter moved by more
than its own raises) removes it instead.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from operator import attrgetter
from pathlib import Path
from typing import Any

from ..index import generation
from ..index.coverage import count_searches, embedded_of
from ..index.lexical import DocInfo
from ..index.records import STATUSES, DocumentRecord
from ..index.schema import CHUNKS, DOCUMENTS
from ..index.side_index import Known, catalog_of_records, paired, root
from ..index.store import Store, facet_values, quote

log = logging.getLogger("folio.ingest")
# 2: each record a list of its fields' values in ``NAMES`` order (1: a dict per record,
# a third of the time it took to load); 3: the vectors of one model per doc_id.
FORMAT = 3
NAME = "ledger.json"
NAMES = [f.name for f in fields(DocumentRecord)]
_values = attrgetter(*NAMES)  # a record's values in NAMES order
# What an ingest reads of a file record: all but the headings and the page map, which
# only readers show (a book's page map alone can be kilobytes).
FIELDS = ",".join(n for n in NAMES if n not in ("headings", "page_map"))
ID_BATCH = 40  # doc_ids per export request (the filter travels in the URL)
READ_ALL = 400  # more documents touched than this: the whole store is read instead


Row = Mapping[str, Any]  # a file record as Typesense stores it


@dataclass(frozen=True, slots=True)
class Ledger:
    """The store's file records (``FIELDS`` only, sorted by id) and chunks per doc_id
    (documents with none left out), as of the state ``token``; and, when ``model`` is
    set, the snippets per doc_id holding a vector of that model (``vectors``: an ingest
    that embeds needs them for every unchanged file, one faceted count over every
    snippet, ~1 s at 100k)."""

    token: str
    records: tuple[DocumentRecord, ...]
    counts: Mapping[str, int]
    model: str = ""
    vectors: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, token: str, rows: Iterable[Row], counts: Mapping[str, int]) -> Ledger:
        """From the records as the store gives them."""
        return cls(token, _sorted(map(DocumentRecord.from_store, rows)), counts)

    def complete(self) -> int:
        return sum(1 for r in self.records if r.status == "complete")

    def catalog(self) -> list[DocInfo]:
        """The complete documents, as the lexical index holds them."""
        return catalog_of_records(self.records)


def _sorted(records: Iterable[DocumentRecord]) -> tuple[DocumentRecord, ...]:
    return tuple(sorted(records, key=lambda r: r.id))


def path(store: Store) -> Path:
    return root(store) / NAME


def read(store: Store, token: str = "") -> Ledger:
    """The store's records and chunk counts, read from it."""
    rows = store.export(DOCUMENTS, include=FIELDS)
    return Ledger.of(token, rows, store.facet_counts(CHUNKS, "doc_id", 2 * len(rows) + 100))


def load(store: Store, before: str) -> Ledger | None:
    """The ledger when it holds the store as ``before`` (the state this writer found);
    else None, and the caller reads the store."""
    if len(store.nodes) > 1 or not generation.settled(before):
        return None
    where = path(store)
    try:
        ledger = saved(where)
        if ledger.token != before:
            log.info("ledger %s is of another store state: the store is read", where)
            return None
        if ledger.complete() != generation.complete(before):
            raise ValueError(f"{ledger.complete()} complete records, the store counts another")
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
        log.warning("ledger %s cannot be used (%s): the store is read instead", where, exc)
        return None
    differs = _differs(store, ledger)
    if differs:
        log.info("ledger %s: the store holds %s: the store is read", where, differs)
        return None
    return ledger


def saved(where: Path) -> Ledger:
    """The ledger in the file ``where``; ValueError (and the like) when it is not one."""
    raw = json.loads(where.read_bytes())
    if raw.get("format") != FORMAT:
        raise ValueError(f"format {raw.get('format')!r}, not {FORMAT}")
    if raw["fields"] != NAMES:
        raise ValueError("written with other record fields")
    counts = {str(k): int(v) for k, v in raw["counts"].items()}
    vectors = {str(k): int(v) for k, v in raw["vectors"].items()}
    records = tuple(map(_record, raw["records"]))
    return Ledger(str(raw["token"]), records, counts, str(raw["model"]), vectors)


def _record(values: Any) -> DocumentRecord:
    """A record as ``save`` writes it (its fields' values in ``NAMES`` order): typed by
    position, without ``from_store``'s look at each field (the ledger's own output)."""
    if type(values) is not list or len(values) != len(NAMES):
        raise ValueError(f"not a record: {str(values)[:100]}")
    record = DocumentRecord(*values)
    if record.status not in STATUSES:
        raise ValueError(f"record {str(record.id)[:100]}: unknown status")
    return record


def _differs(store: Store, ledger: Ledger) -> str:
    """What the store's totals say that the ledger does not ("": nothing), in one small
    request: a write from outside Folio moves no generation (chunks deleted through the
    API, records rewritten), and the ingest is what repairs it, so it must see it."""
    chunks, records, vectors = store.searches(
        [
            {"collection": CHUNKS, "q": "*", "per_page": 0},
            {
                "collection": DOCUMENTS,
                "q": "*",
                "per_page": 0,
                "facet_by": "status,config",
                "max_facet_values": 100,
            },
            # A model's vectors deleted from outside are seen too (no model: counts none).
            count_searches(ledger.model or "-")[1],
        ]
    )
    mine = ledger.records
    totals = {
        "vectors": (int(vectors["found"]), sum(ledger.vectors.values())),
        "chunks": (int(chunks["found"]), sum(ledger.counts.values())),
        "records": (int(records["found"]), len(mine)),
        "statuses": (facet_values(records, "status"), dict(Counter(r.status for r in mine))),
        "settings": (
            facet_values(records, "config"),
            dict(Counter(r.config for r in mine if r.config)),
        ),
    }
    return ", ".join(f"other {name}" for name, (have, want) in totals.items() if have != want)


def updated(store: Store, old: Ledger, touched: Collection[str]) -> Ledger:
    """``old`` with the records and chunk counts of the ``touched`` doc_ids read again
    (the whole store when many were); its token is set when it is saved."""
    if len(touched) > READ_ALL:
        return read(store)
    ids = sorted(touched)
    # The records of the documents not touched are kept as they are, typed once.
    by_id = {r.id: r for r in old.records if r.doc_id not in touched}
    for start in range(0, len(ids), ID_BATCH):
        named = ",".join(quote(i) for i in ids[start : start + ID_BATCH])
        for row in store.export(DOCUMENTS, f"doc_id:[{named}]", include=FIELDS):
            record = DocumentRecord.from_store(row)
            by_id[record.id] = record
    counts = {d: n for d, n in old.counts.items() if d not in touched}
    counts |= store.chunk_counts(ids) if ids else {}
    vectors = {d: n for d, n in old.vectors.items() if d not in touched}
    vectors |= embedded_of(store, old.model, ids) if ids and old.model else {}
    return Ledger("", _sorted(by_id.values()), counts, old.model, vectors)


def lexical(known: Ledger | None, now: Ledger, touched: Collection[str]) -> Known:
    """What the lexical index's sync is told: the complete documents now and, since the
    ledger the run found (``known``), the entries then and now of those it touched (the
    others are the same in both)."""
    if known is None:
        return Known(now.catalog)
    if len(touched) > READ_ALL:
        return Known(now.catalog, known.token, paired(known.catalog(), now.catalog()))
    then, fresh = (
        catalog_of_records(r for r in ledger.records if r.doc_id in touched)
        for ledger in (known, now)
    )
    return Known(now.catalog, known.token, paired(then, fresh))


def save(store: Store, ledger: Ledger | None, token: str | None) -> None:
    """Write the ledger as of the store state ``token`` (None, or records that do not add
    up to what it counts: remove it). Atomic; a failure is said and the run goes on (the
    next ingest reads the store)."""
    where = path(store)
    if ledger is None or token is None or ledger.complete() != generation.complete(token):
        discard(store)
        return
    ledger = replace(ledger, token=token)
    blob = json.dumps(
        {
            "format": FORMAT,
            "token": ledger.token,
            "fields": NAMES,
            "records": [_values(r) for r in ledger.records],
            "counts": dict(ledger.counts),
            "model": ledger.model,
            "vectors": dict(ledger.vectors),
        }
    )
    tmp = None
    try:
        where.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(prefix=".ledger-", dir=where.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:  # ASCII: json escapes the rest
            fh.write(blob)
        os.replace(tmp, where)
        tmp = None
    except OSError as exc:
        log.warning("ledger %s not written (%s): the next ingest reads the store", where, exc)
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def discard(store: Store) -> None:
    with contextlib.suppress(OSError):
        path(store).unlink()
