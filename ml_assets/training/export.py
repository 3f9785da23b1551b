"""ONNX export of the multitask model and int8 quantization with onnxruntime."""

from __future__ import annotations

import logging
import re
import warnings
from pathlib import Path

import onnx
import torch
from onnxruntime.quantization import QuantType, quantize_dynamic

from ml_assets.core.serving.scoring import AMOUNT_INPUT
from ml_assets.training.model import MultiTaskModel


def export_onnx(model: MultiTaskModel, path: Path, opset: int) -> None:
    """Export with dynamic batch and sequence axes; one logits output per head. A model that
    reads the amount (``reads_amount``) takes a third input, ``amount`` (float32, one per
    row)."""
    model = model.cpu().eval()
    ids = torch.tensor([[2, 10, 11, 12, 3], [2, 10, 3, 0, 0]], dtype=torch.long)
    mask = (ids != 0).long()
    inputs, names = (ids, mask), ["input_ids", "attention_mask"]
    if model.reads_amount:
        inputs, names = (*inputs, torch.tensor([-12.5, 2400.0])), [*names, AMOUNT_INPUT]
    outputs = [f"logits_{name}" for name in model.head_names]
    axes = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"}}
    axes.update({name: {0: "batch"} for name in [*outputs, *names[2:]]})
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # tracer warnings about python control flow on shapes
        # The TorchScript exporter (dynamo=False) needs no onnxscript and matches PyTorch to 1e-5.
        torch.onnx.export(
            model,
            inputs,
            str(path),
            input_names=names,
            output_names=outputs,
            dynamic_axes=axes,
            opset_version=opset,
            dynamo=False,
        )
    onnx.checker.check_model(str(path))


def _drop_preprocess_hint(record: logging.LogRecord) -> bool:
    return "pre-processing before quantization" not in record.getMessage()


INT8_KERNELS = ("blockwise", "dynamic")


def quantize_int8(
    fp32_path: Path,
    int8_path: Path,
    *,
    kernel: str = "blockwise",
    block_size: int = 128,
    per_channel: bool = True,
    exclude_op_types: tuple[str, ...] = (),
    keep_fp32_nodes: tuple[str, ...] = (),
    quantize_embeddings: bool = True,
) -> list[str]:
    """int8 weights, int8 compute, no calibration data. Returns the node names left in fp32.

    ``blockwise`` (MatMulNBits, onnxruntime contrib op): 8-bit symmetric weights with one
    scale per ``block_size`` inputs, and activations quantized to int8 per block of the same
    size on the fly (accuracy_level 4). ``dynamic`` (MatMulInteger): per-channel weights but
    ONE activation scale per tensor per batch, so a few outlier channels of BERT's hidden
    states coarsen every other channel. Measured on the default model (benchmarks/RESULTS.md):
    blockwise agrees with PyTorch's argmax on 99.3 % of test rows, dynamic on 97.8 %
    (98.3 % with the FFN down-projections kept fp32), below the export gate's 99 %.
    Nodes whose op type is in ``exclude_op_types`` or whose name matches a regex of
    ``keep_fp32_nodes`` stay fp32. With ``quantize_embeddings`` the word-embedding table is
    stored as int8 rows (``quantize_embedding_rows``).
    """
    if kernel not in INT8_KERNELS:
        raise ValueError(f"onnx_model.int8_kernel must be one of {INT8_KERNELS}, got {kernel!r}")
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
    if kernel == "blockwise":
        from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

        quantizer = MatMulNBitsQuantizer(
            str(fp32_path),
            bits=8,
            block_size=block_size,
            is_symmetric=True,
            accuracy_level=4,  # int8 compute; the default (0) dequantizes to fp32 and is ~4x slower
            nodes_to_exclude=excluded,
            op_types_to_quantize=("MatMul",),  # 8-bit Gather is not supported: embeddings stay fp32
        )
        quantizer.process()
        quantizer.model.save_model_to_file(str(int8_path), use_external_data_format=False)
    else:
        quantize_dynamic(
            str(fp32_path),
            str(int8_path),
            weight_type=QuantType.QInt8,
            per_channel=per_channel,
            nodes_to_exclude=excluded,
            # its own Gather quantization would leave nothing for quantize_embedding_rows
            op_types_to_quantize=["MatMul", "Gemm"] if quantize_embeddings else None,
        )
    if quantize_embeddings:
        quantize_embedding_rows(int8_path)
    onnx.checker.check_model(str(int8_path))
    return excluded


