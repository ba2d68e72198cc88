#!/usr/bin/env bash
# Ensures a Debian 13 (trixie) base image exists in the local podman store and prints its name.
# No container registry is reachable from the build machines, so when debian:trixie-slim cannot be pulled
# we make an equivalent minimal base with debootstrap + podman import. The debootstrap tarball is cached
# machine-wide so a fresh clone on the same machine (CI) reuses it instead of bootstrapping again.
set -euo pipefail

LOCAL_BASE="${JUBE_R_LOCAL_BASE:-localhost/trixie-min}"
CACHE_DIR="${JUBE_R_IMAGE_CACHE:-/var/cache/jube-r}"
TARBALL="$CACHE_DIR/trixie-minbase.tar"
# Same mirror apt uses on this host (the only archive reachable here).
MIRROR="${JUBE_R_DEBIAN_MIRROR:-$(sed -n 's/^URIs: *\(http[^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)}"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"

log() { echo "[image-base] $*" >&2; }

if podman image exists "$LOCAL_BASE"; then
  echo "$LOCAL_BASE"; exit 0
fi

# A registry pull is preferred when it works; it fails in seconds when there is no route.
if [[ "${JUBE_R_TRY_PULL:-1}" == "1" ]] && timeout 20 podman pull -q docker.io/library/debian:trixie-slim >/dev/null 2>&1; then
  echo "docker.io/library/debian:trixie-slim"; exit 0
fi

mkdir -p "$CACHE_DIR"
if [[ ! -s "$TARBALL" ]]; then
  command -v debootstrap >/dev/null || { log "debootstrap is not installed (npm run setup installs it)"; exit 1; }
  work="$(mktemp -d "$CACHE_DIR/bootstrap.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  log "debootstrap --variant=minbase trixie from $MIRROR (once per machine)"
  debootstrap --variant=minbase trixie "$work/root" "$MIRROR" >&2
  # Drop downloaded .debs and apt lists: the Dockerfile runs apt-get update itself.
  rm -rf "$work/root/var/cache/apt/archives/"*.deb "$work/root/var/lib/apt/lists/"*
  # apt inside the image must use the same reachable mirror.
  printf 'deb %s trixie main\n' "$MIRROR" > "$work/root/etc/apt/sources.list"
  tar --numeric-owner -C "$work/root" -cf "$TARBALL.tmp" .
  mv "$TARBALL.tmp" "$TARBALL"
fi

log "importing $TARBALL as $LOCAL_BASE"
podman import --change 'CMD ["/bin/bash"]' "$TARBALL" "$LOCAL_BASE" >/dev/null
echo "$LOCAL_BASE"
