#!/bin/bash
# The Ansible example (examples/ansible/site.yml, role rtagent) run against two QEMU guests over
# SSH, as a fleet would run it (issue 15): both guests' verify results must come back to the
# controller, each from the right host.
#
#   tests/qemu/fleet-ansible.sh [--rtagent PATH] [--out DIR] [--sequential]
#   tests/qemu/fleet-ansible.sh --deb PATH/rtagent_<v>_amd64.deb [--out DIR] [--sequential]
#   tests/qemu/fleet-ansible.sh --ctest [RTAGENT]   # ctest's qemu_e2e_ansible (runs only with RTAGENT_QEMU_ANSIBLE=1)
#
# --deb: the role's package path. The guests' disks have no rtagent at all (mkrootfs.sh -N) and
# the playbook runs with rtagent_deb=PATH and rtagent_bin=/usr/bin/rtagent, so the role copies
# the package and installs it with ansible.builtin.apt `deb:`; the guests reach no Debian
# mirror, so the package's dependencies and python3-apt are in the SSH base already. The guest
# checks, besides the rest, that it started without rtagent and ends with the package
# `install ok installed` and its sampler in /usr/libexec/rtagent. The initramfs (which only
# mounts the disk and switches to its systemd) gets the binaries out of the package.
# --ctest with RTAGENT_QEMU_ANSIBLE_DEB=1: the amd64 package built and checked first by
# tests/package/build-and-check.sh (as ctest's debian_package does; its work folder holds the
# .deb, copied into OUT), then the --deb run instead of the cmake --install one.
#
# 1. The guests' Debian: `debian-base.sh --ssh` (the usual minbase plus openssh-server, python3
#    and sudo, cached beside the plain base under its own name), one disk per guest made by
#    mkrootfs.sh -S with rtagent installed as install-rtagent.sh does (`cmake --install` of the
#    build folder RTAGENT lives in) and fleet/node-root.sh as the hook: the guest's hostname
#    (rt-fleet-1, rt-fleet-2), its SSH host key, root's authorized key, a static address on
#    QEMU's user network and the virtio_net module.
# 2. Per run, in OUT: a client key (id_ed25519), one host key per guest, known_hosts holding
#    exactly those (StrictHostKeyChecking=yes), inventory.ini, ansible.cfg with only pipelining
#    on (the caller's own configuration is not read), the consoles and ansible-playbook's log.
# 3. Both guests boot the RT kernel at the same time (boot.sh, as every scenario), each with
#    `-nic user,model=virtio-net-pci,hostfwd=tcp:127.0.0.1:PORT-:22`: QEMU listens on the
#    loopback address only, on a port free when the run starts; nothing else on this machine's
#    network changes. --sequential boots the second guest once the first answers SSH (for a
#    machine too loaded for two emulated guests at once); the playbook still covers both.
# 4. `ansible-playbook -i OUT/inventory.ini examples/ansible/site.yml` with
#    rtagent_fetch_dir=OUT/verdicts and rtagent_bin=PREFIX/bin/rtagent (rtagent is already
#    installed, under the build's CMAKE_INSTALL_PREFIX: rtagent_deb stays empty; with --deb,
#    rtagent_deb=PATH and rtagent_bin=/usr/bin/rtagent, and the role's package task must
#    report `changed` on both hosts).
#    Exit 0 or 2 (a host failed) are both read on: the checks below say what went wrong.
# 5. Checks: OUT/verdicts/<host>/verify.json exists for both hosts, parses, and its
#    host.hostname is that host's; then the driver writes /run/rtagent-fleet-done in each guest,
#    whose fleet/fleet-node.sh checks what the role left (profile, unit enabled and running,
#    verify.json; with --deb the package and its sampler) and powers off.
# Prints PASS/FAIL/FACT lines and "fleet: N passed, M failed (S s)". Exit 0 all passed, 1 a
# check failed, 2 usage, 77 when QEMU, the kernels, the base system, ansible-playbook or ssh
# cannot be had (said why).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
RTAGENT=${RTAGENT_BIN:-$REPO/build/rtagent}
OUT=${RTAGENT_QEMU_OUT:-} SEQUENTIAL=0 CTEST=0 DEB=
while [ $# -gt 0 ]; do
  case $1 in
    --rtagent) RTAGENT=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --sequential) SEQUENTIAL=1; shift ;;
    --deb) DEB=${2:?--deb PATH/rtagent_VERSION_amd64.deb}; shift 2 ;;
    --ctest) CTEST=1; shift; [ -n "${1:-}" ] && { RTAGENT=$1; shift; } ;;
    -h|--help) sed -n '2,47p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fleet-ansible: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ $CTEST = 1 ] && [ "${RTAGENT_QEMU_ANSIBLE:-0}" != 1 ]; then
  # Opt-in: 3.6 min warm and 3.5 min more for the SSH base on a cold cache do not fit CI's hour
  # beside the other stages (docs/qemu.md, "The Ansible fleet").
  echo "ctest: SKIPPED: qemu_e2e_ansible runs only with RTAGENT_QEMU_ANSIBLE=1 (docs/qemu.md, \"The Ansible fleet\")"
  exit 77
