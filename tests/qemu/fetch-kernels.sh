#!/bin/bash
# Get Debian's PREEMPT_RT and stock amd64 kernels without installing them.
#
#   tests/qemu/fetch-kernels.sh            # ensure tools + both kernels are in the cache
#   tests/qemu/fetch-kernels.sh --tools    # only ensure qemu-system-x86 / busybox-static
#   tests/qemu/fetch-kernels.sh --arch arm64   # Debian's PREEMPT_RT arm64 kernel and
#                                          # qemu-system-aarch64 (only the rt kernel: "rt <dir>")
#
# arm64 needs the architecture in dpkg (`dpkg --add-architecture arm64`, done here when root).
# The kernels are the packages that linux-image-rt-amd64 and linux-image-amd64 depend on
# (linux-image-6.1.0-NN-rt-amd64, linux-image-6.1.0-NN-amd64). They are fetched with
# `apt-get download` and unpacked with `dpkg-deb -x` into
#   $RTAGENT_QEMU_CACHE (default /var/cache/rtagent-qemu)/<package>/
# (the .deb kept beside the files as <package>/package.deb) and reused on later runs. On success it prints, one per line:
#   rt <dir>
#   stock <dir>
# RTAGENT_QEMU_RT_DEB / RTAGENT_QEMU_STOCK_DEB: a linux-image .deb of your own (a kernel built
# for a CI gate: docs/ci.md, "A kernel gate under QEMU") to boot in that role instead; it is
# unpacked into $CACHE/custom-<name>-<digest>/ and never removed by this script.
# Exit codes: 0 ok, 77 qemu or the kernels cannot be obtained (reason on stderr).
set -euo pipefail

CACHE="${RTAGENT_QEMU_CACHE:-/var/cache/rtagent-qemu}"
ARCH=amd64 TOOLS_ONLY=0
while [ $# -gt 0 ]; do
  case $1 in
    --tools) TOOLS_ONLY=1; shift ;;
    --arch) ARCH=$2; shift 2 ;;
    *) echo "fetch-kernels: unknown argument $1 (--tools, --arch amd64|arm64)" >&2; exit 2 ;;
  esac
done
case $ARCH in
  amd64) QEMU_BIN=qemu-system-x86_64 QEMU_PKG=qemu-system-x86 ;;
  arm64) QEMU_BIN=qemu-system-aarch64 QEMU_PKG=qemu-system-arm ;;
  *) echo "fetch-kernels: --arch $ARCH: amd64 or arm64" >&2; exit 2 ;;
esac
log() { echo "fetch-kernels: $*" >&2; }
unavailable() { log "UNAVAILABLE: $*"; exit 77; }

apt_updated=0
apt_update_once() {
  [ "$apt_updated" = 1 ] && return 0
  apt_updated=1
  log "apt-get update"
  apt-get update -qq >&2 || log "apt-get update failed (continuing with the lists we have)"
}

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo -n "$@"; else return 1; fi
}

# Whether /bin/busybox has the cpio applet. grep reads the whole list (no -q): busybox writes it
# a name per write(2), and a grep -q that stops at "cpio" left it to die of SIGPIPE, which
# pipefail made a failed check: the QEMU tests were skipped as "busybox-static still missing"
# in about one run of sixteen with the package installed.
busybox_has_cpio() {
  [ -x /bin/busybox ] && /bin/busybox --list 2>/dev/null | grep -x cpio >/dev/null
}