def quantize_embedding_rows(path: Path, min_rows: int = 1024) -> list[str]:
    """Store each large embedding table (a Gather over a float initializer of at least
    ``min_rows`` rows: the word embeddings, the n-gram bag's weights) as int8 with one fp32
    scale per row, in place.

    onnxruntime's weight-only quantizers do not take 8-bit Gathers, so this is a graph edit
    in standard ops: ``Gather(int8 table) -> Cast(float) -> Mul(Gather(row scales))``. Symmetric
    per-row scales (max |w| / 127) keep every token's vector within 0.4 % of its largest
    component; the table shrinks 4x, which is what lets a vocabulary that covers unseen
    merchants fit the size gate. Returns the names of the tables quantized."""
    import numpy as np
    from onnx import helper, numpy_helper

    model = onnx.load(str(path))
    graph = model.graph
    initializers = {init.name: init for init in graph.initializer}
    done = []
    for node in list(graph.node):
        table = initializers.get(node.input[0]) if node.op_type == "Gather" else None
        if table is None or len(table.dims) != 2 or table.dims[0] < min_rows:
            continue
        if table.data_type != onnx.TensorProto.FLOAT:  # the n-gram bag's table of characters
            continue
        name = table.name
        if name not in done:  # a table read by several Gathers is quantized once
            weights = numpy_helper.to_array(table).astype(np.float32)
            scales = np.abs(weights).max(axis=1, keepdims=True) / 127.0
            scales[scales == 0] = 1.0
            quantized = np.clip(np.rint(weights / scales), -127, 127).astype(np.int8)
            graph.initializer.extend(
                [
                    numpy_helper.from_array(quantized, f"{name}_int8"),
                    numpy_helper.from_array(scales.astype(np.float32), f"{name}_row_scale"),
                ]
            )
            done.append(name)
        out = node.output[0]
        rows, cast, scale = (f"{node.name}_{part}" for part in ("int8", "cast", "scale"))
        position = list(graph.node).index(node)
        graph.node.remove(node)
        new_nodes = [
            helper.make_node("Gather", [f"{name}_int8", node.input[1]], [rows], name=rows),
            helper.make_node("Cast", [rows], [cast], name=cast, to=onnx.TensorProto.FLOAT),
            helper.make_node("Gather", [f"{name}_row_scale", node.input[1]], [scale], name=scale),
            helper.make_node("Mul", [cast, scale], [out], name=f"{node.name}_dequantize"),
        ]
        for offset, new in enumerate(new_nodes):
            graph.node.insert(position + offset, new)
    for name in done:  # the fp32 tables no node reads any more
        graph.initializer.remove(initializers[name])
    onnx.save(model, str(path))
    return done


def quantized_weight_nodes(fp32_model: onnx.ModelProto, int8_model: onnx.ModelProto) -> list[str]:
    """Names, in graph order, of the fp32 graph's MatMul and Gemm nodes over a weight
    (initializer) that the int8 graph computes some other way (MatMulNBits, MatMulInteger, ...).

    Both quantizers keep the output tensor name of each node they replace (downstream nodes
    read it), so that name identifies the replacement. The dynamic quantizer turns a Gemm into
    MatMulInteger + Add under new node names, which ``keep_fp32_nodes`` regexes do not reach:
    those heads are found here too."""
    producer = {out: node for node in int8_model.graph.node for out in node.output}
    weights = {init.name for init in fp32_model.graph.initializer}
    found = []
    for node in fp32_model.graph.node:
        if node.op_type not in ("MatMul", "Gemm") or not weights.intersection(node.input[1:]):
            continue
        replacement = producer.get(node.output[0])
        if replacement is not None and replacement.op_type != node.op_type:
            found.append(node.name)
    return found


def restore_fp32_nodes(
    int8_model: onnx.ModelProto, fp32_model: onnx.ModelProto, names: list[str]
) -> onnx.ModelProto:
    """A copy of ``int8_model`` in which the fp32 nodes ``names`` (see ``quantized_weight_nodes``)
    compute in fp32 again, with their original weights.

    A graph edit, not a new quantization: the node that produced each one's output is replaced
    in place by the original node (same inputs, so the graph stays topologically sorted), and
    what fed only the replaced node (packed weights, scales, a DynamicQuantizeLinear no other
    MatMul reads) is removed. For ``blockwise`` the result equals ``quantize_int8`` with those
    nodes excluded; it costs ~0.02 s a node on the 6-layer model instead of a ~0.3 s re-run."""
    model = onnx.ModelProto()
    model.CopyFrom(int8_model)
    graph = model.graph
    originals = {node.name: node for node in fp32_model.graph.node}
    index = {out: position for position, node in enumerate(graph.node) for out in node.output}
    orphans = []
    for name in names:
        original = originals[name]
        position = index[original.output[0]]
        orphans.extend(i for i in graph.node[position].input if i)
        graph.node[position].CopyFrom(original)
    present = {init.name for init in graph.initializer}
    graph.initializer.extend(
        init
        for init in fp32_model.graph.initializer
        if init.name not in present and any(init.name in originals[n].input for n in names)
    )
    _remove_unread(graph, orphans)
    return model


def _remove_unread(graph: onnx.GraphProto, tensors: list[str]) -> None:
    """Remove, transitively, the initializers and nodes that produce ``tensors`` when nothing
    (no node, no graph output) reads them any more."""
    from collections import Counter

    readers = Counter(i for node in graph.node for i in node.input if i)
    readers.update(out.name for out in graph.output)
    initializers = {init.name: init for init in graph.initializer}
    producer = {out: node for node in graph.node for out in node.output}
    stack = list(tensors)
    while stack:
        tensor = stack.pop()
        if readers[tensor] > 0:
            continue
        if tensor in initializers:
            graph.initializer.remove(initializers.pop(tensor))
            continue
        node = producer.get(tensor)
        if node is None or any(readers[out] for out in node.output):
            continue  # a graph input, or a node with another output still read
        graph.node.remove(node)
        for out in node.output:
            producer.pop(out, None)
        for i in node.input:
            if i:
                readers[i] -= 1
                stack.append(i)
