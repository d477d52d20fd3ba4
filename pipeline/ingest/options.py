"""How an ingest runs: one value that the CLI, ``Library.ingest`` and ``ingest`` pass on."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import InvalidInput
from ..index.store import BATCH_SIZE
from ..shared.inputs import quoted
from ..shared.limits import Limits


@dataclass(frozen=True, slots=True)
class IngestOptions:
    """``limits``: each file's time, size and worker memory (a file that breaks one is
    reported in ``failed`` and the run goes on); ``embed``: store snippet vectors for
    dense retrieval, ``None`` when the dense extra can run here; ``batch_size``: chunks
    per Typesense import (a smaller one only shapes the load in tests and drills);
    ``rehash``: read and hash every file, trusting no hash kept from an earlier run
    (``hashes``)."""

    prune: bool = False  # forget the files under the given paths that are gone
    workers: int | None = None  # worker processes; None: one per core, at most one per file
    embed: bool | None = None
    limits: Limits = field(default_factory=Limits)
    batch_size: int = BATCH_SIZE
    rehash: bool = False

    def __post_init__(self) -> None:
        if self.workers is not None and self.workers < 1:
            raise InvalidInput(f"workers must be 1 or more, not {quoted(self.workers)}")
        if self.batch_size < 1:
            raise InvalidInput(f"batch_size must be positive, not {quoted(self.batch_size)}")
