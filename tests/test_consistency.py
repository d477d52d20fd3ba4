"""The same thing said the same way everywhere: exit codes and error prefixes, what a
prune of a removed folder reports, which name a failure is under, one line per field in
`folio docs`, no library's internal warnings on the terminal, null pages for files
without pages, and MCP arguments checked in Folio's words. Real `folio` processes and
the SDK's MCP client, on the session's Typesense server."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from pipeline.index.store import Store
from tests.hostile import generate

from .helpers import folio

ROOT = Path(__file__).parent.parent


@pytest.fixture()
def env(folio_env: Path, tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "FOLIO_HOME": str(tmp_path / "home"), "COLUMNS": "80"}


def test_an_unknown_document_is_the_same_error_everywhere(
    env: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "a.md").write_text("# A\n\nalpha beta\n")
    assert folio(env, "ingest", str(tmp_path / "lib")).returncode == 0
    runs = [
        folio(env, "delete", "nosuchdoc"),
        folio(env, "search", "alpha", "--doc", "nosuchdoc"),
        folio(env, "outline", "nosuchdoc"),
    ]
    for run in runs:
        assert run.returncode == 2, run.stderr
        assert run.stderr.startswith("folio: error: "), run.stderr
        assert "no indexed document matches 'nosuchdoc'" in run.stderr


def test_pruning_a_removed_folder_prunes_and_fails_nothing(
    env: dict[str, str], tmp_path: Path
) -> None:
    folder = tmp_path / "lib" / "notes"
    folder.mkdir(parents=True)
    (folder / "a.md").write_text("# A\n\nalpha\n")
    (tmp_path / "lib" / "b.md").write_text("# B\n\nbeta\n")
    assert folio(env, "ingest", str(tmp_path / "lib")).returncode == 0
    shutil.rmtree(folder)
    run = folio(env, "ingest", str(folder), "--prune", "--json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["failed"] == [] and report["pruned"] == [str(folder / "a.md")]
    gone = folio(env, "ingest", str(tmp_path / "nowhere"), "--json")
    assert gone.returncode == 1  # without --prune a missing path is still a failure
    assert json.loads(gone.stdout)["failed"][0]["reason"] == "no such file or directory"


def test_a_link_to_a_device_fails_under_the_library_name(
    env: dict[str, str], tmp_path: Path
) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "good.md").write_text("# Good\n\ntext\n")
    (lib / "zero.md").symlink_to("/dev/zero")
    run = folio(env, "ingest", str(lib), "--json")
    assert run.returncode == 1, run.stderr
    failed = json.loads(run.stdout)["failed"]
    assert [(f["path"], f["reason"]) for f in failed] == [
        (str(lib / "zero.md"), "not a regular file")
    ]
    # wide enough that the table shows the path on one line whatever the temp dir's
    # length (an xdist worker's is 10 characters longer and wrapped at 80 columns)
    shown = folio({**env, "COLUMNS": "200"}, "ingest", str(lib))
    assert "/dev/zero" not in shown.stderr and f"{lib / 'zero.md'}" in shown.stderr


def test_docs_gives_each_field_one_line(env: dict[str, str], tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "new\nline.md").write_text("# Broken\n\ntext\n")
    (lib / "tab\tname.md").write_text("# Tabbed\n\ntext\n")
    assert folio(env, "ingest", str(lib)).returncode == 0
    run = folio(env, "docs")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 1 + 2 * 2, run.stdout  # the header, then a row and a path each
    assert any(line.endswith("new\\nline.md") for line in lines), run.stdout
    assert any(line.endswith("tab\\tname.md") for line in lines), run.stdout
    assert all(len(line) <= 80 for line in lines)


def test_no_pdf_library_warning_reaches_the_terminal(env: dict[str, str], tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    generate.pdf_truncated(lib, 0.5)
    generate.pdf_broken_xref(lib)
    generate.pdf_cyclic_outline(lib)
    run = folio(env, "ingest", str(lib))
    assert run.returncode == 1, run.stderr
    table = run.stderr.index("folio ingest")
    above = run.stderr[:table]
    for noise in ("EOF marker", "startxref", "Object Streams", "IndirectObject", "not defined"):
        assert noise not in above, above
    said = f"failed {lib / 'truncated-50.pdf'} (extract)"
    assert "".join(said.split()) in "".join(run.stderr.split())  # wrapped at 80 columns
    verbose = folio(env, "-v", "ingest", str(lib), "--prune")  # -v: every detail
    assert "EOF marker not found" in verbose.stderr  # the failed file is read again


def test_pages_is_null_for_files_without_pages(env: dict[str, str], tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "a.md").write_text("# A\n\nalpha\n")
    shutil.copy(ROOT / "examples" / "library" / "tufte-sample-book.pdf", lib / "t.pdf")
    assert folio(env, "ingest", str(lib)).returncode == 0
    docs = json.loads(folio(env, "docs", "--json").stdout)
    pages = {Path(d["path"]).name: d["pages"] for d in docs}
    assert pages["a.md"] is None and pages["t.pdf"] and pages["t.pdf"] > 0
    listed = mcp_calls([("list_documents", {})])[0]
    mcp_pages = {Path(d["path"]).name: d["pages"] for d in listed.structured_content["documents"]}
    assert mcp_pages == pages


def mcp_calls(calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """The results of ``calls`` on `folio mcp`'s server, through the SDK's client."""
    from mcp.client import Client

    from pipeline.mcp.server import build_server

    async def run() -> list[Any]:
        async with Client(build_server()) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return asyncio.run(asyncio.wait_for(run(), 60))


def test_mcp_arguments_are_checked_in_folios_words(store: Store, env: dict[str, str]) -> None:
    bad_type, unknown, misspelt = mcp_calls(
        [
            ("search", {"query": "x", "page": "abc"}),
            ("search", {"query": "x", "pagez": 2}),
            ("list_documents", {"limits": 5}),
        ]
    )
    assert bad_type.is_error and unknown.is_error and misspelt.is_error
    said = bad_type.content[0].text
    assert "invalid page 'abc'" in said and "whole number" in said, said
    assert "pydantic" not in said and "http" not in said and "type=" not in said, said
    said = unknown.content[0].text
    assert "unknown argument 'pagez'" in said and "did you mean 'page'?" in said, said
    assert "per_page" in said  # the allowed ones are named
    assert "did you mean 'limit'?" in misspelt.content[0].text
