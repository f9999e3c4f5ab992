#!/usr/bin/env bash
# The Debian package, built and checked the way a user gets it (issue 16; debian/README.source):
#   1. a clean copy of the source tree (the files git knows, as they are now: no build/),
#   2. dpkg-buildpackage -us -uc -b (nocheck: the tests are ctest's),
#   3. lintian: any error fails,
#   4. dpkg-deb -c: every path the package must ship; the conffile; the maintainer scripts
#      neither enable nor start the units, and prerm stops the service,
#   5. the package extracted into a throw-away directory (never installed on this host's /):
#      the installed rtagent's --version, profiles, validate NAME, help; man -l on each page;
#      the bash completion sourced from the package,
#   6. postrm purge run in a chroot of that directory (busybox): /etc/rtagent and /run/rtagent
#      state go, a non-empty tuning journal is kept with a message.
# Exit 77 (ctest: skipped) when the Debian tools are missing, with the reason.
# Usage: tests/package/build-and-check.sh [--arch arm64] [SOURCE_DIR]   (default: this checkout)
#
# --arch arm64 cross-builds rtagent_<version>_arm64.deb instead (docs/packaging.md): step 2 runs
# `dpkg-buildpackage -a arm64` inside the cached bookworm chroot of tests/package/cross-chroot.sh
# (crossbuild-essential-arm64 and the :arm64 build dependencies; this host's -dev packages are
# never touched), and step 5 checks with `file` that both programs are ARM aarch64 instead of
# running them (the arm64 QEMU scenario rt-arm64.sh runs them on an arm64 kernel). Steps 1, 3,
# 4 and 6 are the same.
set -euo pipefail
arch=$(dpkg --print-architecture)
if [ "${1:-}" = --arch ]; then arch=${2:?--arch ARCH}; shift 2; fi
cross=0
[ "$arch" = "$(dpkg --print-architecture)" ] || cross=1
src=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
t0=$SECONDS
say() { echo "package: $*"; }
fail() { echo "package: FAIL: $*" >&2; exit 1; }

tools=(dpkg-buildpackage dh lintian dpkg-deb fakeroot readelf)
[ $cross = 0 ] || tools=(lintian dpkg-deb file readelf unshare chroot)
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null || { say "SKIPPED: $tool is missing (bash tools/setup.sh --test installs it)"; exit 77; }
done

