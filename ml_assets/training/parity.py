"""Parity of the exported ONNX model with the PyTorch model it came from."""

from __future__ import annotations

import numpy as np
import torch

from ml_assets.core.serving.scoring import OnnxScorer, encode_for_model
from ml_assets.core.training_data.labels import IGNORE_INDEX
from ml_assets.training.finetune import predict_logits
from ml_assets.training.model import MultiTaskModel


def compare_with_pytorch(
    scorer: OnnxScorer,
    net: MultiTaskModel,
    texts: list[str],
    labels: dict[str, np.ndarray],
    batch_size: int,
    amounts: np.ndarray | None = None,
) -> dict[str, dict[str, float]]:
    """Argmax agreement and accuracy of int8 ONNX vs the PyTorch model on the same token ids
    (and ``amounts``, one per text, for a model that reads them)."""
    sequences = encode_for_model(scorer.tokenizer, texts, scorer.max_length)
    onnx_logits = scorer.logits(sequences, batch_size, amounts)
    torch_logits = predict_logits(
        net, sequences, batch_size, scorer.pad_id, torch.device("cpu"), amounts
    )
    report = {}
    for head in net.head_names:
        onnx_pred, torch_pred = onnx_logits[head].argmax(1), torch_logits[head].argmax(1)
        keep = labels[head] != IGNORE_INDEX
        report[head] = {
            "agreement": float(np.mean(onnx_pred == torch_pred)),
            "max_abs_logit_diff": float(np.abs(onnx_logits[head] - torch_logits[head]).max()),
            "labeled": int(keep.sum()),
            "rows": len(onnx_pred),
        }
        if keep.any():  # accuracy needs labels; agreement does not
            torch_acc = float(np.mean(torch_pred[keep] == labels[head][keep]))
            onnx_acc = float(np.mean(onnx_pred[keep] == labels[head][keep]))
            report[head].update(
                accuracy_pytorch=torch_acc,
                accuracy_int8=onnx_acc,
                accuracy_delta_pt=(onnx_acc - torch_acc) * 100,
            )
    return report
