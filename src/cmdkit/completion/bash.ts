// The bash completion script, emitted from the completion model (model.ts).
import { HEADER, type Model, names, sq, type Source, valueFlagCases } from './model.js';

export function bash(model: Model): string {
  const bashValues = (v: Source): string => {
    switch (v.kind) {
      case 'words':
        return `COMPREPLY=($(compgen -W ${sq(v.words.join(' '))} -- "$cur"))`;
      case 'dynamic':
        return `__carrental_dynamic ${v.source}`;
      case 'file':
        return '__carrental_files';
    }
  };
  const subcommands = model.branches.map((n) => `    ${sq(n.path)}) echo ${sq(n.subcommands.map((s) => s.name).join(' '))} ;;`);
  const globalFlags = [...model.globals.flatMap(names)].join(' ');
  const options = model.nodes.map((n) => `    ${sq(n.path)}) echo ${sq(n.ownFlags.flatMap(names).join(' '))} ;;`);
  // a global flag matches after any path; a node's flag after its own
  const valueArms = model.valueSources.map(({ path, flag, values }) => {
    const pattern = path === undefined ? `*' '${names(flag).join(`|*' '`)}` : names(flag).map((x) => sq(`${path} ${x}`)).join('|');
    return `    ${pattern}) ${bashValues(values)} ;;`;
  });
  const argArms = model.argSlots.map(({ path, index, values }) => `    ${sq(`${path} ${index}`)}) ${bashValues(values)} ;;`);
  return `${HEADER('bash', [
    'Install (needs the bash-completion package; see docs/completion.md):',
    '  mkdir -p ~/.local/share/bash-completion/completions',
    '  carrental completion bash > ~/.local/share/bash-completion/completions/carrental',
  ])}
__carrental_subcommands() {
  case "$1" in
${subcommands.join('\n')}
  esac
}

__carrental_options() {
  local globals=${sq(globalFlags)}
  case "$1" in
${options.join('\n')}
  esac
  echo "$globals"
}

# Does the flag $2 of the command at path $1 take a value?
__carrental_takes_value() {
${valueFlagCases(model, '  ')}
}

# Candidates for the value of flag $2 of the command at path $1.
__carrental_values() {
  case "$1 $2" in
${valueArms.join('\n')}
  esac
}

# Candidates for positional argument $2 (from 0) of the command at path $1.
__carrental_args() {
  case "$1 $2" in
${argArms.join('\n')}
  esac
}

__carrental_files() {
  if declare -F _filedir >/dev/null 2>&1; then
    _filedir
  else
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}

# Asks the CLI itself (never prompts, gives up fast, prints nothing on failure) for
# \`value<TAB>description\` lines. Matched here rather than with compgen -W, which would
# expand what the server sent. One match is inserted as it is; several are listed with
# their descriptions in parentheses (bash has no column for them), and what they share
# beyond the typed prefix is still inserted, since the values come first.
__carrental_dynamic() {
  local line value tab=$'\\t'
  local -a values descriptions
  COMPREPLY=()
  while IFS= read -r line; do
    value=\${line%%"$tab"*}
    [[ $value == "$cur"* ]] || continue
    values+=("$value")
    if [[ $line == *"$tab"* ]]; then descriptions+=("\${line#*"$tab"}"); else descriptions+=(''); fi
  done < <("\${words[0]}" __complete "$1" --no-input "\${fwd[@]}" \${arg0:+"$arg0"} 2>/dev/null)
  if ((\${#values[@]} == 1)); then
    COMPREPLY=("\${values[0]}")
    return
  fi
  local i
  for i in "\${!values[@]}"; do
    if [[ -n \${descriptions[i]} ]]; then
      COMPREPLY+=("\${values[i]}  (\${descriptions[i]})")
    else
      COMPREPLY+=("\${values[i]}")
    fi
  done
}

_carrental() {
  local cur prev words cword split=false
  if declare -F _init_completion >/dev/null 2>&1; then
    # -s: \`--flag=value\` splits into prev and cur; -n :: a URL after --base-url stays one word
    _init_completion -s -n : || return
  else
    words=("\${COMP_WORDS[@]}")
    cword=$COMP_CWORD
    cur=\${COMP_WORDS[COMP_CWORD]}
    prev=\${COMP_WORDS[COMP_CWORD-1]}
  fi

  local cmd_path=carrental nargs=0 i w pending='' arg0=''
  local -a fwd=()
  for ((i = 1; i < cword; i++)); do
    w=\${words[i]}
    if [[ -n $pending ]]; then
      case $pending in --profile | --base-url) fwd+=("$pending" "$w") ;; esac
      pending=''
      continue
    fi
    case $w in
      --profile=* | --base-url=*) fwd+=("$w") ;;
      --sandbox) fwd+=("$w") ;;
      -*=*) ;;
      -*) __carrental_takes_value "$cmd_path" "$w" && pending=$w ;;
      *)
        if ((nargs == 0)) && [[ " $(__carrental_subcommands "$cmd_path") " == *" $w "* ]]; then
          cmd_path="$cmd_path $w"
        else
          ((nargs == 0)) && arg0=$w
          nargs=$((nargs + 1))
        fi
        ;;
    esac
  done

  if [[ $split == true ]]; then
    __carrental_values "$cmd_path" "$prev"
    return
  fi
  if [[ -n $pending ]]; then
    __carrental_values "$cmd_path" "$pending"
    return
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(__carrental_options "$cmd_path")" -- "$cur"))
    return
  fi
  local subs
  subs=$(__carrental_subcommands "$cmd_path")
  if [[ -n $subs ]] && ((nargs == 0)); then
    COMPREPLY=($(compgen -W "$subs" -- "$cur"))
    return
  fi
  __carrental_args "$cmd_path" "$nargs"
}

complete -F _carrental carrental
`;
}
