#!/usr/bin/env bash
# Installs rtagent's build dependencies from Debian's packages and builds build/rtagent.
# Run as root on Debian 12 (bookworm). Safe to run again: apt and cmake only do what is missing.
#   --test   also install what the test suite uses (QEMU and busybox for the end-to-end boots
#            of Debian's PREEMPT_RT and stock kernels, debootstrap and sfdisk for the guests'
#            disks, rt-tests' cyclictest, stress-ng, chromium for opening verdict.html headless,
#            clang with its sanitizer and libFuzzer runtimes for tools/fuzz.sh, and debhelper,
#            lintian and man-db for the Debian package's test, tests/package/build-and-check.sh;
#            for the arm64 package and its aarch64 boot: qemu-system-arm, mmdebstrap (the cross
#            chroot), file and binutils (its checks), and dpkg's arm64 architecture so
#            `apt-get download` finds Debian's RT arm64 kernel; no :arm64 package is installed
#            on this machine); ansible-core and openssh-client for the Ansible fleet run
#            (tests/qemu/fleet-ansible.sh), rtla for the real `rtla timerlat hist` of rt-rtla
set -euo pipefail
cd "$(dirname "$0")/.."
with_tests=0
[ "${1:-}" = "--test" ] && with_tests=1

packages=(
  build-essential cmake ninja-build ccache pkg-config python3
  libyaml-cpp-dev libcli11-dev libspdlog-dev libfmt-dev nlohmann-json3-dev libcgroup-dev catch2
  libsystemd-dev nettle-dev libutf8proc-dev libmnl-dev libpugixml-dev
)
if ((with_tests)); then
  packages+=(qemu-system-x86 busybox-static debootstrap fdisk rt-tests stress-ng xz-utils chromium
    clang libclang-rt-14-dev debhelper lintian man-db qemu-system-arm mmdebstrap file binutils python3-yaml ansible-core
    openssh-client rtla iproute2)
  if [ "$(id -u)" -eq 0 ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    dpkg --add-architecture arm64
  fi
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing packages: ${missing[*]}; run as root (or: sudo apt-get install ${missing[*]})" >&2
    exit 3
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Ninja (a build directory made by an earlier version with Makefiles keeps its generator): it
# starts a library's files without waiting for the libraries it links, so both CPUs stay busy.
# ccache: the Debian package's build (tests/package/build-and-check.sh) then finds these
# objects (docs/performance.md, "Build time").
generator=()
[ -f build/CMakeCache.txt ] || generator=(-G Ninja)
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
