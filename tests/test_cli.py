"""The `folio` command as a user runs it (a real subprocess)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from .helpers import folio_each

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


def test_ingest_search_docs_delete_status(folio_env: Path, tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "guide.md").write_text(
        "# Guide\n\n## Tables\n\n| key | value |\n|---|---|\n| replication | three copies |\n\n"
        "## Code\n\n```py\nprint('replication')\n```\n\n## Prose\n\nReplication keeps data safe.\n"
    )
    (lib / "bad.epub").write_bytes(b"PK\x03\x04 not really a zip")
    env = {**os.environ, "FOLIO_HOME": str(tmp_path / "home")}
    run = subprocess.run(
        [sys.executable, "-m", "pipeline", "ingest", str(lib), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=ROOT,
    )
    assert run.returncode == 1, run.stderr  # one file failed
    summary = json.loads(run.stdout)
    assert summary["ingested"] == [str(lib / "guide.md")]
    assert summary["failed"][0]["path"] == str(lib / "bad.epub")
    found = subprocess.run(
        [sys.executable, "-m", "pipeline", "search", "replication", "--hint", "table", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        cwd=ROOT,
    )
    hits = json.loads(found.stdout)["hits"]
    assert hits and all("table" in h["content_hints"] for h in hits)
    docs = json.loads(
        subprocess.run(
            [sys.executable, "-m", "pipeline", "docs", "--json"],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
        ).stdout
    )
    assert {d["status"] for d in docs} == {"complete", "failed"}
    guide = next(d for d in docs if d["path"].endswith("guide.md"))
    gone = subprocess.run(
        [sys.executable, "-m", "pipeline", "delete", guide["doc_id"][:10]],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert gone.returncode == 0, gone.stderr
    status = json.loads(
        subprocess.run(
            [sys.executable, "-m", "pipeline", "status", "--json"],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
        ).stdout
    )
    assert status["sections"] == 0 and status["snippets"] == 0


def test_retrieve_reads_the_dense_model_from_the_config_file(
    folio_env: Path, tmp_path: Path
) -> None:
    config = tmp_path / "folio.yaml"
    config.write_text("dense:\n  model: no-such-model\n")
    env = {**os.environ, "FOLIO_HOME": str(tmp_path / "home")}
    env.pop("FOLIO_EMBED_MODEL", None)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pipeline",
            "retrieve",
            "what is replication?",
            "--budget",
            "500",
            "--mode",
            "dense",
            "--config",
            str(config),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=ROOT,
    )
    assert run.returncode == 2
    assert str(tmp_path / "no-such-model") in run.stderr and "model.safetensors" in run.stderr


FIXTURES = ROOT / "tests" / "fixtures" / "extract"


def _flat_book(tmp_path: Path) -> Path:
    body = "\n\n".join(
        f"Day {n} went by as days do, slowly and then all at once." * 20 for n in range(6)
    )
    parts = "\n\n".join(f"CHAPTER {r}\n\n{body}" for r in ("I", "II", "III"))
    path = tmp_path / "book.txt"
    path.write_text(f"A Flat Book\n\nContents\n\nCHAPTER I\nCHAPTER II\nCHAPTER III\n\n{parts}\n")
    return path


def _md_doc(tmp_path: Path) -> Path:
    body = "\n\n".join(f"Paragraph {n} says something worth a line or two." * 15 for n in range(5))
    path = tmp_path / "doc.md"
    path.write_text(f"# Guide\n\n{body}\n\n## Install\n\n{body}\n\n## Use\n\n{body}\n")
    return path


def test_extract_outline_and_chunk_agree_on_every_format(tmp_path: Path) -> None:
    files = [
        _md_doc(tmp_path),
        _flat_book(tmp_path),
        FIXTURES / "pdflatex-outline.pdf",
        FIXTURES / "childrens-literature.epub",
    ]
    out, *runs = folio_each(
        dict(os.environ),
        ("outline", "--json", *map(str, files)),
        *[(command, str(path)) for path in files for command in ("extract", "chunk")],
    )
    assert out.returncode == 0, out.stderr
    trees = json.loads(out.stdout)
    assert [t["source"] for t in trees] == [str(f.resolve()) for f in files]
    for path, tree, extract, chunk in zip(files, trees, runs[::2], runs[1::2], strict=True):
        text = extract.stdout
        atx = [(len(m.group(1)), m.group(2)) for m in re.finditer(r"(?m)^(#{1,6}) +(.+?) *$", text)]
        heads = [(h["level"], h["title"]) for h in tree["headings"]]
        assert heads == atx, path.name
        chunks = [json.loads(line) for line in chunk.stdout.splitlines()]
        crumbs = {tuple(c["breadcrumb"]) for c in chunks if c["tier"] == "section"}
        assert crumbs <= {tuple(h["breadcrumb"]) for h in tree["headings"]} | {(tree["title"],)}
        assert tree["sections"] == sum(1 for c in chunks if c["tier"] == "section")
        assert all(
            h["sections"] >= 1 for h in tree["headings"] if h["char_end"] > h["char_start"] + 80
        )
    flat = trees[1]
    assert flat["title"] == "A Flat Book"
    assert [h["title"] for h in flat["headings"]] == ["CHAPTER I", "CHAPTER II", "CHAPTER III"]
    assert trees[2]["headings"][0]["page_start"] == 2


def test_outline_prints_a_tree(tmp_path: Path) -> None:
    out = folio("outline", str(_md_doc(tmp_path)))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith(f"{tmp_path / 'doc.md'}: Guide (markdown headings, 3 headings")
    assert lines[1].startswith("Guide  [") and lines[2].startswith("  Install  [")


def test_outline_reports_a_bad_file_and_goes_on(tmp_path: Path) -> None:
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"%PDF-1.4\n garbage")
    out = folio("outline", "--json", str(bad), str(_md_doc(tmp_path)))
    assert out.returncode == 1
    assert "broken.pdf" in out.stderr
    assert [t["title"] for t in json.loads(out.stdout)] == ["Guide"]
