#!/bin/sh
# Builds the capsule (the process-capability layer, see capsule.c), its probe and the handler's
# key-store cleaner (keys-clear.c) into OUT_DIR.
# The same command runs in the image's build stage and in `npm run setup` on a host.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: build.sh OUT_DIR}"
mkdir -p "$out"
CC="${CC:-cc}"
FLAGS="-std=gnu11 -O2 -fPIC -Wall -Wextra -Werror -Wno-unused-function -fvisibility=hidden -fno-strict-aliasing -fno-delete-null-pointer-checks -Wno-nonnull-compare -U_FORTIFY_SOURCE -fstack-protector-strong"
$CC $FLAGS -shared -Wl,-z,relro,-z,now -Wl,-soname,jube_capsule.so -o "$out/jube_capsule.so.tmp" \
  "$here/capsule.c" "$here/policy.c" "$here/real.c" "$here/paths.c" "$here/files.c" "$here/processes.c" \
  "$here/network.c" "$here/dynload.c" "$here/kernel.c" "$here/rules.c" "$here/seccomp-program.c" "$here/dispatch.c" "$here/rapi.c" "$here/routines.c" "$here/relro.c" -ldl
$CC $FLAGS -o "$out/jube-capsule-probe.tmp" "$here/probe.c" -ldl
$CC $FLAGS -o "$out/jube-keys-clear.tmp" "$here/keys-clear.c"
mv "$out/jube_capsule.so.tmp" "$out/jube_capsule.so"
mv "$out/jube-capsule-probe.tmp" "$out/jube-capsule-probe"
mv "$out/jube-keys-clear.tmp" "$out/jube-keys-clear"
