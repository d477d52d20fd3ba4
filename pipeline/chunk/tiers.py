"""Two tiers: sections packed inside heading boundaries, snippets packed inside sections."""

from __future__ import annotations

import uuid
from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace

from ..model import Block, Chunk, Tier
from ..parse.document import HeadingSection, ParsedDocument
from ..shared.config import ChunkConfig
from ..text.lines import line_index
from .concepts import fit_prefix, retrieval_prefix, term_counts, top_terms
from .hints import chunk_hints, table_text
from .pack import pack
from .split import LineCounts, split_block
from .tokens import AdditiveCounter, BatchCounter, Estimator, Slices, TokenCounter, make_counter
from .units import Unit

CHUNK_NAMESPACE = uuid.UUID("6f1c2a8e-52c4-4b8e-9a57-0f0110c4a001")
# Blocks longer than this are counted line by line (with an estimator) and the counts
# kept for splitting them: a shorter block is rarely split, and cheap to count again.
LINE_COUNTED_CHARS = 4096
# A run without whitespace longer than this, cut by characters, is counted through Slices.
SLICED_CHARS = 4096
_MAX_REFITS = 6
# Term counts of the most recent heading sections: as many sections as a run of chunks
# and the run packed after it span, within a bound on the terms held (always the newest).
_TF_CACHE = 256
_TF_TERMS = 1 << 18


def chunk_parsed(
    d: ParsedDocument, config: ChunkConfig | None = None, counter: TokenCounter | None = None
) -> list[Chunk]:
    """Sections and their snippets for one parsed document, in reading order (the parse
    is the step before: ``ingest.process`` and ``pipeline.chunk_document``)."""
    config = config or ChunkConfig()
    counter = counter or make_counter(config)
    return _Builder(d, config, counter).build()


def document_frequencies(d: ParsedDocument) -> tuple[Counter[str], dict[int, Counter[str]]]:
    """In how many heading sections each term occurs (the concepts' IDF), and the term
    counts of the first sections."""
    # Document frequencies only: per-section term counts are recounted when needed,
    # which costs one more pass over the text but keeps memory flat on huge files. The
    # first sections' are kept, as many as the builder's cache holds (a document of one
    # huge section is then not counted twice over).
    df: Counter[str] = Counter()
    first_tf: dict[int, Counter[str]] = {}
    held = 0
    for g, sec in enumerate(d.sections):
        tf = _section_terms(d.src, d.blocks, sec)
        df.update(tf.keys())
        held += len(tf)
        if g < _TF_CACHE and (g == 0 or held <= _TF_TERMS):
            first_tf[g] = tf
    return df, first_tf


def _section_terms(src: str, blocks: Sequence[Block], sec: HeadingSection) -> Counter[str]:
    if sec.end_block <= sec.first_block:
        return Counter()
    return term_counts(src[blocks[sec.first_block].start : blocks[sec.end_block - 1].end])


