"""The `folio` command explains itself: help for everything, no abbreviations, filter
values checked with suggestions, one rule for document ids, messages that say what to
do. Real `folio` processes against the real Typesense server."""

from __future__ import annotations

import argparse
import json
import os
import pty
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline import IngestOptions, Library
from pipeline.cli.folio import build_parser
from pipeline.cli.index import ProgressLines
from pipeline.errors import InvalidInput
from pipeline.index import server
from pipeline.index.store import Store
from pipeline.shared.config import make_config
from pipeline.shared.limits import Limits

from .helpers import folio_each

ROOT = Path(__file__).parent.parent
PDFS = ROOT / "tests" / "fixtures" / "extract"


def folio_all(*commands: tuple[str, ...]) -> list[subprocess.CompletedProcess[str]]:
    """``folio`` as below for each of ``commands``, all at once (see helpers.folio_each)."""
    return folio_each({**os.environ, "COLUMNS": "80"}, *commands, timeout=180)


def folio(*args: str, cwd: Path = ROOT, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pipeline", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "80", **env},
        cwd=cwd,
        timeout=180,
    )


def flat(text: str) -> str:
    """``text`` with rich's line wrapping undone."""
    return " ".join(text.split())


def parsers(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield parser.prog, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from parsers(child)


def test_every_command_and_option_has_help_and_its_default() -> None:
    missing: list[str] = []
    for prog, parser in parsers(build_parser()):
        if not parser.description:
            missing.append(f"{prog}: no description")
        if parser.allow_abbrev:
            missing.append(f"{prog}: abbreviations allowed")
        for action in parser._actions:
            name = "/".join(action.option_strings) or action.dest
            if isinstance(action, argparse._SubParsersAction | argparse._HelpAction):
                continue
            if not action.help:
                missing.append(f"{prog} {name}: no help")
            elif action.default not in (None, False) and "default" not in (
                parser._get_formatter()._get_help_string(action) or ""
            ):
                missing.append(f"{prog} {name}: default {action.default!r} not shown")
    assert not missing, "\n".join(missing)
    shown = " ".join(folio("retrieve", "--help").stdout.split())
    assert "cut to fit the token budget" in shown and "at most (default: 2000)" in shown


def test_abbreviated_options_are_refused(folio_env: Path, tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nalpha\n")
    run = folio("chunk", str(tmp_path), "--form", "table")
    assert run.returncode == 2 and "unrecognized arguments: --form" in run.stderr
    run = folio("ingest", str(tmp_path), "--prun", FOLIO_HOME=str(tmp_path / "home"))
    assert run.returncode == 2 and "unrecognized arguments: --prun" in run.stderr


def test_without_a_terminal_a_long_ingest_prints_progress_lines(
    capsys: pytest.CaptureFixture[str],
) -> None:
    lines = ProgressLines(every=3600.0)
    lines.update("start", {"files": 40, "done": 0, "chunks": 0, "pages": 0})
    lines.update("advance", {"files": 40, "done": 1, "chunks": 9, "pages": 2})
    assert capsys.readouterr().err == "ingest: 40 files to read\n"  # not before its time
    lines.every = 0.0
    lines.update("advance", {"files": 40, "done": 12, "chunks": 300, "pages": 41})
    said = capsys.readouterr().err
    assert said.startswith("ingest: 12 of 40 files, 300 chunks, 41 pages, "), said
    lines.update("advance", {"files": 40, "done": 40, "chunks": 990, "pages": 120})
    assert capsys.readouterr().err == ""  # the summary follows the last file


def test_a_worker_count_below_one_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nalpha\n")
    home = str(tmp_path / "home")
    for count in ("-1", "0"):
        run = folio("ingest", str(tmp_path), "--workers", count, FOLIO_HOME=home)
        assert run.returncode == 2 and "--workers" in run.stderr, run.stderr
    assert not (tmp_path / "home" / "server.json").exists()  # refused before any work
    with pytest.raises(InvalidInput, match="workers must be 1 or more"):
        IngestOptions(workers=-1)


@pytest.fixture()
def library(store: Store, tmp_path: Path, folio_env: Path) -> Library:
    """17 small documents (two doc_ids must then share a first hex digit), indexed."""
    lib = tmp_path / "lib"
    lib.mkdir()
    for n in range(17):
        rows = "\n".join(f"| functor {n} | value {i} |" for i in range(3))
        (lib / f"doc{n:02}.md").write_text(
            f"# Book {n}\n\n## Functors\n\nA functor maps {n}.\n\n"
            f"## Table\n\n| name | value |\n|---|---|\n{rows}\n"
        )
    opened = Library(store)
    options = IngestOptions(
        workers=1, embed=False, limits=Limits(file_timeout=None, max_memory_mb=None)
    )
    report = opened.ingest([lib], make_config({}), options)
    assert len(report.ingested) == 17
    return opened


def test_filter_values_are_checked_with_a_suggestion(library: Library) -> None:
    cases = [
        ((*command, *args), words)
        for args, words in (
            (("--hint", "tabel"), ("did you mean 'table'", "prose, table, code")),
            (("--format", "docx"), ("unknown format 'docx'", "pdf, epub, markdown")),
            (("--format", "md"), ("a .md file has format 'markdown'", "pdf, epub, markdown")),
        )
        for command in (("search", "functor"), ("retrieve", "functor"))
    ]
    *runs, tier, pages = folio_all(
        *(args for args, _ in cases),
        ("search", "functor", "--tier", "sectoin"),
        ("search", "functor", "--pages", "10", "5"),
    )
    for (args, words), run in zip(cases, runs, strict=True):
        assert run.returncode == 2, (args, run.stdout)
        assert all(w in run.stderr for w in words), run.stderr
    assert tier.returncode == 2 and "did you mean 'section'" in tier.stderr, tier.stderr
    assert pages.returncode == 2 and "page range 10 to 5 is empty" in pages.stderr


def test_doc_takes_a_prefix_or_a_path_and_explains_an_ambiguous_one(
    library: Library,
) -> None:
    lib = library
    docs = lib.documents()
    first = docs[0]
    starts = [d.doc_id[0] for d in docs]
    shared = next(c for c in starts if starts.count(c) > 1)
    ways = (first.doc_id[:12], first.path)
    *found, search_shared, delete_shared, outline = folio_all(
        *[(command, "functor", "--doc", doc, "--json") for doc in ways
          for command in ("search", "retrieve")],
        ("search", "functor", "--doc", shared),
        ("delete", shared),
        ("outline", first.doc_id[:8]),
    )  # fmt: skip
    for search, retrieve in zip(found[::2], found[1::2], strict=True):
        assert search.returncode == 0, search.stderr
        hits = json.loads(search.stdout)["hits"]
        assert hits and {h["doc_id"] for h in hits} == {first.doc_id}
        items = json.loads(retrieve.stdout)["items"]
        assert {i["citation"]["doc_id"] for i in items} == {first.doc_id}
    for run in (search_shared, delete_shared):
        assert run.returncode != 0 and "is the start of" in run.stderr, run.stderr
        assert "give more characters" in flat(run.stderr)
    assert len(lib.documents()) == 17  # the ambiguous delete removed nothing
    run = outline
    assert run.returncode == 0, run.stderr
    assert f"{first.path}: {first.title} (3 headings)" in flat(run.stdout), run.stdout


def test_a_budget_too_small_for_any_match_says_what_it_takes(library: Library) -> None:
    small = library.retrieve("What does a functor map?", 10, mode="lexical")
    assert small.items == () and small.tokens == 0
    need = re.search(r"no match fits 10 tokens: the best one needs a budget of (\d+)", small.note)
    assert need, small.note
    assert "within 10 tokens" in small.to_markdown()
    enough = library.retrieve("What does a functor map?", int(need.group(1)), mode="lexical")
    assert enough.items and "no match fits" not in enough.note


def test_paging_past_the_end_says_how_many_results(library: Library) -> None:
    listed, run = folio_all(("search", "functor", "--json"), ("search", "functor", "--page", "50"))
    found = json.loads(listed.stdout)["found"]
    assert run.returncode == 0
    assert f"Page 50 is past the end: {found} results" in run.stdout, run.stdout
    assert "No results" not in run.stdout


def test_an_empty_library_and_an_empty_folder_say_what_to_do(
    store: Store, folio_env: Path, tmp_path: Path
) -> None:
    for command in (["search", "functor"], ["retrieve", "functor"]):
        run = folio(*command)
        assert run.returncode == 2 and "the library is empty" in run.stderr, run.stdout
        assert "folio ingest" in run.stderr
    assert "The library is empty: run `folio ingest PATH`" in folio("docs").stdout
    home = tmp_path / "fresh-home"  # the embedded server: not started for a read
    embedded = {k: v for k, v in os.environ.items() if not k.startswith("TYPESENSE_")}
    try:
        run = subprocess.run(
            [sys.executable, "-m", "pipeline", "search", "functor"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
            env={**embedded, "FOLIO_HOME": str(home)},
        )
        assert run.returncode == 2 and "the library is empty" in run.stderr, run.stderr
        assert server.running(home) is None and not (home / "typesense-data").exists()
    finally:
        server.stop(home)  # what the old code started
    empty = tmp_path / "photos"
    empty.mkdir()
    (empty / "cat.jpg").write_bytes(b"\xff\xd8\xff")
    run = folio("ingest", str(empty))
    assert run.returncode == 2, run.stderr
    assert f"{empty}: no file Folio can read" in run.stderr and ".pdf" in run.stderr


def test_show_prints_a_chunk_with_its_citation(library: Library) -> None:
    hits = json.loads(folio("search", "functor", "--tier", "section", "--json").stdout)["hits"]
    hit = hits[0]
    run, as_json, missing = folio_all(
        ("show", hit["id"]), ("show", hit["id"], "--json"), ("show", "no-such-id")
    )
    assert run.returncode == 0, run.stderr
    name = Path(hit["source"]).name
    assert f"{' > '.join(hit['breadcrumb'])} — {name}" in run.stdout
    assert "A functor maps" in run.stdout and hit["id"] in run.stdout
    shown = json.loads(as_json.stdout)
    assert shown["citation"]["source"] == hit["source"] and shown["chunk"]["id"] == hit["id"]
    run = missing
    assert run.returncode == 2 and "no section or snippet with id no-such-id" in run.stderr


def test_docs_and_status_fit_80_columns_with_json_for_both(
    store: Store, folio_env: Path, tmp_path: Path
) -> None:
    deep = tmp_path.joinpath(*(f"a-rather-long-folder-name-{i}" for i in range(4)))
    deep.mkdir(parents=True)
    book = deep / "the-collected-works-of-a-very-long-file-name.md"
    book.write_text("# An Extremely Long Title For A Book About Functors And More\n\ntext\n")
    assert folio("ingest", str(deep)).returncode == 0
    docs, docs_json, status, status_json = folio_all(
        ("docs",), ("docs", "--json"), ("status",), ("status", "--json")
    )
    lines = docs.stdout.splitlines()
    assert lines and all(len(line) <= 80 for line in lines), docs.stdout
    assert "complete" in docs.stdout and book.name in docs.stdout and "…" in docs.stdout
    record = json.loads(docs_json.stdout)[0]
    assert record["path"] == str(book) and record["status"] == "complete"
    assert status.returncode == 0, status.stderr
    assert all(len(line) <= 80 for line in status.stdout.splitlines()), status.stdout
    assert "{" not in status.stdout and "files:    1 complete" in status.stdout
    info = json.loads(status_json.stdout)
    assert info["sections"] >= 1 and info["files"] == {"complete": 1}


def pdfs(tmp_path: Path) -> Path:
    """A folder of two PDFs and a truncated one (pypdf: "EOF marker not found")."""
    lib = tmp_path / "pdfs"
    lib.mkdir()
    for pdf in PDFS.glob("*.pdf"):
        (lib / pdf.name).write_bytes(pdf.read_bytes())
    (lib / "truncated.pdf").write_bytes((PDFS / "pdflatex-outline.pdf").read_bytes()[:-40])
    return lib


def test_ingest_warnings_name_the_file_once_and_the_times_say_what_they_are(
    store: Store, folio_env: Path, tmp_path: Path
) -> None:
    lib = pdfs(tmp_path)
    broken = lib / "truncated.pdf"
    # -v: pypdf's own warnings ("EOF marker not found") are shown only when asked for
    run = folio("-v", "ingest", str(lib), "--workers", "2")
    assert run.returncode == 1  # the truncated one
    notes = [line for line in run.stderr.splitlines() if "PDF backend" in line]
    assert len(notes) == 1, run.stderr  # the same notice for each PDF, said once
    eof = [line for line in run.stderr.splitlines() if "EOF marker not found" in line]
    assert eof == [f"folio: {broken}: EOF marker not found"], run.stderr
    assert "folio-read-" not in run.stderr and "wall clock" in run.stderr
    assert "summed over the worker processes" in flat(run.stderr)


def test_config_files_are_found_and_shown_with_their_source(tmp_path: Path) -> None:
    user = tmp_path / "xdg" / "folio"
    user.mkdir(parents=True)
    (user / "folio.yaml").write_text("chunk:\n  preset: small\n  concepts: 3\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / "folio.yaml").write_text("chunk:\n  concepts: 4\n  heading_depth: 3\n")
    (work / "a.md").write_text("# A\n\n" + "word " * 2000 + "\n")
    xdg = {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    explicit = tmp_path / "mine.yaml"
    explicit.write_text("chunk:\n  concepts: 6\n")
    chunks = folio("chunk", "a.md", "--config", str(explicit), cwd=work, **xdg)
    assert chunks.returncode == 0, chunks.stderr
    records = [json.loads(line) for line in chunks.stdout.splitlines()]
    # the user's preset (small: snippets of 256 at most), the folder's heading depth
    assert max(r["est_tokens"] for r in records if r["tier"] == "snippet") <= 256
    shown = folio("config", "show", "--json", cwd=work, **xdg)
    assert shown.returncode == 0, shown.stderr
    settings = json.loads(shown.stdout)["settings"]
    assert settings["chunk.preset"] == {"value": "small", "from": str(user / "folio.yaml")}
    assert settings["chunk.concepts"] == {"value": 4, "from": str(work / "folio.yaml")}
    assert settings["chunk.snippet_max"] == {"value": 256, "from": "preset small"}
    assert settings["chunk.min_tokens"]["from"] == "default"
    text = folio("config", "show", cwd=work, **xdg, FOLIO_CONFIG=str(explicit)).stdout
    assert any(
        line.startswith("chunk.concepts") and line.endswith(str(explicit))
        for line in text.splitlines()
    ), text


def test_unknown_config_keys_get_a_suggestion(tmp_path: Path) -> None:
    (tmp_path / "x.md").write_text("# X\n\ntext\n")
    (tmp_path / "c.yaml").write_text("chunk:\n  presett: small\n")
    run = folio("chunk", "x.md", "--config", "c.yaml", cwd=tmp_path)
    assert run.returncode == 2 and "did you mean 'preset'" in run.stderr, run.stderr
    (tmp_path / "folio.yaml").write_text("typesens:\n  url: http://x:1\n")
    run = folio("chunk", "x.md", cwd=tmp_path)
    assert run.returncode == 2 and "did you mean 'typesense'" in run.stderr, run.stderr


def on_a_terminal(*args: str) -> str:
    """What `folio` writes to stderr when stderr is a terminal, escape sequences removed."""
    parent, child = pty.openpty()
    env = {**os.environ, "COLUMNS": "100", "TERM": "xterm"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipeline", *args],
        stdout=subprocess.DEVNULL,
        stderr=child,
        cwd=ROOT,
        env=env,
    )
    os.close(child)
    shown = b""
    try:
        while piece := os.read(parent, 65536):
            shown += piece
    except OSError:  # the other end is closed: all read
        pass
    finally:
        os.close(parent)
    assert proc.wait(timeout=180) in (0, 1)
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown.decode())


def test_ingest_log_lines_print_above_the_progress_bar(
    store: Store, folio_env: Path, tmp_path: Path
) -> None:
    lib = pdfs(tmp_path)
    screen = on_a_terminal("-v", "ingest", str(lib), "--workers", "2")  # -v: pypdf's lines
    lines = re.split(r"[\r\n]", screen)
    logged = [line for line in lines if "folio:" in line]
    assert any("EOF marker not found" in line for line in logged), screen
    # a log line is a line of its own, never written into the bar's
    assert not [line for line in logged if "files ·" in line], screen
    assert "0/?" not in screen  # the counter appears once the files are counted
