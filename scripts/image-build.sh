#!/usr/bin/env bash
# npm run image:build: stage the r-image context, make sure a Debian 13 base exists, build the
# image with podman. Rebuilds reuse podman's layer cache (apt and the runtime client's compile
# come before the application code in the Dockerfile), so a handler-only change takes seconds.
# Env: JUBE_R_IMAGE (tag, default localhost/jube-r-execute), JUBE_R_BUILD_CA (CA bundle for a
# TLS-intercepting egress proxy, default the host's bundle; passed as a build secret).
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE="${JUBE_R_IMAGE:-localhost/jube-r-execute}"
BUILD_CA="${JUBE_R_BUILD_CA:-/etc/ssl/certs/ca-certificates.crt}"

command -v podman >/dev/null || { echo "image-build: podman is not installed (JUBE_R_SETUP_IMAGE=1 npm run setup)" >&2; exit 1; }

node --import tsx scripts/image-stage.mts >/dev/null
base="$(bash scripts/image-base.sh)"

secret=()
[[ -s "$BUILD_CA" ]] && secret=(--secret "id=build_ca,src=$BUILD_CA")

start=$(date +%s)
podman build --isolation chroot --layers --jobs 2 \
  --build-arg "BASE_IMAGE=$base" "${secret[@]}" \
  -t "$IMAGE" r-image >&2
echo "image-build: $IMAGE built in $(( $(date +%s) - start ))s" >&2
