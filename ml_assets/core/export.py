"""ONNX export of the multitask model and int8 quantization with onnxruntime."""

from __future__ import annotations

import logging
import re
import warnings
from pathlib import Path

import onnx
import torch
from onnxruntime.quantization import QuantType, quantize_dynamic

from ml_assets.training.model import MultiTaskModel


def export_onnx(model: MultiTaskModel, path: Path, opset: int) -> None:
    """Export with dynamic batch and sequence axes; one logits output per head."""
    model = model.cpu().eval()
    ids = torch.tensor([[2, 10, 11, 12, 3], [2, 10, 3, 0, 0]], dtype=torch.long)
    mask = (ids != 0).long()
    outputs = [f"logits_{name}" for name in model.head_names]
    axes = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"}}
    axes.update({name: {0: "batch"} for name in outputs})
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # tracer warnings about python control flow on shapes
        # The TorchScript exporter (dynamo=False) needs no onnxscript and matches PyTorch to 1e-5.
        torch.onnx.export(
            model,
            (ids, mask),
            str(path),
            input_names=["input_ids", "attention_mask"],
            output_names=outputs,
            dynamic_axes=axes,
            opset_version=opset,
            dynamo=False,
        )
    onnx.checker.check_model(str(path))


def _drop_preprocess_hint(record: logging.LogRecord) -> bool:
    return "pre-processing before quantization" not in record.getMessage()


def quantize_int8(
    fp32_path: Path,
    int8_path: Path,
    *,
    per_channel: bool,
    exclude_op_types: tuple[str, ...] = (),
    keep_fp32_nodes: tuple[str, ...] = (),
) -> list[str]:
    """Dynamic int8 quantization of weights (activations quantized on the fly).

    Per-channel weight scales and keeping the most sensitive matmuls in fp32 are what keeps
    int8 argmax agreement with PyTorch >= 99 % on this model family (measured, see README).
    Nodes whose op type is in ``exclude_op_types`` or whose name matches a regex of
    ``keep_fp32_nodes`` stay fp32. Returns the excluded node names.
    """
    graph = onnx.load(str(fp32_path)).graph
    patterns = [re.compile(p) for p in keep_fp32_nodes]
    excluded = [
        node.name
        for node in graph.node
        if node.op_type in set(exclude_op_types) or any(p.search(node.name) for p in patterns)
    ]
    # onnxruntime logs a generic "consider pre-processing" hint on the root logger; the
    # pre-processing (shape inference) fails on this graph without auto_merge and gains nothing here
    logging.getLogger().addFilter(_drop_preprocess_hint)
    quantize_dynamic(
        str(fp32_path),
        str(int8_path),
        weight_type=QuantType.QInt8,
        per_channel=per_channel,
        nodes_to_exclude=excluded,
    )
    onnx.checker.check_model(str(int8_path))
    return excluded
