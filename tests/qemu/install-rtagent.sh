#!/bin/bash
# Install rtagent into a guest's tree the way a board gets it: `cmake --install` of the build
# folder the binary lives in (binary, libexec/rtagent/rtagent-sampler, units, tmpfiles entry,
# /etc/rtagent/), debug info stripped, plus every library `ldd` names that DESTDIR lacks
# (copied to its real path, so a merged-/usr guest takes it as it is).
#
#   tests/qemu/install-rtagent.sh RTAGENT_BINARY DESTDIR
#
# Used by mkrootfs.sh (DESTDIR: the whole root) and mkbootdisk.sh (DESTDIR: a tree the guest
# copies over its root without overwriting what it has). Exit 0, 1 when the install fails, 2 usage.
set -euo pipefail
RTAGENT=${1:-} R=${2:-}
[ -x "$RTAGENT" ] && [ -n "$R" ] || { echo "usage: $0 RTAGENT_BINARY DESTDIR" >&2; exit 2; }
BUILD=$(cd "$(dirname "$RTAGENT")" && pwd)
[ -f "$BUILD/cmake_install.cmake" ] || { echo "install-rtagent: $BUILD is not a CMake build folder (needed for cmake --install)" >&2; exit 2; }
mkdir -p "$R"
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
DESTDIR=$R cmake --install "$BUILD" > "$LOG" 2>&1 || { cat "$LOG" >&2; exit 1; }
for prog in bin/rtagent libexec/rtagent/rtagent-sampler; do
  f=$(find "$R/usr" -path "*/$prog" -type f | head -1)
  [ -n "$f" ] || { echo "install-rtagent: cmake --install put no $prog under $R" >&2; exit 1; }
  strip --strip-debug "$f" 2>/dev/null || true
done
find "$R" -name rtagent.service -path '*systemd/system/*' | grep -q . \
  || { echo "install-rtagent: cmake --install put no rtagent.service under $R" >&2; exit 1; }
{ ldd "$RTAGENT" 2>/dev/null || true; } | awk '/=> \//{print $3} /^[[:space:]]*\//{print $1}' | sort -u | while read -r lib; do
  [ -e "$R$lib" ] && continue
  real=$(readlink -f "$lib")
  dest=$(readlink -f "$(dirname "$lib")")/$(basename "$lib")
  [ -e "$R$dest" ] && continue
  mkdir -p "$R$(dirname "$dest")"
  cp -L "$real" "$R$dest"
done
