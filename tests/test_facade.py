"""pipeline.Library over a real Typesense server: the README's example runs as written,
and each operation gives what the commands give."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import pipeline
from pipeline.errors import RetrievalError, StoreError
from pipeline.index.store import Store

ROOT = Path(__file__).resolve().parents[1]


def readme_example() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- python-api-example -->\n```python\n(.*?)```", readme, re.S)
    assert found, "the README's Python API example is missing"
    return found.group(1)


def test_readme_example_runs(folio_env: Path, tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(readme_example(), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, str(script)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=os.environ | {"FOLIO_HOME": str(tmp_path / "home")},
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "7 ingested, 0 unchanged"
    assert "[1] " in run.stdout  # a cited context item
    assert str(ROOT / "examples" / "library") in run.stdout  # a citation's source


@pytest.fixture()
def library(store: Store, tmp_path: Path) -> pipeline.Library:
    lib = pipeline.Library(store)
    for name in ("rust-ownership.md", "tufte-sample-book.pdf"):
        shutil.copy(ROOT / "examples" / "library" / name, tmp_path / name)
    report = lib.ingest([str(tmp_path)], options=pipeline.IngestOptions(workers=1))
    assert len(report.ingested) == 2 and not report.failed
    return lib


def test_library_operations(library: pipeline.Library, tmp_path: Path) -> None:
    docs = {Path(d.path).name: d for d in library.documents()}
    assert set(docs) == {"rust-ownership.md", "tufte-sample-book.pdf"}
    tufte = docs["tufte-sample-book.pdf"]
    assert tufte.status == "complete" and tufte.sections > 0
    # by path, by unique prefix
    assert library.document(str(tmp_path / "tufte-sample-book.pdf")) == tufte
    assert library.document(tufte.doc_id[:8]) == tufte

    entries = library.outline(tufte.doc_id)  # its headings, each once, in order
    assert len({e.breadcrumb for e in entries}) == len(entries) > tufte.sections
    indexes = [e.chunk_index for e in entries]
    assert indexes == sorted(indexes) and set(indexes) <= set(range(tufte.sections))
    assert all(e.breadcrumb[0] == tufte.title for e in entries)

    hits = library.search("ownership", pipeline.Filters(tier="snippet")).hits
    assert hits and all(h.tier == "snippet" for h in hits)

    at = next(e for e in entries if e.chunk_index > 0)  # a heading after the first section
    shown = library.show(at.id)
    assert shown.chunk.id == at.id
    assert shown.previous is not None
    assert (library.show(shown.previous.id).next or shown.chunk).id == at.id
    if shown.next is not None:
        assert (library.show(shown.next.id).previous or shown.chunk).id == at.id
    assert shown.citation.source == tufte.path
    first, last = shown.citation.page_start or 0, shown.citation.page_end or 0
    assert first <= (at.page_start or 0) <= last  # the section holds the heading's start
    snippet = library.show(hits[0].id)
    assert snippet.chunk.parent_id and snippet.citation.char_start >= 0

    ctx = library.retrieve("what is ownership in Rust", budget=800)
    assert ctx.items and ctx.tokens <= 800
    # what the command prints for the same question and budget
    cli = subprocess.run(
        ["folio", "retrieve", "what is ownership in Rust", "--budget", "800", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ
        | {
            "TYPESENSE_URL": library.store.nodes[0].url(),
            "TYPESENSE_API_KEY": library.store.api_key,
        },
    )
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout) == json.loads(json.dumps(ctx.to_dict()))


def test_errors_and_delete(library: pipeline.Library) -> None:
    with pytest.raises(RetrievalError, match="no section or snippet"):
        library.show("nope")
    with pytest.raises(RetrievalError, match="no indexed document matches"):
        library.outline("ffffffffffff")
    reader = library.read_only()
    assert reader.documents() == library.documents()
    md = next(d for d in library.documents() if d.format == "markdown")
    with pytest.raises(StoreError):
        reader.delete(md.doc_id)
    removed = library.delete(md.doc_id[:10])
    assert removed.chunks == md.sections + md.snippets and removed.kept_by == ()
    assert [d.format for d in library.documents()] == ["pdf"]
