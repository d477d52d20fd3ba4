"""An ingest reads only the files that changed: each file's hash is kept with its stat
(size, mtime, ctime, inode, device) and trusted while the stat is the same and was not
racy (``pipeline.ingest.hashes``). Real files, real `folio` processes where the bytes
read are counted; against the real server."""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline import make_config
from pipeline.index.schema import DOCUMENTS
from pipeline.index.store import Store
from pipeline.ingest import CHANGED, IngestOptions, ingest
from pipeline.ingest.hashes import RACY_NS, Entry, HashCache, Stat
from pipeline.ingest.plan import hash_cache, hashed
from pipeline.ingest.report import Report
from pipeline.shared.limits import Limits

from .helpers import ROOT, folio, load_script

BENCH = load_script("bench_plan")
CONFIG = make_config()
ONE = IngestOptions(workers=1)
PAST_RACY = RACY_NS / 1e9 + 0.1  # seconds after a write when its file's hash is trusted


def book(path: Path, words: str) -> Path:
    path.write_text(f"# {words.title()}\n\nA page about {words}, long enough to chunk.\n")
    return path


def doc_ids(store: Store) -> dict[str, str]:
    return {str(r["path"]): str(r["doc_id"]) for r in store.export(DOCUMENTS)}


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def trusted(store: Store, path: Path) -> str | None:
    """The hash the cache would give for ``path`` as it is now, without reading it."""
    return HashCache.load(hash_cache(store)).known(str(path), path.stat())


def ingest_counting_reads(tmp_path: Path, *args: str) -> tuple[dict[str, object], int]:
    """``folio ingest ARGS --json`` as a process of its own: its report and the bytes its
    ``read`` calls returned (``rchar`` of /proc/self/io at its exit)."""
    io = tmp_path / "io.txt"
    env = os.environ | {"FOLIO_IO_OUT": str(io)}
    done = subprocess.run(
        [sys.executable, "-c", BENCH.WRAP, "ingest", *args, "--json"],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout), BENCH.proc_io(io.read_text())["rchar"]


def test_an_unchanged_reingest_reads_none_of_the_files_and_rehash_reads_them_all(
    store: Store, folio_env: Path, tmp_path: Path
) -> None:
    lib = tmp_path / "pdfs"
    lib.mkdir()
    side = 1600  # 7.7 MB of pixels that do not compress
    pool = ["Ownership rules decide when a value is dropped and who may borrow it. " * 9]
    total = 0
    for i in range(4):
        text = [f"Document {i}.", *BENCH.page_lines(pool, random.Random(i))]
        total += BENCH.make_pdf(lib / f"doc{i}.pdf", text, os.urandom(side * side * 3), side)
    time.sleep(PAST_RACY)
    first, _ = ingest_counting_reads(tmp_path, str(lib))
    assert len(first["ingested"]) == 4  # type: ignore[arg-type]
    again, read = ingest_counting_reads(tmp_path, str(lib))
    assert len(again["unchanged"]) == 4  # type: ignore[arg-type]
    rehashed, read_all = ingest_counting_reads(tmp_path, str(lib), "--rehash")
    assert len(rehashed["unchanged"]) == 4  # type: ignore[arg-type]
    # The two runs differ only in reading the files (before the cache every ingest
    # read them all, and the two counts were the same); the rest is Python's own reads.
    assert read_all - read >= 0.95 * total, (read_all, read, total)
    assert read < total, (read, total)


def test_rehash_is_in_the_help(folio_env: Path) -> None:
    help_text = folio(os.environ.copy(), "ingest", "--help").stdout
    assert "--rehash" in help_text and "ctime" in help_text


