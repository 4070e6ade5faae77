// The zsh completion script, emitted from the completion model (model.ts).
import { type Flag, HEADER, type Model, names, sq, type Source, valueFlagCases } from './model.js';

export function zsh(model: Model): string {
  const zshValues = (v: Source): string => {
    switch (v.kind) {
      case 'words':
        return `compadd -- ${v.words.map(sq).join(' ')}`;
      case 'dynamic':
        return `__carrental_dynamic ${v.source}`;
      case 'file':
        return '_files';
    }
  };
  const described = (items: Array<{ name: string; description: string }>) =>
    items.map((i) => sq(`${i.name.replace(/:/g, '\\:')}:${i.description}`)).join(' ');
  const flagItems = (flags: Flag[]) => flags.flatMap((f) => names(f).map((n) => ({ name: n, description: f.description })));
  const subcommands = model.branches.map((n) => `    ${sq(n.path)}) reply=(${described(n.subcommands)}) ;;`);
  const options = model.nodes.map((n) => `    ${sq(n.path)}) reply=(${described(flagItems(n.ownFlags))}) ;;`);
  // a global flag matches after any path; a node's flag after its own
  const valueArms = model.valueSources.map(({ path, flag, values }) => {
    const pattern = path === undefined ? `*' '${names(flag).join(`|*' '`)}` : names(flag).map((x) => sq(`${path} ${x}`)).join('|');
    return `    ${pattern}) ${zshValues(values)} ;;`;
  });
  const argArms = model.argSlots.map(({ path, index, values }) => `    ${sq(`${path} ${index}`)}) ${zshValues(values)} ;;`);
  return `#compdef carrental
${HEADER('zsh', [
  'Install (see docs/completion.md):',
  '  mkdir -p ~/.zsh/completions',
  '  carrental completion zsh > ~/.zsh/completions/_carrental',
  "  echo 'fpath=(~/.zsh/completions $fpath); autoload -Uz compinit && compinit' >> ~/.zshrc",
])}
__carrental_subcommands() {
  reply=()
  case "$1" in
${subcommands.join('\n')}
  esac
}

__carrental_options() {
  case "$1" in
${options.join('\n')}
  esac
  reply+=(${described(flagItems(model.globals))})
}

# Does the flag $2 of the command at path $1 take a value?
__carrental_takes_value() {
${valueFlagCases(model, '  ')}
}

# Candidates for the value of flag $2 of the command at path $1.
__carrental_values() {
  case "$1 $2" in
${valueArms.join('\n')}
    *) _message 'value' ;;
  esac
}

# Candidates for positional argument $2 (from 0) of the command at path $1.
__carrental_args() {
  case "$1 $2" in
${argArms.join('\n')}
  esac
}

# Asks the CLI itself (never prompts, gives up fast, prints nothing on failure) for
# \`value<TAB>description\` lines, shown as zsh shows a described list (values are plain
# tokens, never a colon, so \`value:description\` is unambiguous).
__carrental_dynamic() {
  local line tab=$'\\t'
  local -a lines described
  lines=(\${(f)"$(\${words[1]} __complete "$1" --no-input "\${fwd[@]}" \${arg0:+"$arg0"} 2>/dev/null)"})
  for line in $lines; do
    if [[ $line == *$tab* ]]; then
      described+=("\${line%%$tab*}:\${line#*$tab}")
    else
      described+=("$line")
    fi
  done
  _describe -t values 'value' described
}

_carrental() {
  local cur=\${words[CURRENT]} cmd_path=carrental pending='' w arg0=''
  local -i nargs=0 i
  local -a fwd reply names
  for ((i = 2; i < CURRENT; i++)); do
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
        __carrental_subcommands "$cmd_path"
        names=(\${reply%%:*})
        if ((nargs == 0 && \${names[(Ie)$w]})); then
          cmd_path="$cmd_path $w"
        else
          ((nargs == 0)) && arg0=$w
          nargs=$((nargs + 1))
        fi
        ;;
    esac
  done

  if [[ -n $pending ]]; then
    __carrental_values "$cmd_path" "$pending"
    return
  fi
  if [[ $cur == --*=* ]]; then
    local flag=\${cur%%=*}
    compset -P '*='
    __carrental_values "$cmd_path" "$flag"
    return
  fi
  if [[ $cur == -* ]]; then
    __carrental_options "$cmd_path"
    _describe -t options 'option' reply
    return
  fi
  __carrental_subcommands "$cmd_path"
  if ((\${#reply} && nargs == 0)); then
    _describe -t commands 'command' reply
    return
  fi
  __carrental_args "$cmd_path" $nargs
}

if [[ "\${funcstack[1]}" == _carrental ]]; then
  _carrental "$@"
else
  compdef _carrental carrental
fi
`;
}
