"""A text's lines read through a change to some of them, and lines of a kind, each worked
out only when asked for: a long text is read through many such views (one per contents
block found in it), and copying or testing all its lines for each grew with blocks x
lines."""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from typing import overload


class LineView(Sequence[str]):
    """``lines`` as ``line`` reads each of them; as long as ``lines``. A line once read is
    kept: the contents search reads the same lines again from each block it tries."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self._len = len(lines)  # read on every line asked for
        self._read: dict[int, str] = {}

    def line(self, i: int) -> str:
        """Line ``i`` (0 <= i < len) as the view reads it."""
        return self.lines[i]

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[str]: ...

    def __getitem__(self, i: int | slice) -> str | Sequence[str]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(self._len))]
        if (known := self._read.get(i)) is not None:
            return known
        k = i + self._len if i < 0 else i
        if not 0 <= k < self._len:
            raise IndexError(i)
        known = self._read[k] = self.line(k)
        return known


class LazyLines(Container[int]):
    """The lines ``tested`` that ``test`` holds for, each tested when first asked for (a
    side-column view's rows and the lines after them, not every line of the text), and
    the lines ``others`` outside them."""

    def __init__(
        self, tested: range, test: Callable[[int], bool], others: Container[int] = frozenset()
    ) -> None:
        self.tested, self.test, self.others = tested, test, others
        self.known: dict[int, bool] = {}

    def __contains__(self, j: object) -> bool:
        if not isinstance(j, int) or j not in self.tested:
            return j in self.others
        if (hit := self.known.get(j)) is None:
            hit = self.known[j] = self.test(j)
        return hit
