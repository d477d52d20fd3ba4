"""Token counting: a fast deterministic estimator and exact tokenizers behind one protocol.

The estimator replays BERT-uncased WordPiece (the all-MiniLM vocabulary, shipped as
``pipeline/data/wordpiece_uncased.txt``) in pure Python: lowercase, strip accents, split on
whitespace, punctuation and CJK ideographs, then greedy longest-match subwords. It is exact for
ordinary text; ``scripts/bench_tokens.py`` measures how close it is on a real corpus.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Protocol, runtime_checkable

from ..config import ChunkConfig
from ..errors import ConfigError


@runtime_checkable
class TokenCounter(Protocol):
    def count(self, text: str) -> int: ...


VOCAB_RESOURCE = "wordpiece_uncased.txt"  # in pipeline/data; see LICENSES.md there
_ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")  # BERT splits all of these
_ASCII_PIECES = re.compile(r"[a-z0-9]+|[^a-z0-9]")
_CACHE_LIMIT = 1 << 17  # entries per cache; cleared when full, so memory stays bounded

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

    Greedy longest match, as WordPiece does. Where WordPiece would emit a single [UNK] for the
    whole word (a character not in the vocabulary, such as an emoji, or a word over 100
    characters) we charge the unmatched character one token and go on: counts also budget LLM
    context, where such text is never free, and over-counting is the safe side of a budget.
    """
    whole, suffix, whole_max, suffix_max = _vocab()
    n = len(word)
    count = start = 0
    table, cap = whole, whole_max
    while start < n:
        end = min(n, start + cap)
        while end > start and word[start:end] not in table:
            end -= 1
        start = end if end > start else start + 1
        count += 1
        table, cap = suffix, suffix_max
    return count


def _is_cjk(cp: int) -> bool:
    """BERT's 'Chinese character' ranges: each such character is a word of its own."""
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0xF900 <= cp <= 0xFAFF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2CEAF
        or 0x2F800 <= cp <= 0x2FA1F
    )


class _Costs(dict[str, int]):
    """A bounded memo of a pure function: hits stay in C via ``dict.__getitem__``."""

    __slots__ = ("_fn",)

    def __init__(self, fn: Callable[[str], int]) -> None:
        super().__init__()
        self._fn = fn

    def __missing__(self, key: str) -> int:
        value = self._fn(key)
        if len(self) >= _CACHE_LIMIT:
            self.clear()
        self[key] = value
        return value


class _Model:
    """Cost of a whitespace-free chunk of lowercased text, for one bias."""

    def __init__(self, min_pieces: int, extra: int) -> None:
        def word_cost(word: str) -> int:
            n = _pieces(word)
            return n + extra if min_pieces and n >= min_pieces else n

        self.words = _Costs(word_cost)
        self.chunks = _Costs(self._chunk_cost)

    def _chunk_cost(self, chunk: str) -> int:
        if chunk.isascii() and chunk.isprintable():
            # Printable ASCII: runs of [a-z0-9] are words, any other character is punctuation
            # (1 token each; all are in the vocabulary, so the word memo answers 1 for them).
            return sum(map(self.words.__getitem__, _ASCII_PIECES.findall(chunk)))
        return self._general_cost(chunk)

    def _general_cost(self, chunk: str) -> int:
        # BertNormalizer + BertPreTokenizer: drop controls and combining marks (accents), split
        # off punctuation (ASCII or Unicode P*) and CJK ideographs as one token each.
        words = self.words
        total = 0
        word: list[str] = []
        for c in unicodedata.normalize("NFD", chunk):
            cat = unicodedata.category(c)
            if cat == "Mn" or cat[0] == "C" or c == "\ufffd":
                continue
            if c in _ASCII_PUNCT or cat[0] == "P" or _is_cjk(ord(c)):
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


class Estimator:
    """WordPiece-replaying estimator; exactly additive: whitespace costs nothing.

    ``bias``: ``prose`` is unbiased against all-MiniLM WordPiece; ``balanced`` adds a small
    margin (one token per word of 3+ subwords), ``code`` a larger one (per word of 2+ subwords).
    """

    __slots__ = ("_chunks", "bias")

    def __init__(self, bias: str = "balanced") -> None:
        if bias not in _BIAS:
            raise ConfigError("estimator_bias", f"got {bias!r}; allowed: {', '.join(_BIAS)}")
        self.bias = bias
        self._chunks: _Costs | None = None  # bound on first count(), so import stays cheap

    def count(self, text: str) -> int:
        chunks = self._chunks
        if chunks is None:
            chunks = self._chunks = _model(self.bias).chunks
        # Whitespace-delimited chunks are memoized: prose and code repeat them heavily, and the
        # hit path (lower, split, dict lookups, sum) runs entirely in C.
        return sum(map(chunks.__getitem__, text.lower().split()))


_DEFAULT = Estimator()


def estimate_tokens(text: str) -> int:
    """Estimated WordPiece token count of ``text`` (no special tokens)."""
    return _DEFAULT.count(text)


class WordPieceCounter:
    """Exact counts from a Hugging Face ``tokenizer.json`` (needs ``tokenizers``)."""

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


CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)


class TiktokenCounter:
    """Exact counts from a tiktoken BPE ranks file (plain or gzipped; needs ``tiktoken``)."""

    def __init__(self, path: str) -> None:
        try:
            import tiktoken
            from tiktoken.load import load_tiktoken_bpe
        except ImportError as exc:
            raise ConfigError("tokenizer", "needs `pip install 'folio-pipeline[exact]'`") from exc
        import gzip
        import tempfile

        try:
            if path.endswith(".gz"):
                with gzip.open(path, "rb") as fh, tempfile.NamedTemporaryFile(
                    suffix=".tiktoken"
                ) as tmp:
                    tmp.write(fh.read())
                    tmp.flush()
                    ranks = load_tiktoken_bpe(tmp.name)
            else:
                ranks = load_tiktoken_bpe(path)
        except Exception as exc:
            raise ConfigError("tokenizer", f"cannot load {path}: {exc}") from exc
        self._enc = tiktoken.Encoding(
            "folio-bpe", pat_str=CL100K_PATTERN, mergeable_ranks=ranks, special_tokens={}
        )

    def count(self, text: str) -> int:
        return len(self._enc.encode_ordinary(text))


def make_counter(config: ChunkConfig) -> TokenCounter:
    """The counter a config asks for: the estimator unless a tokenizer file is given."""
    if config.tokenizer is None:
        return Estimator(config.estimator_bias)
    kind = config.tokenizer_kind
    if kind == "auto":
        kind = "wordpiece" if config.tokenizer.endswith(".json") else "tiktoken"
    if kind == "wordpiece":
        return WordPieceCounter(config.tokenizer)
    return TiktokenCounter(config.tokenizer)