fi
if [ $CTEST = 1 ] && [ "${RTAGENT_QEMU_ANSIBLE_DEB:-0}" = 1 ]; then
  # The package as ctest's debian_package builds and checks it; its work folder keeps the .deb.
  t_pkg=$SECONDS
  pkg_out=$(bash "$REPO/tests/package/build-and-check.sh" "$REPO" 2>&1); prc=$?
  printf '%s\n' "$pkg_out" | tail -5
  [ $prc = 77 ] && { echo "fleet-ansible: SKIPPED: the Debian package cannot be built here (above)"; exit 77; }
  [ $prc = 0 ] || { echo "fleet-ansible: FAIL: the Debian package did not build (above)"; exit 1; }
  DEB=$(ls "${RTAGENT_PACKAGE_WORKDIR:-${TMPDIR:-/tmp}/rtagent-package}"/rtagent_*_amd64.deb | head -1)
  echo "fleet-ansible: $DEB built and checked in $((SECONDS - t_pkg)) s"
fi
if [ -n "$DEB" ]; then
  [ -f "$DEB" ] && dpkg-deb -I "$DEB" > /dev/null 2>&1 || { echo "fleet-ansible: --deb $DEB is not a Debian package" >&2; exit 2; }
  [ "$(dpkg-deb -f "$DEB" Package Architecture | tr '\n' ' ')" = "Package: rtagent Architecture: amd64 " ] \
    || { echo "fleet-ansible: --deb $DEB is not rtagent for amd64 ($(dpkg-deb -f "$DEB" Package Architecture | tr '\n' ' '))" >&2; exit 2; }
else
  [ -x "$RTAGENT" ] || { echo "fleet-ansible: no rtagent binary at $RTAGENT (build it, or pass --rtagent PATH)" >&2; exit 2; }
  RTAGENT=$(cd "$(dirname "$RTAGENT")" && pwd)/$(basename "$RTAGENT")
fi
for tool in ansible-playbook ssh ssh-keygen; do
  command -v $tool > /dev/null || { echo "fleet-ansible: SKIPPED: no $tool (tools/setup.sh --test installs ansible-core and openssh-client)"; exit 77; }
done
[ -n "$OUT" ] || OUT=$(mktemp -d "${TMPDIR:-/tmp}/rtagent-ansible.XXXXXX")
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
T0=$SECONDS
if [ -n "$DEB" ]; then
  # The package's own copy (a later package build empties its work folder), and its two
  # programs side by side for the initramfs (mkinitramfs.sh takes the sampler beside rtagent).
  [ "$(readlink -f "$DEB")" = "$OUT/$(basename "$DEB")" ] || cp "$DEB" "$OUT/" || exit 1
  DEB=$OUT/$(basename "$DEB")
  rm -rf "$OUT/deb-root" "$OUT/deb-bin"; mkdir -p "$OUT/deb-bin"
  dpkg-deb -x "$DEB" "$OUT/deb-root" || { echo "fleet-ansible: dpkg-deb -x $DEB failed"; exit 1; }
  cp "$OUT/deb-root/usr/bin/rtagent" "$OUT/deb-root/usr/libexec/rtagent/rtagent-sampler" "$OUT/deb-bin/" \
    || { echo "fleet-ansible: $DEB has no usr/bin/rtagent or usr/libexec/rtagent/rtagent-sampler"; exit 1; }
  RTAGENT=$OUT/deb-bin/rtagent
