# syntax=docker/dockerfile:1.7
# Three targets (docs/guides/images-and-ci.md):
#   base  CUDA runtime + Python + the pinned runtime dependencies (GPU torch from the CUDA index)
#   dev   base + JupyterLab, the dev/test extras and the whole repo, for notebooks and tests
#   prod  the runtime only: the training job the GCP Batch launcher runs (non-root, code last)
#
#   docker build --target prod -t txn-ml:prod .
#   docker build --target dev  -t txn-ml:dev .
# CPU-only image (what scripts/build_image.sh builds and tests here, without CUDA):
#   --build-arg BASE_IMAGE=debian:bookworm-slim --build-arg TORCH_INDEX=cpu
ARG BASE_IMAGE=nvidia/cuda:12.6.3-cudnn-runtime-ubuntu24.04

FROM ${BASE_IMAGE} AS base
# cu126 wheels of the pinned torch; "cpu" keeps the CPU build (torch==2.13.0 from PyPI)
ARG TORCH_INDEX=https://download.pytorch.org/whl/cu126
ARG TORCH_VERSION=2.13.0
# DL3064 reads "TOKEN" in TOKENIZERS_PARALLELISM as a secret; no secret is set here (ever)
# hadolint ignore=DL3064
ENV DEBIAN_FRONTEND=noninteractive \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH \
    HF_HUB_OFFLINE=1 \
    TOKENIZERS_PARALLELISM=false
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && python3 -m venv "$VIRTUAL_ENV"
WORKDIR /app
# Dependencies before code: this layer is rebuilt only when pyproject.toml changes.
COPY pyproject.toml ./
RUN if [ "$TORCH_INDEX" = "cpu" ]; then \
        pip install --no-cache-dir "torch==${TORCH_VERSION}"; \
    else \
        pip install --no-cache-dir "torch==${TORCH_VERSION}" --index-url "$TORCH_INDEX"; \
    fi \
    && python3 -c "import tomllib; d = tomllib.load(open('pyproject.toml', 'rb')); \
print('\n'.join(d['project']['dependencies']))" > /tmp/requirements.txt \
    && pip install --no-cache-dir -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

FROM base AS dev
COPY . .
RUN pip install --no-cache-dir -e '.[dev]' "jupyterlab>=4,<5"
EXPOSE 8888 3000
CMD ["jupyter", "lab", "--ip=127.0.0.1", "--no-browser", "--allow-root"]

FROM base AS prod
RUN useradd --create-home --uid 10001 trainer
# The code last: a code change rebuilds only these layers.
COPY ml_assets ./ml_assets
COPY resources ./resources
COPY sensors ./sensors
COPY params.yaml pyproject.toml README.md ./
RUN pip install --no-cache-dir --no-deps . \
    && rm -rf build ./*.egg-info
USER 10001
# What resources/gcp_batch.py runs on the VM (it also sets this entrypoint explicitly).
ENTRYPOINT ["python", "-m", "ml_assets.training.job"]
