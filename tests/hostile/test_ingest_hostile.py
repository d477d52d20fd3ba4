"""A library full of hostile files: the good files are ingested, every bad one is
reported (path + stage), the run ends within a bound, and the limits hold."""

from __future__ import annotations

import faulthandler
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from pipeline import make_config
from pipeline.index.schema import CHUNKS, DOCUMENTS
from pipeline.index.store import Store
from pipeline.ingest import FileResult, Found, IngestOptions, Job, ingest, process_file
from pipeline.shared.limits import Limits, Note, supervise

from . import generate
from .conftest import running_as_root

CONFIG = make_config()
ROOT = Path(__file__).parent.parent.parent
GOOD = {
    "good-one.md": "# Good one\n\nThe first good document talks about rivers.\n",
    "good-two.md": "# Good two\n\n## Part\n\nThe second good document talks about lanterns.\n",
}
# the slowest fast cases are checked file by file in test_files.py; here smaller
# siblings keep the library quick
SKIP_IN_LIBRARY = {
    "md-long-line-8mb",
    "pdf-1000-pages",
    "md-headings-10000",
    # pypdf, the fallback, takes seconds to reach its page-tree and array limits
    "pdf-page-tree-bomb-1m",
    "pdf-page-tree-bomb-10g",
    "pdf-huge-kids-200000",
    "pdf-huge-array-2000000",
}


def build_library(root: Path) -> tuple[Path, list[Path]]:
    lib = root / "lib"
    (lib / "hostile").mkdir(parents=True)
    for name, text in GOOD.items():
        (lib / name).write_text(text)
    hostile: list[Path] = []
    for name, build in generate.cases().items():
        if name not in SKIP_IN_LIBRARY:
            hostile.append(build(lib / "hostile"))
    hostile.append(generate.md_long_line(lib / "hostile", 1))
    hostile.append(generate.pdf_many_pages(lib / "hostile", 200))
    hostile.extend(generate.odd_names(lib))
    generate.make_symlink_loops(lib)
    hostile.extend(lib / n for n in ("self-loop.md", "loop-a.md", "loop-b.md", "dangling.md"))
    fifo = lib / "fifo.md"
    os.mkfifo(fifo)
    hostile.append(fifo)
    return lib, hostile


def test_hostile_library_ingest(store: Store, tmp_path: Path) -> None:
    lib, hostile = build_library(tmp_path)
    t0 = time.monotonic()
    report = ingest(
        [str(lib)], CONFIG, store, IngestOptions(workers=2, limits=Limits(file_timeout=60))
    )
    elapsed = time.monotonic() - t0
    print(f"hostile library: {len(hostile) + 2} files in {elapsed:.1f} s")
    assert elapsed < 120
    assert not report.interrupted
    for name in GOOD:
        assert str(lib / name) in report.ingested
    failed = {f.path: f for f in report.failed}
    for f in report.failed:
        assert f.stage in {"read", "extract", "chunk", "index"} and f.reason
    for path in hostile:
        dup = dict(report.duplicates).get(str(path))  # same bytes as another file
        seen = [str(path), *([dup] if dup else [])]
        assert any(p in report.ingested or p in failed for p in seen), f"{path} unaccounted for"
    # the loop through the symlinked folder is not followed: nothing under lib/loop/
    assert not any("/loop/" in p for p in [*report.ingested, *failed])
    assert "not a regular file" in failed[str(lib / "fifo.md")].reason
    # what was ingested is complete in the store, with the chunks its record counts
    docs = {d["path"]: d for d in store.export(DOCUMENTS)}
    chunks = store.export(CHUNKS)
    for ingested in report.ingested:
        rec = docs[ingested]
        assert rec["status"] == "complete"
        n = sum(1 for c in chunks if c["doc_id"] == rec["doc_id"])
        assert n == rec["sections"] + rec["snippets"] > 0
    for failed_path, f in failed.items():
        if f.stage != "read":
            assert docs[failed_path]["status"] == "failed"


def _misbehaving(work: Found, job: Job, note: Note | None = None) -> FileResult:
    """``process_file``, except that it hangs, hogs memory or crashes while extracting
    files so named."""
    name = Path(work.path).name
    if "hang" in name:
        time.sleep(3600)
    elif "hog" in name:
        blob = bytearray(16 << 30)  # 16 GB: over any worker's cap
        del blob
    elif "crash" in name:
        faulthandler.disable()  # no traceback noise: the crash is the point
        os.kill(os.getpid(), signal.SIGSEGV)
    return process_file(work, job, note)


@pytest.mark.parametrize("workers", [1, 2])
def test_timeout_memory_and_crash_are_failures_and_the_rest_goes_on(
    store: Store, tmp_path: Path, workers: int
) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    for i in range(4):
        (lib / f"good-{i}.md").write_text(f"# Good {i}\n\nSome text number {i}.\n")
    for bad in ("hang", "hog", "crash"):
        (lib / f"{bad}.md").write_text(f"# {bad}\n\nbody\n")
    t0 = time.monotonic()
    options = IngestOptions(workers=workers, limits=Limits(file_timeout=2, max_memory_mb=1024))
    report = ingest([str(lib)], CONFIG, store, options, process=_misbehaving)
    assert time.monotonic() - t0 < 30
    assert sorted(report.ingested) == sorted(str(lib / f"good-{i}.md") for i in range(4))
    failed = {Path(f.path).name: f for f in report.failed}
    assert set(failed) == {"hang.md", "hog.md", "crash.md"}
    assert failed["hang.md"].stage == "extract"
    assert failed["hang.md"].reason.startswith("timed out after 2 s")
    assert failed["hog.md"].stage == "extract"
    assert failed["hog.md"].reason.startswith("memory limit exceeded")
    assert "SIGSEGV" in failed["crash.md"].reason