@pytest.mark.parametrize("how", ["in place", "replaced"])
def test_a_rewrite_of_the_same_size_and_mtime_is_ingested(
    store: Store, tmp_path: Path, how: str
) -> None:
    """A tool can put the size and mtime back (``touch -r``, ``rsync -t``, ``cp -p``),
    not the ctime, nor the inode of a file that replaced the old one."""
    lib = tmp_path / "lib"
    lib.mkdir()
    target = book(lib / "a.md", "apples and pears")
    book(lib / "b.md", "bananas")
    time.sleep(PAST_RACY)
    ingest([str(lib)], CONFIG, store, ONE)
    before = target.stat()
    assert trusted(store, target) == sha(target)  # the next run would not read it
    text = target.read_text().replace("apples", "grapes")
    if how == "in place":
        target.write_text(text)
    else:
        other = tmp_path / "new.md"
        other.write_text(text)
        os.replace(other, target)
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    now = target.stat()
    assert (now.st_size, now.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    report = ingest([str(lib)], CONFIG, store, ONE)
    assert report.ingested == [str(target)]
    assert doc_ids(store)[str(target)] == sha(target)


@pytest.mark.parametrize(
    "damage",
    ["garbage", "truncated", "nested", "wrong shape", "another format", "a folder"],
)
def test_a_damaged_cache_is_ignored_and_rebuilt(
    store: Store, folio_env: Path, tmp_path: Path, damage: str
) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    files = [book(lib / "a.md", "apples"), book(lib / "b.md", "bananas")]
    env = os.environ.copy()
    assert folio(env, "ingest", str(lib)).returncode == 0
    cache = hash_cache(store)
    good = cache.read_bytes()
    if damage == "a folder":
        cache.unlink()
        (cache / "inside").mkdir(parents=True)
    else:
        cache.write_bytes(
            {
                "garbage": b"\x00\xff not json",
                "truncated": good[: len(good) // 2],
                "nested": b"[" * 100_000,  # json's recursion limit
                "wrong shape": json.dumps({"format": 1, "files": {str(files[0]): [1]}}).encode(),
                "another format": good.replace(b'"format": 1', b'"format": 99'),
            }[damage]
        )
    run = folio(env, "ingest", str(lib), "--json")
    assert run.returncode == 0, run.stderr
    assert len(json.loads(run.stdout)["unchanged"]) == 2
    assert "cache of file hashes" in run.stderr and "Traceback" not in run.stderr
    if damage != "a folder":  # rebuilt: every file's entry, as the file is now
        entries = json.loads(cache.read_bytes())["files"]
        assert {p: e[0] for p, e in entries.items()} == {str(f): sha(f) for f in files}
    again = folio(env, "ingest", str(lib))
    assert again.returncode == 0 and "Traceback" not in again.stderr


def test_a_file_just_written_is_hashed_again_by_the_next_run(tmp_path: Path) -> None:
    """Git's racy rule: written within RACY_NS of its hashing, a file could be written
    again with the same timestamps (a coarse file-system clock); its entry waits a run."""
    f = book(tmp_path / "a.md", "apples")
    cache_file = tmp_path / "hashes.json"
    cache = HashCache.load(cache_file)
    (found,) = hashed([f], Limits(), Report(), cache)
    cache.save()
    assert HashCache.load(cache_file).known(str(f), f.stat()) is None  # racy
    time.sleep(PAST_RACY)
    cache = HashCache.load(cache_file)
    hashed([f], Limits(), Report(), cache)  # read again, now with old timestamps
    cache.save()
    assert HashCache.load(cache_file).known(str(f), f.stat()) == found.sha256 == sha(f)


def test_an_entry_is_trusted_only_with_the_same_stat_and_old_timestamps() -> None:
    s = Stat(size=10, mtime_ns=5 * 10**9, ctime_ns=5 * 10**9, ino=7, dev=3)
    old = Entry("0" * 64, s, seen_ns=s.mtime_ns + RACY_NS)
    assert old.trusted(s)
    assert not Entry("0" * 64, s, seen_ns=s.mtime_ns + RACY_NS - 1).trusted(s)
    for field in ("size", "mtime_ns", "ctime_ns", "ino", "dev"):
        other = Stat(**{k: getattr(s, k) + (k == field) for k in Stat.__dataclass_fields__})
        assert not old.trusted(other), field
    future_mtime = Stat(10, 99 * 10**9, 5 * 10**9, 7, 3)
    assert not Entry("0" * 64, future_mtime, seen_ns=10 * 10**9).trusted(future_mtime)


def test_an_entry_whose_values_make_no_sense_is_not_trusted(tmp_path: Path) -> None:
    """Entries are checked as their files are looked up: one that is not a hash and a
    stat (a hand-edited cache) has its file hashed again, the others are still used."""
    a, b = book(tmp_path / "a.md", "apples"), book(tmp_path / "b.md", "bananas")
    time.sleep(PAST_RACY)
    cache_file = tmp_path / "hashes.json"
    cache = HashCache.load(cache_file)
    hashed([a, b], Limits(), Report(), cache)
    cache.save()
    good = json.loads(cache_file.read_bytes())
    for bad in (["Z" * 64], [None], [sha(a).upper()]):
        raw = json.loads(json.dumps(good))
        raw["files"][str(a)][0:1] = bad
        cache_file.write_text(json.dumps(raw))
        assert HashCache.load(cache_file).known(str(a), a.stat()) is None, bad
        assert HashCache.load(cache_file).known(str(b), b.stat()) == sha(b)
    raw = json.loads(json.dumps(good))
    raw["files"][str(a)][-1] = "later"  # seen_ns not a number
    cache_file.write_text(json.dumps(raw))
    assert HashCache.load(cache_file).known(str(a), a.stat()) is None


def test_a_file_rewritten_during_ingest_is_read_again_next_run(
    store: Store, tmp_path: Path
) -> None:
    """Rewritten between the plan and its worker's read, keeping size and mtime: the
    worker says so (stage read), and the next run reads it."""
    lib = tmp_path / "lib"
    lib.mkdir()
    target = book(lib / "a.md", "apples")
    time.sleep(PAST_RACY)
    ingest([str(lib)], CONFIG, store, ONE)
    target.write_text(target.read_text() + "\nMore about apples.\n")
    time.sleep(PAST_RACY)
    before = target.stat()
    new = target.read_text().replace("apples", "grapes")

    def rewrite(event: str, totals: dict[str, int]) -> None:
        if event == "start":  # planned with its hash, not yet read by its worker
            target.write_text(new)
            os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))

    report = ingest([str(lib)], CONFIG, store, ONE, progress=rewrite)
    assert [(f.path, f.stage, f.reason) for f in report.failed] == [(str(target), "read", CHANGED)]
    again = ingest([str(lib)], CONFIG, store, ONE)
    assert again.ingested == [str(target)] and not again.failed
    assert doc_ids(store)[str(target)] == sha(target)


