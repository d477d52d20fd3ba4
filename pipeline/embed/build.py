"""Building the ONNX model file once and caching it.

The file is keyed by everything that shapes its bytes: the weights' and config's sha256, the
build options and the versions of the tools that rewrite the graph. It is written to a
temporary file in the cache directory and renamed into place, so a reader never sees half a
file and two processes building at once both end with the same, complete file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from ..errors import DenseUnavailableError
from .folder import Pooling, Recipe
from .model import (
    KNOWN_WEIGHTS,
    ModelFiles,
    file_sha256,
    model_label,
    read_config,
    read_weights,
)

Precision = Literal["fp32", "int8"]
PRECISIONS: tuple[Precision, ...] = ("fp32", "int8")
# Bump when graph.py or the build steps change what a given set of options produces.
BUILD_FORMAT = 2


@dataclass(frozen=True)
class BuildOptions:
    precision: Precision = "int8"
    # onnxruntime's transformer optimizer: fused Attention, SkipLayerNorm and BiasGelu.
    fused: bool = True
    # Dynamic int8 quantisation: per-channel weight scales are needed for accuracy.
    # reduce_range (7-bit weights) makes the integer products exact on every CPU: x86 without
    # VNNI multiplies u8 x s8 pairs into int16 with saturation (VPMADDUBSW), which 255 x 127
    # x 2 overflows and 255 x 64 x 2 does not; with VNNI (or ARM) nothing saturates. With
    # 8-bit weights the same text got other vectors on other machines (the sentence-
    # transformers reference: 0.9897 cosine on an AVX-512 VNNI Xeon, >= 0.99 on CI's CPU);
    # with 7-bit ones the arithmetic is the same everywhere. Cost, measured on that Xeon
    # against the fp32 model, 330 texts embedded one at a time: mean cosine 0.9968 -> 0.9953.
    per_channel: bool = True
    reduce_range: bool = True
    # int8 only: outlier weights this many times the median stay in float (graph.py).
    outlier_ratio: float = 6.0
    pooling: Pooling = "mean"  # the folder's (folder.Recipe), built into the graph


@dataclass(frozen=True)
class BuiltModel:
    path: Path
    label: str  # the model's name, e.g. "all-MiniLM-L6-v2" (model.model_label)
    built: bool  # False when the cached file was reused


def cache_key(files: ModelFiles, options: BuildOptions, weights_sha256: str) -> str:
    import onnx
    import onnxruntime

    fields = {
        "format": BUILD_FORMAT,
        "weights": weights_sha256,
        "config": file_sha256(files.config),
        "options": asdict(options),
        "onnx": onnx.__version__,
        "onnxruntime": onnxruntime.__version__,
    }
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()


def ensure_model(
    files: ModelFiles, cache_dir: Path, options: BuildOptions, recipe: Recipe | None = None
) -> BuiltModel:
    """The cached model file for these weights and options, built first if missing; keyed
    by the files' content, so two folders with the same model share one file and a folder
    whose files change gets a new one."""
    recipe = recipe or Recipe(pooling=options.pooling)
    weights_sha256 = file_sha256(files.weights)
    label = model_label(files, weights_sha256, recipe)
    key = cache_key(files, options, weights_sha256)
    # Named by the weights, not the model: models that differ only in their prompts (which
    # the graph does not hold) share a file.
    weights = KNOWN_WEIGHTS.get(weights_sha256, "bert")
    path = cache_dir / f"{weights}-{options.precision}-{key[:20]}.onnx"
    if path.is_file():
        return BuiltModel(path, label, built=False)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        with (
            tempfile.TemporaryDirectory(prefix=".build-", dir=cache_dir) as scratch,
            _quiet_build(),
        ):
            staged = _build(files, options, Path(scratch))
            os.replace(staged, path)
    except OSError as exc:
        raise DenseUnavailableError(f"cannot write the model cache in {cache_dir}: {exc}") from exc
    return BuiltModel(path, label, built=True)


ERRORS_ONLY = 3  # onnxruntime's severity levels: 0 verbose, 1 info, 2 warning, 3 error


class _OnnxruntimeAdvice(logging.Filter):
    """Drops what onnxruntime's Python tools log below ERROR on the root logger (the
    quantizer advises "pre-processing" there): advice for its authors, not Folio's users."""

    def filter(self, record: logging.LogRecord) -> bool:
        inside = f"{os.sep}onnxruntime{os.sep}" in record.pathname
        return record.levelno >= logging.ERROR or not inside


@contextlib.contextmanager
def _quiet_build() -> Iterator[None]:
    """The build without onnxruntime's chatter on stderr: its C++ logger set to errors
    (sessions the tools open themselves take the default severity), its Python advice
    filtered. A NullHandler on the root logger keeps ``logging.warning`` from calling
    ``basicConfig``, which would leave a stderr handler on the caller's root logger."""
    import onnxruntime

    root = logging.getLogger()
    advice, null = _OnnxruntimeAdvice(), logging.NullHandler()
    root.addFilter(advice)
    root.addHandler(null)
    onnxruntime.set_default_logger_severity(ERRORS_ONLY)
    try:
        yield
    finally:
        root.removeHandler(null)
        root.removeFilter(advice)


def _build(files: ModelFiles, options: BuildOptions, scratch: Path) -> Path:
    import onnx

    from .graph import build_graph

    current = scratch / "fp32.onnx"
    ratio = options.outlier_ratio if options.precision == "int8" else None
    graph = build_graph(read_config(files), read_weights(files), ratio, options.pooling)
    onnx.save(graph, str(current))
    if options.fused:
        current = _fuse(current, scratch / "fused.onnx")
    if options.precision == "int8":
        current = _quantize(current, scratch / "int8.onnx", options)
    return current


def _fuse(source: Path, target: Path) -> Path:
    from onnxruntime.transformers import optimizer

    # It warns that the producer is not "pytorch"; the graph follows PyTorch's pattern anyway.
    logging.getLogger("onnxruntime.transformers").setLevel(logging.ERROR)
    fused = optimizer.optimize_model(str(source), model_type="bert", opt_level=0, use_gpu=False)
    fused.save_model_to_file(str(target))
    return target


def _quantize(source: Path, target: Path, options: BuildOptions) -> Path:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from .graph import KEEP_FLOAT

    graph = onnx.load(str(source)).graph
    keep = [node.name for node in graph.node if node.name.startswith(KEEP_FLOAT)]
    quantize_dynamic(
        str(source),
        str(target),
        op_types_to_quantize=["MatMul", "Attention"],
        nodes_to_exclude=keep,
        per_channel=options.per_channel,
        reduce_range=options.reduce_range,
        weight_type=QuantType.QInt8,
        # Shape inference cannot type the outputs of contrib ops such as Attention.
        extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
    )
    return target
