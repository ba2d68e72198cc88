#!/usr/bin/env bash
# scripts/image-facts.sh IMAGE: extracts the package facts of IMAGE (the directory of the image's own
# JUBE_R_MANIFEST_FILE: the manifest /packages serves and everything beside it) to
# JUBE_R_PACKAGE_FACTS_DIR (default build/image-packages), and records which image they came from in
# <that directory>.image.json, which `cdk synth -c executeImageUri=...` checks against the image it
# deploys. IMAGE is a local image or a registry image by digest (pulled when absent, e.g.
# <account>.dkr.ecr.<region>.amazonaws.com/<repo>@sha256:<digest>). Needs bash and a container engine
# only: Docker or podman (JUBE_R_CONTAINER_ENGINE, default whichever is installed), on any OS.
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE="${1:?usage: scripts/image-facts.sh IMAGE   (a local image, or <registry>/<repo>@sha256:<digest>)}"
FACTS_DIR="${JUBE_R_PACKAGE_FACTS_DIR:-build/image-packages}"
FACTS_DIR="${FACTS_DIR%/}"
ENGINE="${JUBE_R_CONTAINER_ENGINE:-$(command -v docker || command -v podman || true)}"
[[ -n "$ENGINE" ]] || { echo "image-facts: no container engine: install Docker or podman, or set JUBE_R_CONTAINER_ENGINE" >&2; exit 1; }

if ! "$ENGINE" image inspect "$IMAGE" >/dev/null 2>&1; then
  echo "image-facts: pulling $IMAGE" >&2
  "$ENGINE" pull "$IMAGE" >&2
fi

# The image names where its facts are (ENV JUBE_R_MANIFEST_FILE); nothing here repeats the path.
manifest_file="$("$ENGINE" image inspect --format '{{range .Config.Env}}{{println .}}{{end}}' "$IMAGE" | sed -n 's/^JUBE_R_MANIFEST_FILE=//p')"
[[ -n "$manifest_file" ]] || { echo "image-facts: $IMAGE sets no JUBE_R_MANIFEST_FILE: not a jube-r execute image" >&2; exit 1; }
id="$("$ENGINE" image inspect --format '{{.Id}}' "$IMAGE")"
# The registry digest: the one the reference names, else the one the engine recorded for the image.
digest="$(printf '%s\n' "$IMAGE" | sed -n 's/^.*@\(sha256:[0-9a-f]\{64\}\)$/\1/p')"
if [[ -z "$digest" ]]; then
  digest="$("$ENGINE" image inspect --format '{{range .RepoDigests}}{{println .}}{{end}}' "$IMAGE" | sed -n 's/^.*@\(sha256:[0-9a-f]\{64\}\)$/\1/p' | head -n1)"
fi

container="$("$ENGINE" create "$IMAGE")"
trap '"$ENGINE" rm -f "$container" >/dev/null 2>&1 || true' EXIT
mkdir -p "$(dirname "$FACTS_DIR")"
fresh="$(mktemp -d "$FACTS_DIR.XXXXXX")"
"$ENGINE" cp "$container:$(dirname "$manifest_file")/." "$fresh/"
[[ -f "$fresh/$(basename "$manifest_file")" ]] || { rm -rf "$fresh"; echo "image-facts: no $manifest_file in $IMAGE" >&2; exit 1; }
chmod -R u=rwX,go=rX "$fresh"
rm -rf "$FACTS_DIR" && mv "$fresh" "$FACTS_DIR"

json_string() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"; }
{
  printf '{\n  "image": %s,\n  "id": %s' "$(json_string "$IMAGE")" "$(json_string "$id")"
  [[ -n "$digest" ]] && printf ',\n  "digest": %s' "$(json_string "$digest")"
  printf '\n}\n'
} > "$FACTS_DIR.image.json"
echo "image-facts: package facts of $IMAGE${digest:+ ($digest)} in $FACTS_DIR" >&2
