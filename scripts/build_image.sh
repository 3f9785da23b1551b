#!/usr/bin/env bash
# Build the `prod` image on a machine with no Docker engine and no registry access, and run its
# entrypoint: podman + a Debian bookworm base made locally with debootstrap (base images cannot
# be pulled here), CPU torch, this machine's pip configuration and CA bundle mounted read-only
# for the build only (nothing of it ends up in the image).
#   scripts/build_image.sh            # prints build time, image size, `--help` of the entrypoint
# Needs root and the Debian packages podman + debootstrap (installed when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
BASE_TAG=localhost/txn-ml-base:bookworm
IMAGE=localhost/txn-ml:prod-cpu
ROOTFS=${ROOTFS:-/var/tmp/txn-ml-rootfs}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

if ! command -v podman >/dev/null || ! command -v debootstrap >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    podman buildah debootstrap uidmap fuse-overlayfs slirp4netns >/dev/null
fi
# inside a container overlayfs often cannot be mounted: fall back to vfs (slower, always works)
STORAGE=()
if ! podman info >/dev/null 2>&1; then STORAGE=(--storage-driver vfs); fi
if ! podman "${STORAGE[@]}" info >/dev/null 2>&1; then STORAGE=(--storage-driver vfs); fi

if ! podman "${STORAGE[@]}" image exists "$BASE_TAG"; then
  echo "making the base image $BASE_TAG with debootstrap (minbase, bookworm)"
  rm -rf "$ROOTFS"
  debootstrap --variant=minbase bookworm "$ROOTFS" "$MIRROR" >/dev/null
  tar -C "$ROOTFS" -c . | podman "${STORAGE[@]}" import - "$BASE_TAG" >/dev/null
  rm -rf "$ROOTFS"
fi

# this machine's pip settings (package mirror, wheel folders, constraints) for the build only
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp /etc/ssl/certs/ca-certificates.crt "$work/ca.crt"
{
  echo "[global]"
  echo "cert = /run/pip-host/ca.crt"
  pip3 config list 2>/dev/null | sed -n 's/^global\.\(extra-index-url\|index-url\|find-links\|constraint\)=/\1 = /p' | tr -d "'"
} > "$work/pip.conf"
mounts=(-v "$work:/run/pip-host:ro,Z" -v "$work/pip.conf:/etc/pip.conf:ro,Z")
for dir in /opt/wheels /opt/pypi /opt/pypi-more /etc/xdg/pip; do
  if [ -d "$dir" ]; then mounts+=(-v "$dir:$dir:ro,Z"); fi
done

start=$(date +%s)
# chroot isolation: RUN steps need no cgroups or user namespaces (this sandbox has neither)
podman "${STORAGE[@]}" build --pull=never --isolation chroot --target prod \
  --build-arg BASE_IMAGE="$BASE_TAG" --build-arg TORCH_INDEX=cpu \
  "${mounts[@]}" -t "$IMAGE" .
seconds=$(( $(date +%s) - start ))
size=$(podman "${STORAGE[@]}" image inspect --format '{{.Size}}' "$IMAGE")
echo "built $IMAGE in ${seconds} s; image size $(( size / 1000000 )) MB"
# Run the image's own entrypoint, as its own user. `podman run` needs crun to set rlimits and
# cgroups, which this sandbox forbids; buildah runs the same image with chroot isolation.
entrypoint=$(podman "${STORAGE[@]}" image inspect --format '{{join .Config.Entrypoint " "}}' "$IMAGE")
user=$(podman "${STORAGE[@]}" image inspect --format '{{.Config.User}}' "$IMAGE")
ctr=$(buildah "${STORAGE[@]}" from --pull-never "$IMAGE")
trap 'buildah "${STORAGE[@]}" rm "$ctr" >/dev/null; rm -rf "$work"' EXIT
echo "entrypoint: $entrypoint --help (user $user)"
# shellcheck disable=SC2086  # the entrypoint is a command line
buildah "${STORAGE[@]}" run --isolation chroot --user "$user" "$ctr" -- $entrypoint --help
buildah "${STORAGE[@]}" run --isolation chroot --user "$user" "$ctr" -- python -c \
  "import ml_assets.training.job, torch, onnxruntime; print('imports ok, torch', torch.__version__)"
