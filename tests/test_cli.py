"""The `folio` command as a user runs it (a real subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent


def folio(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pipeline", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def test_help_lists_commands() -> None:
    out = folio("--help")
    assert out.returncode == 0
    assert "chunk" in out.stdout and "extract" in out.stdout
    sub = folio("chunk", "--help")
    assert "--preset" in sub.stdout and "--overlap" in sub.stdout and "--format" in sub.stdout


def test_chunk_folder_jsonl(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nalpha\n\n## B\n\nbeta\n\n## C\n\ngamma\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_text("CHAPTER I\n\nText.\n")
    (tmp_path / "skip.bin").write_bytes(b"\x00\x01")
    out = folio("chunk", str(tmp_path))
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in out.stdout.splitlines()]
    assert {r["source"] for r in records} == {str(tmp_path / "a.md"), str(tmp_path / "sub/b.txt")}
    fields = set(records[0])
    assert {
        "id",
        "doc_id",
        "tier",
        "parent_id",
        "breadcrumb",
        "retrieval_text",
        "char_start",
        "prefix_chars",
        "heading_mode",
        "content_hints",
        "page_start",
    } <= fields


def test_chunk_table_and_presets() -> None:
    out = folio("chunk", "examples/library", "--format", "table", "--preset", "small")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0].startswith("tier")
    assert "snippet" in out.stdout and "section" in out.stdout


def test_bad_file_reported_rest_chunked(tmp_path: Path) -> None:
    (tmp_path / "good.md").write_text("# Good\n\ntext\n")
    (tmp_path / "bad.md").write_bytes(b"\xff\xfe\xfa not utf8 \xc3\x28")
    out = folio("chunk", str(tmp_path / "bad.md"), str(tmp_path / "good.md"))
    assert out.returncode == 1
    assert "bad.md" in out.stderr
    assert json.loads(out.stdout.splitlines()[0])["doc_title"] == "Good"


def test_config_errors_name_the_key(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("chunk:\n  snippet_max: 5\n")
    out = folio("chunk", "examples/library", "--config", str(cfg))
    assert out.returncode == 2
    assert "snippet_max" in out.stderr


def test_extract_prints_normalized_text(tmp_path: Path) -> None:
    f = tmp_path / "x.md"
    f.write_bytes(b"\xef\xbb\xbf# T\r\n\r\nbody\r\n")
    out = folio("extract", str(f))
    assert out.stdout == "# T\n\nbody\n"
    js = json.loads(folio("extract", str(f), "--json").stdout)
    assert js["text"] == "# T\n\nbody\n" and js["pages"] == []
