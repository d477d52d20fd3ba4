#!/usr/bin/env python3
"""Scale benchmark: ingest, a one-file change and retrieval at 10k, 100k (1M) snippets.

For each size it writes a library of book-sized markdown files (a few hundred snippets
each) made from real corpus text: the markdown documents of ``<corpus>/markdown`` and the
text of the EPUBs of ``<corpus>/epub``, cut into heading sections and dealt out, shuffled,
to the books; each book opens with a title and a line naming its copy, so no two files
have the same bytes (Folio indexes identical files once). The library goes into
``<dir>/lib-<size>`` and its own Folio home (embedded Typesense) into ``<dir>/home-<size>``
(``-hybrid`` after the size with ``--mode hybrid``).
Everything is measured as a user runs it: ``folio`` commands as processes.

Measured per size: the full ingest (``folio ingest DIR --json --no-embed``, wall and
snippets/s); an ingest with nothing changed; an ingest after one file got a paragraph
appended (wall, and the report's own extract/chunk/index/total seconds); the first
``folio retrieve --json`` after that change, then warm CLI retrieves; in-process
``Library.open().retrieve`` latency (first call apart, then p50/p95 over the questions)
in a child process of its own, with its RSS after the queries; ``folio search``; ``folio
mcp`` until it answered ``initialize`` and ``tools/list`` (and a first ``retrieve`` call);
peak RSS of every measured process (psutil samples of the process tree every 50 ms, and
the kernel's high-water mark from ``wait4``); the size on disk of ``$FOLIO_HOME/lexical``
and of the Typesense data directory; the Typesense server's restart time (``folio server
stop``, then ``folio server start``, which returns once the server is ready) and its RSS.
The load average is noted at the start and the end of every size: the machine may be
shared, and other work moves every number.

``--stages K`` ingests a size as a growing library instead: its files are moved in a K-th
at a time, with a ``folio ingest`` after each part (every part's files, snippets, wall and
rate are kept and printed in a second table); ``--ingest-minutes M`` then starts no part
that the last part's time says would end past M minutes, deletes the files never moved
in, and measures the size reached (the row ``files in the library ingested``, beside
``files built``): the largest size that fits in the time at hand, stated.

Every server it started is stopped at the end (``folio server stop`` per home), also on
error, Ctrl-C or SIGTERM. The generated data lives under ``--dir`` (default
``/tmp/bench-scale``), never in the repository.

    python scripts/bench/bench_scale.py                                  # 10k and 100k
    python scripts/bench/bench_scale.py --sizes 10000 --keep --json /tmp/scale-10k.json
    python scripts/bench/bench_scale.py --sizes 10000 --reuse            # skip build and ingest
    python scripts/bench/bench_scale.py --sizes 1000000 --stages 20 --ingest-minutes 100 --keep
    python scripts/bench/bench_scale.py --sizes 100000 --mode hybrid --no-restart

``--mode hybrid`` embeds every snippet as it is ingested (the ``dense`` extra and its
weights; about 20 snippets a second on two cores) and times hybrid retrieves everywhere
a lexical one is timed otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import random
import re
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # runnable from a fresh checkout without installing
    sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))  # scripts/shared
import rooms  # noqa: E402, F401  (puts every room of scripts/ on the path)
from common import add_budget, text_table  # noqa: E402  (scripts/ is on the path)
from data_dir import data_dir  # noqa: E402
from stats import percentile  # noqa: E402

try:
    import psutil
except ImportError:  # pragma: no cover - optional: the kernel's high-water marks remain
    psutil = None

DEFAULT_CORPUS = data_dir() / "corpus"
DEFAULT_DIR = Path(tempfile.gettempdir()) / "bench-scale"
FORMAT = 1  # of the generated library; a home built by another format is not reused
MARKER = "bench-scale.json"  # in the home: what was built there, and its full ingest
SNIPPETS_PER_FILE = 300
SAMPLE = 0.05  # seconds between RSS samples
MIB = 1 << 20
LONG = 24 * 3600.0  # an ingest at 1M snippets takes hours
SHORT = 900.0  # any other command
EDIT_WORDS = "quillwort zephyrine ledger"  # the appended paragraph's rare words

Log = Callable[[str], None]
Row = dict[str, Any]


# --------------------------------------------------------------------------- corpus text

_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_FRONT = re.compile(r"\A(?:---|\+\+\+)\n.*?\n(?:---|\+\+\+)\n", re.S)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{2,}")


def split_sections(text: str) -> list[str]:
    """``text`` cut before every ATX heading line outside fenced code."""
    sections: list[list[str]] = [[]]
    fence: str | None = None
    for line in text.splitlines():
        m = _FENCE.match(line)
        if m:
            fence = None if fence == m.group(1) else fence or m.group(1)
        elif fence is None and _ATX.match(line) and sections[-1]:
            sections.append([])
        sections[-1].append(line)
    return ["\n".join(s).strip("\n") for s in sections if any(x.strip() for x in s)]


def _markdown_texts(corpus: Path) -> Iterator[str]:
    for path in sorted((corpus / "markdown").rglob("*")):
        if path.suffix.lower() in {".md", ".mdx", ".markdown"} and path.is_file():
            yield _FRONT.sub("", path.read_text(encoding="utf-8", errors="replace"))


def _epub_texts(corpus: Path) -> Iterator[str]:
    from pipeline.extract import extract_file

    for path in sorted((corpus / "epub").glob("*.epub")):
        yield extract_file(path).text


def text_pool(corpus: Path, min_chars: int = 200) -> list[str]:
    """Heading sections of the corpus's markdown documents and EPUB texts, in a fixed
    order; sections shorter than ``min_chars`` (a heading and a line) are left out."""
    missing = [str(corpus / p) for p in ("markdown", "epub") if not (corpus / p).is_dir()]
    if missing:
        raise SystemExit(f"corpus folder(s) not found: {', '.join(missing)} (see --corpus)")
    pool: list[str] = []
    for text in (*_markdown_texts(corpus), *_epub_texts(corpus)):
        pool += [s for s in split_sections(text) if len(s) >= min_chars]
    if not pool:
        raise SystemExit(f"no text found under {corpus}")
    return pool


def _heading(section: str) -> str:
    m = _ATX.match(section.split("\n", 1)[0])
    return _plain(m.group(2)) if m else ""


def _plain(text: str) -> str:
    """Words of a heading or line without markdown markup."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\{[^}]*\}|<[^>]*>|[`*_\\]", "", text)
    return " ".join(text.split())


