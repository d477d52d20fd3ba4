"""What the evaluation and benchmark scripts all do, written once: the options for the
corpus root and a retrieval budget, the supported files under a path, aligned text
tables and the load average a benchmark reports. Where the data lives is ``data_dir``;
percentiles are ``stats``; question sets and their split are ``qa_sets``."""

from __future__ import annotations

import argparse
import os
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path

from data_dir import data_dir

from pipeline.chunking import SUPPORTED_SUFFIXES


def add_corpus(ap: argparse.ArgumentParser) -> None:
    """``--corpus``: the folder holding ``pdf/``, ``epub/``, ``markdown/`` and ``qa/``."""
    ap.add_argument("--corpus", type=Path, default=data_dir() / "corpus")


def add_budget(ap: argparse.ArgumentParser, default: int = 2000) -> None:
    """``--budget``: the token budget of each retrieve."""
    ap.add_argument("--budget", type=int, default=default, help=f"retrieve budget ({default})")


def files_under(path: str | Path, suffixes: Collection[str] = SUPPORTED_SUFFIXES) -> list[Path]:
    """The files under a folder (recursively, sorted) whose suffix is one of ``suffixes``;
    a file named itself is returned as it is."""
    p = Path(path)
    if p.is_dir():
        return sorted(f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in suffixes)
    return [p]


def text_table(
    header: Sequence[str], rows: Iterable[Sequence[str]], right: Collection[int] = ()
) -> str:
    """Columns padded to their widest cell (those in ``right`` aligned right), two spaces
    apart, a rule under the header, trailing spaces dropped."""
    body = [list(r) for r in rows]
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), rule, *(line(r) for r in body)])


def load_average() -> str:
    """The 1, 5 and 15-minute load averages, as a benchmark reports them beside its
    ratios ("?" where the system keeps none)."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"
