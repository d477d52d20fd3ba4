"""A long-running process (``folio mcp``, the web reader) answers query after query
without growing: nothing a query leaves behind is kept by the process."""

from __future__ import annotations

import shutil
import types
from pathlib import Path

import pytest

from pipeline import Library
from pipeline.errors import ConfigError, FolioError
from pipeline.index import vectors
from pipeline.index.store import Store
from pipeline.ingest import IngestOptions

ROOT = Path(__file__).parent.parent
EXAMPLES = ROOT / "examples" / "library"
MARKDOWN = ("fastapi-first-steps.md", "rust-operators.md", "rust-ownership.md")


def _raise() -> FolioError:
    with pytest.raises(FolioError) as caught:
        vectors.embedder()
    return caught.value


def _depth(tb: types.TracebackType | None) -> int:
    n = 0
    while tb is not None:
        n, tb = n + 1, tb.tb_next
    return n


def test_unavailable_embedder_raises_a_fresh_error_each_time() -> None:
    """Re-raising one cached exception appended every caller's frames to its traceback
    (and kept them, with their locals, alive): 1000 queries of `folio mcp` took it from
    260 to 676 MB. Each call gets its own error, with a traceback of its own call only."""
    first = _raise()
    for _ in range(200):
        assert vectors.unavailable() == str(first)
    last = _raise()
    assert last is not first and type(last) is type(first) and str(last) == str(first)
    assert _depth(last.__traceback__) == _depth(first.__traceback__) <= 3


def test_the_cached_reason_keeps_the_error_and_its_cause(monkeypatch: pytest.MonkeyPatch) -> None:
    """An error class with its own constructor comes back whole, cause included."""

    def broken() -> object:
        try:
            raise ImportError("no module named 'onnxruntime'")
        except ImportError as exc:
            raise ConfigError("dense.model", "cannot be loaded") from exc

    monkeypatch.setattr(vectors, "_load", broken)
    errors = []
    for _ in range(3):
        with pytest.raises(ConfigError) as caught:
            vectors.embedder()
        errors.append(caught.value)
    assert len({id(e) for e in errors}) == 3
    for e in errors:
        assert e.key == "dense.model" and str(e) == "config key 'dense.model': cannot be loaded"
        assert isinstance(e.__cause__, ImportError) and "onnxruntime" in str(e.__cause__)
        assert _depth(e.__traceback__) <= 3


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS in /proc/self/status")


def test_retrieve_calls_do_not_grow_the_process(store: Store, tmp_path: Path) -> None:
    """500 ``retrieve`` calls, default mode (it asks whether dense can run each time):
    the process stays within 20 MB of where it was after a warm-up."""
    lib = tmp_path / "lib"
    lib.mkdir()
    for name in MARKDOWN:
        shutil.copy(EXAMPLES / name, lib / name)
    library = Library(store)
    report = library.ingest([lib], options=IngestOptions(workers=1))
    assert len(report.ingested) == len(MARKDOWN)
    questions = ("how does ownership move a value", "query parameters", "operator overloading")
    for n in range(50):
        assert library.retrieve(questions[n % 3], budget=800).items
    before = _rss_mb()
    for n in range(500):
        library.retrieve(questions[n % 3], budget=800)
    grown = _rss_mb() - before
    assert grown < 20, f"RSS grew by {grown:.1f} MB over 500 retrieve calls"
