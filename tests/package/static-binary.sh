#!/usr/bin/env bash
# The static rtagent (CMake option RTAGENT_STATIC_LIBS, docs/packaging.md "One file to copy"),
# built and tried the way a user carries it to a board that has none of its libraries:
#   1. built from this tree into SOURCE/build-static (rtagent and rtagent-sampler, no tests);
#   2. its DT_NEEDED list holds libc, libm and libmnl only: no libstdc++, yaml-cpp, spdlog, fmt,
#      pugixml, libcgroup, nettle or utf8proc; the sampler's holds libc alone;
#   3. copied into an empty directory with only those libraries and the dynamic loader, and run
#      there under chroot: --version, validate, plan, inspect --json and report (pugixml,
#      the tables), each of whose output must be byte for byte what the shared build SHARED
#      prints in a directory made the same way with every library it names.
# Exit 77 (ctest: skipped) without root (chroot) or without the archives Debian ships.
# Usage: tests/package/static-binary.sh SOURCE_DIR SHARED_RTAGENT   (KEEP=1 keeps the rooms in /var/tmp)
set -euo pipefail
src=$(cd "${1:?SOURCE_DIR}" && pwd)
shared=$(readlink -f "${2:?SHARED_RTAGENT}")
say() { echo "static: $*"; }
fail() { echo "static: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { say "SKIPPED: chroot needs root"; exit 77; }
for a in libyaml-cpp.a libpugixml.a libcgroup.a libnettle.a libutf8proc.a; do
  [ -e "/usr/lib/$(gcc -print-multiarch)/$a" ] || { say "SKIPPED: $a is missing (bash tools/setup.sh --test installs its -dev package)"; exit 77; }
done

# 1. The build: one level under the tree like build/, so ccache finds what build/ compiled.
b=$src/build-static
t0=$SECONDS
mkdir -p "$b"
cmake -S "$src" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRTAGENT_STATIC_LIBS=ON -DRTAGENT_TESTS=OFF >"$b/configure.log" 2>&1 ||
  { cat "$b/configure.log"; fail "cmake could not configure the static build"; }
cmake --build "$b" --target rtagent rtagent-sampler >"$b/build.log" 2>&1 || { tail -n 40 "$b/build.log"; fail "the static build failed"; }
say "built $b/rtagent in $((SECONDS - t0)) s"

# 2. What the loader must find on the board (the loader itself is named where glibc's TLS needs it).
mapfile -t needed < <(readelf -d "$b/rtagent" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
for lib in "${needed[@]}"; do
  case $lib in
    libc.so.6 | libm.so.6 | libmnl.so.0 | ld-linux-*.so.*) ;;
    *) fail "the static rtagent still needs $lib (readelf -d): RTAGENT_STATIC_LIBS should have linked it in" ;;
  esac
done
say "needs only: ${needed[*]}"
for lib in $(readelf -d "$b/rtagent-sampler" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
  case $lib in
    libc.so.6 | ld-linux-*.so.*) ;;
    *) fail "rtagent-sampler needs $lib (readelf -d): it must need glibc alone" ;;
  esac
done

# 3. Two rooms, each with one program and the libraries ldd resolves for it, nothing else.
work=$(mktemp -d /var/tmp/rtagent-static.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
room() {  # room DIR PROGRAM
  local dir=$1 prog=$2 lib
  mkdir -p "$dir/data"
  cp "$prog" "$dir/rtagent"
  for lib in $(ldd "$prog" | grep -o '/[^ ]*'); do
    mkdir -p "$dir$(dirname "$lib")"
    cp -L "$lib" "$dir$lib"
  done
  cp -a "$src/tests/sysroots/x86-ipc-4cpu" "$dir/data/tree"
  cp "$src/profiles/default.yaml" "$dir/data/profile.yaml"
  cp "$src/tests/imports/rteval-3-cyclictest.xml" "$dir/data/rteval.xml"
  cp "$src/tests/expected/verdict.json" "$dir/data/verdict.json"
}
room "$work/static" "$b/rtagent"
room "$work/shared" "$shared"
# The static room really lacks the C++ libraries: the shared program cannot start in it.
cp "$shared" "$work/static/rtagent-shared"
if chroot "$work/static" /rtagent-shared --version >/dev/null 2>&1; then
  fail "the shared rtagent started in the static room: the room is not the bare board it stands for"
fi
rm "$work/static/rtagent-shared"

n=0
same() {  # same NAME ARGS...: the command's stdout, stderr and status equal in both rooms
  local name=$1 room
  shift
  for room in static shared; do
    set +e
    chroot "$work/$room" /rtagent "$@" >"$work/$room.$name.out" 2>"$work/$room.$name.err"
    echo $? >"$work/$room.$name.rc"
    set -e
  done
  for s in out err rc; do
    cmp -s "$work/static.$name.$s" "$work/shared.$name.$s" || {
      { diff "$work/shared.$name.$s" "$work/static.$name.$s" || true; } | head -n 20 >&2
      fail "$name: the static rtagent's $s differs from the shared one's (rtagent $*)"
    }
  done
  [ -s "$work/static.$name.out" ] || [ -s "$work/static.$name.err" ] || fail "$name: printed nothing (rtagent $*)"
  n=$((n + 1))
}
same version --version
same validate --root /data/tree validate /data/profile.yaml
same plan --root /data/tree plan /data/profile.yaml
same inspect --root /data/tree inspect --json
same rteval report --from-rteval /data/rteval.xml
same verdict report /data/verdict.json
same bad-profile --root /data/tree validate /data/rteval.xml
[ "$(cat "$work/static.bad-profile.rc")" != 0 ] && grep -q rteval.xml "$work/static.bad-profile.err" ||
  fail "validate of an XML file did not fail naming the file (yaml-cpp's error path)"
say "PASS: $n commands print the same in a room with only ${needed[*]} as the shared build with all its libraries ($((SECONDS - t0)) s)"
