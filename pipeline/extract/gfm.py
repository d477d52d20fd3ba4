"""GFM pipe tables, as every extractor writes the tables it recovers."""

from __future__ import annotations

from collections.abc import Sequence


def pipe_table(rows: Sequence[Sequence[str]]) -> str:
    """A GFM pipe table, the first row as header, short rows padded; ``|`` in cells
    escaped."""
    width = max(len(r) for r in rows)

    def line(cells: Sequence[str]) -> str:
        padded = [c.replace("|", "\\|") for c in cells] + [""] * (width - len(cells))
        return "| " + " | ".join(padded) + " |"

    return "\n".join([line(rows[0]), "|" + "|".join(["---"] * width) + "|", *map(line, rows[1:])])