fi
passed=0 failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
fact() { echo "FACT $1: $2"; }
HOSTS=(rt-fleet-1 rt-fleet-2)

# 1. kernels, initramfs, the SSH base
KOUT=$("$HERE/fetch-kernels.sh"); frc=$?
[ $frc = 77 ] && { echo "fleet-ansible: SKIPPED: qemu or Debian's kernels cannot be obtained (above)"; exit 77; }
[ $frc = 0 ] || { echo "fleet-ansible: fetch-kernels.sh failed (exit $frc)"; exit 1; }
KDIR=$(sed -n 's/^rt //p' <<< "$KOUT")
"$HERE/debian-base.sh" --ssh > /dev/null; brc=$?
[ $brc = 77 ] && { echo "fleet-ansible: SKIPPED: the Debian base with SSH cannot be made (above)"; exit 77; }
[ $brc = 0 ] || { echo "fleet-ansible: debian-base.sh --ssh failed (exit $brc)"; exit 1; }
"$HERE/mkinitramfs.sh" -k "$KDIR" -r "$RTAGENT" -o "$OUT/initramfs.cpio" 2> "$OUT/mkinitramfs.log" \
  || { cat "$OUT/mkinitramfs.log"; echo "fleet-ansible: mkinitramfs.sh failed"; exit 1; }

# 2. keys, one disk per guest (made side by side), inventory
ssh-keygen -q -t ed25519 -N '' -C "rtagent-fleet-controller" -f "$OUT/id_ed25519"
: > "$OUT/known_hosts"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
declare -A PORT
pids=()
RTAGENT_ON_DISK=(-r "$RTAGENT")
[ -n "$DEB" ] && RTAGENT_ON_DISK=(-N)
for h in "${HOSTS[@]}"; do
  mkdir -p "$OUT/$h"
  ssh-keygen -q -t ed25519 -N '' -C "$h" -f "$OUT/$h/ssh_host_ed25519_key"
  PORT[$h]=$(free_port)
  echo "[127.0.0.1]:${PORT[$h]} $(cut -d' ' -f1,2 "$OUT/$h/ssh_host_ed25519_key.pub")" >> "$OUT/known_hosts"
  FLEET_HOSTNAME=$h FLEET_HOSTKEY=$OUT/$h/ssh_host_ed25519_key FLEET_AUTHKEY=$OUT/id_ed25519.pub FLEET_KDIR=$KDIR \
    FLEET_INSTALL=$([ -n "$DEB" ] && echo deb || echo cmake) \
    "$HERE/mkrootfs.sh" -S "${RTAGENT_ON_DISK[@]}" -s "$HERE/fleet/fleet-node.sh" -x "$HERE/fleet/node-root.sh" \
    -o "$OUT/$h/root.img" > "$OUT/$h/mkrootfs.log" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do
  wait "$p" || { tail -5 "$OUT"/*/mkrootfs.log; echo "fleet-ansible: mkrootfs.sh failed ($OUT/*/mkrootfs.log)"; exit 1; }
done
fact install "$([ -n "$DEB" ] && echo "the role installs $(basename "$DEB") (disks without rtagent)" || echo "cmake --install on the disks")"
fact disks "$(for h in "${HOSTS[@]}"; do du -m "$OUT/$h/root.img" | cut -f1; done | tr '\n' ' ')MB, made in $((SECONDS - T0)) s"
{
  echo "[rt_fleet]"
  for h in "${HOSTS[@]}"; do echo "$h ansible_host=127.0.0.1 ansible_port=${PORT[$h]}"; done
  echo
  echo "[rt_fleet:vars]"
  echo "ansible_user=root"
  echo "ansible_ssh_private_key_file=$OUT/id_ed25519"
  echo "ansible_ssh_common_args='-o UserKnownHostsFile=$OUT/known_hosts -o StrictHostKeyChecking=yes -o IdentitiesOnly=yes'"
  echo "ansible_python_interpreter=/usr/bin/python3"
} > "$OUT/inventory.ini"

