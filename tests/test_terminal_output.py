"""Human output never passes a document's escape sequences to the terminal, nor reads a
file name as rich markup; JSON output stays exact. Real `folio` processes, real server."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

from pipeline.cli.terminal import markup, plain

from .helpers import folio, folio_each

ROOT = Path(__file__).parent.parent
CLIPBOARD = "\x1b]52;c;ZXZpbA==\x07"  # OSC 52: write "evil" to the clipboard
TITLE = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J\x1b[H"
C1_CSI = "\x9b2J"
HOSTILE = (CLIPBOARD, TITLE, CLEAR, C1_CSI, "\r", "\x08")


def no_escapes(text: str) -> bool:
    return not any(c in text for c in "\x1b\x07\x9b\r\x08")


def test_plain_and_markup() -> None:
    assert plain(f"a{CLIPBOARD}b\tc\n{C1_CSI}d") == "a]52;c;ZXZpbA==b\tc\n2Jd"
    assert markup("x [/red] y") == "x \\[/red] y"


def test_documents_cannot_drive_the_terminal(folio_env: Path, tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    folder = lib / "a ["  # the files' paths hold "a [/red]"
    folder.mkdir(parents=True)
    (folder / "red] book.md").write_text(
        f"# Rogue {TITLE}title\n\nIntro {CLEAR}about lanterns.\n\n"
        f"## Clipboard {CLIPBOARD}heading\n\nThe lantern{CLIPBOARD} section {C1_CSI}text.\n\n"
        f"## Third\n\nMore lantern text.\n"
    )
    (folder / "red] bad.pdf").write_bytes(b"%PDF-1.7\nnot a pdf")
    env = {**os.environ, "FOLIO_HOME": str(tmp_path / "home"), "COLUMNS": "400"}

    ingest = folio(env, "ingest", str(lib))
    assert ingest.returncode == 1, ingest.stderr  # the PDF failed, and was reported
    assert "a [/red] bad.pdf" in ingest.stderr and "Traceback" not in ingest.stderr
    shown: dict[str, str] = {}  # stdout by command: the retrieve is checked again below
    readers = (
        ("search", "lantern"),
        ("search", "[/red]"),
        ("retrieve", "lantern", "--budget", "400"),
        ("docs",),
        ("status",),
    )
    *runs, as_json = folio_each(env, *readers, ("retrieve", "lantern", "--budget", "400", "--json"))
    for args, run in zip(readers, runs, strict=True):
        assert run.returncode == 0, (args, run.stderr)
        assert "Traceback" not in run.stderr, (args, run.stderr)
        assert no_escapes(run.stdout + run.stderr), (args, run.stdout)
        shown[args[0]] = run.stdout
    assert "Clipboard ]52;c;ZXZpbA==heading" in shown["retrieve"]  # shown, defused

    exact = json.loads(as_json.stdout)
    assert any(CLIPBOARD in item["text"] for item in exact["items"])


def test_extract_is_exact_when_piped_and_safe_on_a_terminal(tmp_path: Path) -> None:
    (tmp_path / "a [").mkdir()
    book = tmp_path / "a [" / "red] book.md"
    text = f"# Title {TITLE}\n\nBody {CLIPBOARD}{CLEAR}text.\n"
    book.write_text(text)
    env = dict(os.environ)
    assert folio(env, "extract", str(book)).stdout == text
    parent, child = pty.openpty()
    try:
        run = subprocess.run(
            [sys.executable, "-m", "pipeline", "extract", str(book)],
            stdout=child,
            stderr=subprocess.PIPE,
            env=env,
            cwd=ROOT,
            timeout=60,
        )
        os.close(child)
        shown = b""
        while True:
            try:
                piece = os.read(parent, 65536)
            except OSError:  # the terminal's other end is closed: all read
                break
            if not piece:
                break
            shown += piece
    finally:
        os.close(parent)
    assert run.returncode == 0, run.stderr
    screen = shown.decode()
    assert "Body ]52;c;ZXZpbA==" in screen and no_escapes(screen.replace("\r\n", "\n"))


def test_outline_shows_hostile_titles_defused(tmp_path: Path) -> None:
    book = tmp_path / "book.md"
    book.write_text(
        f"# Rogue {TITLE}title\n\nIntro.\n\n## Clip {CLIPBOARD}board\n\nText.\n\n"
        f"## Clear {CLEAR}screen\n\nMore.\n"
    )
    run = folio(dict(os.environ), "outline", str(book))
    assert run.returncode == 0, run.stderr
    assert "Clip ]52;c;ZXZpbA==board" in run.stdout and no_escapes(run.stdout)
