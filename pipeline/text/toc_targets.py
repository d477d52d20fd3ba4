"""The body lines a contents entry can name, by title key, read once for every contents
block tried in a text (a block's own lines left out when a second block is read)."""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Mapping

from .candidates import Candidate


class Targets:
    """The lines an entry can name, by title key (``where``): candidates standing alone,
    opening a page or under a label opening one, and numbered lines run into their text
    (keyed by number and title) that open a paragraph or follow such a line."""

    def __init__(self, candidates: Mapping[int, Candidate]) -> None:
        self.candidates = candidates
        self.where: dict[str, list[int]] = {}
        self.run_in: set[int] = set()  # numbered lines opening a block, text straight after
        for i, c in sorted(candidates.items()):
            if not c.entry_sized:
                continue
            if c.standalone or c.page_top or c.under_label:
                self.where.setdefault(c.key, []).append(i)
            elif c.section_key and (c.after_blank or i - 1 in self.run_in):
                self.run_in.add(i)
            else:
                continue
            if c.section_key:
                self.where.setdefault(c.section_key, []).append(i)

    def without(self, listed: frozenset[int]) -> Mapping[str, list[int]]:
        """``where`` with none of the ``listed`` lines (a contents block's own), nor the
        numbered lines run into their text that followed one: only the keys they change
        are copied (a text can hold many blocks, each with lines of its own to leave out)."""
        gone = set(listed)
        for line in sorted(listed):
            k = line + 1
            while k in self.run_in and k not in listed and not self.candidates[k].after_blank:
                gone.add(k)  # its line before no longer opens a run-in block
                k += 1
        keys = {
            key
            for i in gone
            if (c := self.candidates.get(i)) is not None
            for key in (c.key, c.section_key)
            if key is not None and key in self.where
        }
        changed = {key: [i for i in self.where[key] if i not in gone] for key in keys}
        return ChainMap(changed, self.where)
