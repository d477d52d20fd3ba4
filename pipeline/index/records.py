"""The records Folio stores, typed: one per file (``folio_documents``) and one per chunk
(``folio_chunks``). Their fields are the collections' schemas (``schemas/*.json``); a test
holds the two together."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, ClassVar, Literal, get_args

from ..model import STAGES, Chunk, Stage
from ..shared import pathtext
from .schema import CHUNKS, Encoded, encoded

Status = Literal["indexing", "complete", "empty", "failed", "duplicate"]
STATUSES: tuple[Status, ...] = get_args(Status)
DONE: frozenset[Status] = frozenset({"complete", "empty"})
# Breadcrumb levels stored as facet fields of their own (crumb_1 … crumb_3).
CRUMB_LEVELS = 3


@dataclass(frozen=True, slots=True)
class DocumentRecord:
    """One file of the library. ``id`` is the content hash (``doc_id``) for the file that
    holds the content, ``copy-…`` for another file with the same bytes (a duplicate)."""

    id: str
    doc_id: str
    path: str
    title: str
    format: str
    bytes: int
    sha256: str
    status: Status
    sections: int = 0
    snippets: int = 0
    ingested_at: int = 0
    config: str | None = None  # the chunking fingerprint it was made with
    author: str | None = None
    pages: int | None = None
    backend: str | None = None
    heading_mode: str | None = None
    error: str | None = None
    stage: Stage | None = None
    page_map: str | None = None  # JSON [[number, label, char_start, char_end], ...]
    headings: str | None = None  # every heading once, in order (``index.headings``)

    @classmethod
    def from_store(cls, stored: Mapping[str, Any]) -> DocumentRecord:
        """A record as Typesense returns it (optional fields may be absent; unknown
        fields, from another Folio version, are left out)."""
        values = {k: v for k, v in stored.items() if k in _RECORD_FIELDS}
        status = str(values.get("status", ""))
        if status not in STATUSES:
            raise ValueError(f"document record {stored.get('id')!r}: unknown status {status!r}")
        if values.get("stage") not in (None, *STAGES):
            values.pop("stage")  # another Folio's stage name: the error text still says it
        if "path" in values:
            values["path"] = pathtext.os_path(str(values["path"]))
        return cls(**values)

    def to_store(self) -> dict[str, Any]:
        """The Typesense document: optional fields left out when unset; text made valid
        UTF-8 (``as_utf8``)."""
        return as_utf8({k: v for k, v in asdict(self).items() if v is not None}, "path")

    def with_status(self, status: Status, **changes: Any) -> DocumentRecord:
        return replace(self, status=status, **changes)

    @property
    def is_copy(self) -> bool:
        return self.id != self.doc_id

    @property
    def chunks(self) -> int:
        return self.sections + self.snippets


# Read once: ``fields()`` on every record was a third of reading 7,600 of them.
_RECORD_FIELDS = frozenset(f.name for f in fields(DocumentRecord))


@dataclass(frozen=True, slots=True)
class ChunkRecord:
    """A chunk as stored: the chunk's contract fields, the document's format, its first
    breadcrumb levels as facets and, when dense retrieval is on, its embedding with the
    name of the model that made it (``embedder``: what vector coverage is counted by)."""

    chunk: Chunk
    format: str
    embedding: tuple[float, ...] | None = None
    embedder: str | None = None

    # Stored fields that are not ``Chunk.to_dict`` keys.
    EXTRA: ClassVar[tuple[str, ...]] = (
        "format",
        *(f"crumb_{n}" for n in range(1, CRUMB_LEVELS + 1)),
        "embedding",
        "embedder",
    )

    @classmethod
    def from_chunk(cls, chunk: Chunk, fmt: str) -> ChunkRecord:
        return cls(chunk, fmt)

    @classmethod
    def from_store(cls, stored: Mapping[str, Any]) -> ChunkRecord:
        """A record as Typesense returns it (``to_store``'s inverse)."""
        names = {f.name for f in fields(Chunk)}
        values = {k: v for k, v in stored.items() if k in names}
        text, full = str(stored["text"]), str(stored["retrieval_text"])
        values["context"] = full[: len(full) - len(text)]
        for key in ("breadcrumb", "content_hints", "table_headers"):
            values[key] = tuple(values[key])
        for key in ("parent_id", "page_start", "page_end"):
            values.setdefault(key, None)
        fm = stored.get("frontmatter")
        values["frontmatter"] = json.loads(fm) if fm is not None else None
        values["source"] = pathtext.os_path(str(values["source"]))
        vector = stored.get("embedding")
        model = stored.get("embedder") if vector else None
        return cls(
            Chunk(**values),
            str(stored["format"]),
            tuple(vector) if vector else None,
            str(model) if model else None,
        )

    def to_store(self) -> dict[str, Any]:
        """The Typesense document: nulls dropped (optional fields), front matter as
        JSON text."""
        doc = self.chunk.to_dict()
        doc["format"] = self.format
        for key in ("parent_id", "page_start", "page_end"):
            if doc[key] is None:
                del doc[key]
        fm = doc.pop("frontmatter")
        if fm is not None:
            doc["frontmatter"] = json.dumps(fm, ensure_ascii=False, sort_keys=True)
        for level, title in enumerate(self.chunk.breadcrumb[1 : CRUMB_LEVELS + 1], start=1):
            doc[f"crumb_{level}"] = title
        if self.embedding is not None:
            doc["embedding"] = list(self.embedding)
            if self.embedder:
                doc["embedder"] = self.embedder
        return as_utf8(doc, "source")

    def encoded(self) -> Encoded:
        """``to_store`` as the line an import sends (``schema.encoded``)."""
        return encoded(self.to_store(), CHUNKS)


def as_utf8(doc: dict[str, Any], path: str) -> dict[str, Any]:
    """``doc`` with its text valid UTF-8, which Typesense needs: a file name that is not
    (and the title or breadcrumb taken from it) holds lone surrogates. The ``path`` field
    in the reversible ``stored`` form, other text ``shown``. Only such text is copied."""
    for key, value in doc.items():
        if isinstance(value, str):
            doc[key] = pathtext.stored(value) if key == path else pathtext.shown(value)
        elif isinstance(value, (list, tuple)) and value and isinstance(value[0], str):
            doc[key] = type(value)(pathtext.shown(v) for v in value)
    return doc
