"""What every ingest worker would build for itself on its first file, built once in the
ingesting process before the workers fork, so that they share it.

A worker's first file cost ~0.2 s of CPU more than the next ones: the token
estimator's model (the WordPiece vocabulary and its suffix regex, ~0.1 s), the stemmer,
and the PDF reader's modules, which ``extract`` imports on the first PDF (~0.1 s). With
one worker per core, each paid it; forked from a process that holds them, none does.
Under another start method (``spawn``, ``forkserver``) a worker starts from nothing,
so nothing is built here.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence
from dataclasses import replace
from importlib import import_module
from pathlib import PurePath

from ..chunk.tokens import make_counter
from ..extract.dispatch import PDF_SUFFIXES
from ..index.words import words
from .catalog import Found
from .process import Job

# The modules ``extract`` imports when it reads its first PDF (``dispatch._extract_pdf``).
PDF_MODULES = ("pipeline.extract.pdf.reader", "pipeline.extract.pdf.marker")


def forks() -> bool:
    """Workers start as copies of this process (Linux's default start method)."""
    return multiprocessing.get_start_method(allow_none=False) == "fork"


def warm(job: Job, todo: Sequence[Found]) -> None:
    """Build what a worker's first file would (see the module's docstring). The
    estimator only: an exact tokenizer file (Rust threads) is loaded by each worker, as
    before, since threads started before a fork do not survive it."""
    make_counter(replace(job.config, tokenizer=None)).count("warm")
    words("warm")
    if any(PurePath(f.path).suffix.lower() in PDF_SUFFIXES for f in todo):
        for name in PDF_MODULES:
            import_module(name)