class _Builder:
    def __init__(self, d: ParsedDocument, config: ChunkConfig, counter: TokenCounter) -> None:
        self.d = d
        self.df, first_tf = document_frequencies(d)
        self.config = config
        self.counter = counter
        self.additive = isinstance(counter, AdditiveCounter) and counter.additive
        self._joins = counter.joins if isinstance(counter, Estimator) else None
        self._line_counts: dict[int, LineCounts] = {}
        self._slices: dict[int, list[tuple[int, int, Slices]]] = {}
        self.chunks: list[Chunk] = []
        self.n_sections = 0
        self.n_snippets = 0
        self.block_tokens = array("q", [-1]) * len(d.blocks)
        if isinstance(counter, BatchCounter):
            texts = [d.src[b.start : b.end] for b in d.blocks]
            self.block_tokens = array("q", counter.count_many(texts))
        self._reserves = array("q", [-1]) * len(d.sections)
        # Reservations only steer packing (fit_prefix and the refit guard make the final
        # count exact), so the fast estimator sizes them even when counting is exact.
        self._prefix_counter = make_counter(replace(config, tokenizer=None))
        self._prefix_counts = _Memo(counter)
        self._tf_cache = first_tf
        self._tf_terms = sum(map(len, self._tf_cache.values()))
        self._concepts_cache: dict[int, tuple[str, ...]] = {}
        self._last_concepts: tuple[tuple[int, ...], tuple[str, ...]] = ((), ())

    # -- sizes ---------------------------------------------------------------------------
    def _tf(self, g: int) -> Counter[str]:
        """Term counts of heading section ``g``; sections are visited in order, so a
        window of recent ones is all the cache needs."""
        cache = self._tf_cache
        tf = cache.get(g)
        if tf is None:
            tf = _section_terms(self.d.src, self.d.blocks, self.d.sections[g])
            self._tf_terms += len(tf)
            while cache and (len(cache) >= _TF_CACHE or self._tf_terms > _TF_TERMS):
                self._tf_terms -= len(cache.pop(next(iter(cache))))  # the oldest
            cache[g] = tf
        return tf

    def reserve(self, g: int) -> int:
        r = self._reserves[g]
        if r < 0:
            r = self._reserves[g] = self._reserve(self.d.sections[g], g)
        return r

    def _reserve(self, s: HeadingSection, index: int) -> int:
        """Tokens kept free for the retrieval prefix of chunks in heading section ``s``:
        the full prefix (with the section's longest table caption and headers) when it
        is modest, never less than the shortest form, and never over half a snippet
        (``fit_prefix`` shortens it to fit what packing left, cutting overlong titles)."""
        path = s.breadcrumb[1:]
        concepts = self._own_concepts(index)
        count = self._prefix_counter.count
        d = self.d
        tables = [
            table_text(d.src, d.blocks, b)
            for b in range(s.first_block, s.end_block)
            if d.blocks[b].kind == "table"
        ]
        full = count(retrieval_prefix(d.title, path, concepts, max(tables, key=len, default="")))
        short = path if len(path) <= 2 else (path[0], "…", path[-1])
        least = count(retrieval_prefix(self.d.title, short, ()))
        cfg = self.config
        return min(max(least, min(full, cfg.snippet_target // 4)), cfg.snippet_max // 2)

    def _block_tokens(self, i: int) -> int:
        """Token count of block ``i``, counted once per document."""
        t = self.block_tokens[i]
        if t < 0:
            b, src = self.d.blocks[i], self.d.src
            long = b.end - b.start > LINE_COUNTED_CHARS and src.find("\n", b.start, b.end) >= 0
            if long and self._joins is not None:
                lines = self._line_counts[i] = LineCounts(src, b.start, b.end, self.counter.count)
                t = lines.total
            else:
                t = self.counter.count(src[b.start : b.end])
            self.block_tokens[i] = t
        return t

    def _units(
        self,
        block_ids: Sequence[int],
        ranges: Sequence[Unit] | None,
        budget: int,
        *,
        cover: bool = True,
    ) -> list[Unit]:
        """Units for blocks (or refined from existing units) that each fit ``budget``;
        ``cover`` is False for snippets, which need not tile their section."""
        out: list[Unit] = []
        blocks = self.d.blocks
        if ranges is None:
            for i in block_ids:
                b = blocks[i]
                t = self._block_tokens(i)
                if t > budget:
                    r = (b.start, b.end)
                    out.extend(self._split(b, i, r, budget, cover, t))
                else:
                    out.append(Unit(i, b.start, b.end, t))
            return out
        for u in ranges:
            # without cover, an oversized table separator is left out: split again
            if u.tokens > budget and (not u.oversized or not cover):
                b, r = blocks[u.block], (u.start, u.end)
                known = None if u.prefix or u.suffix else u.tokens  # that counts the dress too
                out.extend(self._split(b, u.block, r, budget, cover, known))
            else:
                out.append(u)
        return out

    def _split(
        self, b: Block, i: int, r: tuple[int, int], budget: int, cover: bool, tokens: int | None
    ) -> list[Unit]:
        count, lines = self.counter.count, self._line_counts.get(i)
        estimator = self.counter if isinstance(self.counter, Estimator) else None

        def slices_at(s: int, e: int) -> Slices | None:
            """The block's ``Slices`` holding ``src[s:e]``, made for it if long enough."""
            known = self._slices.setdefault(i, [])
            found = next((sl for a, z, sl in known if a <= s and e <= z), None)
            if found is None and estimator is not None and e - s > SLICED_CHARS:
                found = estimator.slices(self.d.src, s, e)
                if found is not None:
                    known.append((s, e, found))
            return found

        return split_block(
            self.d.src, b, i, r, budget, count, cover=cover, tokens=tokens,
            joins=self._joins, lines=lines, slices_at=slices_at,
        )  # fmt: skip

    def _is_heading(self, u: Unit) -> bool:
        return self.d.blocks[u.block].kind == "heading"

    # -- sections ------------------------------------------------------------------------
    def build(self) -> list[Chunk]:
        cfg = self.config
        prev: list[Unit] = []
        # Sections are emitted while later ones are still being grouped and packed, so
        # the term counts of a run's heading sections are still cached for its concepts.
        for own in self._merge_small(self._section_runs(), cfg.section_max):
            overlap = self._overlap(prev, own, cfg.section_overlap, cfg.section_max)
            self._emit_section(overlap, own)
            prev = own
        return self.chunks

    def _section_runs(self) -> Iterator[list[Unit]]:
        """Runs of units packed into sections, group by group of heading sections."""
        d, cfg = self.d, self.config
        skip_front = cfg.frontmatter != "include"
        for group in self._group_sections(skip_front):
            reserve = max(self.reserve(g) for g in group)
            target, maximum = cfg.section_target - reserve, cfg.section_max - reserve
            block_ids = [
                b
                for g in group
                for b in range(d.sections[g].first_block, d.sections[g].end_block)
                if not (skip_front and d.blocks[b].kind == "frontmatter")
            ]
            units = self._units(block_ids, None, maximum)
            heads = [self._is_heading(u) for u in units]
            for i, j in pack(units, target, maximum, headings=heads, min_tokens=cfg.min_tokens):
                yield units[i:j]

    def _section_tokens(self, g: int, skip_front: bool) -> int:
        s = self.d.sections[g]
        return sum(
            self._block_tokens(i)
            for i in range(s.first_block, s.end_block)
            if not (skip_front and self.d.blocks[i].kind == "frontmatter")
        )

    def _group_sections(self, skip_front: bool) -> Iterator[list[int]]:
        """Consecutive heading sections merged while the sum stays within the section
        target and the next one is not shallower than the group's first; a section that
        is only a heading always joins the next one."""
        cfg = self.config
        sections, blocks = self.d.sections, self.d.blocks
        group: list[int] = []
        size = reserve = 0
        headings_only = False  # kept per group: rescanning a group is quadratic
        for g in range(len(sections)):
            t = self._section_tokens(g, skip_front)
            s = sections[g]
            only = all(blocks[b].kind == "heading" for b in range(s.first_block, s.end_block))
            if group:
                joined = max(reserve, self.reserve(g))
                fits = size + t <= cfg.section_target - joined
                if headings_only or (fits and s.level >= sections[group[0]].level):
                    group.append(g)
                    size += t
                    reserve = joined
                    headings_only = headings_only and only
                    continue
                yield group
            group, size, reserve, headings_only = [g], t, self.reserve(g), only
        if group:
            yield group

    def _merge_small(self, runs: Iterable[list[Unit]], maximum: int) -> Iterator[list[Unit]]:
        """Runs under ``min_tokens`` join the next run, else the previous, within max.
        One run is looked ahead and one held back (it may still take the next one in)."""
        it = iter(runs)
        run, ahead = next(it, None), next(it, None)
        if self.config.min_tokens <= 0 or ahead is None:  # a lone run stays as it is
            yield from (r for r in (run, ahead) if r is not None)
            yield from it
            return
        held: list[Unit] | None = None
        while run is not None:
            if sum(u.tokens for u in run) < self.config.min_tokens:
                if ahead is not None and self._joinable(run, ahead, maximum):
                    run, ahead = run + ahead, next(it, None)
                    continue
                if held is not None and self._joinable(held, run, maximum):
                    held = held + run
                    run, ahead = ahead, next(it, None)
                    continue
            if held is not None:
                yield held
            held, run, ahead = run, ahead, next(it, None)
        if held is not None:
            yield held

    def _joinable(self, a: list[Unit], b: list[Unit], maximum: int) -> bool:
        if a[-1].suffix or b[0].prefix:
            return False
        reserve = max(self.reserve(self.d.section_of[u.block]) for u in (a[0], b[0]))
        return sum(u.tokens for u in a) + sum(u.tokens for u in b) <= maximum - reserve

    def _overlap(self, prev: list[Unit], own: list[Unit], budget: int, maximum: int) -> list[Unit]:
        """A suffix of whole units of the previous chunk, when ``own`` continues it:
        never before a heading or a prefixed unit, never frontmatter, never only headings."""
        if budget <= 0 or not prev or not own or own[0].prefix or self._is_heading(own[0]):
            return []
        room = min(
            budget,
            maximum - self.reserve(self.d.section_of[own[0].block]) - sum(u.tokens for u in own),
        )
        picked: list[Unit] = []
        acc = 0
        for u in reversed(prev):
            if u.suffix or acc + u.tokens > room or self.d.blocks[u.block].kind == "frontmatter":
                break
            picked.append(u)
            acc += u.tokens
            if u.prefix:
                break
        picked.reverse()
        if all(self._is_heading(u) for u in picked):
            return []
        return picked

    def _emit_section(self, overlap: list[Unit], own: list[Unit]) -> None:
        concepts = self._concepts(own)
        for section, ov, units in self._fitted("section", None, overlap, own, concepts):
            self.chunks.append(section)
            self._emit_snippets(section, ov, units, concepts)

    def _fitted(
        self,
        tier: Tier,
        parent: str | None,
        overlap: list[Unit],
        own: list[Unit],
        concepts: tuple[str, ...],
    ) -> list[tuple[Chunk, list[Unit], list[Unit]]]:
        """Assemble a run; if its retrieval text is still over the maximum (a counter
        that does not add up exactly over joins), pack it again with a smaller budget."""
        maximum = self.config.section_max if tier == "section" else self.config.snippet_max
        todo = [(overlap, own, 0)]
        done: list[tuple[Chunk, list[Unit], list[Unit]]] = []
        while todo:
            ov, units, depth = todo.pop(0)
            index = self.n_sections if tier == "section" else self.n_snippets
            chunk = self._assemble(tier, index, parent, ov, units, concepts, maximum)
            over = chunk.est_tokens - maximum
            if over > 0 and ov:
                todo.insert(0, ([], units, depth + 1))
                continue
            if over > 0 and depth < _MAX_REFITS and not (len(units) == 1 and units[0].oversized):
                budget = max(8, sum(u.tokens for u in units) - over - 4 * (depth + 1))
                if len(units) == 1:
                    units = self._units((), units, budget, cover=tier == "section")
                if len(units) > 1:
                    heads = [self._is_heading(u) for u in units]
                    parts = pack(units, budget, budget, headings=heads)
                    if len(parts) == 1:
                        parts = [(0, len(units) // 2), (len(units) // 2, len(units))]
                    todo[0:0] = [
                        (ov if k == 0 else [], units[a:b], depth + 1)
                        for k, (a, b) in enumerate(parts)
                    ]
                    continue
            if tier == "section":
                self.n_sections += 1
            else:
                self.n_snippets += 1
            done.append((chunk, ov, units))
        return done

    def _concepts(self, units: list[Unit]) -> tuple[str, ...]:
        """Concepts of the heading sections ``units`` lie in. Every chunk of a long
        section asks for the same ones, and ranking costs the section's distinct
        words: ranked once per run of chunks (they come in order), not once per chunk."""
        seen = tuple(sorted({self.d.section_of[u.block] for u in units}))
        if seen == self._last_concepts[0]:
            return self._last_concepts[1]
        if len(seen) == 1:
            concepts = self._own_concepts(seen[0])
        else:
            tf: Counter[str] = Counter()
            for g in seen:
                tf.update(self._tf(g))
            concepts = top_terms(tf, self.df, len(self.d.sections), self.config.concepts)
        self._last_concepts = (seen, concepts)
        return concepts

    def _own_concepts(self, g: int) -> tuple[str, ...]:
        """Concepts of heading section ``g`` alone: its reserve asks for them and then its
        chunks, while the section is still among the recent ones (ranking a section of
        distinct words costs as much as counting them)."""
        concepts = self._concepts_cache.get(g)
        if concepts is None:
            if len(self._concepts_cache) >= _TF_CACHE:
                del self._concepts_cache[next(iter(self._concepts_cache))]
            tf = self._tf(g)
            concepts = top_terms(tf, self.df, len(self.d.sections), self.config.concepts)
            self._concepts_cache[g] = concepts
        return concepts

    # -- snippets ------------------------------------------------------------------------
    def _emit_snippets(
        self, section: Chunk, ov: list[Unit], own: list[Unit], concepts: tuple[str, ...]
    ) -> None:
        cfg = self.config
        reserve = max(self.reserve(self.d.section_of[u.block]) for u in own)
        target, maximum = cfg.snippet_target - reserve, cfg.snippet_max - reserve
        units = self._units((), own, maximum, cover=False)
        heads = [self._is_heading(u) for u in units]
        runs = (
            units[i:j]
            for i, j in pack(units, target, maximum, headings=heads, min_tokens=cfg.min_tokens)
        )
        prev = self._units((), ov, maximum, cover=False) if ov else []
        for run in self._merge_small(runs, cfg.snippet_max):
            overlap = self._overlap(prev, run, cfg.snippet_overlap, cfg.snippet_max)
            for snippet, _, _ in self._fitted("snippet", section.id, overlap, run, concepts):
                self.chunks.append(snippet)
            prev = run

    # -- assembly ------------------------------------------------------------------------
    def _assemble(
        self,
        tier: Tier,
        index: int,
        parent: str | None,
        ov: list[Unit],
        own: list[Unit],
        concepts: tuple[str, ...],
        maximum: int,
    ) -> Chunk:
        d = self.d
        allu = ov + own
        first, last = allu[0], allu[-1]
        body = first.prefix + d.src[first.start : last.end] + last.suffix
        hints = chunk_hints(d.src, d.blocks, [(u.block, u.tokens) for u in allu])
        crumbs = [d.sections[d.section_of[u.block]].breadcrumb for u in own]
        breadcrumb = _common_prefix(crumbs)
        section_title = d.sections[d.section_of[own[0].block]].title
        prefix = (d.title, breadcrumb[1:], concepts, hints.table_text)
        context, tokens = self._fit(prefix, body, sum(u.tokens for u in allu), maximum)
        oversized = tokens > maximum and any(u.oversized for u in own)
        return Chunk(
            id=str(uuid.uuid5(CHUNK_NAMESPACE, f"{d.doc_id}:{tier}:{index}")),
            doc_id=d.doc_id,
            source=d.source,
            doc_title=d.title,
            tier=tier,
            parent_id=parent,
            chunk_index=index,
            text=body,
            context=context,
            breadcrumb=breadcrumb,
            section_title=section_title,
            content_hints=hints.content_hints,
            contains_table=hints.contains_table,
            table_columns=hints.table_columns,
            table_headers=hints.table_headers,
            est_tokens=tokens,
            char_start=first.start,
            char_end=last.end,
            line_start=line_index(d.starts, first.start) + 1,
            line_end=line_index(d.starts, max(first.start, last.end - 1)) + 1,
            block_start=first.block,
            block_end=last.block,
            page_start=self._page(first.start),
            page_end=self._page(max(first.start, last.end - 1)),
            oversized=oversized,
            frontmatter=d.frontmatter,
            prefix_chars=len(first.prefix),
            suffix_chars=len(last.suffix),
            heading_mode=d.heading_mode,
        )

    def _fit(
        self,
        prefix: tuple[str, Sequence[str], Sequence[str], str],
        body: str,
        body_tokens: int,
        maximum: int,
    ) -> tuple[str, int]:
        """The context prefix that fits ``maximum`` beside ``body``, and the chunk's tokens.
        Unit counts are exact; their sum is exact too for an additive counter."""
        context, tokens = fit_prefix(*prefix, body_tokens, maximum, self._prefix_counts)
        if self.additive:
            return context, tokens
        exact = self.counter.count(context + body)
        if exact > maximum:  # the join cost more than the parts: shorten the prefix
            extra = exact - tokens
            context, _ = fit_prefix(*prefix, body_tokens + extra, maximum, self._prefix_counts)
            exact = self.counter.count(context + body)
        return context, exact

    def _page(self, offset: int) -> int | None:
        if not self.d.page_starts:
            return None
        k = bisect_right(self.d.page_starts, offset) - 1
        return self.d.page_numbers[max(0, k)]


class _Memo:
    """Counts of retrieval prefixes: the chunks of one heading section share theirs."""

    __slots__ = ("_counter", "_seen")

    def __init__(self, counter: TokenCounter) -> None:
        self._counter = counter
        self._seen: dict[str, int] = {}

    def count(self, text: str) -> int:
        n = self._seen.get(text)
        if n is None:
            n = self._seen[text] = self._counter.count(text)
        return n


def _common_prefix(crumbs: Sequence[tuple[str, ...]]) -> tuple[str, ...]:
    first = crumbs[0]
    n = len(first)
    for c in crumbs[1:]:
        if c is first:  # the units of one heading section share its breadcrumb
            continue
        n = min(n, len(c))
        for k in range(n):
            if c[k] != first[k]:
                n = k
                break
    return first[: max(1, n)]
