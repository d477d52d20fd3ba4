"""Running the built model with onnxruntime: tokenize, window, batch by length, pool."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import DenseUnavailableError
from .build import ERRORS_ONLY
from .graph import INPUTS
from .windows import SPECIAL_TOKENS, TRAINED_POSITIONS, Kind, Window, batches, windows

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

# Padded positions per batch. scripts/bench/bench_embed.py found no difference beyond noise
# between 2048 and 8192; batches sorted by length are what cut padding (~25% fewer positions).
TOKEN_BUDGET = 4096
# Dynamic int8 quantisation scales a run's activations by one factor for the whole batch, so
# a text batched with others got another vector than alone (cosine down to 0.957 on 330
# real texts) and a question, embedded alone, was compared with passages quantised to their
# batch-mates' range. One window per run gives each its own scale; on CPU it costs nothing
# (no padding: 300 snippets in 11.6-11.9 s one at a time against 12.6-13.3 s in batches).
ONE_AT_A_TIME = 1


def open_session(path: Path, threads: int | None) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads or 0  # 0: onnxruntime's default, one per core
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = ERRORS_ONLY  # and the default logger too, for its start:
    ort.set_default_logger_severity(ERRORS_ONLY)
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def open_tokenizer(path: Path) -> tuple[Any, int, int]:
    """The tokenizer with its own truncation and padding off (tokenizer.json ships both
    set to 128), and the ids of [CLS] and [SEP], which ``embed`` adds itself."""
    from tokenizers import Tokenizer

    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as exc:  # tokenizers raises a bare Exception for bad files
        raise DenseUnavailableError(f"cannot read {path}: {exc}") from exc
    tokenizer.no_truncation()
    tokenizer.no_padding()
    cls_id, sep_id = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    if cls_id is None or sep_id is None:
        raise DenseUnavailableError(f"{path} has no [CLS] or [SEP] token")
    return tokenizer, cls_id, sep_id


@dataclass(frozen=True)
class Prefixes:
    """Token ids of the prompt the model puts before a query and before a passage (e5's
    "query: " / "passage: "; none for all-MiniLM), tokenized on their own: the same ids
    as tokenized with the text when the prompt ends at a word boundary, as published
    prompts do, and so repeated at the head of every window of a long text."""

    query: tuple[int, ...] = ()
    passage: tuple[int, ...] = ()

    @classmethod
    def of(cls, tokenizer: Any, query: str, passage: str) -> Prefixes:
        def ids(prompt: str) -> tuple[int, ...]:
            if not prompt:
                return ()
            return tuple(tokenizer.encode(prompt, add_special_tokens=False).ids)

        return cls(ids(query), ids(passage))


@dataclass(frozen=True)
class OnnxEmbedder:
    name: str
    dim: int
    session: Any
    tokenizer: Any
    cls_id: int
    sep_id: int
    window: Window
    max_positions: int
    token_budget: int = TOKEN_BUDGET
    by_length: bool = True
    trained_positions: int = TRAINED_POSITIONS  # the folder's max_seq_length
    prefixes: Prefixes = Prefixes()
    lower_case: bool = False  # sentence_bert_config's do_lower_case

    def embed(self, texts: Sequence[str], kind: Kind = "passage") -> npt.NDArray[np.float32]:
        """One L2-normalised row per text, in order, each after the model's prompt for
        ``kind``; a text split into several windows gets the renormalised mean of their
        embeddings."""
        import numpy as np

        if isinstance(texts, str):
            raise TypeError("embed takes a sequence of texts, not one string")
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        prefix = self.prefixes.query if kind == "query" else self.prefixes.passage
        owners: list[int] = []
        pieces: list[Sequence[int]] = []
        given = [t.lower() for t in texts] if self.lower_case else list(texts)
        encodings = self.tokenizer.encode_batch(given, add_special_tokens=False)
        for i, encoding in enumerate(encodings):
            cut = windows(
                encoding.ids, self.window, self.max_positions, self.trained_positions, len(prefix)
            )
            for piece in cut:
                owners.append(i)
                pieces.append((*prefix, *piece) if prefix else piece)
        rows = self._run(pieces)
        if len(pieces) == len(texts):
            return rows
        sums = np.zeros((len(texts), self.dim), np.float32)
        np.add.at(sums, np.asarray(owners), rows)
        return sums / np.linalg.norm(sums, axis=1, keepdims=True)  # type: ignore[no-any-return]

    def _run(self, pieces: Sequence[Sequence[int]]) -> npt.NDArray[np.float32]:
        import numpy as np

        lengths = [len(p) + SPECIAL_TOKENS for p in pieces]
        out = np.empty((len(pieces), self.dim), np.float32)
        for batch in batches(lengths, self.token_budget, self.by_length):
            ids = np.zeros((len(batch), max(lengths[i] for i in batch)), np.int64)
            mask = np.zeros_like(ids)
            for row, i in enumerate(batch):
                ids[row, : lengths[i]] = (self.cls_id, *pieces[i], self.sep_id)
                mask[row, : lengths[i]] = 1  # right padding, which fused attention assumes
            out[batch] = self.session.run(None, {INPUTS[0]: ids, INPUTS[1]: mask})[0]
        return out
