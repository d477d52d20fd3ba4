"""The one decision per line of flat text: a candidate (``candidates``) and its evidence
(``evidence``) in, its rank as a heading out (or None). A new rule is a field of the
candidate or of the evidence, and a line here where it takes precedence."""

from __future__ import annotations

from typing import Literal

from .candidates import Candidate
from .evidence import Evidence

CHAPTER_RANK = 2  # the rank of a numeral or a numbered title counted in a sequence
# what speaks for the whole text: its navigation links, its contents block, or neither
Mode = Literal["links", "contents", "looks"]


def decide(c: Candidate, e: Evidence, *, mode: Mode) -> int | None:
    """The heading rank of candidate ``c`` (smaller is higher; ranks are made dense later),
    or None when it is no heading. Precedence:

    With navigation links ("Next topic: …", ``mode`` "links") they decide alone:
      0. a link names the line: its depth under its parent topics.
    With a contents block (``mode`` "contents") the block decides, and a line's look does not:
      1. a contents entry names the line: the entry's rank;
      2. a label line of a series the contents named ("CHAPTER IV." when "CHAPTER III."
         was named): the series' rank;
      3. a bare numeral filling the one gap of a named series of numerals: their rank;
      4. a chapter of a series counting up that the contents left out ("Chapter 1.
         Loomings." under a brief contents of the front matter): the top entries' rank.
    Without one:
      4½. a numbered line of a run counting up ("2 Fonts" run into its text,
         ``numbered_sections``), set off or not: a chapter's rank, "2.1 …" below it;
    else the line must be set off as a heading (alone, not in a list, not prose,
    heading text), and then:
      5. a bare numeral ("XIV") is a chapter only in a sequence counting up by one (a
         part of the story over it when each run's "I" stands under a title);
      6. a line that looks like a heading (Part, Chapter, ``1.2 Title``, ALL CAPS, short
         Title Case) takes the rank of its look;
      7. a short numbered title ending in a period ("2. Second Day.") is a chapter only in
         a sequence.
    """
    if mode == "links":
        return e.link_depth
    if mode == "contents":
        for rank in (e.contents_rank, e.series_rank, e.gap_rank, e.chapter_rank):
            if rank is not None:
                return rank
        return None
    if e.section_rank is not None:  # "2 Fonts" run into its text, in a run counting up
        return e.section_rank
    if not e.set_off:
        return None
    if c.numeral is not None:
        if not e.in_sequence:
            return None
        return CHAPTER_RANK if e.numeral_rank is None else e.numeral_rank
    if c.shape is not None:
        return c.shape
    if c.numbered_title is not None and e.in_sequence:
        return CHAPTER_RANK
    return None
