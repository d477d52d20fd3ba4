"""What an ingest tells its caller: the ``Report`` at the end, progress on the way."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from ..index.records import DocumentRecord
from .files import Failure
from .process import FileResult

ProgressHook = Callable[[str, dict[str, int]], None]


@dataclass(slots=True)
class Report:
    ingested: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)
    duplicates: list[tuple[str, str]] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)
    failed: list[Failure] = field(default_factory=list)
    sections: int = 0
    snippets: int = 0
    pages: int = 0
    seconds: dict[str, float] = field(
        default_factory=lambda: {
            "extract": 0.0,
            "chunk": 0.0,
            "embed": 0.0,
            "index": 0.0,
            "plan": 0.0,  # hashing, reading the records, the unchanged check
            "lexical": 0.0,  # bringing the BM25 index up to date
            "total": 0.0,
        }
    )
    embedder: str = ""  # the model that embedded the snippets; empty: not embedded
    embedded: int = 0  # snippets embedded in this run
    # unchanged files whose stored snippets got the vectors they lacked
    vectors_added: list[str] = field(default_factory=list)
    # said when the library held vectors of another model (embedding.follow_model)
    model_change: str = ""
    interrupted: bool = False

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["failed"] = [asdict(f) for f in self.failed]
        return out

    def processed(self, result: FileResult) -> None:
        """Count a file's worker time or its failure (its vectors are counted where
        they are made: ``embedding.Embedding``)."""
        self.seconds["extract"] += result.extract_s
        self.seconds["chunk"] += result.chunk_s
        if result.failure is not None:
            self.failed.append(result.failure)

    def completed(self, record: DocumentRecord) -> None:
        """Count a document whose chunks are all stored."""
        # A document with no indexable text (front matter only, say) is recorded and
        # reported as empty: never a silent empty result, but not a failure either.
        (self.empty if record.status == "empty" else self.ingested).append(record.path)
        self.sections += record.sections
        self.snippets += record.snippets
        self.pages += record.pages or 0


class Progress:
    """The totals handed to a ``ProgressHook``: files to process and done, chunks, pages."""

    def __init__(self, hook: ProgressHook | None, files: int) -> None:
        self.hook = hook
        self.totals = {"files": files, "done": 0, "chunks": 0, "pages": 0}
        if hook:
            hook("start", self.totals)

    def advance(self, result: FileResult) -> None:
        if result.failure is None:
            self.totals["chunks"] += len(result.chunks)
            self.totals["pages"] += (result.record.pages if result.record else 0) or 0
        self.totals["done"] += 1
        if self.hook:
            self.hook("advance", self.totals)