# 3. boot (a guest that never answers SSH is killed by the trap through QEMU's pid file)
declare -A BOOT
cleanup() {
  for h in "${HOSTS[@]}"; do
    [ -s "$OUT/$h/qemu.pid" ] && kill "$(cat "$OUT/$h/qemu.pid")" 2> /dev/null
  done
}
trap cleanup EXIT
SSH=(ssh -o BatchMode=yes -o ConnectTimeout=10 -o IdentitiesOnly=yes -i "$OUT/id_ed25519"
     -o UserKnownHostsFile="$OUT/known_hosts" -o StrictHostKeyChecking=yes)
boot() {
  local h=$1
  "$HERE/boot.sh" -k "$KDIR" -i "$OUT/initramfs.cpio" -s fleet-node -l "$OUT/$h/console.log" -t "${RTAGENT_QEMU_TIMEOUT:-1500}" \
    -a "rtagent.root=vda rw systemd.show_status=0 loglevel=3 rtagent.strict=1" \
    -q "-drive file=$OUT/$h/root.img,if=none,format=raw,id=root -device virtio-blk-pci,drive=root
        -nic user,model=virtio-net-pci,hostfwd=tcp:127.0.0.1:${PORT[$h]}-:22 -pidfile $OUT/$h/qemu.pid" \
    > "$OUT/$h/result.txt" 2>&1 &
  BOOT[$h]=$!
}
# wait_ssh HOST: until root@127.0.0.1:PORT answers (the guest's sshd, through the forward)
wait_ssh() {
  local h=$1 t=$SECONDS
  while [ $((SECONDS - t)) -lt 600 ]; do
    if "${SSH[@]}" -p "${PORT[$h]}" root@127.0.0.1 true 2> "$OUT/$h/ssh-wait.err"; then
      pass "$h answers SSH on 127.0.0.1:${PORT[$h]} with its own host key ($((SECONDS - t)) s)"; return 0
    fi
    kill -0 "${BOOT[$h]}" 2> /dev/null || { fail "$h" "the guest ended before SSH answered ($OUT/$h/console.log)"; return 1; }
    sleep 3
  done
  fail "$h" "no SSH after 600 s: $(tail -1 "$OUT/$h/ssh-wait.err")"; return 1
}
t_boot=$SECONDS
up=1
if [ $SEQUENTIAL = 1 ]; then
  for h in "${HOSTS[@]}"; do boot "$h"; wait_ssh "$h" || up=0; done
else
  for h in "${HOSTS[@]}"; do boot "$h"; done
  for h in "${HOSTS[@]}"; do wait_ssh "$h" || up=0; done
fi
fact boot_to_ssh "$((SECONDS - t_boot)) s for both ($([ $SEQUENTIAL = 1 ] && echo one after the other || echo concurrently))"
for h in "${HOSTS[@]}"; do
  where=$(ss -Htln "sport = :${PORT[$h]}" 2> /dev/null | awk '{print $4}' | tr '\n' ' ')
  if [ "$where" = "127.0.0.1:${PORT[$h]} " ]; then pass "$h's forward listens on 127.0.0.1 only"
  else fail "$h's forward" "port ${PORT[$h]} listens on '$where', expected 127.0.0.1 only"; fi
done

# 4. the playbook (rtagent is where `cmake --install` put it: the build's install prefix; or
#    the role installs the package, whose binary is /usr/bin/rtagent)
if [ -n "$DEB" ]; then
  INSTALL_VARS=(-e "rtagent_deb=$DEB" -e "rtagent_bin=/usr/bin/rtagent")
else
  PREFIX=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$(dirname "$RTAGENT")/CMakeCache.txt")
  INSTALL_VARS=(-e "rtagent_bin=${PREFIX:-/usr/local}/bin/rtagent")
