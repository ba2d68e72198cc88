#!/usr/bin/env bash
# npm run image:build: stage the r-image context, make sure a Debian 13 base exists, build the
# image with podman. Rebuilds reuse podman's layer cache (apt and the runtime client's compile
# come before the application code in the Dockerfile), so a handler-only change takes seconds.
# Then extracts the image's package facts (the directory of its JUBE_R_MANIFEST_FILE: the manifest
# and everything beside it) to JUBE_R_PACKAGE_FACTS_DIR (default build/image-packages) with
# scripts/image-facts.sh, which `cdk synth` copies into the validate bundle: /packages then describes
# the image's R, not the host's. A deployment's image is pulled by digest the same way.
# Env: JUBE_R_IMAGE (tag, default localhost/jube-r-execute), JUBE_R_BUILD_CA (CA bundle for a
# TLS-intercepting egress proxy, default the host's bundle; passed as a build secret).
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE="${JUBE_R_IMAGE:-localhost/jube-r-execute}"
BUILD_CA="${JUBE_R_BUILD_CA:-/etc/ssl/certs/ca-certificates.crt}"
FACTS_DIR="${JUBE_R_PACKAGE_FACTS_DIR:-build/image-packages}"

command -v podman >/dev/null || { echo "image-build: podman is not installed (JUBE_R_SETUP_IMAGE=1 npm run setup)" >&2; exit 1; }

# One build at a time per machine: npm test starts one in the background while the other tiers
# run, and each image test file asks for one again; a second build waits here, then takes seconds
# from the layer cache instead of repeating the first build's apt work beside it.
exec 9>"${TMPDIR:-/tmp}/jube-r-image-build.lock"
flock 9

node --import tsx scripts/image-stage.mts >/dev/null
base="$(bash scripts/image-base.sh)"

secret=()
[[ -s "$BUILD_CA" ]] && secret=(--secret "id=build_ca,src=$BUILD_CA")

start=$(date +%s)
podman build --isolation chroot --layers --jobs 2 \
  --build-arg "BASE_IMAGE=$base" "${secret[@]}" \
  -t "$IMAGE" r-image >&2
echo "image-build: $IMAGE built in $(( $(date +%s) - start ))s" >&2

# The facts of the image just built, by the one script that extracts them (any engine, any OS).
JUBE_R_CONTAINER_ENGINE=podman JUBE_R_PACKAGE_FACTS_DIR="$FACTS_DIR" bash scripts/image-facts.sh "$IMAGE"
