"""Token counting: a fast deterministic estimator and exact tokenizers behind one protocol.

The estimator replays BERT-uncased WordPiece (the all-MiniLM vocabulary, shipped as
``pipeline/data/wordpiece_uncased.txt``) in pure Python: lowercase, strip accents, split on
whitespace, punctuation and CJK ideographs, then greedy longest-match subwords, memoized per
whitespace-delimited chunk. It matches the real tokenizer except where that emits [UNK] (see
``_pieces``), where it counts more; ``scripts/bench/bench_tokens.py`` measures it on a real corpus.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any, Protocol, runtime_checkable

from ..errors import ConfigError
from ..shared.config import ChunkConfig


@runtime_checkable
class TokenCounter(Protocol):
    def count(self, text: str) -> int: ...


@runtime_checkable
class BatchCounter(TokenCounter, Protocol):
    """A counter that is much faster over one batch than text by text (real tokenizers)."""

    def count_many(self, texts: list[str]) -> list[int]: ...


@runtime_checkable
class AdditiveCounter(TokenCounter, Protocol):
    """A counter whose count of texts joined by whitespace is the sum of their counts
    (WordPiece splits at whitespace first): the chunker may sum block counts."""

    additive: bool


VOCAB_RESOURCE = "wordpiece_uncased.txt"  # in pipeline/data; see LICENSES.md there
_ASCII_PUNCT_CHARS = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"  # BERT splits off each of these
_ASCII_PUNCT = frozenset(_ASCII_PUNCT_CHARS)
_DROPPED = frozenset(("Mn", "Cc", "Cf", "Co", "Cs"))
# Combining marks and format characters Unicode assigned after 8.0, the version of the
# tokenizer's own tables: to it they are unknown characters, kept (and counted), not marks
# to drop. Found by normalizing every Mn/Cf code point of Python 3.11's Unicode 14 with the
# real all-MiniLM normalizer; a later Python may know later marks that are missing here.
# fmt: off
_KEPT_RANGES = (
    (0x7FD, 0x7FD), (0x890, 0x891), (0x898, 0x89F), (0x8CA, 0x8E2), (0x9FE, 0x9FE),
    (0xAFA, 0xAFF), (0xB55, 0xB55), (0xC04, 0xC04), (0xC3C, 0xC3C), (0xD00, 0xD00),
    (0xD3B, 0xD3C), (0xD81, 0xD81), (0xEBA, 0xEBA), (0x180F, 0x180F), (0x1885, 0x1886),
    (0x1ABF, 0x1ACE), (0x1DF6, 0x1DFB), (0xA82C, 0xA82C), (0xA8C5, 0xA8C5), (0xA8FF, 0xA8FF),
    (0xA9BD, 0xA9BD), (0x10D24, 0x10D27), (0x10EAB, 0x10EAC), (0x10F46, 0x10F50),
    (0x10F82, 0x10F85), (0x11070, 0x11070), (0x11073, 0x11074), (0x110C2, 0x110C2),
    (0x110CD, 0x110CD), (0x111CF, 0x111CF), (0x1123E, 0x1123E),
    (0x1133B, 0x1133B), (0x11438, 0x1143F), (0x11442, 0x11444), (0x11446, 0x11446),
    (0x1145E, 0x1145E), (0x1182F, 0x11837), (0x11839, 0x1183A), (0x1193B, 0x1193C),
    (0x1193E, 0x1193E), (0x11943, 0x11943), (0x119D4, 0x119D7), (0x119DA, 0x119DB),
    (0x119E0, 0x119E0), (0x11A01, 0x11A0A), (0x11A33, 0x11A38), (0x11A3B, 0x11A3E),
    (0x11A47, 0x11A47), (0x11A51, 0x11A56), (0x11A59, 0x11A5B), (0x11A8A, 0x11A96),
    (0x11A98, 0x11A99), (0x11C30, 0x11C36), (0x11C38, 0x11C3D), (0x11C3F, 0x11C3F),
    (0x11C92, 0x11CA7), (0x11CAA, 0x11CB0), (0x11CB2, 0x11CB3), (0x11CB5, 0x11CB6),
    (0x11D31, 0x11D36), (0x11D3A, 0x11D3A), (0x11D3C, 0x11D3D), (0x11D3F, 0x11D45),
    (0x11D47, 0x11D47), (0x11D90, 0x11D91), (0x11D95, 0x11D95), (0x11D97, 0x11D97),
    (0x11EF3, 0x11EF4), (0x13430, 0x13438), (0x16F4F, 0x16F4F), (0x16FE4, 0x16FE4),
    (0x1CF00, 0x1CF2D), (0x1CF30, 0x1CF46), (0x1E000, 0x1E006), (0x1E008, 0x1E018),
    (0x1E01B, 0x1E021), (0x1E023, 0x1E024), (0x1E026, 0x1E02A), (0x1E130, 0x1E136),
    (0x1E2AE, 0x1E2AE), (0x1E2EC, 0x1E2EF), (0x1E944, 0x1E94A),
)
# fmt: on
_KEPT = frozenset(chr(c) for a, b in _KEPT_RANGES for c in range(a, b + 1))
# Punctuation (Po) in Unicode 8.0, a combining mark since: the tokenizer splits it off.
_WAS_PUNCT = frozenset("\U000111c9")  # SHARADA SANDHI MARK
# Control characters Python's split() takes for whitespace but BERT deletes (joining the text
# around them): vertical tab, form feed, information separators, NEL.
_DELETED = re.compile("[\x0b\x0c\x1c-\x1f\x85]")
_ASCII_PIECES = re.compile(r"[a-z0-9]+|[^a-z0-9]")
_ASCII_PIECES_ANY_CASE = re.compile(r"[A-Za-z0-9]+|[^A-Za-z0-9]")
# Memo bounds: entries per memo (cleared when full) and key length (long chunks such as
# minified code or base64 rarely repeat, and would pin their text in memory).
_MEMO_ENTRIES = 1 << 17
_MEMO_KEY_CHARS = 64

# Extra tokens charged per word by bias: ``(min_pieces, extra)`` adds ``extra`` to every word
# that WordPiece cuts into at least ``min_pieces`` subwords. Rare, many-piece words are where
# other tokenizers disagree most, so the safety margin goes there; an integer charge per word
# (not a scale on the total) keeps counts exactly additive.
_BIAS: dict[str, tuple[int, int]] = {"prose": (0, 0), "balanced": (3, 1), "code": (2, 1)}


@cache
def _vocab() -> tuple[frozenset[str], frozenset[str], int, int]:
    """Whole-word entries, ``##`` continuation entries (prefix dropped), and their max lengths.

    Loaded on first use, not at import (about 30 ms).
    """
    text = (resources.files("pipeline") / "data" / VOCAB_RESOURCE).read_text(encoding="utf-8")
    whole: set[str] = set()
    suffix: set[str] = set()
    for entry in text.split("\n"):
        if entry.startswith("##"):
            suffix.add(entry[2:])
        elif entry:
            whole.add(entry)
    return frozenset(whole), frozenset(suffix), max(map(len, whole)), max(map(len, suffix))


def _pieces(word: str) -> int:
    """WordPiece subword count of one normalized word (no whitespace or punctuation).

    Greedy longest match, as WordPiece does. Where WordPiece gives up and emits one [UNK] for
    the whole word, we charge one token per character missing from the vocabulary (at least
    one): a run of emoji is then not a single token, as it is for no other tokenizer, while
    ASCII-art words that mix a few unknown corners into known rules stay close to WordPiece.
    Words over WordPiece's 100-character limit (also one [UNK] there) are counted in full.
    """
    return _piece_counter()(word)


@cache
def _piece_counter() -> Callable[[str], int]:
    """``_pieces`` with the vocabulary and the suffix regex bound to it: a word that is in
    no memo (text of distinct words, base64) costs one Python call, not four."""
    whole, suffix, _, _ = _vocab()
    # The longest first piece a word can have, by its first three characters (2 where no
    # entry starts with them): the search for it starts there, not at the longest entry.
    longest: dict[str, int] = {}
    for entry in whole:
        if len(entry) > 3:
            longest[entry[:3]] = max(longest.get(entry[:3], 3), len(entry))
        elif len(entry) == 3:
            longest.setdefault(entry, 3)
    # The ``##`` pieces after the first: one regex match per piece, in C (a Python loop per
    # character took minutes on a megabyte without a space: base64, minified data).
    suffix_pieces = _suffix_regex().subn

    def pieces(word: str) -> int:
        if word in whole:
            return 1
        end = min(len(word), longest.get(word[:3], 2))
        while end > 0 and word[:end] not in whole:
            end -= 1
        if end > 0:
            left, rest = suffix_pieces("", word[end:])
            if not left:
                return 1 + rest
        return max(1, sum(c not in whole and c not in suffix for c in word))

    return pieces


@cache
def _suffix_regex() -> re.Pattern[str]:
    """The ``##`` pieces as a trie-shaped regex that prefers the longest match: every
    node tries its children before stopping (about 0.1 s to compile, on first use)."""
    trie: dict[str, dict[str, Any]] = {}
    for piece in _vocab()[1]:
        node = trie
        for c in piece:
            node = node.setdefault(c, {})
        node[""] = {}
    return re.compile(_trie_alternatives(trie))


def _trie_alternatives(node: dict[str, dict[str, Any]]) -> str:
    leaves = sorted(c for c, child in node.items() if c and child.keys() == {""})
    inner = [c for c in sorted(node) if c and c not in leaves]
    alts = [re.escape(c) + _trie_alternatives(node[c]) for c in inner]
    if leaves:  # children that end there: one character class
        alts.append(f"[{re.escape(''.join(leaves))}]")
    if "" in node:  # this node ends a piece: the empty alternative, tried last
        alts.append("")
    return "" if alts == [""] else "(?:" + "|".join(alts) + ")"


# BERT's "Chinese character" ranges: each such character is a word of its own (1 token).
_CJK = re.compile(
    "[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002a6df"
    "\U0002a700-\U0002b73f\U0002b740-\U0002b81f\U0002b920-\U0002ceaf\U0002f800-\U0002fa1f]"
)


class _Costs(dict[str, int]):
    """A bounded memo of a pure function: hits stay in C via ``dict.__getitem__``."""

    __slots__ = ("_fn",)

    def __init__(self, fn: Callable[[str], int]) -> None:
        super().__init__()
        self._fn = fn

    def __missing__(self, key: str) -> int:
        value = self._fn(key)
        if len(key) <= _MEMO_KEY_CHARS:
            if len(self) >= _MEMO_ENTRIES:
                self.clear()
            self[key] = value
        return value


class _Model:
    """Cost of a whitespace-free chunk of lowercased text, for one bias."""

    def __init__(self, min_pieces: int, extra: int) -> None:
        pieces = _piece_counter()

        def word_cost(word: str) -> int:
            n = pieces(word)
            return n + extra if n >= min_pieces else n

        self.word_cost = word_cost if min_pieces else pieces
        self.words = _Costs(word_cost)
        self.chunks = _Costs(self._chunk_cost)

    def _chunk_cost(self, chunk: str) -> int:
        if chunk.isascii():
            if chunk.isalnum():  # the common case: one plain word
                return self.word_cost(chunk)
            if chunk.isprintable():
                # Any printable non-alphanumeric ASCII character is punctuation: 1 token each.
                core = chunk.strip(_ASCII_PUNCT_CHARS)
                if not core:
                    return len(chunk)
                if core.isalnum():  # "word," "(word)" "**word**": punctuation at the ends
                    return len(chunk) - len(core) + self.words[core]
                # Otherwise runs of [a-z0-9] are words and the rest punctuation (all in the
                # vocabulary, so the word memo answers 1 for each).
                return sum(map(self.words.__getitem__, _ASCII_PIECES.findall(chunk)))
        return self._general_cost(chunk)

    def _general_cost(self, chunk: str) -> int:
        # Non-ASCII: what BertNormalizer + BertPreTokenizer do. CJK ideographs are split off by
        # a regex first (CJK text has no spaces, so this chunk may be a whole paragraph).
        parts = _CJK.split(chunk)
        return len(parts) - 1 + sum(self._scan(part) for part in parts if part)

    def _scan(self, text: str) -> int:
        # Drop controls, format and private-use characters and combining marks (accents, after
        # NFD); split off punctuation (ASCII or Unicode P*) as one token each; cost the words
        # in between. Unassigned (Cn) characters stay: a newer Unicode (new emoji) calls them
        # symbols, which WordPiece keeps.
        words = self.words
        total = 0
        word: list[str] = []
        for c in unicodedata.normalize("NFD", text):
            cat = unicodedata.category(c)
            if (cat in _DROPPED and c not in _KEPT and c not in _WAS_PUNCT) or c == "\ufffd":
                continue
            if c in _ASCII_PUNCT or cat[0] == "P" or c in _WAS_PUNCT:
                if word:
                    total += words["".join(word)]
                    word.clear()
                total += 1
            else:
                word.append(c)
        if word:
            total += words["".join(word)]
        return total


@cache
def _model(bias: str) -> _Model:
    return _Model(*_BIAS[bias])


class Slices:
    """Counts of slices of ``text[start:end]``, a long run without whitespace in printable
    ASCII (base64, minified data), after one pass over it. Its alphanumeric runs and other
    characters cost what each costs alone, so a slice costs the ones it holds whole (a
    difference of prefix sums) and the one or two runs it cuts: cutting such a run into
    hundreds of pieces, for sections and again for snippets, counted it twice more."""

    __slots__ = ("_cum", "_ends", "_start", "_text", "_words")

    def __init__(self, text: str, start: int, end: int, words: _Costs) -> None:
        self._text, self._start, self._words = text, start, words
        pieces = _ASCII_PIECES_ANY_CASE
        self._ends = array("q", [m.end() for m in pieces.finditer(text, start, end)])
        costs = map(words.__getitem__, map(str.lower, pieces.findall(text, start, end)))
        self._cum = array("q", [0])
        self._cum.extend(itertools.accumulate(costs))

    def count(self, a: int, b: int) -> int:
        """``Estimator.count(text[a:b])``, for ``start <= a < b <= end``."""
        ends, cum = self._ends, self._cum
        i = bisect_right(ends, a)  # the piece holding a
        j = bisect_left(ends, b)  # the piece holding b - 1
        head = ends[i - 1] if i else self._start
        if i == j:
            whole = a == head and b == ends[i]
            return cum[i + 1] - cum[i] if whole else self._cut(a, b)
        inner = cum[j] - cum[i + 1]
        first = cum[i + 1] - cum[i] if a == head else self._cut(a, ends[i])
        last = cum[j + 1] - cum[j] if b == ends[j] else self._cut(ends[j - 1], b)
        return first + inner + last

    def _cut(self, a: int, b: int) -> int:
        return self._words[self._text[a:b].lower()]


class Estimator:
    """WordPiece-replaying estimator; exactly additive: whitespace costs nothing, so
    ``count(a + "\n\n" + b) == count(a) + count(b)`` and per-block counts can be summed.

    ``bias``: ``prose`` is unbiased against all-MiniLM WordPiece; ``balanced`` (the default)
    adds one token per word of 3+ subwords (about +2.5% on prose, +3.5% on docs), ``code`` one
    per word of 2+ subwords (about +6-8%).
    """

    __slots__ = ("_chunks", "bias")
    additive = True  # the chunker may sum block counts instead of recounting joins

    def __init__(self, bias: str = "balanced") -> None:
        if bias not in _BIAS:
            raise ConfigError("estimator_bias", f"got {bias!r}; allowed: {', '.join(_BIAS)}")
        self.bias = bias
        self._chunks: _Costs | None = None  # bound on first count(), so import stays cheap

    def __reduce__(self) -> tuple[type[Estimator], tuple[str]]:
        return (Estimator, (self.bias,))  # picklable for worker processes; memos stay behind

    @staticmethod
    def joins(gap: str) -> bool:
        """Whether ``count(a + gap + b) == count(a) + count(b)`` for every ``a`` and ``b``:
        ``gap`` is whitespace and not only characters that ``count`` deletes."""
        return gap.isspace() and (" " in gap or "\n" in gap or bool(_DELETED.sub("", gap)))

    def slices(self, text: str, start: int, end: int) -> Slices | None:
        """``Slices`` of ``text[start:end]`` where it is printable ASCII, no whitespace."""
        run = text[start:end]
        if not (run.isascii() and run.isprintable()) or " " in run:
            return None
        return Slices(text, start, end, _model(self.bias).words)

    def count(self, text: str) -> int:
        chunks = self._chunks
        if chunks is None:
            chunks = self._chunks = _model(self.bias).chunks
        text = text.lower()
        # Chained `in` tests are the cheapest scan for characters that are almost never there.
        if (
            "\x0c" in text
            or "\x0b" in text
            or "\x85" in text
            or "\x1c" in text
            or "\x1d" in text
            or "\x1e" in text
            or "\x1f" in text
        ):
            text = _DELETED.sub("", text)
        # Whitespace-delimited chunks are memoized: prose and code repeat them heavily, and the
        # hit path (lower, split, dict lookups, sum) runs entirely in C.
        return sum(map(chunks.__getitem__, text.split()))


_DEFAULT = Estimator()


def estimate_tokens(text: str) -> int:
    """Estimated WordPiece token count of ``text`` (no special tokens)."""
    return _DEFAULT.count(text)


class WordPieceCounter:
    """Exact counts from a Hugging Face ``tokenizer.json`` (needs ``tokenizers``).

    BERT pre-tokenization splits at whitespace (and punctuation) before any subword
    step, so counts add up over the whitespace joins the chunker makes; the one
    exception, a word cut by characters because it alone exceeds a budget, is rare.
    """

    additive = True

    def __init__(self, path: str) -> None:
        try:
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ConfigError("tokenizer", "needs `pip install 'folio-pipeline[exact]'`") from exc
        try:
            self._tok = Tokenizer.from_file(path)
        except Exception as exc:
            raise ConfigError("tokenizer", f"cannot load {path}: {exc}") from exc
        # The MiniLM file pads and truncates to 128, which would silently cap every count.
        self._tok.no_truncation()
        self._tok.no_padding()

    def count(self, text: str) -> int:
        return len(self._tok.encode(text, add_special_tokens=False).ids)

    def count_many(self, texts: list[str]) -> list[int]:
        """One batch call: the Rust tokenizer spreads it over all cores."""
        encoded = self._tok.encode_batch(texts, add_special_tokens=False)
        return [len(e.ids) for e in encoded]


CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)


class TiktokenCounter:
    """Exact counts from a tiktoken BPE ranks file (plain or gzipped; needs ``tiktoken``)."""

    def __init__(self, path: str) -> None:
        try:
            import tiktoken
        except ImportError as exc:
            raise ConfigError("tokenizer", "needs `pip install 'folio-pipeline[exact]'`") from exc
        try:
            ranks = _read_bpe_ranks(path)
        except (OSError, ValueError) as exc:
            raise ConfigError("tokenizer", f"cannot load {path}: {exc}") from exc
        self._enc = tiktoken.Encoding(
            "folio-bpe", pat_str=CL100K_PATTERN, mergeable_ranks=ranks, special_tokens={}
        )

    def count(self, text: str) -> int:
        return len(self._enc.encode_ordinary(text))

    def count_many(self, texts: list[str]) -> list[int]:
        return [len(ids) for ids in self._enc.encode_ordinary_batch(texts)]


def _read_bpe_ranks(path: str) -> dict[bytes, int]:
    """The ``<base64 token> <rank>`` lines of a tiktoken ranks file.

    Parsed here because ``tiktoken.load.load_tiktoken_bpe`` copies every file it reads into a
    cache keyed by the path string: stale when the file at a path changes, litter otherwise.
    """
    import base64
    import gzip

    if path.endswith(".gz"):
        with gzip.open(path, "rb") as fh:
            data = fh.read()
    else:
        with open(path, "rb") as fh:
            data = fh.read()
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token, validate=True)] = int(rank)
    if not ranks:
        raise ValueError("no BPE ranks in file")
    return ranks


def make_counter(config: ChunkConfig) -> TokenCounter:
    """The counter a config asks for: the estimator unless a tokenizer file is given.

    Exact counters are loaded once per file and process (loading costs tens of ms)."""
    if config.tokenizer is None:
        return _estimator(config.estimator_bias)
    kind = config.tokenizer_kind
    if kind == "auto":
        kind = "wordpiece" if config.tokenizer.endswith(".json") else "tiktoken"
    return _exact_counter(kind, config.tokenizer)


@cache
def _estimator(bias: str) -> Estimator:
    return Estimator(bias)


@cache
def _exact_counter(kind: str, path: str) -> TokenCounter:
    return WordPieceCounter(path) if kind == "wordpiece" else TiktokenCounter(path)
