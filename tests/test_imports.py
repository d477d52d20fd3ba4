"""The import order of docs/design.md: no stage imports from a later one, and the layers
below the stages (text, home, embed) import no stage."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PIPELINE = Path(__file__).resolve().parent.parent / "pipeline"
# The README's stages in order; ingest drives index, beside retrieve.
RANK = {"extract": 0, "parse": 1, "chunk": 2, "index": 3, "ingest": 4, "retrieve": 4}
BELOW_STAGES = ("text", "home", "embed")


def _imported(path: Path) -> Iterator[str]:
    """The ``pipeline`` modules ``path`` imports, as absolute dotted names."""
    # the package a relative import starts from (an __init__.py's is its own folder)
    package = list(path.relative_to(PIPELINE.parent).parts[:-1])
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            names = [f"{module}.{a.name}" for a in node.names] if not node.module else [module]
            yield from names
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names)


def _part(module: str) -> str:
    """The top-level part of ``pipeline`` a dotted name is in (a package or a module)."""
    names = module.split(".")
    return names[1] if names[0] == "pipeline" and len(names) > 1 else ""


def _edges() -> set[tuple[str, str, str]]:
    """(importing file, its part, imported part) across parts of ``pipeline``."""
    out: set[tuple[str, str, str]] = set()
    for path in PIPELINE.rglob("*.py"):
        here = _part(".".join(path.relative_to(PIPELINE.parent).with_suffix("").parts))
        for module in _imported(path):
            there = _part(module)
            if there and there != here:
                out.add((str(path.relative_to(PIPELINE.parent)), here, there))
    return out


def test_the_import_reader_sees_relative_and_absolute_imports() -> None:
    edges = _edges()
    assert ("pipeline/chunk/tiers.py", "chunk", "parse") in edges
    assert ("pipeline/index/store.py", "index", "home") in edges
    assert ("pipeline/ingest/process.py", "ingest", "extract") in edges


def test_no_stage_imports_from_a_later_stage() -> None:
    backwards = sorted(
        (path, here, there)
        for path, here, there in _edges()
        if here in RANK and there in RANK and RANK[there] >= RANK[here]
    )
    assert backwards == []


def test_the_layers_below_the_stages_import_no_stage() -> None:
    reaching = sorted(
        (path, there) for path, here, there in _edges() if here in BELOW_STAGES and there in RANK
    )
    assert reaching == []
