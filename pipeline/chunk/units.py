"""The packing unit: a whole block or one piece of a split block."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Unit:
    """``prefix + src[start:end] + suffix`` is the unit's text.

    A unit with a prefix (repeated table header and row key, opening fence, list or quote
    marker) must open its chunk and one with a suffix (closing pipe of a cut row, code
    continuation marker, added closing fence) must close it, so a chunk's text is always
    ``first.prefix + src[first.start:last.end] + last.suffix`` (see the README's table).
    """

    block: int
    start: int
    end: int
    tokens: int
    prefix: str = ""
    suffix: str = ""
    oversized: bool = False
