"""What a sentence-transformers folder says beyond the BERT weights: its modules, pooling,
text length, lower-casing and the prompts it prepends to queries and passages.

Folio runs a BERT encoder, one pooling (mean, CLS or max) and L2 normalisation; a folder
whose ``modules.json`` asks for more (a Dense projection, a LayerNorm, another encoder) or
whose pooling mixes modes is refused with the file and the reason. Every file here is
optional: a bare Hugging Face BERT folder reads as mean pooling with no prompts.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from ..errors import DenseUnavailableError

Pooling = Literal["mean", "cls", "max"]
# sentence-transformers' module classes Folio can run, by the last part of their name.
MODULES = ("Transformer", "Pooling", "Normalize")
# Pooling modes as sentence-transformers names them ("pooling_mode": "cls"), and their
# older boolean keys ("pooling_mode_cls_token": true). mean_sqrt_len is the sum over
# sqrt(n), which the L2 normalisation after it makes the same vector as the mean.
POOLING_MODES: dict[str, Pooling] = {
    "mean": "mean", "mean_sqrt_len_tokens": "mean", "cls": "cls", "max": "max",
}  # fmt: skip
LEGACY_POOLING_KEYS = {
    "pooling_mode_cls_token": "cls", "pooling_mode_max_tokens": "max",
    "pooling_mode_mean_tokens": "mean", "pooling_mode_mean_sqrt_len_tokens": "mean_sqrt_len_tokens",
    "pooling_mode_weightedmean_tokens": "weightedmean", "pooling_mode_lasttoken": "lasttoken",
}  # fmt: skip
DEFAULT_MAX_SEQ = 256  # all-MiniLM-L6-v2's, the recipe it is known by (model.model_label)
# Prompt names sentence-transformers' encode_document tries, in its order.
PASSAGE_PROMPTS = ("document", "passage", "corpus")


@dataclass(frozen=True)
class Recipe:
    """How texts become vectors, besides the weights: part of the model's identity."""

    pooling: Pooling = "mean"
    max_seq_length: int | None = DEFAULT_MAX_SEQ  # None: the model's position table
    lower_case: bool = False
    query_prefix: str = ""
    passage_prefix: str = ""

    def as_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


def read_recipe(directory: Path) -> Recipe:
    """The folder's recipe; raises DenseUnavailableError naming the file at fault."""
    pooling_dir = _check_modules(directory)
    st_config = _optional_json(directory / "sentence_bert_config.json")
    prompts = _prompts(directory / "config_sentence_transformers.json")
    return Recipe(
        pooling=_pooling(directory / pooling_dir / "config.json"),
        max_seq_length=_max_seq_length(directory, st_config),
        lower_case=bool(st_config.get("do_lower_case", False)),
        query_prefix=prompts[0],
        passage_prefix=prompts[1],
    )


def _max_seq_length(directory: Path, st_config: dict[str, Any]) -> int | None:
    """Where sentence-transformers finds it: sentence_bert_config.json (written before
    its version 5), else the tokenizer's model_max_length; ``None`` (neither says): the
    position table's length, as sentence-transformers caps it."""
    path = directory / "sentence_bert_config.json"
    value = st_config.get("max_seq_length")
    if value is None:
        path = directory / "tokenizer_config.json"
        value = _optional_json(path).get("model_max_length")
        if isinstance(value, int | float) and value > 1_000_000:  # transformers' "no limit"
            return None
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 3:
        raise DenseUnavailableError(f"{path}: the maximum length must be an integer >= 3")
    return value


def load_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DenseUnavailableError(f"cannot read {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise DenseUnavailableError(f"{path} is not a JSON object")
    return data


def _optional_json(path: Path) -> dict[str, Any]:
    return load_json(path) if path.is_file() else {}


def _check_modules(directory: Path) -> str:
    """The pooling module's folder; refuses modules Folio cannot run."""
    path = directory / "modules.json"
    if not path.is_file():
        return "1_Pooling"
    try:
        modules = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DenseUnavailableError(f"cannot read {path}: {exc}") from exc
    if not isinstance(modules, list) or not all(isinstance(m, dict) for m in modules):
        raise DenseUnavailableError(f"{path} is not a list of modules")
    pooling = "1_Pooling"
    for module in modules:
        kind = str(module.get("type", "")).rsplit(".", 1)[-1]
        if kind not in MODULES:
            raise DenseUnavailableError(
                f"{path}: module {module.get('type')!r} ({module.get('path') or 'top'}) is not "
                f"supported; Folio runs a BERT encoder with {', '.join(MODULES)} modules only"
            )
        if kind == "Transformer" and module.get("path", "") not in ("", "."):
            raise DenseUnavailableError(
                f"{path}: the encoder must be the folder itself, not {module.get('path')!r}"
            )
        if kind == "Pooling":
            pooling = str(module.get("path") or "1_Pooling")
    return pooling


def _pooling(path: Path) -> Pooling:
    if not path.is_file():
        return "mean"
    raw = load_json(path)
    mode = raw.get("pooling_mode")
    if mode is None:  # the older layout; none set is mean, as sentence-transformers reads it
        active = [v for k, v in LEGACY_POOLING_KEYS.items() if raw.get(k)]
        mode = active[0] if len(active) == 1 else (active or "mean")
    if raw.get("include_prompt", True) is not True:
        raise DenseUnavailableError(f"{path}: include_prompt false is not supported")
    if not isinstance(mode, str) or mode not in POOLING_MODES:
        raise DenseUnavailableError(
            f"{path}: pooling {mode!r} is not supported; Folio pools by one of mean, cls or max"
        )
    return POOLING_MODES[mode]


def _prompts(path: Path) -> tuple[str, str]:
    """(query prefix, passage prefix): the prompts named "query" and "document" (or
    "passage", "corpus"), else the default prompt, as sentence-transformers' encode_query
    and encode_document choose them."""
    raw = _optional_json(path)
    prompts = raw.get("prompts") or {}
    if not isinstance(prompts, dict) or not all(isinstance(v, str) for v in prompts.values()):
        raise DenseUnavailableError(f"{path}: prompts must map names to strings")
    default_name = raw.get("default_prompt_name")
    default = prompts.get(default_name, "") if isinstance(default_name, str) else ""
    query = prompts.get("query", default)
    passage = next((prompts[n] for n in PASSAGE_PROMPTS if n in prompts), default)
    return str(query), str(passage)
