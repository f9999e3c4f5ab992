#!/usr/bin/env bash
# The chroot the arm64 package is cross-built in (issue 16; docs/packaging.md says why a chroot).
#
#   tests/package/cross-chroot.sh SOURCE_DIR            # prints the chroot's path
#   tests/package/cross-chroot.sh --cached SOURCE_DIR   # the same, exit 1 when not made yet
#
# A Debian bookworm amd64 tree made by mmdebstrap (--variant=buildd, --mode=unshare: nothing is
# mounted on this host) with arm64 as a foreign architecture, crossbuild-essential-arm64, ccache,
# and the :arm64 build dependencies of SOURCE_DIR/debian/control installed by
# `apt-get build-dep -a arm64` (Debian's own resolver, so debian/control stays the one list).
# libyaml-cpp-dev is not Multi-Arch: same: its amd64 and arm64 builds cannot sit side by side, so
# the host, whose amd64 -dev packages the other builds use, is never touched.
# Kept in $RTAGENT_ARM64_CACHE (default /var/cache/rtagent-arm64) under a name that carries a hash
# of debian/control and of this script: a changed list of dependencies makes a new chroot (the
# older ones are deleted). The first run takes minutes (downloads), later runs print the path.
# Exit 0, 77 when mmdebstrap or the archive cannot be had (reason on stderr).
set -euo pipefail
# --cached (first): only say whether the chroot is made already: its path and exit 0, or exit 1.
cached_only=0
[ "${1:-}" = --cached ] && { cached_only=1; shift; }
src=$(cd "${1:?usage: $0 [--cached] SOURCE_DIR}" && pwd)
cache=${RTAGENT_ARM64_CACHE:-/var/cache/rtagent-arm64}
say() { echo "cross-chroot: $*" >&2; }

. /etc/os-release
release=${VERSION_CODENAME:-bookworm}
mirror=${RTAGENT_DEBIAN_MIRROR:-$(sed -n 's/^URIs: *//p; s/^deb \(http[^ ]*\) .*/\1/p' /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list 2>/dev/null | grep -v security | head -1 || true)}
mirror=${mirror:-http://deb.debian.org/debian}
key=$(cat "$src/debian/control" "$0" | sha256sum | cut -c1-12)
root=$cache/chroot-$release-arm64-$key
if [ $cached_only = 1 ]; then [ -f "$root/.complete" ] && echo "$root"; exit $?; fi

mkdir -p "$cache"
exec 8>"$cache/.lock"
flock 8
if [ ! -f "$root/.complete" ]; then
  if ! command -v mmdebstrap >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null 2>&1 ||
      { say "UNAVAILABLE: mmdebstrap cannot be installed"; exit 77; }
  fi
  rm -rf "$root" "$root.log"
  say "mmdebstrap $release amd64+arm64 from $mirror (once; cached as $root)"
  t0=$SECONDS
  # The hooks run inside mmdebstrap's own namespace: debian/control is copied in, apt resolves
  # the :arm64 build dependencies from it, and the copy is removed.
  if ! mmdebstrap --mode=unshare --variant=buildd --architectures=amd64,arm64 \
      --include=crossbuild-essential-arm64,ccache,debhelper \
      --customize-hook='mkdir -p "$1/tmp/rtagent-deps/debian"' \
      --customize-hook="copy-in $src/debian/control /tmp/rtagent-deps/debian" \
      --customize-hook='chroot "$1" env DEBIAN_FRONTEND=noninteractive apt-get -y -q --no-install-recommends build-dep -a arm64 /tmp/rtagent-deps' \
      --customize-hook='rm -rf "$1/tmp/rtagent-deps"; chroot "$1" apt-get clean' \
      "$release" "$root" "$mirror" >"$root.log" 2>&1; then
    tail -15 "$root.log" >&2
    rm -rf "$root"
    say "UNAVAILABLE: mmdebstrap of $release failed (log: $root.log)"; exit 77
  fi
  # The device nodes a build needs (mknod, not a bind mount of the host's /dev).
  for n in "null c 1 3" "zero c 1 5" "urandom c 1 9"; do
    set -- $n
    rm -f "$root/dev/$1"; mknod -m 666 "$root/dev/$1" "$2" "$3" "$4"
  done
  touch "$root/.complete"
  say "made $root in $((SECONDS - t0)) s"
  for old in "$cache"/chroot-"$release"-arm64-*; do
    case $old in "$root"|"$root.log") ;; *) rm -rf "$old" ;; esac
  done
fi
echo "$root"
