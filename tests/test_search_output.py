"""`folio search` as a person reads it: whatever a document holds (backslashes, brackets,
markup-like text) prints as text, never as rich markup. Real `folio` processes against
the session's Typesense server; the line builder fuzzed with hypothesis."""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from .helpers import folio

ROOT = Path(__file__).parent.parent


def test_a_match_after_a_backslash_prints(folio_env: Path, tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "latex.md").write_text(
        "# Margins\n\nPlace a note with \\sidenote{text} or \\marginnote{text}; the sidenote "
        "counter resets per chapter.\n\n## Paths\n\nC:\\Users\\me\\[bold]notes[/bold]\\"
        "marginnote.txt holds \\[/dim] too.\n"
    )
    env = {**os.environ, "FOLIO_HOME": str(tmp_path / "home"), "COLUMNS": "120"}
    assert folio(env, "ingest", str(lib)).returncode == 0
    for query in ("marginnote", "sidenote counter", "notes"):
        run = folio(env, "search", query)
        assert run.returncode == 0, (query, run.stderr)
        assert "Traceback" not in run.stderr and "MarkupError" not in run.stderr
    shown = folio(env, "search", "marginnote").stdout
    assert "\\marginnote{text}" in shown
    assert "[bold]notes[/bold]" in shown  # the document's own brackets, as written


# Markup-like text; a literal "<mark>" in a document is indistinguishable from
# Typesense's own tag, so parts hold none.
MARKUPISH = st.text(alphabet="ab \\[]/<>markbold=#\t\n", max_size=60).filter(
    lambda s: "mark>" not in s
)


@given(
    parts=st.lists(MARKUPISH, min_size=1, max_size=7),
    unbalanced=st.sampled_from(["", "<mark>", "</mark>"]),
)
@settings(max_examples=300, deadline=None)
def test_marked_is_text_whatever_the_snippet(parts: list[str], unbalanced: str) -> None:
    """Typesense's snippet, odd parts in <mark>: the printed line is the snippet's text
    with the tags gone, the marked parts bold; nothing is read as markup."""
    from pipeline.cli.terminal import marked

    snippet = "".join(f"<mark>{p}</mark>" if i % 2 else p for i, p in enumerate(parts))
    snippet += unbalanced
    line = marked(snippet, limit=10_000)
    expected = " ".join(snippet.replace("<mark>", "").replace("</mark>", "").split())
    assert line.plain == expected
    bold = "".join(line.plain[s.start : s.end] for s in line.spans if s.style == "bold")
    assert "".join(bold.split()) == "".join("".join(parts[1::2]).split())
    buffer = io.StringIO()
    Console(file=buffer, width=200, color_system=None).print(line, soft_wrap=True)
    assert buffer.getvalue().rstrip("\n") == expected


@pytest.fixture()
def library_80(folio_env: Path, tmp_path: Path) -> dict[str, str]:
    """The environment for `folio` at 80 columns over a markdown page and a PDF book."""
    lib = tmp_path / "lib"
    lib.mkdir()
    for name in ("rust-ownership.md", "tufte-sample-book.pdf"):
        shutil.copy(ROOT / "examples" / "library" / name, lib / name)
    env = {**os.environ, "FOLIO_HOME": str(tmp_path / "home"), "COLUMNS": "80"}
    assert folio(env, "ingest", str(lib)).returncode == 0
    return env


def test_search_reads_at_80_columns(library_80: dict[str, str]) -> None:
    env = library_80
    for query in ("ownership", "margin notes"):
        hits = json.loads(folio(env, "search", query, "--json").stdout)["hits"]
        run = folio(env, "search", query)
        assert run.returncode == 0, run.stderr
        lines = run.stdout.splitlines()
        assert all(len(line) <= 80 for line in lines), run.stdout
        for hit in hits:
            # the id whole, at the start of an indented line of its own
            at = [i for i, line in enumerate(lines) if line.startswith(f"  {hit['id']}")]
            assert at, (hit["id"], run.stdout)
            preview = []
            for line in lines[at[0] + 1 :]:
                if not line.startswith("  "):
                    break
                preview.append(line)
            words = " ".join(preview).split()
            assert len(words) >= 12, (query, preview)  # a passage, not four words


def test_outline_keeps_its_tree_at_80_columns(library_80: dict[str, str]) -> None:
    env = library_80
    docs = json.loads(folio(env, "docs", "--json").stdout)
    pdf = next(d for d in docs if d["path"].endswith(".pdf"))
    headings = json.loads(folio(env, "outline", pdf["doc_id"][:10], "--json").stdout)["headings"]
    run = folio(env, "outline", pdf["doc_id"][:10])
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()[1:]
    assert len(lines) == len(headings), run.stdout  # one line each, none wrapped
    for line, entry in zip(lines, headings, strict=True):
        assert len(line) <= 80 and line.startswith(entry["id"] + "  "), line
        depth = entry["level"]
        title = line[len(entry["id"]) + 2 :]
        assert title.startswith("  " * depth) and not title[2 * depth].isspace(), line