# One fixed directory (not mktemp): the compiler flags dpkg-buildflags adds carry the build
# path (-ffile-prefix-map), so a fixed path is what lets ccache hit on the next run. A lock
# keeps two runs on this machine apart.
work=${RTAGENT_PACKAGE_WORKDIR:-${TMPDIR:-/tmp}/rtagent-package}
[ $cross = 0 ] || work=$work-$arch
mkdir -p "$work"
exec 9>"$work.lock"
flock 9
version=$(sed -n 's/^project(rtagent VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
deb_version=$(sed -n '1s/^rtagent (\([^)]*\)).*/\1/p' "$src/debian/changelog")
[ -n "$version" ] || fail "no project(rtagent VERSION ...) in CMakeLists.txt"
[ "${deb_version%%-*}" = "$version" ] || fail "debian/changelog says $deb_version, CMakeLists.txt $version: make them agree"
tree=$work/rtagent-$version
rm -rf "$work/root" "$work/chroot" "$tree" "$work"/rtagent_*
mkdir -p "$tree"

# 1. The clean copy: what git tracks plus new files it does not ignore, as they are on disk.
if git -C "$src" rev-parse --show-toplevel >/dev/null 2>&1; then
  (cd "$src" && git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf -) | tar -xf - -C "$tree"
else
  tar -C "$src" --exclude=./build --exclude=./.git -cf - . | tar -xf - -C "$tree"
fi
[ ! -e "$tree/build" ] || fail "the clean copy holds build/"

# 2. Build. ccache (shared, when there) makes a rebuild mostly cache hits.
t_build=$SECONDS
# noddebs: no rtagent-dbgsym package (stripping its debug info is minutes of a CI run)
export DEB_BUILD_OPTIONS="nocheck noddebs parallel=${RTAGENT_PACKAGE_JOBS:-2}"
# The cache directory the main build uses, named explicitly: debhelper (compat 13) gives the
# build a HOME of its own, where ccache would otherwise look. The project's launcher sets the
# rest (CMakeLists.txt: base_dir the tree, the build directory not hashed).
if command -v ccache >/dev/null; then
  CCACHE_DIR=$(ccache -k cache_dir) && export CCACHE_DIR
fi
if [ $cross = 0 ]; then
(cd "$tree" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1 || {
  tail -40 "$work/build.log"
  fail "dpkg-buildpackage failed (log: $work/build.log)"
}
else
  # The chroot (made once, minutes; then cached): mmdebstrap's, with the :arm64 build deps.
  t_chroot=$SECONDS
  croot=$("$src/tests/package/cross-chroot.sh" "$src") || exit $?
  say "chroot $croot ready in $((SECONDS - t_chroot)) s"
  # A fixed path inside the chroot, so its own ccache (kept in the chroot) hits on the next run.
  rm -rf "$croot/build"
  mkdir -p "$croot/build" "$croot/var/cache/ccache"
  cp -a "$tree" "$croot/build/"
  # /proc is mounted inside a private mount namespace that ends with the build: whatever way the
  # build ends, the mount goes with it and the host's mount table never sees it.
  unshare --mount --propagation private --pid --fork /bin/sh -c '
    mount -t proc proc "$1/proc" || exit 1
    exec chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
      DEB_BUILD_OPTIONS="$3" CCACHE_DIR=/var/cache/ccache CCACHE_BASEDIR=/build \
      /bin/sh -c "cd /build/rtagent-$2 && dpkg-buildpackage -a '"$arch"' -us -uc -b"' \
    _ "$croot" "$version" "$DEB_BUILD_OPTIONS" >"$work/build.log" 2>&1 || {
    tail -40 "$work/build.log"
    fail "dpkg-buildpackage -a $arch in $croot failed (log: $work/build.log)"
  }
  cp "$croot/build/rtagent_${deb_version}_${arch}.deb" "$work/" 2>/dev/null || true
fi
deb=$work/rtagent_${deb_version}_${arch}.deb
[ -f "$deb" ] || fail "no $deb after the build"
say "built $(basename "$deb") in $((SECONDS - t_build)) s"

# 3. lintian: errors fail; the rest is shown (debian/README.source says why each is left).
if ! lintian --fail-on error --tag-display-limit 0 "$deb" >"$work/lintian.txt" 2>&1; then
  cat "$work/lintian.txt"
  fail "lintian reports an error"
fi
if [ -s "$work/lintian.txt" ]; then say "lintian (no error):"; sed 's/^/  /' "$work/lintian.txt"; else say "lintian: clean"; fi

# 4. The contents.
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|; s|/$||' >"$work/contents.txt"
expected=(
  /usr/bin/rtagent
  /usr/libexec/rtagent/rtagent-sampler
  /lib/systemd/system/rtagent.service
  /lib/systemd/system/rtagent-verify.service
  /lib/systemd/system/rtagent-verify.timer
  /usr/lib/tmpfiles.d/rtagent.conf
  /etc/rtagent/profile.yaml
  /usr/share/rtagent/profiles/default.yaml
  /usr/share/rtagent/profiles/ci-vm.yaml
  /usr/share/rtagent/profiles/generic-4core.yaml
  /usr/share/rtagent/profiles/rpi5.yaml
  /usr/share/rtagent/profiles/x86-ipc.yaml
  /usr/share/rtagent/profiles/jetson-orin.yaml
  /usr/share/rtagent/profiles/base/arm-controller.yaml
  /usr/share/rtagent/examples/systemd/robot-controller.service
  /usr/share/man/man1/rtagent.1.gz
  /usr/share/man/man5/rtagent-profile.5.gz
  /usr/share/man/man8/rtagent.service.8.gz
  /usr/share/bash-completion/completions/rtagent
  /usr/share/zsh/vendor-completions/_rtagent
  /usr/share/doc/rtagent/README.Debian
  /usr/share/doc/rtagent/copyright
)
missing=0
for p in "${expected[@]}"; do
  grep -qxF "$p" "$work/contents.txt" || { echo "package: missing from the package: $p" >&2; missing=1; }
done
((missing == 0)) || fail "paths missing (dpkg-deb -c in $work/contents.txt)"
! grep -q "rtagent_tests\|rtagent_bench" "$work/contents.txt" || fail "the package ships a test or bench binary"
mkdir -p "$work/control"
dpkg-deb -e "$deb" "$work/control"
grep -qxF /etc/rtagent/profile.yaml "$work/control/conffiles" || fail "/etc/rtagent/profile.yaml is not a conffile"
# Installed, never enabled or started: debhelper's "dont-enable" snippet (which enables only
# what the administrator had enabled, on upgrade), no start; prerm stops the units on remove.
grep -q "deb-systemd-helper debian-installed 'rtagent.service'" "$work/control/postinst" ||
  fail "postinst lacks debhelper's dont-enable snippet for rtagent.service"
if grep -n "was-enabled defaults to true\|deb-systemd-invoke \$_dh_action\|deb-systemd-invoke start" \
  "$work/control/postinst"; then
  fail "postinst enables or starts a unit on a new installation"
fi
grep -q "deb-systemd-invoke stop rtagent-verify.timer rtagent-verify.service rtagent.service" "$work/control/prerm" ||
  fail "prerm does not stop the units"
# `hold` loads libsystemd with dlopen (base/shared_library.h): dh_shlibdeps cannot see it, so
# debian/control names it, and the package must say so.
depends=$(dpkg-deb -f "$deb" Depends)
grep -Eq '(^|, )libsystemd0( |,|$)' <<<"$depends" || fail "Depends lacks libsystemd0, which hold loads with dlopen: $depends"
say "contents: ${#expected[@]} paths, conffile, units neither enabled nor started, stopped on remove; Depends names libsystemd0"

# 5. The installed files, from a throw-away directory (this host's / is left alone).
root=$work/root
dpkg-deb -x "$deb" "$root"
bin=$root/usr/bin/rtagent
[ -x "$root/usr/libexec/rtagent/rtagent-sampler" ] || fail "rtagent-sampler is not executable"
# Compile-time hardening (CMakeLists.txt): the stack canary and glibc's checked calls are linked.
for prog in "$bin" "$root/usr/libexec/rtagent/rtagent-sampler"; do
  syms=$(readelf --dyn-syms -W "$prog")
  grep -q "__stack_chk_fail" <<<"$syms" || fail "$(basename "$prog") has no __stack_chk_fail: built without -fstack-protector-strong"
done
# _FORTIFY_SOURCE only shows where the code makes a call it can check: rtagent does (snprintf,
# memcpy, read...); the sampler's small loop makes none (seen with readelf on the arm64 build).
grep -Eq "__[a-z0-9_]+_chk(@| )" <<<"$(readelf --dyn-syms -W "$bin")" || fail "rtagent calls no *_chk function: built without _FORTIFY_SOURCE"
say "hardening: __stack_chk_fail in both programs, glibc's *_chk calls in rtagent"
if [ $cross = 1 ]; then
  want="ARM aarch64"; [ "$arch" = arm64 ] || want=$arch
  for prog in "$bin" "$root/usr/libexec/rtagent/rtagent-sampler"; do
    f=$(file -b "$prog")
    [[ $f == *"$want"* ]] || fail "$(basename "$prog") is not $want: $f"
    say "file $(basename "$prog"): $f"
  done
fi
if [ $cross = 0 ]; then
v=$("$bin" --version)
[[ $v == "rtagent $version (build: Debian $deb_version)" ]] || fail "--version said '$v'"
export RTAGENT_PROFILE_DIR=$root/usr/share/rtagent/profiles
names=$("$bin" profiles --names)
for n in ci-vm default generic-4core jetson-orin rpi5 x86-ipc; do
  grep -qx "$n" <<<"$names" || fail "rtagent profiles --names lacks $n: $names"
done
"$bin" profiles | grep -q "^rpi5 .*Raspberry Pi 5.*$root/usr/share/rtagent/profiles" || fail "rtagent profiles: $("$bin" profiles)"
"$bin" validate --root "$tree/tests/sysroots/x86-ipc-4cpu" x86-ipc >"$work/validate.txt" 2>&1 ||
  { cat "$work/validate.txt"; fail "validate x86-ipc by name"; }
grep -q "^x86-ipc ($root/usr/share/rtagent/profiles/x86-ipc.yaml): valid" "$work/validate.txt" || fail "validate: $(cat "$work/validate.txt")"
rc=0
"$bin" validate no-such-profile >"$work/noname.txt" 2>&1 || rc=$?
[ $rc -eq 2 ] && grep -q "no profile named 'no-such-profile'" "$work/noname.txt" || fail "an unknown name: exit $rc, $(cat "$work/noname.txt")"
"$bin" help validate | grep -q -- "--json" || fail "rtagent help validate"
unset RTAGENT_PROFILE_DIR
fi
for page in man1/rtagent.1.gz man5/rtagent-profile.5.gz man8/rtagent.service.8.gz; do
  out=$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -E UTF-8 -l "$root/usr/share/man/$page" 2>&1 >/dev/null) ||
    fail "man -l $page failed: $out"
  [ -z "$out" ] || fail "man -l $page warns: $out"
  [ "$(MANWIDTH=80 man -l "$root/usr/share/man/$page" 2>/dev/null | wc -l)" -gt 40 ] || fail "man -l $page is nearly empty"