def test_a_cached_hash_the_bytes_do_not_match_is_forgotten(store: Store, tmp_path: Path) -> None:
    """Should an entry be wrong (a change no timestamp shows), the worker's read finds
    the bytes are not those of the hash: the file fails once, and the next run hashes it
    instead of trusting the entry again (else it failed on every run)."""
    lib = tmp_path / "lib"
    lib.mkdir()
    target = book(lib / "a.md", "apples")
    ingest([str(lib)], CONFIG, store, ONE)
    wrong = Entry("f" * 64, Stat.of(target.stat()), seen_ns=time.time_ns() + 10 * RACY_NS)
    cache = HashCache(hash_cache(store), {str(target): wrong.to_json()})
    cache.save()
    first = ingest([str(lib)], CONFIG, store, ONE)
    assert [(f.path, f.reason) for f in first.failed] == [(str(target), CHANGED)]
    again = ingest([str(lib)], CONFIG, store, ONE)
    assert not again.failed and again.unchanged == [str(target)]


def test_the_cache_keeps_other_folders_and_forgets_files_gone(store: Store, tmp_path: Path) -> None:
    a, b = tmp_path / "A", tmp_path / "B"
    a.mkdir()
    b.mkdir()
    kept, gone = book(a / "kept.md", "apples"), book(a / "gone.md", "pears")
    odd = b / os.fsdecode(b"caf\xe9 \xff.md")  # not UTF-8: a surrogate-escaped name
    book(odd, "bananas")
    time.sleep(PAST_RACY)
    ingest([str(a)], CONFIG, store, ONE)
    ingest([str(b)], CONFIG, store, ONE)
    gone.unlink()
    ingest([str(a)], CONFIG, store, IngestOptions(workers=1, prune=True))
    cache = HashCache.load(hash_cache(store))
    assert sorted(cache.old) == sorted([str(kept), str(odd)])
    assert cache.known(str(odd), odd.stat()) == sha(odd)
