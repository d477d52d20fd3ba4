#!/usr/bin/env python3
"""Concurrent writers and readers against one library, then a check against a clean ingest.

What one run does:

1. generates a library of markdown files (some identical) in a temporary folder and starts
   a fresh embedded Typesense in a temporary ``FOLIO_HOME``;
2. for ``--minutes``, ``--clients`` threads each run real ``folio`` commands one after the
   other — ``ingest`` (from the library's parent, or from inside it as ``.`` or a subfolder,
   a third of them with ``--prune``), ``delete`` of a random file, ``reindex`` and
   ``search`` — while another thread edits, adds, removes and copies files;
3. then checks that every document recorded ``complete`` has all its chunks (before any
   repair), runs one last ``folio ingest --prune``, exports the collections, drops them,
   ingests the final files once into empty collections and compares: the same chunks (the
   cited ``source`` may name another copy of identical files), one record per file with the
   file's hash, one ``complete`` holder per content;
4. prints the counts and stops the server. Exit code 1 on any mismatch, unexpected command
   failure or hang.

An ingest may fail a file only at the ``read`` stage (the file was removed or rewritten
under it: expected here); a ``delete`` may find nothing to delete (exit 1).

    nice -n 10 python scripts/check/stress_concurrent.py                # 2 minutes
    nice -n 10 python scripts/check/stress_concurrent.py --minutes 5 --clients 4 --json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from pipeline.index import server  # noqa: E402
from pipeline.index.schema import CHUNKS, DOCUMENTS  # noqa: E402
from pipeline.index.settings import ServerSettings  # noqa: E402
from pipeline.index.store import Store  # noqa: E402

OP_TIMEOUT = 600.0
HOLDS = ("complete", "empty")


@dataclass
class Tally:
    lock: threading.Lock = field(default_factory=threading.Lock)
    ops: Counter[str] = field(default_factory=Counter)
    unexpected: list[str] = field(default_factory=list)
    hung: list[str] = field(default_factory=list)
    reported_read: int = 0  # files an ingest reported at stage read (removed/rewritten)
    edits: Counter[str] = field(default_factory=Counter)

    def add(self, kind: str, problem: str = "", read_failures: int = 0) -> None:
        with self.lock:
            self.ops[kind] += 1
            self.reported_read += read_failures
            if problem:
                self.unexpected.append(f"{kind}: {problem}")


def words(rng: random.Random, n: int) -> str:
    vocab = [f"{a}{b}" for a in ("ka", "lo", "mi", "su", "te", "ra") for b in range(300)]
    return " ".join(rng.choice(vocab) for _ in range(n))


def document(rng: random.Random, title: str) -> str:
    parts = [f"# {title}\n"]
    for i in range(rng.randint(2, 6)):
        parts.append(f"## Part {i} {words(rng, 2)}\n\n{words(rng, rng.randint(60, 500))}.\n")
    return "\n".join(parts)


def make_library(lib: Path, n: int, rng: random.Random) -> None:
    for i in range(n):
        folder = lib / ("a", "b", "c")[i % 3]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"doc{i:03}.md").write_text(document(rng, f"Doc {i}"), encoding="utf-8")
    for i in range(0, n, 7):  # identical files in another folder
        src = lib / ("a", "b", "c")[i % 3] / f"doc{i:03}.md"
        shutil.copy(src, lib / ("a", "b", "c")[(i + 1) % 3] / f"copy{i:03}.md")


def files(lib: Path) -> list[Path]:
    return sorted(p for p in lib.rglob("*.md") if p.is_file())


def mutate(lib: Path, rng: random.Random, tally: Tally, stop: threading.Event) -> None:
    n = 1000
    while not stop.wait(rng.uniform(0.3, 1.5)):
        present = files(lib)
        kind = rng.choice(("edit", "append", "remove", "add", "copy"))
        try:
            if kind == "add" or not present:
                n += 1
                folder = lib / rng.choice(("a", "b", "c"))
                (folder / f"new{n}.md").write_text(document(rng, f"New {n}"), encoding="utf-8")
            elif kind == "edit":
                target = rng.choice(present)
                target.write_text(document(rng, f"Edited {target.stem}"), encoding="utf-8")
            elif kind == "append":
                with rng.choice(present).open("a", encoding="utf-8") as fh:
                    fh.write(f"\n## Added\n\n{words(rng, 80)}.\n")
            elif kind == "remove":
                rng.choice(present).unlink()
            else:
                src = rng.choice(present)
                n += 1
                shutil.copy(src, lib / rng.choice(("a", "b", "c")) / f"dup{n}.md")
        except FileNotFoundError:
            continue
        with tally.lock:
            tally.edits[kind] += 1


def folio(env: dict[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pipeline", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=OP_TIMEOUT,
    )


def one_op(env: dict[str, str], lib: Path, rng: random.Random, tally: Tally) -> None:
    roll = rng.random()
    if roll < 0.45:
        where, target = rng.choice(((lib.parent, lib.name), (lib, "."), (lib, "a"), (lib, "b")))
        prune = rng.random() < 0.33
        kind = "ingest --prune" if prune else "ingest"
        args = ["ingest", target, "--workers", "1", "--no-embed", "--json"]
        done = folio(env, *args, *(["--prune"] if prune else []), cwd=where)
        try:
            report = json.loads(done.stdout)
        except ValueError:
            tally.add(kind, f"exit {done.returncode}: {done.stderr[-500:]}")
            return
        other = [f for f in report["failed"] if f["stage"] != "read"]
        reads = len(report["failed"]) - len(other)
        ok = done.returncode == 0 or (done.returncode == 1 and not other)
        tally.add(kind, "" if ok else f"exit {done.returncode}: {other[:2]}", reads)
    elif roll < 0.6:
        present = files(lib)
        if not present:
            return
        done = folio(env, "delete", str(rng.choice(present)), cwd=lib)
        ok = done.returncode == 0 or "no indexed document matches" in done.stderr
        tally.add("delete", "" if ok else f"exit {done.returncode}: {done.stderr[-500:]}")
    elif roll < 0.7:
        done = folio(env, "reindex", cwd=lib)
        tally.add("reindex", "" if done.returncode == 0 else done.stderr[-500:])
    else:
        done = folio(env, "search", words(rng, 1), "--json", cwd=lib)
        tally.add("search", "" if done.returncode == 0 else done.stderr[-500:])


def client(env: dict[str, str], lib: Path, seed: int, deadline: float, tally: Tally) -> None:
    rng = random.Random(seed)
    while time.monotonic() < deadline:
        try:
            one_op(env, lib, rng, tally)
        except subprocess.TimeoutExpired as exc:
            with tally.lock:
                tally.hung.append(" ".join(map(str, exc.cmd[3:])))


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def lost_chunks(store: Store) -> int:
    """Documents recorded complete whose chunks are not all in the collection."""
    counts = store.facet_counts(CHUNKS, "doc_id", 100_000)
    return sum(
        1
        for r in store.export(DOCUMENTS)
        if r["status"] == "complete" and counts.get(r["doc_id"], 0) != r["sections"] + r["snippets"]
    )


def snapshot(store: Store) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    return {c["id"]: c for c in store.export(CHUNKS)}, store.export(DOCUMENTS)


def drop_all(store: Store) -> None:
    for alias in store.client.aliases.retrieve()["aliases"]:
        store.client.aliases[alias["name"]].delete()
    for coll in store.client.collections.retrieve():
        store.client.collections[coll["name"]].delete()


def compare(
    got: tuple[dict[str, dict[str, Any]], list[dict[str, Any]]],
    want: tuple[dict[str, dict[str, Any]], list[dict[str, Any]]],
    hashes: dict[str, str],
) -> dict[str, int]:
    def bare(c: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in c.items() if k != "source"}

    chunks, records = got
    clean_chunks, clean_records = want
    ids = set(chunks) | set(clean_chunks)
    chunk_diff = sum(
        1
        for i in ids
        if i not in chunks or i not in clean_chunks or bare(chunks[i]) != bare(clean_chunks[i])
    )
    bad_source = sum(1 for c in chunks.values() if hashes.get(c["source"]) != c["doc_id"])
    by_path = {r["path"]: r for r in records}
    clean_by_path = {r["path"]: r for r in clean_records}
    record_diff = len(set(by_path) ^ set(clean_by_path)) + sum(
        1
        for p in set(by_path) & set(clean_by_path)
        if by_path[p]["doc_id"] != clean_by_path[p]["doc_id"] or by_path[p]["doc_id"] != hashes[p]
    )
    holders = Counter(
        r["doc_id"] for r in records if r["status"] in HOLDS and r["id"] == r["doc_id"]
    )
    contents = {r["doc_id"] for r in clean_records if r["status"] in HOLDS}
    holder_diff = sum(1 for d in contents if holders[d] != 1) + len(set(holders) - contents)
    return {
        "chunk_mismatches": chunk_diff,
        "sources_not_holding_their_content": bad_source,
        "record_mismatches": record_diff,
        "contents_without_one_holder": holder_diff,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--minutes", type=float, default=2.0)
    ap.add_argument("--files", type=int, default=40, help="files generated at the start")
    ap.add_argument("--clients", type=int, default=3, help="threads running folio commands")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="folio-stress-"))
    home, lib = tmp / "home", tmp / "library" / "lib"
    rng = random.Random(args.seed)
    make_library(lib, args.files, rng)
    running = server.start(home)
    try:
        env = {
            **os.environ,
            "FOLIO_HOME": str(home),
            "TYPESENSE_URL": running.node.url(),
            "TYPESENSE_API_KEY": running.api_key,
        }
        store = Store(ServerSettings(nodes=(running.node,), api_key=running.api_key))
        tally = Tally()
        stop = threading.Event()
        deadline = time.monotonic() + 60 * args.minutes
        t0 = time.monotonic()
        threads = [
            threading.Thread(target=client, args=(env, lib, args.seed * 100 + i, deadline, tally))
            for i in range(args.clients)
        ]
        editor = threading.Thread(target=mutate, args=(lib, random.Random(args.seed), tally, stop))
        for t in (*threads, editor):
            t.start()
        for t in threads:
            t.join()
        stop.set()
        editor.join()
        ran_s = time.monotonic() - t0

        lost = lost_chunks(store)  # before anything repairs it
        final = folio(
            env, "ingest", str(lib), "--prune", "--workers", "1", "--no-embed", "--json", cwd=tmp
        )
        final_report = json.loads(final.stdout)
        got = snapshot(store)
        drop_all(store)
        clean = folio(env, "ingest", str(lib), "--workers", "1", "--no-embed", "--json", cwd=tmp)
        want = snapshot(store)
        hashes = {str(p): sha(p) for p in files(lib)}
        result: dict[str, Any] = {
            "minutes": round(ran_s / 60, 2),
            "operations": dict(tally.ops),
            "operations_total": sum(tally.ops.values()),
            "file_edits": dict(tally.edits),
            "files_reported_at_read": tally.reported_read,
            "unexpected_failures": len(tally.unexpected),
            "hung": len(tally.hung),
            "complete_records_missing_chunks": lost,
            "final_ingest": {
                k: len(final_report[k])
                for k in ("ingested", "unchanged", "duplicates", "pruned", "failed")
            },
            "final_files": len(hashes),
            "final_chunks": len(want[0]),
            **compare(got, want, hashes),
        }
        result["clean_ingest_exit"] = clean.returncode
        bad = (
            result["unexpected_failures"]
            + result["hung"]
            + lost
            + result["chunk_mismatches"]
            + result["sources_not_holding_their_content"]
            + result["record_mismatches"]
            + result["contents_without_one_holder"]
            + (final.returncode != 0)
            + (clean.returncode != 0)
        )
        result["mismatches"] = bad
        if args.json:
            print(json.dumps(result))
        else:
            for key, value in result.items():
                print(f"{key}: {value}")
            for line in tally.unexpected[:10] + tally.hung[:10]:
                print(f"  {line}")
        return 1 if bad else 0
    finally:
        server.stop(home)
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