ensure_tools() {
  local missing=()
  command -v "$QEMU_BIN" >/dev/null || missing+=("$QEMU_PKG")
  busybox_has_cpio || missing+=(busybox-static)
  # busybox-static and busybox (dynamic) conflict; only the static one can go into an initramfs.
  if [ -x /bin/busybox ] && ldd /bin/busybox >/dev/null 2>&1; then missing+=(busybox-static); fi
  command -v dpkg-deb >/dev/null || unavailable "dpkg-deb not found (not a Debian system?)"
  command -v apt-get >/dev/null || unavailable "apt-get not found (not a Debian system?)"
  [ ${#missing[@]} = 0 ] && return 0
  log "installing ${missing[*]}"
  if [ "$(id -u)" != 0 ]; then unavailable "need root to install ${missing[*]}"; fi
  # Install only when the archive has them (apt-cache policy shows a candidate).
  if ! apt-cache policy "${missing[@]}" 2>/dev/null | grep 'Candidate: [0-9]' >/dev/null; then apt_update_once; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 \
    || { apt_update_once; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2; } \
    || unavailable "apt-get install ${missing[*]} failed"
  command -v "$QEMU_BIN" >/dev/null || unavailable "$QEMU_BIN still missing"
  busybox_has_cpio || unavailable "busybox-static still missing"
}

# The concrete kernel package a metapackage depends on (linux-image-6.1.0-NN-...), in $RESOLVED.
# (Not called in $(...): apt_update_once must remember it ran.)
resolve() {
  local meta=$1 dep
  dep=$(apt-cache depends "$meta:$ARCH" 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -1)
  if [ -z "$dep" ]; then
    apt_update_once
    dep=$(apt-cache depends "$meta:$ARCH" 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -1)
  fi
  if [ -z "$dep" ]; then
    # Offline with no lists: the newest kernel of that flavour already in the cache will do.
    local glob="linux-image-[0-9]*-$ARCH"
    [ "$meta" = "linux-image-rt-$ARCH" ] && glob="linux-image-[0-9]*-rt-$ARCH"
    dep=$(cd "$CACHE" 2>/dev/null && for d in $glob; do
            case $d in *-rt-"$ARCH") [ "$meta" = "linux-image-rt-$ARCH" ] || continue ;; esac
            [ -f "$d/.complete" ] && echo "$d"; done | sort -V | tail -1)
    [ -n "$dep" ] || unavailable "cannot resolve the kernel package behind $meta (apt-cache depends $meta) and none is cached in $CACHE"
    log "cannot resolve $meta; using the cached $dep"
  fi
  RESOLVED=${dep%:"$ARCH"}
}

fetch_one() {
  local pkg=$1 dir="$CACHE/$1"
  if [ -f "$dir/.complete" ] && ls "$dir"/boot/vmlinuz-* >/dev/null 2>&1 && [ -s "$dir/package.deb" ]; then
    log "$pkg: cached in $dir"; return 0
  fi
  as_root mkdir -p "$CACHE" 2>/dev/null || mkdir -p "$CACHE" || unavailable "cannot create $CACHE"
  local tmp; tmp=$(mktemp -d "$CACHE/.dl.XXXXXX")
  chmod 755 "$tmp"   # apt's _apt user writes the download
  log "$pkg: apt-get download"
  if ! (cd "$tmp" && apt-get download -qq "$pkg:$ARCH" >&2); then
    apt_update_once
    (cd "$tmp" && apt-get download -qq "$pkg:$ARCH" >&2) || { rm -rf "$tmp"; unavailable "apt-get download $pkg failed"; }
  fi
  rm -rf "$dir"; mkdir -p "$dir"
  dpkg-deb -x "$tmp"/*.deb "$dir" || { rm -rf "$tmp" "$dir"; unavailable "dpkg-deb -x $pkg failed"; }
  dpkg-deb -f "$tmp"/*.deb Version > "$dir/.version"
  # The package itself stays too: the boot-loader disks (mkbootdisk.sh) install it with dpkg.
  mv "$tmp"/*.deb "$dir/package.deb"
  rm -rf "$tmp"
  ls "$dir"/boot/vmlinuz-* >/dev/null 2>&1 || unavailable "$pkg has no /boot/vmlinuz-*"
  touch "$dir/.complete"
  log "$pkg: unpacked into $dir ($(cat "$dir/.version"))"
}

# A kernel package of the user's, in $RESOLVED_DIR.
unpack_custom() {
  local deb=$1 sum dir
  [ -s "$deb" ] || unavailable "$deb: no such kernel package"
  dpkg-deb -f "$deb" Package >/dev/null 2>&1 || unavailable "$deb: not a Debian package (dpkg-deb -f)"
  sum=$(sha256sum "$deb" | cut -c1-12)
  dir="$CACHE/custom-$(dpkg-deb -f "$deb" Package)-$sum"
  if [ ! -f "$dir/.complete" ]; then
    mkdir -p "$CACHE"; rm -rf "$dir"; mkdir -p "$dir"
    dpkg-deb -x "$deb" "$dir" || { rm -rf "$dir"; unavailable "dpkg-deb -x $deb failed"; }
    ls "$dir"/boot/vmlinuz-* >/dev/null 2>&1 || { rm -rf "$dir"; unavailable "$deb has no /boot/vmlinuz-*"; }
    dpkg-deb -f "$deb" Version > "$dir/.version"
    cp "$deb" "$dir/package.deb"
    touch "$dir/.complete"
    log "$deb: unpacked into $dir"
  fi
  RESOLVED_DIR=$dir
}

ensure_tools
[ $TOOLS_ONLY = 1 ] && exit 0
if [ "$ARCH" != "$(dpkg --print-architecture)" ] && ! dpkg --print-foreign-architectures | grep -qx "$ARCH"; then
  [ "$(id -u)" = 0 ] || unavailable "dpkg does not know $ARCH (dpkg --add-architecture $ARCH, as root)"
  log "dpkg --add-architecture $ARCH"
  dpkg --add-architecture "$ARCH"
  apt_update_once
fi

# Lists missing altogether (fresh container): update first.
ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1 || apt_update_once

resolve "linux-image-rt-$ARCH"; rt_pkg=$RESOLVED
stock_pkg=
if [ "$ARCH" = amd64 ]; then resolve linux-image-amd64; stock_pkg=$RESOLVED; fi
fetch_one "$rt_pkg"
[ -z "$stock_pkg" ] || fetch_one "$stock_pkg"
# Drop kernels of older ABIs of this architecture (each unpacked kernel is about 400 MB);
# another architecture's kernels are not this run's to remove.
for d in "$CACHE"/linux-image-*-"$ARCH"; do
  [ -d "$d" ] || continue
  case ${d##*/} in "$rt_pkg"|"$stock_pkg") ;; *) log "removing the older ${d##*/}"; rm -rf "$d" ;; esac
done
rt_dir=$CACHE/$rt_pkg stock_dir=${stock_pkg:+$CACHE/$stock_pkg}
if [ -n "${RTAGENT_QEMU_RT_DEB:-}" ]; then unpack_custom "$RTAGENT_QEMU_RT_DEB"; rt_dir=$RESOLVED_DIR; fi
if [ -n "${RTAGENT_QEMU_STOCK_DEB:-}" ]; then unpack_custom "$RTAGENT_QEMU_STOCK_DEB"; stock_dir=$RESOLVED_DIR; fi
echo "rt $rt_dir"
[ -z "$stock_dir" ] || echo "stock $stock_dir"