fi
if [ $up = 1 ]; then
  # Only this (the caller's own ansible.cfg is not read): pipelining sends each task's module
  # over the one SSH connection instead of copying it first, fewer round trips per task.
  printf '[connection]\npipelining = True\n' > "$OUT/ansible.cfg"
  t_play=$SECONDS
  ANSIBLE_CONFIG=$OUT/ansible.cfg ANSIBLE_LOCAL_TEMP=$OUT/ansible-tmp ANSIBLE_HOME=$OUT/ansible-home ANSIBLE_NOCOLOR=1 \
    ansible-playbook -i "$OUT/inventory.ini" "$REPO/examples/ansible/site.yml" -e "rtagent_fetch_dir=$OUT/verdicts" \
    "${INSTALL_VARS[@]}" \
    > "$OUT/ansible.log" 2>&1
  arc=$?
  fact ansible_playbook "exit $arc in $((SECONDS - t_play)) s ($OUT/ansible.log)"
  sed -n '/^PLAY RECAP/,$p' "$OUT/ansible.log" | sed 's/^/  | /'
  if [ $arc = 0 ]; then pass "ansible-playbook site.yml exits 0"; else fail "ansible-playbook" "exit $arc: $(grep -m3 'fatal:\|ERROR' "$OUT/ansible.log" | cut -c1-300 | tr '\n' '|')"; fi
  if [ -n "$DEB" ]; then
    # The role's package task ran and changed each host (ansible's default callback prints
    # "changed: [HOST]" under the task's header).
    inst=$(sed -n '/^TASK \[rtagent : Install the rtagent package/,/^$/p' "$OUT/ansible.log")
    for h in "${HOSTS[@]}"; do
      if grep -q "^changed: \[$h\]" <<< "$inst"; then pass "$h: the role's apt task installed the package (changed)"
      else fail "$h package task" "$(tr '\n' '|' <<< "$inst" | cut -c1-400)"; fi
    done
  fi
  for h in "${HOSTS[@]}"; do
    if grep -Eq "^$h +: ok=[0-9]+ +changed=[0-9]+ +unreachable=0 +failed=0" "$OUT/ansible.log"; then
      pass "$h: the recap has nothing unreachable or failed"
    else
      fail "$h recap" "$(grep -E "^$h " "$OUT/ansible.log" | tr -s ' ')"
    fi
    v=$OUT/verdicts/$h/verify.json
    if [ ! -s "$v" ]; then fail "$h verdict" "no $v"; continue; fi
    # "HOSTNAME RESULT KERNEL COUNTS" from verify's JSON (docs: host.hostname, result, counts)
    got=$(python3 -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except ValueError as e:
    print("unreadable:", e); sys.exit()
host = d.get("host") or {}
print(host.get("hostname"), d.get("result"), host.get("kernel_release"), json.dumps(d.get("counts"), separators=(",", ":")))' "$v")
    read -r hn result kernel counts <<< "$got"
    if [ "$hn" = "$h" ]; then pass "verdicts/$h/verify.json came from $h (host.hostname), result $result"
    else fail "verdicts/$h/verify.json" "host.hostname is '$hn', expected $h ($got)"; fi
    fact "${h}_verify" "$result on $kernel, $counts"
  done
fi

# 5. the guests check what the role left and power off
for h in "${HOSTS[@]}"; do
  "${SSH[@]}" -p "${PORT[$h]}" root@127.0.0.1 "echo 'ansible-playbook done' > /run/rtagent-fleet-done" 2> /dev/null \
    || { [ $up = 1 ] && fail "$h" "cannot tell the guest the run is over (ssh)"; cleanup; }
done
for h in "${HOSTS[@]}"; do
  wait "${BOOT[$h]}"; brc=$?
  sed -n 's/^\(PASS\|FAIL\) /\1 '"$h"': /p' "$OUT/$h/result.txt" | while read -r line; do echo "$line"; done
  np=$(grep -c '^PASS ' "$OUT/$h/result.txt"); nf=$(grep -c '^FAIL ' "$OUT/$h/result.txt")
  passed=$((passed + np)); failed=$((failed + nf))
  if [ $brc != 0 ] && [ "$nf" = 0 ]; then fail "$h guest" "boot.sh exit $brc ($OUT/$h/console.log)"; fi
done
trap - EXIT
echo "fleet: $passed passed, $failed failed ($((SECONDS - T0)) s, logs in $OUT)"
[ $failed = 0 ] && [ $passed -gt 0 ]