def test_size_guard(store: Store, tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "small.md").write_text("# Small\n\nFine.\n")
    generate.md_long_line(lib, 2)
    report = ingest(
        [str(lib)], CONFIG, store, IngestOptions(workers=1, limits=Limits(max_file_mb=1))
    )
    assert report.ingested == [str(lib / "small.md")]
    [f] = report.failed
    assert (f.path, f.stage) == (str(lib / "long-line-2mb.md"), "read")
    assert "file too large" in f.reason and "limit 1 MB" in f.reason


def _sleepy(item: float, note: object) -> float:
    time.sleep(item)
    return item


def test_supervise_kills_and_replaces_a_hung_worker() -> None:
    t0 = time.monotonic()
    out = list(
        supervise(
            _sleepy,
            [0.0, 30.0, 0.1, 0.2],
            lambda item, stage, reason: (item, stage, reason),
            workers=1,
            timeout=1.0,
            memory_mb=None,
        )
    )
    assert time.monotonic() - t0 < 10
    assert out[0] == 0.0 and out[2:] == [0.1, 0.2]
    assert out[1] == (30.0, "extract", "timed out after 1 s (file_timeout)")


def test_limits_options() -> None:
    assert Limits.from_options(None, None, None) == Limits()
    assert Limits.from_options(0, 0, 0) == Limits(None, None, None)
    with pytest.raises(ValueError):
        Limits(file_timeout=-1)


def test_cli_flags(tmp_path: Path) -> None:
    run = [sys.executable, "-m", "pipeline", "ingest", str(tmp_path)]
    bad = subprocess.run([*run, "--file-timeout", "-3"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--file-timeout" in bad.stderr
    help_ = subprocess.run([*run[:4], "--help"], capture_output=True, text=True)
    for flag in ("--file-timeout", "--max-file-mb", "--max-memory-mb"):
        assert flag in help_.stdout


_AS_NOBODY = r"""
import json, os, sys
from pipeline import make_config
from pipeline.index.settings import load_server_settings
from pipeline.index.store import Store
from pipeline.ingest import IngestOptions, ingest
from pipeline.shared.limits import Limits
import pipeline, encodings.utf_8_sig, tempfile
with tempfile.NamedTemporaryFile("w", suffix=".md") as fh:  # lazy imports happen now:
    fh.write("# Warm\n\nup.\n")                          # nobody may not read the stdlib
    fh.flush()
    pipeline.chunk_file(fh.name)
store = Store.connect(load_server_settings(None))
store.ensure_collections()
home = tempfile.mkdtemp(prefix="folio-nobody-")  # nobody's own state (the library lock)
os.chown(home, 65534, 65534)
os.environ["FOLIO_HOME"] = home
os.setgid(65534)
os.setuid(65534)
options = IngestOptions(workers=1, limits=Limits(file_timeout=None, max_memory_mb=None))
report = ingest([sys.argv[1]], make_config(), store, options)
print(json.dumps(report.to_dict()))
"""


def test_unreadable_file_is_reported(store: Store, folio_env: Path) -> None:
    """``chmod 000`` does not stop root, so as root the ingest runs in a child that
    drops to ``nobody`` first (the permission check is then real)."""
    lib = Path(tempfile.mkdtemp(prefix="folio-perm-"))
    try:
        lib.chmod(0o755)
        (lib / "readable.md").write_text("# Readable\n\nYes.\n")
        (lib / "locked.md").write_text("# Locked\n\nNo.\n")
        (lib / "locked.md").chmod(0o000)
        locked_dir = lib / "locked-dir"
        locked_dir.mkdir()
        (locked_dir / "inside.md").write_text("# Inside\n")
        locked_dir.chmod(0o000)
        if running_as_root():
            proc = subprocess.run(
                [sys.executable, "-c", _AS_NOBODY, str(lib)],
                capture_output=True,
                text=True,
                cwd=ROOT,
                timeout=120,
            )
            assert proc.returncode == 0, proc.stderr[-2000:]
            report = json.loads(proc.stdout)
        else:
            report = ingest([str(lib)], CONFIG, store, IngestOptions(workers=1)).to_dict()
        assert report["ingested"] == [str(lib / "readable.md")]
        failed = {f["path"]: f for f in report["failed"]}
        assert failed[str(lib / "locked.md")]["stage"] == "read"
        assert "ermission" in failed[str(lib / "locked.md")]["reason"]
        assert "ermission" in failed[str(locked_dir)]["reason"]
    finally:
        for p in (lib / "locked.md", lib / "locked-dir"):
            p.chmod(0o755)
        import shutil

        shutil.rmtree(lib, ignore_errors=True)
