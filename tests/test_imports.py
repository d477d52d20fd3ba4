"""The import rules of docs/design.md, checked on the code's own imports.

- No stage imports from a later stage (extract → parse → chunk → index → ingest/retrieve).
- The layers below the stages (text, embed, and the shared layer: config, limits, home,
  logs, inputs, pathtext) import no stage.
- The surfaces (cli, mcp, web, integrations) are ways in over ``pipeline.Library``: they
  import only ``library`` (the Library and the types it takes and gives), ``chunking``
  (chunking without a library), the records and errors (``model``, ``errors``), the shared
  layer and their own package. Only the CLI imports another surface: the entry point it
  starts (``folio mcp``, ``folio serve``).
- Nothing below the surfaces imports one."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PIPELINE = Path(__file__).resolve().parent.parent / "pipeline"
# The README's stages in order; ingest drives index, beside retrieve.
RANK = {"extract": 0, "parse": 1, "chunk": 2, "index": 3, "ingest": 4, "retrieve": 4}
BELOW_STAGES = ("text", "embed", "shared")
SURFACES = ("cli", "mcp", "web", "integrations")
# What a surface may import besides its own package.
PUBLIC = ("library", "chunking", "model", "errors", "shared")
# The other surfaces' entry points the CLI starts.
STARTED_BY_CLI = ("pipeline.mcp.server.serve", "pipeline.web.app.serve")
# ``python -m pipeline`` runs the CLI.
ENTRY = "__main__"


def _imported(path: Path, root: Path) -> Iterator[str]:
    """The ``pipeline`` modules ``path`` imports, as absolute dotted names."""
    # the package a relative import starts from (an __init__.py's is its own folder)
    package = list(path.relative_to(root.parent).parts[:-1])
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            yield from (f"{module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names)


def _part(module: str) -> str:
    """The top-level part of ``pipeline`` a dotted name is in (a package or a module)."""
    names = module.split(".")
    return names[1] if names[0] == "pipeline" and len(names) > 1 else ""


def _imports(root: Path = PIPELINE) -> set[tuple[str, str, str, str]]:
    """(importing file, its part, imported part, imported name) across parts of ``root``."""
    out: set[tuple[str, str, str, str]] = set()
    for path in root.rglob("*.py"):
        here = _part(".".join(path.relative_to(root.parent).with_suffix("").parts))
        for module in _imported(path, root):
            there = _part(module)
            if there and there != here:
                out.add((str(path.relative_to(root.parent)), here, there, module))
    return out


def _edges(root: Path = PIPELINE) -> set[tuple[str, str, str]]:
    """(importing file, its part, imported part) across parts of ``root``."""
    return {(path, here, there) for path, here, there, _ in _imports(root)}


def _surface_breaches(root: Path = PIPELINE) -> list[tuple[str, str]]:
    """Imports by a surface of anything but the public API, the shared layer and the
    entry points the CLI starts."""
    return sorted(
        (path, name)
        for path, here, there, name in _imports(root)
        if here in SURFACES
        and there not in PUBLIC
        and not (here == "cli" and name in STARTED_BY_CLI)
    )


def _surface_users(root: Path = PIPELINE) -> list[tuple[str, str]]:
    """Imports of a surface by anything that is not one."""
    return sorted(
        (path, there)
        for path, here, there in _edges(root)
        if there in SURFACES and here not in (*SURFACES, ENTRY)
    )


def test_the_import_reader_sees_relative_and_absolute_imports() -> None:
    edges = _edges()
    assert ("pipeline/chunk/tiers.py", "chunk", "parse") in edges
    assert ("pipeline/index/store.py", "index", "shared") in edges
    assert ("pipeline/ingest/process.py", "ingest", "extract") in edges
    assert ("pipeline/cli/read.py", "cli", "library") in edges
    assert ("pipeline/cli/index.py", "cli", "mcp") in edges


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


def test_surfaces_import_only_the_library_and_the_shared_layer() -> None:
    assert _surface_breaches() == []


def test_nothing_below_the_surfaces_imports_one() -> None:
    assert _surface_users() == []


def test_the_surface_rules_catch_a_breach(tmp_path: Path) -> None:
    """A surface reaching into a stage, and a stage into a surface, are both reported."""
    root = tmp_path / "pipeline"
    for folder in ("cli", "mcp", "index", "web"):
        (root / folder).mkdir(parents=True)
    (root / "cli" / "status.py").write_text("from ..index.store import Store\n")
    (root / "cli" / "serve.py").write_text("from ..web.app import serve\n")
    (root / "mcp" / "tools.py").write_text("from ..library import Library\n")
    (root / "index" / "store.py").write_text("from ..cli.terminal import plain\n")
    assert _surface_breaches(root) == [("pipeline/cli/status.py", "pipeline.index.store.Store")]
    assert _surface_users(root) == [("pipeline/index/store.py", "cli")]
