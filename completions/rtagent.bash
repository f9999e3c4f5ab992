# bash completion for rtagent: subcommands, each one's options, profile names (from
# `rtagent profiles --names`), check suite names, and files where a file is taken.
# tests/cli/completion_test.sh checks it against `rtagent SUBCOMMAND --help`.

_rtagent_options() {
  case $1 in
    "") echo "--root --allow-unsafe-profile --help --version" ;;
    validate) echo "--json" ;;
    profiles) echo "--names --json" ;;
    inspect) echo "--json --section" ;;
    capture) echo "-o --output --force" ;;
    plan | apply) echo "--json" ;;
    verify) echo "--json --suite --junit" ;;
    revert) echo "--json" ;;
    commission) echo "--duration --out --revert-after --json --junit --md --svg --hist --html" ;;
    accept) echo "--duration --json --junit --md --svg --hist --html --baseline --tolerance --require-same --allow-missing --progress-every --preflight" ;;
    explain) echo "--cpus --duration --threshold --json --trace --from --diff" ;;
    diff) echo "--json --junit --tolerance --require-same --allow-missing --tolerance-percent --tolerance-us" ;;
    report) echo "--from-cyclictest --from-rtla --from-rteval --fleet --json --junit --md --svg --hist --html --cases" ;;
    hold) echo "--once --verdict --replan-interval" ;;
    status) echo "--json" ;;
    bench) echo "--quick --only --cpu --priority --json --md --svg --compare" ;;
    "bench pi") echo "--cpu --priority --periods --json" ;;
    import) echo "" ;;
    "import tuned") echo "-o --output" ;;
    help) echo "" ;;
  esac
}

# Files (and directories to walk into); a glob pattern such as '*.yaml' narrows them.
_rtagent_files() {
  local cur=$1 pattern=$2 f
  compopt -o filenames 2>/dev/null
  if [[ -n $pattern ]]; then
    while IFS= read -r f; do COMPREPLY+=("$f"); done < <(compgen -d -- "$cur")
    while IFS= read -r f; do [[ $f == $pattern ]] && COMPREPLY+=("$f"); done < <(compgen -f -- "$cur")
  else
    while IFS= read -r f; do COMPREPLY+=("$f"); done < <(compgen -f -- "$cur")
  fi
}

_rtagent_words() {
  local cur=$1 w
  shift
  while IFS= read -r w; do COMPREPLY+=("$w"); done < <(compgen -W "$*" -- "$cur")
}

_rtagent() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  local prog=${COMP_WORDS[0]} sub="" nested="" positional=0 i w
  local subcommands="validate profiles inspect capture plan apply verify revert commission accept explain diff report hold status bench import help"
  COMPREPLY=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=${COMP_WORDS[i]}
    case $w in
      --root | -o | --output | --section | --suite | --junit | --md | --svg | --hist | --html | --cases | --baseline | --tolerance | \
        --require-same | --progress-every | --preflight | --duration | --out | --cpus | --threshold | --trace | \
        --from | --from-cyclictest | --from-rtla | --from-rteval | --fleet | --tolerance-percent | --tolerance-us | --verdict | --only | \
        --cpu | --priority | --periods)
        ((i++)) ;;
      --json)
        # a FILE after it for these subcommands, a flag for the others
        case $sub in accept | commission | explain | report | bench) ((i++)) ;; esac ;;
      --diff | --compare) ((i += 2)) ;;
      -*) ;;
      *)
        if [[ -z $sub ]]; then
          sub=$w
        elif [[ $sub == bench && -z $nested && $w == pi ]]; then
          nested=pi
        elif [[ $sub == import && -z $nested && $w == tuned ]]; then
          nested=tuned
        else
          ((positional++))
        fi ;;
    esac
  done
  local where=$sub
  [[ -n $nested ]] && where="$sub $nested"

  # The value of an option.
  case $prev in
    --root | -o | --output | --out | --fleet)
      compopt -o filenames 2>/dev/null
      while IFS= read -r w; do COMPREPLY+=("$w"); done < <(compgen -d -- "$cur")
      return 0 ;;
    --suite | --preflight)
      _rtagent_words "$cur" commission boot ci $([[ $prev == --preflight ]] && echo none)
      _rtagent_files "$cur" '*.yaml'
      return 0 ;;
    --section)
      _rtagent_words "$cur" kernel cmdline cpus irqs threads memory power cgroups clock network
      return 0 ;;
    --only)
      _rtagent_words "$cur" kernel switch message notify sync timer signal thread
      return 0 ;;
    --require-same)
      _rtagent_words "$cur" profile host kernel
      return 0 ;;
    --junit | --md | --svg | --hist | --html | --cases | --trace | --from-cyclictest | --from-rtla | --from-rteval)
      _rtagent_files "$cur"
      return 0 ;;
    --baseline | --verdict | --from | --diff | --compare)
      _rtagent_files "$cur" '*.json'
      return 0 ;;
    --json)
      case $sub in accept | commission | explain | report | bench)
        _rtagent_files "$cur"
        return 0 ;;
      esac ;;
    --duration | --cpus | --threshold | --tolerance | --progress-every | --tolerance-percent | --tolerance-us | \
      --cpu | --priority | --periods)
      return 0 ;;
  esac

  if [[ $cur == -* ]]; then
    _rtagent_words "$cur" $(_rtagent_options "$where") $( [[ -n $sub ]] && echo --help --root)
    return 0
  fi
  case $sub in
    "")
      _rtagent_words "$cur" $subcommands ;;
    help)
      if ((positional == 0)); then _rtagent_words "$cur" $subcommands; else _rtagent_words "$cur" pi tuned; fi ;;
    validate | plan | apply | verify | commission | accept | explain | hold | capture)
      if ((positional == 0)); then
        _rtagent_words "$cur" $("$prog" profiles --names 2>/dev/null)
        _rtagent_files "$cur" '*.y*ml'
      fi ;;
    bench)
      if ((positional == 0)); then
        [[ -z $nested ]] && _rtagent_words "$cur" pi
        _rtagent_words "$cur" $("$prog" profiles --names 2>/dev/null)
        _rtagent_files "$cur" '*.y*ml'
      fi ;;
    import)
      if [[ -z $nested ]]; then
        _rtagent_words "$cur" tuned
      elif ((positional == 0)); then
        # a TuneD profile name (a directory in /etc/tuned or /usr/lib/tuned) or a directory
        _rtagent_words "$cur" $(ls /etc/tuned /usr/lib/tuned 2>/dev/null | grep -v -e : -e '\.' | sort -u)
        compopt -o filenames 2>/dev/null
        while IFS= read -r w; do COMPREPLY+=("$w"); done < <(compgen -d -- "$cur")
      fi ;;
    diff)
      ((positional < 2)) && _rtagent_files "$cur" '*.json' ;;
    report)
      ((positional == 0)) && _rtagent_files "$cur" '*.json' ;;
  esac
  return 0
}

complete -F _rtagent rtagent
