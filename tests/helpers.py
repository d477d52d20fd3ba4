"""Shared test helpers."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import pytest

from pipeline import Chunk, ChunkConfig
from pipeline.chunk.invariants import check_chunks
from pipeline.parse.blocks import parse_markdown

if TYPE_CHECKING:
    from mcp.types import CallToolResult

ROOT = Path(__file__).parent.parent

# Tests that hold CPU-bound chunking to a wall-clock limit (a hang, or a slowdown that is
# not linear) run with no other test beside them under pytest-xdist (tests/alone.py).
TIMED = pytest.mark.alone


def folio(
    env: dict[str, str], *args: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``folio ARGS`` as a process of its own, run from the repository root with ``env``."""
    return subprocess.run(
        [sys.executable, "-m", "pipeline", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        cwd=ROOT,
    )


def folio_each(
    env: dict[str, str], *commands: tuple[str, ...], timeout: float = 120
) -> list[subprocess.CompletedProcess[str]]:
    """``folio ARGS`` for each of ``commands``, each a process of its own as ``folio``
    runs it, all started at once: commands that do not depend on each other (readers)
    overlap on the cores instead of queueing behind each other's start-up. Output is
    decoded as strict UTF-8 (invalid output fails here); results in ``commands`` order."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "pipeline", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=ROOT,
        )
        for args in commands
    ]
    runs = []
    try:
        for proc in procs:
            out, err = proc.communicate(timeout=timeout)
            runs.append(
                subprocess.CompletedProcess(
                    proc.args, proc.returncode, out.decode("utf-8"), err.decode("utf-8")
                )
            )
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return runs


def assert_invariants(
    src: str, chunks: list[Chunk], config: ChunkConfig | None = None, markup: str = "markdown"
) -> None:
    config = config or ChunkConfig()
    excluded: list[tuple[int, int]] = []
    if markup != "text" and config.frontmatter != "include":
        blocks, _ = parse_markdown(src, mdx=markup == "mdx")
        excluded = [(b.start, b.end) for b in blocks[:1] if b.kind == "frontmatter"]
    problems = check_chunks(src, chunks, config, excluded=excluded, markup=markup)
    assert not problems, problems[:10]


def sections(chunks: list[Chunk]) -> list[Chunk]:
    return [c for c in chunks if c.tier == "section"]


def snippets(chunks: list[Chunk]) -> list[Chunk]:
    return [c for c in chunks if c.tier == "snippet"]


SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def load_script(name: str) -> ModuleType:
    """``scripts/<room>/<name>.py`` as a module; every room goes on the path for the scripts
    it imports (scripts/shared/rooms.py)."""
    (path,) = SCRIPTS.glob(f"*/{name}.py")
    if str(SCRIPTS / "shared") not in sys.path:
        sys.path.insert(0, str(SCRIPTS / "shared"))
    importlib.import_module("rooms")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def tool_text(result: CallToolResult, index: int = 0) -> str:
    """The text of block ``index`` of an MCP tool's answer: Folio's tools answer in text."""
    from mcp.types import TextContent

    block = result.content[index]
    assert isinstance(block, TextContent), block
    return block.text