done
comp=$(bash -c 'source "$1"; COMP_WORDS=("$2" "comm"); COMP_CWORD=1; _rtagent; echo "${COMPREPLY[*]}"' _ \
  "$root/usr/share/bash-completion/completions/rtagent" "$bin")
[ "$comp" = commission ] || fail "the packaged bash completion of 'rtagent comm' gave '$comp'"
if [ $cross = 0 ]; then
  say "installed files: --version, profiles, validate NAME, an unknown name, help, 3 man pages, completion"
else
  say "installed files: $arch programs, 3 man pages, completion (the programs run in the $arch QEMU scenario)"
fi

# 6. postrm purge, in a chroot of the extracted tree with busybox's sh and rm.
bb=$(command -v busybox || true)
chroot_bin=$(command -v chroot || echo /usr/sbin/chroot)
if [ -n "$bb" ] && [ -x "$chroot_bin" ] && ! ldd "$bb" >/dev/null 2>&1; then  # static: runs in a chroot without libraries
  purge_case() {  # $1: journal text ("" for an empty one)
    local c=$work/chroot
    rm -rf "$c"
    cp -a "$root" "$c"
    mkdir -p "$c/bin" "$c/run/rtagent" "$c/var/lib/rtagent" "$c/etc/rtagent/profiles"
    cp "$bb" "$c/bin/busybox"
    mkdir -p "$c/dev" && mknod -m 666 "$c/dev/null" c 1 3
    for a in sh rm rmdir echo cat test [; do ln -sf busybox "$c/bin/$a"; done
    echo "my board" >"$c/etc/rtagent/profiles/board.yaml"
    echo "{}" >"$c/run/rtagent/state.json"
    printf '%s' "$1" >"$c/run/rtagent/journal.json"
    cp "$work/control/postrm" "$c/postrm"
    cp "$work/control/prerm" "$c/prerm"
    env PATH=/bin "$chroot_bin" "$c" /bin/sh /prerm remove >"$work/prerm.txt" 2>&1 || { cat "$work/prerm.txt"; fail "prerm remove failed"; }
    env PATH=/bin "$chroot_bin" "$c" /bin/sh /postrm purge >"$work/purge.txt" 2>&1 || { cat "$work/purge.txt"; fail "postrm purge failed"; }
    [ ! -e "$c/etc/rtagent" ] || fail "purge left /etc/rtagent"
    [ ! -e "$c/run/rtagent/state.json" ] || fail "purge left /run/rtagent/state.json"
  }
  purge_case '{"entries":[{"path":"proc/sys/kernel/timer_migration","before":"1"}]}'
  [ -s "$work/chroot/run/rtagent/journal.json" ] || fail "purge deleted a journal that was not empty"
  grep -q "kept the tuning journal: /run/rtagent/journal.json" "$work/purge.txt" || fail "purge did not say it kept the journal: $(cat "$work/purge.txt")"
  grep -q "rtagent revert" "$work/purge.txt" || fail "purge did not say how to revert"
  grep -q "removing the package does NOT revert them" "$work/prerm.txt" || fail "prerm remove did not warn: $(cat "$work/prerm.txt")"
  purge_case ''
  [ ! -s "$work/prerm.txt" ] || fail "prerm remove warned with an empty journal: $(cat "$work/prerm.txt")"
  [ ! -e "$work/chroot/run/rtagent" ] || fail "purge left /run/rtagent with an empty journal"
  say "postrm purge: /etc/rtagent and state removed; a non-empty journal kept with how to revert"
else
  say "postrm purge not run: no static busybox or chroot (apt-get install busybox-static)"
fi

say "total $((SECONDS - t0)) s"
