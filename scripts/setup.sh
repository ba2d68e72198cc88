#!/usr/bin/env bash
# npm run setup: everything a fresh Debian 12 machine needs for `npm test` and `npm start`.
# Idempotent and quiet when already done. The image tier's tools (podman, buildah, runc,
# debootstrap) come when it is wanted: CI=true or JUBE_R_SETUP_IMAGE=1.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'setup: %s\n' "$*"; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# R and the packages packages.R declares; prlimit (util-linux) and bubblewrap for the sandbox;
# a C compiler for the capsule (r-image/capsule, preloaded into every Rscript); fonts for plots;
# lintr (the R code's lint, test/runner/r-lint.test.ts, and a benchmark point of comparison) and
# callr only on the host, never in the image; curl for the README's examples, which
# test/integration/readme.test.ts runs; curl, jsonlite, R6, digest and testthat for the R client
# (clients/r, built and checked by test/integration/r-client.test.ts), host only as well.
mapfile -t r_packages < <(node scripts/packages-list.mjs --debian)
wanted=(r-base-core util-linux bubblewrap procps curl gcc libc6-dev fonts-dejavu-core r-cran-lintr r-cran-callr
  r-cran-curl r-cran-jsonlite r-cran-r6 r-cran-digest r-cran-testthat "${r_packages[@]}")
if [ "${CI:-}" = "true" ] || [ "${JUBE_R_SETUP_IMAGE:-0}" = "1" ]; then
  wanted+=(podman buildah runc debootstrap uidmap fuse-overlayfs slirp4netns)
fi
# One dpkg-query for the lot (unknown names are reported on stderr and simply not listed).
installed=" $({ dpkg-query -W -f='${db:Status-Status} ${Package}\n' "${wanted[@]}" 2>/dev/null || true; } | sed -n 's/^installed //p' | tr '\n' ' ') "
missing=()
for pkg in "${wanted[@]}"; do
  [[ "$installed" == *" $pkg "* ]] || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The local container runtime gives each isolation key's container its own host uid range
# (podman --userns=auto), so one key's processes, keyring and signals never meet another's; rootful
# podman takes those ranges from the `containers` entries of /etc/subuid and /etc/subgid
# (podman-run(1), --userns=auto). The range is podman's documented one, above every host account.
if [ "${CI:-}" = "true" ] || [ "${JUBE_R_SETUP_IMAGE:-0}" = "1" ]; then
  for map in /etc/subuid /etc/subgid; do
    if ! grep -qs '^containers:' "$map"; then
      say "adding the containers range to $map"
      echo 'containers:2147483647:2147483648' | as_root tee -a "$map" >/dev/null
    fi
  done
fi

# Node dependencies, only when the lock file changed since the last install.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing Node dependencies"
  npm ci --no-audit --no-fund --loglevel=error
fi

# The package manifest GET /packages serves, generated from packages.R against this R library.
manifest=layers/packages/manifest.json
if [ ! -f "$manifest" ] || [ packages.R -nt "$manifest" ] || [ scripts/write-manifest.R -nt "$manifest" ]; then
  say "writing $manifest"
  TZ=UTC Rscript --vanilla scripts/write-manifest.R packages.R "$manifest" 2>/dev/null >/dev/null ||
    TZ=UTC Rscript --vanilla scripts/write-manifest.R packages.R "$manifest"
fi

# The help pages GET /help serves, rendered from the same library's Rd, beside the manifest.
help_pages=layers/packages/help.json.gz
if [ ! -f "$help_pages" ] || [ packages.R -nt "$help_pages" ] || [ scripts/write-help.R -nt "$help_pages" ]; then
  say "writing $help_pages"
  TZ=UTC Rscript --vanilla scripts/write-help.R packages.R "$help_pages" 2>/dev/null >/dev/null ||
    TZ=UTC Rscript --vanilla scripts/write-help.R packages.R "$help_pages"
fi

# The capsule: the process-capability layer the execute handler preloads into every Rscript
# (JUBE_R_CAPSULE_LIBRARY defaults to this build). Rebuilt when its sources change.
capsule=build/capsule/jube_capsule.so
if [ ! -f "$capsule" ] || [ -n "$(find r-image/capsule -newer "$capsule" -type f | head -n1)" ]; then
  say "building $capsule"
  sh r-image/capsule/build.sh build/capsule
fi