def demote(section: str) -> str:
    """A section opening with a level-1 heading, every heading one level deeper: in a
    book only its title is level 1."""
    m = _ATX.match(section.split("\n", 1)[0])
    if not m or len(m.group(1)) > 1:
        return section
    out, fence = [], None
    for line in section.split("\n"):
        f = _FENCE.match(line)
        if f:
            fence = None if fence == f.group(1) else fence or f.group(1)
        elif fence is None and _ATX.match(line) and not line.startswith("######"):
            line = "#" + line.lstrip(" ")
        out.append(line)
    return "\n".join(out)


# --------------------------------------------------------------------------- the library


class SectionDeck:
    """The pool dealt in a shuffled order, reshuffled each time it runs out: every book
    gets a different run of sections, and each section is used about equally often."""

    def __init__(self, pool: Sequence[str], rng: random.Random) -> None:
        self.pool, self.rng = pool, rng
        self.order: list[int] = []

    def draw(self) -> str:
        if not self.order:
            self.order = list(range(len(self.pool)))
            self.rng.shuffle(self.order)
        return self.pool[self.order.pop()]


def book_text(copy: int, of: int, deck: SectionDeck, target_chars: int, tag: str) -> str:
    first = deck.draw()
    title = _heading(first) or "Untitled"
    parts = [
        f"# Volume {copy:05d}: {title}",
        f"Copy {copy} of {of} ({tag}): sections of the corpus in an order of their own.",
        demote(first),
    ]
    size = sum(len(p) for p in parts)
    while size < target_chars:
        section = demote(deck.draw())
        parts.append(section)
        size += len(section) + 2
    return "\n\n".join(parts) + "\n"


def snippets_per_char(pool: Sequence[str], seed: int, books: int = 3) -> float:
    """Folio's snippets per character of generated book text (the default config)."""
    from pipeline import chunk_markdown

    deck = SectionDeck(pool, random.Random(f"calibrate-{seed}"))
    chars = snippets = 0
    for i in range(books):
        text = book_text(i, books, deck, 400_000, "calibration")
        chars += len(text)
        snippets += sum(1 for c in chunk_markdown(text) if c.tier == "snippet")
    return snippets / chars


@dataclass(frozen=True, slots=True)
class Built:
    files: int
    bytes: int
    chars_per_file: int
    seconds: float


def build_library(
    lib: Path,
    size: int,
    pool: Sequence[str],
    seed: int,
    rate: float,
    per_file: int = SNIPPETS_PER_FILE,
) -> Built:
    """``lib`` filled with ``size`` snippets' worth of books (as calibrated by ``rate``),
    ``per_file`` each; the same size and seed write the same bytes."""
    t0 = time.perf_counter()
    if lib.exists():
        shutil.rmtree(lib)
    lib.mkdir(parents=True)
    files = max(1, round(size / per_file))
    chars = round(size / files / rate)
    deck = SectionDeck(pool, random.Random(f"{seed}-{size}"))
    total = 0
    for i in range(1, files + 1):
        data = book_text(i, files, deck, chars, f"bench-scale size {size} seed {seed}")
        path = lib / f"volume-{i:05d}.md"
        path.write_text(data, encoding="utf-8")
        total += path.stat().st_size
    return Built(files, total, chars, time.perf_counter() - t0)


