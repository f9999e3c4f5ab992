#!/usr/bin/env bash
# Runs the bash completion (completions/rtagent.bash) the way bash does: COMP_WORDS and
# COMP_CWORD set, _rtagent called, COMPREPLY read; checks the answers for subcommands, options,
# option values, profile names (from the binary's `profiles --names`), suites and files.
# Usage: completion_test.sh RTAGENT_BINARY [SOURCE_DIR]
set -uo pipefail
bin=$(realpath "$1")
src=$(cd "${2:-$(dirname "$0")/../..}" && pwd)
script=$src/completions/rtagent.bash
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/profiles" "$work/cwd/sub"
printf 'description: one\n' >"$work/profiles/zz-board-one.yaml"
printf 'description: two\n' >"$work/profiles/zz-board-two.yaml"
touch "$work/cwd/local.yaml" "$work/cwd/notes.txt" "$work/cwd/last.json"
failures=0

# complete WORD... : the completion of the last word, sorted, one line
complete_words() {
  (cd "$work/cwd" && RTAGENT_PROFILE_DIR=$work/profiles bash -c '
    source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    _rtagent
    printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' _ "$script" "$bin" "$@")
}

expect() {  # expect "WANTED (space-separated, sorted)" WORD...
  local want=$1
  shift
  local got
  got=$(complete_words "$@")
  got=${got% }
  if [ "$got" != "$want" ]; then
    echo "FAIL: rtagent ${*}<TAB>: got '$got', want '$want'"
    failures=$((failures + 1))
  else
    echo "ok: rtagent ${*}<TAB> -> $got"
  fi
}
contains() {  # contains WORD-THAT-MUST-BE-THERE WORD...
  local must=$1
  shift
  local got
  got=" $(complete_words "$@")"
  if [[ $got != *" $must "* ]]; then
    echo "FAIL: rtagent ${*}<TAB>: '$must' missing from '$got'"
    failures=$((failures + 1))
  else
    echo "ok: rtagent ${*}<TAB> has $must"
  fi
}

expect "commission" comm
expect "validate verify" v
contains "profiles" ""
contains "help" ""
expect "--allow-unsafe-profile" --allow
expect "inspect" --root /tmp ins
expect "--section" inspect --sec
expect "cgroups clock cmdline cpus" inspect --section c
expect "boot" verify --suite b
expect "commission" verify --suite comm
expect "none" accept --preflight no
expect "--revert-after" commission --rev
expect "--baseline" accept --bas
expect "--periods" bench pi --per
expect "host" diff --require-same h
expect "zz-board-one zz-board-two" validate zz
expect "zz-board-one zz-board-two" commission zz
expect "zz-board-one" hold zz-board-o
expect "local.yaml" plan loc
expect "sub" verify su
expect "last.json" diff la
expect "last.json" accept --baseline la
expect "notes.txt" accept --junit no
expect "pi" bench p
expect "commission" help comm
# after the profile, a command takes no second one
expect "" validate zz-board-one zz

if ((failures)); then
  echo "$failures completion case(s) failed"
  exit 1
fi
echo "all completion cases passed"