def make_questions(pool: Sequence[str], n: int, seed: int) -> list[str]:
    """``n`` questions from the corpus: half name a section's heading, half quote a run
    of words from a prose line."""
    rng = random.Random(f"questions-{seed}")
    headed = [h for h in map(_heading, pool) if 2 <= len(h.split()) <= 8]
    lines = [ln for s in pool for ln in s.split("\n")[1:] if len(ln) > 80 and ln[:1].isalpha()]
    forms = ("What is {}?", "How does {} work?", "Explain {}.")
    out: list[str] = []
    while len(out) < n and (headed or lines):
        if len(out) % 2 == 0 and headed:
            out.append(forms[len(out) // 2 % 3].format(rng.choice(headed).rstrip("?.:")))
            continue
        words = _WORD.findall(rng.choice(lines))
        start = rng.randrange(max(1, len(words) - 8))
        out.append(f"What does the text say about {' '.join(words[start : start + 8])}?")
    return out


def edit_paragraph(run_id: str) -> str:
    return (
        f"\n\nA note added by the scale benchmark ({run_id}): the {EDIT_WORDS} records "
        "every volume that changed after the library was first indexed, so that a reader "
        "can tell the new paragraph from the old text at a glance.\n"
    )


# --------------------------------------------------------------------------- processes


class TreeSampler:
    """Peak RSS of a process plus its descendants (their sum), sampled; the Typesense
    server is left out should the process start one. Without psutil it records 0."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak = pid, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> TreeSampler:
        if psutil is not None:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        with contextlib.suppress(Exception):
            root = psutil.Process(self.pid)
            while not self._stop.is_set():
                with contextlib.suppress(Exception):
                    self.peak = max(self.peak, self._tree_rss(root))
                self._stop.wait(SAMPLE)

    @staticmethod
    def _tree_rss(root: Any) -> int:
        total = int(root.memory_info().rss)
        for child in root.children(recursive=True):
            with contextlib.suppress(Exception):
                if "typesense" not in child.name():
                    total += int(child.memory_info().rss)
        return total


@dataclass(slots=True)
class Run:
    """One command: wall seconds, exit code, the sampled peak RSS of its process tree and
    the kernel's high-water mark (``wait4``: the largest of it and its reaped children)."""

    wall: float
    code: int
    tree_peak: int
    max_rss: int
    out: str
    err: str

    @property
    def peak_mib(self) -> float:
        return max(self.tree_peak, self.max_rss) / MIB

    def json(self) -> Any:
        try:
            return json.loads(self.out)
        except ValueError as exc:
            raise RuntimeError(f"not JSON (exit {self.code}): {self.err[-2000:]}") from exc


def _reap(proc: subprocess.Popen[bytes], timeout: float) -> tuple[int, int]:
    """Wait for ``proc`` (killed after ``timeout`` s): exit code and ``ru_maxrss`` in
    bytes. ``wait4`` instead of ``Popen.wait`` for the child's own resource usage."""
    killer = threading.Timer(timeout, proc.kill)
    killer.start()
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    finally:
        killer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_maxrss * 1024  # KiB on Linux


@dataclass(frozen=True, slots=True)
class Folio:
    """How to run ``folio`` for one home: the command, its environment, its directory."""

    cmd: tuple[str, ...]
    env: dict[str, str]
    cwd: Path

    def run(self, *args: str, timeout: float = SHORT, check: bool = True) -> Run:
        return run_command([*self.cmd, *args], self.env, self.cwd, timeout, check=check)


def run_command(
    cmd: Sequence[str], env: dict[str, str], cwd: Path, timeout: float, *, check: bool = True
) -> Run:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env, cwd=cwd
        )
        with TreeSampler(proc.pid) as sampler:
            code, max_rss = _reap(proc, timeout)
            wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        run = Run(
            wall,
            code,
            sampler.peak,
            max_rss,
            out.read().decode(errors="replace"),
            err.read().decode(errors="replace"),
        )
    if check and code != 0:
        raise RuntimeError(f"{' '.join(cmd[-3:])} exited {code}: {run.err[-2000:]}")
    return run


def folio_command(given: str | None) -> tuple[str, ...]:
    """``--folio``, else the ``folio`` beside this interpreter, else ``python -m pipeline``."""
    if given:
        return tuple(given.split())
    beside = Path(sys.executable).with_name("folio")
    return (str(beside),) if beside.exists() else (sys.executable, "-m", "pipeline")


def child_env(home: Path) -> dict[str, str]:
    """This environment for a ``folio`` child of ``home``: the checkout's ``pipeline``
    first on the path, the embedded server (no ``TYPESENSE_*``), no config file."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("TYPESENSE_") and k != "FOLIO_CONFIG"
    }
    env["FOLIO_HOME"] = str(home)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env["HF_HUB_OFFLINE"] = "1"
    return env


# --------------------------------------------------------------------------- MCP over stdio


class Lines:
    """Newline-delimited JSON-RPC messages read from a pipe with a deadline."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.fd, self.buf = stream.fileno(), b""

    def answer(self, msg_id: int, deadline: float) -> dict[str, Any]:
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                with contextlib.suppress(ValueError):
                    msg = json.loads(line)
                    if isinstance(msg, dict) and msg.get("id") == msg_id:
                        return msg
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                raise TimeoutError(f"no MCP answer to request {msg_id}")
            chunk = os.read(self.fd, 65536)
            if not chunk:
                raise RuntimeError(f"folio mcp closed its output before answering {msg_id}")
            self.buf += chunk


def _send(proc: subprocess.Popen[bytes], msg: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", **msg}).encode() + b"\n")
    proc.stdin.flush()


def _mcp_session(
    proc: subprocess.Popen[bytes], question: str, mode: str, t0: float
) -> dict[str, float]:
    """initialize, tools/list, then one retrieve call; seconds since ``t0`` at each answer."""
    assert proc.stdout is not None
    lines, deadline = Lines(proc.stdout), time.monotonic() + SHORT
    hello = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench_scale", "version": "1"},
    }
    _send(proc, {"id": 1, "method": "initialize", "params": hello})
    lines.answer(1, deadline)
    initialized = time.perf_counter() - t0
    _send(proc, {"method": "notifications/initialized"})
    _send(proc, {"id": 2, "method": "tools/list", "params": {}})
    tools = lines.answer(2, deadline).get("result", {}).get("tools", [])
    listed = time.perf_counter() - t0
    call = {"name": "retrieve", "arguments": {"question": question, "mode": mode}}
    _send(proc, {"id": 3, "method": "tools/call", "params": call})
    result = lines.answer(3, deadline).get("result", {})
    return {
        "initialize_s": initialized,
        "tools_list_s": listed,
        "tools": float(len(tools)),
        "first_retrieve_s": time.perf_counter() - t0 - listed,
        "retrieve_error": float(bool(result.get("isError", True))),
    }


def mcp_start(folio: Folio, question: str, mode: str) -> tuple[dict[str, float], Run]:
    """``folio mcp`` from spawn to its answers; its stdin closed after, so it exits."""
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [*folio.cmd, "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            env=folio.env,
            cwd=folio.cwd,
        )
        with TreeSampler(proc.pid) as sampler:
            try:
                times = _mcp_session(proc, question, mode, t0)
            finally:
                assert proc.stdin is not None and proc.stdout is not None
                with contextlib.suppress(OSError):
                    proc.stdin.close()
                code, max_rss = _reap(proc, 60.0)
                proc.stdout.close()
        err.seek(0)
        run = Run(
            time.perf_counter() - t0,
            code,
            sampler.peak,
            max_rss,
            "",
            err.read().decode(errors="replace"),
        )
    return times, run


# --------------------------------------------------------------------------- in-process reader


def reader_main(qfile: Path, budget: int, mode: str) -> int:
    """Child mode (``--reader``): open the library, time ``retrieve`` per question, print
    JSON with the timings and this process's RSS after the queries."""
    t0 = time.perf_counter()
    import pipeline

    imported = time.perf_counter() - t0
    questions = json.loads(qfile.read_text(encoding="utf-8"))
    t1 = time.perf_counter()
    library = pipeline.Library.open()
    opened = time.perf_counter() - t1
    t2 = time.perf_counter()
    library.retrieve(questions[0], budget, mode=mode)
    first = time.perf_counter() - t2
    ms: list[float] = []
    for q in questions[1:]:
        t = time.perf_counter()
        library.retrieve(q, budget, mode=mode)
        ms.append((time.perf_counter() - t) * 1000)
    status = _proc_status("self")
    out = {
        "import_s": imported,
        "open_s": opened,
        "first_s": first,
        "ms": ms,
        "rss": status.get("VmRSS", 0),
        "hwm": status.get("VmHWM", 0),
    }
    json.dump(out, sys.stdout)
    return 0


def _proc_status(pid: str | int) -> dict[str, int]:
    """The ``kB`` lines of /proc/PID/status, in bytes; empty when it is gone."""
    out: dict[str, int] = {}
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if value.strip().endswith("kB"):
                out[key] = int(value.split()[0]) * 1024
    return out


# --------------------------------------------------------------------------- measuring


def disk_bytes(path: Path) -> int:
    """Space allocated to the files under ``path`` (as ``du``), 0 when it is missing. A
    file with several links counts once: Typesense's snapshot hard-links the files of
    its RocksDB, and counting each link made ``typesense-data`` up to twice its size."""
    seen: dict[tuple[int, int], int] = {}
    for root, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                st = os.lstat(os.path.join(root, name))
                seen[(st.st_dev, st.st_ino)] = st.st_blocks * 512
    return sum(seen.values())


def machine_load() -> dict[str, float]:
    """Load averages (1, 5, 15 min) and, where the kernel has PSI, the share of the last
    10 s in which a runnable task waited for a CPU."""
    one, five, fifteen = os.getloadavg()
    out = {"load1": one, "load5": five, "load15": fifteen}
    with contextlib.suppress(OSError, ValueError, IndexError):
        first = Path("/proc/pressure/cpu").read_text().split("\n")[0]
        out["cpu_pressure_avg10"] = float(first.split()[1].split("=")[1])
    return out


def server_pid(home: Path) -> int | None:
    """The pid in ``home/server.json`` when /proc shows it is a Typesense on this home."""
    try:
        pid = int(json.loads((home / "server.json").read_text())["pid"])
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return pid if b"typesense" in cmdline and str(home).encode() in cmdline else None


@dataclass(slots=True)
class Size:
    """What the steps of one size work with, and the row they fill."""

    size: int
    lib: Path
    home: Path
    folio: Folio
    questions: list[str]
    args: argparse.Namespace
    log: Log
    row: Row = field(default_factory=dict)

    def record(self, prefix: str, run: Run) -> None:
        self.row[f"{prefix}_s"] = run.wall
        self.row[f"{prefix}_peak_rss_mib"] = run.peak_mib


def pipeline_commit() -> str:
    """The last commit that changed ``pipeline/`` in this checkout (``+dirty`` when its
    files differ from it): the code measured. ``?`` outside git."""
    git = ["git", "-C", str(ROOT)]
    try:
        last = subprocess.run(
            [*git, "log", "-1", "--format=%h", "--", "pipeline"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            [*git, "status", "--porcelain", "--untracked-files=no", "--", "pipeline"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return (last or "?") + ("+dirty" if dirty else "")


def _parts(files: Sequence[Path], stages: int) -> list[list[Path]]:
    """``files`` in ``stages`` runs of about equal length, in order."""
    n = len(files)
    return [list(files[i * n // stages : (i + 1) * n // stages]) for i in range(stages)]


def _ingest_part(s: Size, part: int, files: int) -> Row:
    """One ``folio ingest`` of the library as it stands; its numbers as a row."""
    load = os.getloadavg()[0]
    args = ["ingest", str(s.lib), "--json", *s.args.ingest_args]
    run = s.folio.run(*args, timeout=LONG, check=False)
    report = run.json()
    if run.code != 0:
        s.log(f"  warning: ingest exited {run.code}: {len(report.get('failed', []))} failed")
    out = {
        "part": part,
        "files_added": files,
        "code": run.code,
        "ingested": len(report["ingested"]),
        "failed": len(report["failed"]),
        "snippets": report["snippets"],
        "sections": report["sections"],
        "wall_s": run.wall,
        "snippets_per_s": report["snippets"] / run.wall,
        "peak_rss_mib": run.peak_mib,
        "report_s": report["seconds"],
        "load_before": load,
        "load_after": os.getloadavg()[0],
    }
    s.log(
        f"  part {part}: +{files} files, {report['snippets']} snippets in {run.wall:.1f} s "
        f"({out['snippets_per_s']:.0f}/s, load {load:.1f})"
    )
    return out


def step_full_ingest(s: Size) -> None:
    """The library ingested from empty: in one ``folio ingest``, or with ``--stages K``
    as a growing library (its files moved in a K-th at a time, an ingest after each).
    With ``--ingest-minutes`` no part starts that the last part's time says would end
    past the limit; the files never moved in are deleted, and the size measured after is
    the one reached (``files``, ``snippets``)."""
    s.log(f"  full ingest of {s.lib} ...")
    s.row["load_before_ingest"] = os.getloadavg()[0]
    s.row["ingest_pipeline"] = pipeline_commit()
    files = sorted(s.lib.glob("*.md"))
    parts = _parts(files, min(s.args.stages, len(files)))
    waiting = s.lib.with_name(s.lib.name + ".waiting")
    if len(parts) > 1:
        shutil.rmtree(waiting, ignore_errors=True)
        waiting.mkdir()
        for f in files:
            f.rename(waiting / f.name)
    limit = s.args.ingest_minutes * 60 if s.args.ingest_minutes else math.inf
    rows: list[Row] = []
    t0 = time.perf_counter()
    try:
        for i, part in enumerate(parts, 1):
            if rows and time.perf_counter() - t0 + rows[-1]["wall_s"] > limit:
                s.log(f"  --ingest-minutes reached: {len(parts) - len(rows)} part(s) left out")
                break
            for f in part if len(parts) > 1 else []:
                (waiting / f.name).rename(f)
            rows.append(_ingest_part(s, i, len(part)))
    finally:
        shutil.rmtree(waiting, ignore_errors=True)
    _sum_parts(s, rows, len(files))


def _sum_parts(s: Size, rows: Sequence[Row], built: int) -> None:
    wall = sum(r["wall_s"] for r in rows)
    snippets = sum(r["snippets"] for r in rows)
    sections = sum(r["sections"] for r in rows)
    s.row |= {
        "ingest_s": wall,
        "ingest_peak_rss_mib": max(r["peak_rss_mib"] for r in rows),
        "ingest_code": max(r["code"] for r in rows),
        "ingest_parts": list(rows),
        "stages_run": len(rows),
        "files_built": built,
        "files": len(list(s.lib.glob("*.md"))),
        "library_bytes": sum(f.stat().st_size for f in s.lib.glob("*.md")),
        "files_ingested": sum(r["ingested"] for r in rows),
        "files_failed": sum(r["failed"] for r in rows),
        "sections": sections,
        "snippets": snippets,
        "snippets_per_s": snippets / wall,
        "chunks_per_s": (snippets + sections) / wall,
        "ingest_report_s": rows[-1]["report_s"],
        "load_after_ingest": os.getloadavg()[0],
    }
    s.log(f"  {snippets} snippets, {sections} sections in {wall:.1f} s ({len(rows)} part(s))")


def step_unchanged(s: Size) -> None:
    run = s.folio.run("ingest", str(s.lib), "--json", *s.args.ingest_args, timeout=LONG)
    report = run.json()
    s.record("unchanged_ingest", run)
    s.row["unchanged_files"] = len(report["unchanged"])
    s.log(f"  nothing changed: ingest in {run.wall:.2f} s")


def step_change(s: Size, path: Path, run_id: str) -> None:
    """One file gets a paragraph appended; the ingest that picks it up."""
    with path.open("a", encoding="utf-8") as fh:
        fh.write(edit_paragraph(run_id))
    run = s.folio.run("ingest", str(s.lib), "--json", *s.args.ingest_args, timeout=LONG)
    report = run.json()
    s.record("change_ingest", run)
    secs = report["seconds"]
    s.row |= {
        "change_ingested": len(report["ingested"]),
        "change_unchanged": len(report["unchanged"]),
        "change_extract_s": secs.get("extract", math.nan),
        "change_chunk_s": secs.get("chunk", math.nan),
        "change_index_s": secs.get("index", math.nan),
        "change_plan_s": secs.get("plan", math.nan),
        "change_lexical_s": secs.get("lexical", math.nan),
        "change_report_total_s": secs.get("total", math.nan),
        "change_file": str(path),
    }
    s.log(f"  one file changed: ingest in {run.wall:.2f} s (report total {secs['total']:.2f} s)")


def _sources(answer: Any) -> set[str]:
    """Every string under a ``source`` key of a JSON answer."""
    if isinstance(answer, dict):
        found = {str(v) for k, v in answer.items() if k == "source" and isinstance(v, str)}
        return found.union(*(_sources(v) for v in answer.values()))
    if isinstance(answer, list):
        return set().union(*(_sources(v) for v in answer))
    return set()


def _retrieve(s: Size, question: str) -> Run:
    args = ["retrieve", question, "--json", "--mode", s.args.mode, "--budget", str(s.args.budget)]
    return s.folio.run(*args)


def step_cli_retrieve(s: Size, changed: Path) -> None:
    """The first CLI retrieve after the change (it asks about the new paragraph), then
    warm ones."""
    first = _retrieve(s, f"Which volumes does the {EDIT_WORDS} record?")
    s.record("retrieve_first", first)
    s.row["retrieve_first_finds_change"] = any(
        src.endswith(changed.name) for src in _sources(first.json())
    )
    runs = [_retrieve(s, q) for q in s.questions[: s.args.cli_runs]]
    walls = [r.wall for r in runs]
    s.row |= {
        "retrieve_warm_p50_s": statistics.median(walls),
        "retrieve_warm_max_s": max(walls),
        "retrieve_warm_peak_rss_mib": max(r.peak_mib for r in runs),
    }
    s.log(f"  CLI retrieve: first {first.wall:.2f} s, warm median {statistics.median(walls):.2f} s")


def step_reader(s: Size) -> None:
    qfile = s.home / "bench-questions.json"
    qfile.write_text(json.dumps(s.questions), encoding="utf-8")
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--reader",
        str(qfile),
        "--budget",
        str(s.args.budget),
        "--mode",
        s.args.mode,
    ]
    run = run_command(cmd, s.folio.env, s.folio.cwd, SHORT)
    data = run.json()
    ms = data["ms"]
    s.row |= {
        "reader_import_s": data["import_s"],
        "reader_open_s": data["open_s"],
        "reader_first_ms": data["first_s"] * 1000,
        "reader_calls": len(ms),
        "reader_p50_ms": percentile(ms, 50),
        "reader_p95_ms": percentile(ms, 95),
        "reader_max_ms": max(ms),
        "reader_rss_mib": data["rss"] / MIB,
        "reader_hwm_mib": data["hwm"] / MIB,
    }
    s.log(
        f"  in-process retrieve: first {data['first_s'] * 1000:.0f} ms, "
        f"p50 {percentile(ms, 50):.0f} ms, p95 {percentile(ms, 95):.0f} ms"
    )


def step_search(s: Size) -> None:
    queries = [" ".join(_WORD.findall(q)[-3:]) for q in s.questions[: s.args.cli_runs]]
    runs = [s.folio.run("search", q, "--json") for q in queries]
    walls = [r.wall for r in runs]
    floor = [s.folio.run("server", "status").wall for _ in queries]
    s.row |= {
        "cli_floor_s": statistics.median(floor),
        "search_p50_s": statistics.median(walls),
        "search_max_s": max(walls),
        "search_peak_rss_mib": max(r.peak_mib for r in runs),
    }


def step_mcp(s: Size) -> None:
    results = [
        mcp_start(s.folio, q, s.args.mode) for q in s.questions[: max(1, s.args.cli_runs // 2)]
    ]
    s.row |= {
        "mcp_initialize_s": statistics.median(t["initialize_s"] for t, _ in results),
        "mcp_ready_s": statistics.median(t["tools_list_s"] for t, _ in results),
        "mcp_tools": results[0][0]["tools"],
        "mcp_first_retrieve_s": statistics.median(t["first_retrieve_s"] for t, _ in results),
        "mcp_retrieve_errors": sum(t["retrieve_error"] for t, _ in results),
        "mcp_peak_rss_mib": max(r.peak_mib for _, r in results),
    }
    s.log(f"  folio mcp ready (tools/list answered) in {s.row['mcp_ready_s']:.2f} s")


def step_disk_and_server(s: Size) -> None:
    from pipeline.index.server import DATA

    pid = server_pid(s.home)
    status = _proc_status(pid) if pid else {}
    s.row |= {
        "lexical_disk_mib": disk_bytes(s.home / "lexical") / MIB,
        "typesense_disk_mib": disk_bytes(s.home / DATA) / MIB,
        "library_disk_mib": disk_bytes(s.lib) / MIB,
        "server_rss_mib": status.get("VmRSS", 0) / MIB,
        "server_hwm_mib": status.get("VmHWM", 0) / MIB,
    }


# The library's own start with a time limit of our choosing: ``folio server start`` gives
# up after 90 s (START_TIMEOUT), less than a large library's data takes to load.
READY = "import sys; from pipeline.index import server; server.start(timeout=float(sys.argv[1]))"


def start_server(s: Size, key: str) -> None:
    """``folio server start``, timed (it returns once the server leads and has replayed
    its data). When it gives up, the server is started again with no such limit, and
    that time is recorded as well (``<key>_ready_s``)."""
    cli = s.folio.run("server", "start", timeout=LONG, check=False)
    s.row[f"{key}_s"] = cli.wall
    s.row[f"{key}_cli_ok"] = cli.code == 0
    if cli.code == 0:
        s.log(f"  folio server start: {cli.wall:.1f} s")
        return
    reason = (cli.err.strip().splitlines() or ["?"])[-1]
    s.row[f"{key}_cli_error"] = reason
    s.log(f"  folio server start failed after {cli.wall:.0f} s ({reason}); without a limit:")
    s.folio.run("server", "stop", check=False)  # the server it gave up on may still be exiting
    ready = run_command([sys.executable, "-c", READY, str(LONG)], s.folio.env, s.folio.cwd, LONG)
    s.row[f"{key}_ready_s"] = ready.wall
    s.log(f"  server ready in {ready.wall:.1f} s")


def step_restart(s: Size) -> None:
    """``folio server stop``, then the start timed, and the server's RSS after it."""
    stop = s.folio.run("server", "stop")
    s.row["server_stop_s"] = stop.wall
    start_server(s, "server_start")
    pid = server_pid(s.home)
    s.row["server_rss_restarted_mib"] = _proc_status(pid).get("VmRSS", 0) / MIB if pid else 0


def step_revert(s: Size, path: Path, original: bytes) -> None:
    """The changed file back as it was, ingested again: a kept library is the same for
    the next ``--reuse`` run (and this is a second one-file-change sample)."""
    path.write_bytes(original)
    run = s.folio.run("ingest", str(s.lib), "--json", *s.args.ingest_args, timeout=LONG)
    s.row["revert_ingest_s"] = run.wall


# --------------------------------------------------------------------------- one size


def _marker_key(s: Size) -> dict[str, Any]:
    return {"format": FORMAT, "size": s.size, "seed": s.args.seed, "mode": s.args.mode}


def prepare(s: Size, pool: Sequence[str], rate: float) -> bool:
    """The library and an empty home, built; or, with ``--reuse`` and a home built for
    the same size and seed, kept (its build and full-ingest numbers read back). True
    when reused."""
    saved = _read_marker(s) if s.args.reuse and s.lib.is_dir() else None
    if saved is not None:
        if all(
            saved.get(k, "lexical" if k == "mode" else None) == v for k, v in _marker_key(s).items()
        ):
            s.row |= saved["row"] | {"reused": True}
            if not saved.get("complete", True):
                # A full ingest that was stopped (a hybrid 100k embeds for about an hour):
                # the untimed ingest of ``sync_reused`` finishes it; its numbers are lost.
                s.log(f"  resuming the stopped full ingest of {s.lib} (not timed)")
                s.row["resumed"] = True
                return True
            built_by = saved["row"].get("ingest_pipeline", "?")
            s.log(f"  reusing {s.home} and {s.lib}; full ingest measured at {built_by}")
            return True
        s.log(f"  {s.home} holds another build: building anew")
    stop_server(s.folio)
    shutil.rmtree(s.home, ignore_errors=True)
    t0 = time.perf_counter()
    built = build_library(s.lib, s.size, pool, s.args.seed, rate)
    s.row |= {
        "reused": False,
        "files": built.files,
        "library_bytes": built.bytes,
        "build_s": time.perf_counter() - t0,
    }
    s.log(f"  wrote {built.files} files, {built.bytes / 1e6:.0f} MB in {built.seconds:.1f} s")
    return False


def _read_marker(s: Size) -> dict[str, Any] | None:
    """The home's marker, or None when there is none or it cannot be read (then the
    library is built anew)."""
    try:
        saved = json.loads((s.home / MARKER).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        s.log(f"  unreadable {MARKER} in {s.home} ({exc}): building anew")
        return None
    return saved if isinstance(saved, dict) else None


def save_marker(s: Size, complete: bool = True) -> None:
    """Called before a one-part full ingest (``complete`` False: a stopped ingest is
    resumed by ``--reuse``), right after it, when the row holds the build and that
    ingest, and after a resumed ingest ended (complete, its numbers not measured).
    Written whole or not at all (a temporary file renamed)."""
    row = {k: v for k, v in s.row.items() if k not in ("load_start", "reused")}
    mark = _marker_key(s) | {"row": row, "complete": complete}
    tmp = s.home / f"{MARKER}.tmp"
    tmp.write_text(json.dumps(mark), encoding="utf-8")
    os.replace(tmp, s.home / MARKER)


def stop_server(folio: Folio) -> None:
    """``folio server stop`` for this home; never raises (it runs on the way out)."""
    with contextlib.suppress(Exception):
        folio.run("server", "stop", timeout=120, check=False)


def middle_file(lib: Path) -> Path:
    files = sorted(lib.glob("*.md"))
    if not files:
        raise RuntimeError(f"no generated files in {lib}")
    return files[len(files) // 2]


def guarded(s: Size, name: str, step: Callable[[], None]) -> None:
    """Run one step; a failure is recorded in the row (``errors``) and the next step runs."""
    try:
        step()
    except Exception as exc:
        s.row.setdefault("errors", {})[name] = str(exc)[-1000:]
        s.log(f"  {name} failed: {exc}")


def sync_reused(s: Size) -> None:
    """A reused library brought in line with its files (untimed): a run that stopped
    between its change and its revert left the changed file in the index."""
    run = s.folio.run("ingest", str(s.lib), "--json", *s.args.ingest_args, timeout=LONG)
    ingested = len(run.json()["ingested"])
    s.log(f"  reused library in sync: {ingested} file(s) ingested in {run.wall:.1f} s")


def measure_size(s: Size, pool: Sequence[str], rate: float, keep: bool) -> None:
    """Every step for one size, in order, into ``s.row``."""
    s.row["load_start"] = machine_load()
    reused = prepare(s, pool, rate)
    start_server(s, "server_start_first")
    if reused:
        sync_reused(s)
        if s.row.pop("resumed", False):
            save_marker(s)  # the stopped ingest is finished now
    else:
        s.row["server_start_empty_s"] = s.row["server_start_first_s"]
        if s.args.stages == 1:  # a staged one deletes the files it never moved in
            save_marker(s, complete=False)
        step_full_ingest(s)
        save_marker(s)
    step_unchanged(s)
    changed = middle_file(s.lib)
    original = changed.read_bytes()
    steps: list[tuple[str, Callable[[], None]]] = [
        ("change", lambda: step_change(s, changed, f"run {time.strftime('%Y-%m-%d %H:%M:%S')}")),
        ("cli_retrieve", lambda: step_cli_retrieve(s, changed)),
        ("reader", lambda: step_reader(s)),
        ("search", lambda: step_search(s)),
        ("mcp", lambda: step_mcp(s)),
        ("disk", lambda: step_disk_and_server(s)),
    ]
    if not s.args.no_restart:
        steps.append(("restart", lambda: step_restart(s)))
    try:
        for name, step in steps:
            guarded(s, name, step)
    finally:
        changed.write_bytes(original)
    if keep:
        guarded(s, "revert", lambda: step_revert(s, changed, original))
    s.row["load_end"] = machine_load()


# --------------------------------------------------------------------------- output


def _s(v: float) -> str:
    return f"{v:.3f}" if v < 1 else f"{v:.2f}" if v < 100 else f"{v:.0f}"


def _n(v: float) -> str:
    return f"{v:,.0f}"


def _mib(v: float) -> str:
    return f"{v:,.0f}"


def _ms(v: float) -> str:
    return f"{v:.1f}" if v < 100 else f"{v:,.0f}"


def _load(v: dict[str, float]) -> str:
    return f"{v['load1']:.2f}"


METRICS: list[tuple[str, str, Callable[[Any], str]]] = [
    ("files_built", "files built", _n),
    ("files", "files in the library ingested", _n),
    ("stages_run", "full ingest: parts run (--stages)", _n),
    ("snippets", "snippets (stored)", _n),
    ("sections", "sections (stored)", _n),
    ("library_bytes", "library MB", lambda v: f"{v / 1e6:,.0f}"),
    ("build_s", "build library s", _s),
    ("server_start_empty_s", "server start, empty home s", _s),
    ("ingest_pipeline", "full ingest: pipeline/ at commit", str),
    ("ingest_s", "full ingest wall s", _s),
    ("snippets_per_s", "full ingest snippets/s", _n),
    ("chunks_per_s", "full ingest chunks/s (+sections)", _n),
    ("ingest_peak_rss_mib", "full ingest peak RSS MiB", _mib),
    ("unchanged_ingest_s", "ingest, nothing changed s", _s),
    ("change_ingest_s", "ingest, one file changed s", _s),
    ("change_extract_s", "  that file: extract s (report)", _s),
    ("change_chunk_s", "  that file: chunk s (report)", _s),
    ("change_index_s", "  that file: index s (report)", _s),
    ("change_plan_s", "  plan s (hash, records, unchanged check)", _s),
    ("change_lexical_s", "  lexical index sync s", _s),
    ("change_report_total_s", "  report total s (plan+index+lexical)", _s),
    ("change_ingest_peak_rss_mib", "  peak RSS MiB", _mib),
    ("revert_ingest_s", "ingest, file reverted s (--keep)", _s),
    ("cli_floor_s", "CLI floor: `folio server status` s", _s),
    ("retrieve_first_s", "CLI retrieve, first after change s", _s),
    ("retrieve_first_finds_change", "  finds the changed file", str),
    ("retrieve_first_peak_rss_mib", "  peak RSS MiB", _mib),
    ("retrieve_warm_p50_s", "CLI retrieve, warm median s", _s),
    ("retrieve_warm_max_s", "CLI retrieve, warm max s", _s),
    ("retrieve_warm_peak_rss_mib", "  peak RSS MiB", _mib),
    ("reader_open_s", "in-process Library.open() s", _s),
    ("reader_first_ms", "in-process first retrieve ms", _ms),
    ("reader_p50_ms", "in-process retrieve p50 ms", _ms),
    ("reader_p95_ms", "in-process retrieve p95 ms", _ms),
    ("reader_max_ms", "in-process retrieve max ms", _ms),
    ("reader_rss_mib", "in-process reader RSS after MiB", _mib),
    ("search_p50_s", "CLI search median s", _s),
    ("search_peak_rss_mib", "  peak RSS MiB", _mib),
    ("mcp_ready_s", "mcp initialize+tools/list s", _s),
    ("mcp_first_retrieve_s", "mcp first retrieve call s", _s),
    ("mcp_peak_rss_mib", "  peak RSS MiB", _mib),
    ("lexical_disk_mib", "disk: $FOLIO_HOME/lexical MiB", _mib),
    ("typesense_disk_mib", "disk: typesense-data MiB", _mib),
    ("server_rss_mib", "typesense RSS after queries MiB", _mib),
    ("server_start_s", "typesense restart: folio server start s", _s),
    ("server_start_cli_ok", "  folio server start succeeded", str),
    ("server_start_ready_s", "  ready without the 90 s limit s", _s),
    ("server_rss_restarted_mib", "typesense RSS after restart MiB", _mib),
    ("load_start", "load avg (1 min) at start", _load),
    ("load_end", "load avg (1 min) at end", _load),
    ("size_total_s", "benchmark time for this size s", _s),
]


def render(sizes: dict[str, Row]) -> str:
    heads = ["metric", *(f"{int(k):,}" for k in sizes)]
    rows = [heads]
    for key, label, fmt in METRICS:
        if any(key in r for r in sizes.values()):
            rows.append([label, *(fmt(r[key]) if key in r else "-" for r in sizes.values())])
    return text_table(heads, rows[1:], right=range(1, len(heads)))


def render_parts(sizes: dict[str, Row]) -> str:
    """The full ingest's parts (``--stages``), one row each; empty without parts."""
    heads = ["size", "part", "files added", "snippets", "wall s", "snippets/s", "load"]
    rows = [
        [
            f"{int(k):,}",
            str(p["part"]),
            _n(p["files_added"]),
            _n(p["snippets"]),
            _s(p["wall_s"]),
            _n(p["snippets_per_s"]),
            f"{p['load_before']:.1f}",
        ]
        for k, r in sizes.items()
        if len(r.get("ingest_parts", [])) > 1
        for p in r["ingest_parts"]
    ]
    return text_table(heads, rows, right=range(1, len(heads))) if rows else ""


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


# --------------------------------------------------------------------------- main


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument(
        "--sizes",
        default="10000,100000",
        help="snippet counts, comma-separated (default 10000,100000)",
    )
    ap.add_argument(
        "--dir",
        type=Path,
        default=DEFAULT_DIR,
        help=f"work directory for libraries and homes (default {DEFAULT_DIR})",
    )
    ap.add_argument(
        "--corpus",
        type=Path,
        default=DEFAULT_CORPUS,
        help=f"folder holding markdown/ and epub/ (default {DEFAULT_CORPUS})",
    )
    ap.add_argument(
        "--json",
        type=Path,
        default=None,
        metavar="FILE",
        help="write every number to FILE (after each size, too)",
    )
    ap.add_argument("--keep", action="store_true", help="keep libraries and homes")
    ap.add_argument(
        "--reuse",
        action="store_true",
        help="skip build and full ingest where the home was built for the same "
        "size and seed (implies --keep)",
    )
    ap.add_argument(
        "--no-restart",
        action="store_true",
        help="skip the server restart step (minutes at 100k snippets: Typesense loads it all)",
    )
    ap.add_argument("--questions", type=int, default=50, help="in-process questions (50)")
    ap.add_argument(
        "--cli-runs",
        type=int,
        default=5,
        help="warm CLI retrieves and searches (5); folio mcp starts: half",
    )
    add_budget(ap)
    ap.add_argument("--workers", type=int, default=None, help="ingest --workers")
    ap.add_argument(
        "--stages",
        type=int,
        default=1,
        metavar="K",
        help="full ingest as a growing library: a K-th of the files moved in, then "
        "ingested, K times (default 1: one ingest of everything)",
    )
    ap.add_argument(
        "--ingest-minutes",
        type=float,
        default=None,
        metavar="M",
        help="with --stages: start no part that would end after M minutes of ingest "
        "(the last part's time); the size measured is the one reached",
    )
    ap.add_argument("--seed", type=int, default=0, help="library and question seed (0)")
    ap.add_argument(
        "--mode",
        choices=("lexical", "hybrid"),
        default="lexical",
        help="lexical (default): ingest --no-embed, retrieve lexical; hybrid: every "
        "snippet embedded (the dense extra and its weights), retrieve hybrid",
    )
    ap.add_argument(
        "--folio", default=None, help="the folio command (default: folio beside this python)"
    )
    ap.add_argument("--reader", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    try:
        args.sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
    except ValueError:
        ap.error("--sizes takes integers, e.g. 10000,100000")
    if not args.sizes or min(args.sizes) < 1 or args.questions < 1 or args.cli_runs < 1:
        ap.error("--sizes, --questions and --cli-runs must be positive")
    if args.stages < 1 or (args.ingest_minutes is not None and args.ingest_minutes <= 0):
        ap.error("--stages and --ingest-minutes must be positive")
    args.ingest_args = ["--workers", str(args.workers)] if args.workers else []
    if args.mode == "lexical":  # a hybrid library's snippets are embedded as they go in
        args.ingest_args.append("--no-embed")
    args.dir = args.dir.resolve()
    return args


def _interrupt(signum: int, frame: object) -> None:
    print(f"received {signal.Signals(signum).name}", file=sys.stderr, flush=True)
    raise KeyboardInterrupt


def _write_json(path: Path | None, out: dict[str, Any]) -> None:
    if path is not None:
        path.write_text(json.dumps(_rounded(out), indent=1) + "\n", encoding="utf-8")


def _estimate(size: int, done: dict[str, Row]) -> str:
    """The last size's time scaled to this one, or the Typesense import alone (~1,600
    chunks/s here, a quarter section per snippet) for the first."""
    if done:
        last_size, last = next(reversed(done.items()))
        minutes = last.get("size_total_s", 0) * size / int(last_size) / 60
        return f"~{minutes:.0f} min (the last size's time, scaled)"
    return f"the Typesense import alone ~{size * 1.25 / 1600 / 60:.1f} min"


def run_sizes(args: argparse.Namespace, out: dict[str, Any], log: Log) -> None:
    pool = text_pool(args.corpus)
    rate = snippets_per_char(pool, args.seed)
    log(
        f"text pool: {len(pool)} sections, {sum(map(len, pool)) / 1e6:.1f} M chars; "
        f"{rate * 1e6:.0f} snippets per M chars"
    )
    questions = make_questions(pool, args.questions + 1, args.seed)
    keep = args.keep or args.reuse
    for size in args.sizes:
        # a hybrid library has homes of its own: a run of the other mode keeps its vectors
        tag = "" if args.mode == "lexical" else f"-{args.mode}"
        home, lib = args.dir / f"home-{size}{tag}", args.dir / f"lib-{size}{tag}"
        folio = Folio(folio_command(args.folio), child_env(home), args.dir)
        s = Size(size, lib, home, folio, questions, args, log)
        log(f"size {size:,}: estimate {_estimate(size, out['sizes'])}")
        out["sizes"][str(size)] = s.row
        t0 = time.perf_counter()
        try:
            measure_size(s, pool, rate, keep)
        finally:
            s.row["size_total_s"] = time.perf_counter() - t0
            stop_server(folio)
            if not keep:
                shutil.rmtree(home, ignore_errors=True)
                shutil.rmtree(lib, ignore_errors=True)
            _write_json(args.json, out)
        log(f"size {size:,} done in {s.row['size_total_s'] / 60:.1f} min")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.reader is not None:
        return reader_main(args.reader, args.budget, args.mode)
    signal.signal(signal.SIGTERM, _interrupt)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    args.dir.mkdir(parents=True, exist_ok=True)
    folio = folio_command(args.folio)
    out: dict[str, Any] = {
        "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "cpus": os.cpu_count(),
        "folio": list(folio),
        "pipeline": str(ROOT),
        "pipeline_commit": pipeline_commit(),
        "load_start": machine_load(),
        "sizes": {},
    }
    log(f"load at start: {out['load_start']}")
    code = 0
    try:
        run_sizes(args, out, log)
    except KeyboardInterrupt:
        log("interrupted: servers stopped")
        code = 130
    except Exception:
        log(traceback.format_exc())
        log("failed: servers stopped; the numbers so far follow")
        code = 1
    out["load_end"] = machine_load()
    _write_json(args.json, out)
    if out["sizes"]:
        print(render(out["sizes"]))
        print(render_parts(out["sizes"]))
    start, end = out["load_start"], out["load_end"]
    print(
        f"load average (1/5/15 min) at start {start['load1']:.2f}/{start['load5']:.2f}/"
        f"{start['load15']:.2f}, at end {end['load1']:.2f}/{end['load5']:.2f}/"
        f"{end['load15']:.2f} on {os.cpu_count()} cpus"
    )
    return code


if __name__ == "__main__":
    sys.exit(main())
