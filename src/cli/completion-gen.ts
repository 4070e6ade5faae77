// Shell completion scripts for bash, zsh and fish, generated from the command tree
// (COMMANDS and GLOBAL_OPTIONS), so a new command, flag or enum value completes in every
// shell without touching a script. Values that live on the server (car aliases,
// reservation and invoice uuids, a car's extras) and profile names come from the hidden
// `carrental __complete <kind> [context]` command at completion time, as
// `value<TAB>description` lines: zsh and fish show the description beside the value, bash
// (which cannot) appends it in parentheses when it lists several candidates.
//
// All three scripts share one model of the tree and one way of reading the line: walk the
// words before the cursor, follow subcommand names, skip the value after a flag that takes
// one, count positional arguments (keeping the first: the car whose extras `--extra`
// completes), and remember --profile/--base-url/--sandbox so dynamic candidates come from
// the same API the command would use.
import { OPERATIONS } from '../api/operations.js';
import { COMMANDS, type ArgSpec, type CommandSpec, type OptionSpec } from './commands.js';
import { GLOBAL_OPTIONS, HELP_FLAGS, VERSION_FLAGS } from './global-options.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** `carrental __complete <kind>` sources. */
export type DynamicKind = 'cars' | 'reservations' | 'cancellable' | 'payable' | 'invoices' | 'extras' | 'profiles';

type Values = { kind: 'none' } | { kind: 'words'; words: readonly string[] } | { kind: 'dynamic'; source: DynamicKind } | { kind: 'file' };

interface Flag {
  short?: string; // -y
  long?: string; // --yes
  description: string;
  takesValue: boolean;
  values: Values;
}

interface Node {
  /** `carrental`, `carrental auth`, `carrental auth login`: the key every script switches on. */
  path: string;
  subcommands: Array<{ name: string; description: string }>;
  /** The node's own flags; global flags apply everywhere and are kept apart. */
  flags: Flag[];
  args: Values[];
}

const DYNAMIC: Record<string, DynamicKind> = {
  'car-alias': 'cars',
  'reservation-uuid': 'reservations',
  'cancellable-reservation': 'cancellable',
  'payable-reservation': 'payable',
  'invoice-uuid': 'invoices',
  'car-extra': 'extras',
  profile: 'profiles',
};

/** `doctor --require`: any operation id of the API, or all of them. */
const OPERATION_IDS = [...OPERATIONS.map((o) => o.id), 'all'];

function valuesOf(complete: ArgSpec['complete'] | OptionSpec['complete'], choices?: readonly string[]): Values {
  if (choices) return { kind: 'words', words: choices };
  if (complete === undefined) return { kind: 'none' };
  if (typeof complete !== 'string') return { kind: 'words', words: complete };
  if (complete === 'file') return { kind: 'file' };
  if (complete === 'operation-id') return { kind: 'words', words: OPERATION_IDS };
  return { kind: 'dynamic', source: DYNAMIC[complete] };
}

function parseFlag(spec: Pick<OptionSpec, 'flags' | 'description' | 'choices' | 'complete'>): Flag {
  const names = spec.flags.split(/[ ,|]+/).filter((p) => p.startsWith('-'));
  return {
    short: names.find((n) => /^-[^-]/.test(n)),
    long: names.find((n) => n.startsWith('--')),
    description: spec.description,
    // only a required value takes the next word: `--json [fields]` before a command name is
    // a bare --json (main.ts reads `carrental --json cars` that way too)
    takesValue: /</.test(spec.flags),
    values: valuesOf(spec.complete, spec.choices),
  };
}

const visible = (specs: CommandSpec[] | undefined) => (specs ?? []).filter((s) => !s.hidden);

function buildModel(): { nodes: Node[]; globals: Flag[]; rootOnly: Flag[] } {
  const nodes: Node[] = [];
  const help = parseFlag(HELP_FLAGS);
  const add = (path: string, spec: CommandSpec) => {
    nodes.push({
      path,
      subcommands: visible(spec.subcommands).map((s) => ({ name: s.name, description: s.description })),
      flags: [...(spec.options ?? []).filter((o) => !o.hidden).map(parseFlag), help],
      args: (spec.args ?? []).map((a) => valuesOf(a.complete)),
    });
    for (const sub of visible(spec.subcommands)) add(`${path} ${sub.name}`, sub);
  };
  // `help [command|topic]` is a command of the tree like any other
  const top = visible(COMMANDS);
  nodes.push({
    path: 'carrental',
    subcommands: top.map((s) => ({ name: s.name, description: s.description })),
    flags: [help],
    args: [],
  });
  for (const spec of top) add(`carrental ${spec.name}`, spec);
  return { nodes, globals: GLOBAL_OPTIONS.map(parseFlag), rootOnly: [parseFlag(VERSION_FLAGS)] };
}

const names = (f: Flag) => [f.long, f.short].filter((n): n is string => !!n);

/** POSIX single quotes (bash and zsh). */
const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** fish single quotes: only \ and ' are special. */
const fq = (s: string) => `'${s.replace(/[\\']/g, (c) => `\\${c}`)}'`;

const HEADER = (shell: Shell, install: string[]) =>
  [
    `# ${shell} completion for carrental.`,
    `# Generated by \`carrental completion ${shell}\` from the command tree; do not edit (run \`npm run completions\`).`,
    ...install.map((l) => `# ${l}`),
    '',
  ].join('\n');

export function generateCompletion(shell: Shell): string {
  const model = buildModel();
  if (shell === 'bash') return bash(model);
  if (shell === 'zsh') return zsh(model);
  return fish(model);
}

type Model = ReturnType<typeof buildModel>;

/** Flags that take a value, per node, for the shell's walk over the line (POSIX `case` arms). */
function valueFlagCases(model: Model, indent: string): string {
  const lines = [`${indent}case "$2" in`];
  const globalValued = model.globals.filter((f) => f.takesValue).flatMap(names);
  lines.push(`${indent}  ${globalValued.join('|')}) return 0 ;;`, `${indent}esac`, `${indent}case "$1" in`);
  for (const node of model.nodes) {
    const valued = node.flags.filter((f) => f.takesValue).flatMap(names);
    if (valued.length) lines.push(`${indent}  ${sq(node.path)}) case "$2" in ${valued.join('|')}) return 0 ;; esac ;;`);
  }
  lines.push(`${indent}esac`, `${indent}return 1`);
  return lines.join('\n');
}

// ---------------------------------------------------------------------------- bash

function bash(model: Model): string {
  const bashValues = (v: Values): string | undefined => {
    switch (v.kind) {
      case 'words':
        return `COMPREPLY=($(compgen -W ${sq(v.words.join(' '))} -- "$cur"))`;
      case 'dynamic':
        return `__carrental_dynamic ${v.source}`;
      case 'file':
        return '__carrental_files';
      default:
        return undefined;
    }
  };
  const subcommands = model.nodes
    .filter((n) => n.subcommands.length)
    .map((n) => `    ${sq(n.path)}) echo ${sq(n.subcommands.map((s) => s.name).join(' '))} ;;`);
  const globalFlags = [...model.globals.flatMap(names)].join(' ');
  const options = model.nodes.map((n) => {
    const own = [...n.flags.flatMap(names), ...(n.path === 'carrental' ? model.rootOnly.flatMap(names) : [])];
    return `    ${sq(n.path)}) echo ${sq(own.join(' '))} ;;`;
  });
  const valueArms: string[] = [];
  for (const f of model.globals) {
    const action = bashValues(f.values);
    if (f.takesValue && action) valueArms.push(`    *' '${names(f).join(`|*' '`)}) ${action} ;;`);
  }
  for (const n of model.nodes) {
    for (const f of n.flags) {
      const action = bashValues(f.values);
      if (f.takesValue && action) valueArms.push(`    ${names(f).map((x) => sq(`${n.path} ${x}`)).join('|')}) ${action} ;;`);
    }
  }
  const argArms: string[] = [];
  for (const n of model.nodes) {
    n.args.forEach((v, i) => {
      const action = bashValues(v);
      if (action) argArms.push(`    ${sq(`${n.path} ${i}`)}) ${action} ;;`);
    });
  }
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

// ---------------------------------------------------------------------------- zsh

function zsh(model: Model): string {
  const zshValues = (v: Values): string | undefined => {
    switch (v.kind) {
      case 'words':
        return `compadd -- ${v.words.map(sq).join(' ')}`;
      case 'dynamic':
        return `__carrental_dynamic ${v.source}`;
      case 'file':
        return '_files';
      default:
        return undefined;
    }
  };
  const described = (items: Array<{ name: string; description: string }>) =>
    items.map((i) => sq(`${i.name.replace(/:/g, '\\:')}:${i.description}`)).join(' ');
  const flagItems = (flags: Flag[]) => flags.flatMap((f) => names(f).map((n) => ({ name: n, description: f.description })));
  const subcommands = model.nodes
    .filter((n) => n.subcommands.length)
    .map((n) => `    ${sq(n.path)}) reply=(${described(n.subcommands)}) ;;`);
  const options = model.nodes.map((n) => {
    const own = [...n.flags, ...(n.path === 'carrental' ? model.rootOnly : [])];
    return `    ${sq(n.path)}) reply=(${described(flagItems(own))}) ;;`;
  });
  const valueArms: string[] = [];
  for (const f of model.globals) {
    const action = zshValues(f.values);
    if (f.takesValue && action) valueArms.push(`    *' '${names(f).join(`|*' '`)}) ${action} ;;`);
  }
  for (const n of model.nodes) {
    for (const f of n.flags) {
      const action = zshValues(f.values);
      if (f.takesValue && action) valueArms.push(`    ${names(f).map((x) => sq(`${n.path} ${x}`)).join('|')}) ${action} ;;`);
    }
  }
  const argArms: string[] = [];
  for (const n of model.nodes) {
    n.args.forEach((v, i) => {
      const action = zshValues(v);
      if (action) argArms.push(`    ${sq(`${n.path} ${i}`)}) ${action} ;;`);
    });
  }
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

// ---------------------------------------------------------------------------- fish

function fish(model: Model): string {
  const fishValues = (v: Values): string => {
    switch (v.kind) {
      case 'words':
        return ` -a ${fq(v.words.join(' '))}`;
      case 'dynamic':
        return ` -a ${fq(`(__carrental_dynamic ${v.source})`)}`;
      default:
        return '';
    }
  };
  const flagLine = (f: Flag, condition?: string) => {
    let line = 'complete -c carrental';
    if (condition) line += ` -n ${fq(condition)}`;
    if (f.short) line += ` -s ${f.short.slice(1)}`;
    if (f.long) line += ` -l ${f.long.slice(2)}`;
    if (f.takesValue) line += f.values.kind === 'file' ? ' -r -F' : ' -x';
    line += fishValues(f.values);
    return `${line} -d ${fq(f.description)}`;
  };
  const subcommandCases = model.nodes
    .filter((n) => n.subcommands.length)
    .map((n) => `        case ${fq(n.path)}\n            printf '%s\\n' ${n.subcommands.map((s) => fq(s.name)).join(' ')}`);
  const globalValued = model.globals.filter((f) => f.takesValue).flatMap(names);
  const valueCases = model.nodes
    .filter((n) => n.flags.some((f) => f.takesValue))
    .map((n) => `        case ${fq(n.path)}\n            printf '%s\\n' ${n.flags.filter((f) => f.takesValue).flatMap(names).join(' ')}`);

  const lines: string[] = [];
  lines.push('# global options');
  for (const f of model.globals) lines.push(flagLine(f));
  for (const f of model.rootOnly) lines.push(flagLine(f, '__carrental_at carrental'));
  for (const n of model.nodes) {
    lines.push('', `# ${n.path}`);
    for (const s of n.subcommands) {
      lines.push(`complete -c carrental -n ${fq(`__carrental_arg ${fq(n.path)} 0`)} -a ${fq(s.name)} -d ${fq(s.description)}`);
    }
    for (const f of n.flags) lines.push(flagLine(f, `__carrental_at ${fq(n.path)}`));
    n.args.forEach((v, i) => {
      if (v.kind === 'none') return;
      if (v.kind === 'file') lines.push(`complete -c carrental -n ${fq(`__carrental_arg ${fq(n.path)} ${i}`)} -F`);
      else lines.push(`complete -c carrental -n ${fq(`__carrental_arg ${fq(n.path)} ${i}`)}${fishValues(v)}`);
    });
  }

  return `${HEADER('fish', [
    'Install (see docs/completion.md):',
    '  mkdir -p ~/.config/fish/completions',
    '  carrental completion fish > ~/.config/fish/completions/carrental.fish',
  ])}
function __carrental_subcommands --argument-names path
    switch $path
${subcommandCases.join('\n')}
    end
end

function __carrental_value_flags --argument-names path
    printf '%s\\n' ${globalValued.join(' ')}
    switch $path
${valueCases.join('\n')}
    end
end

# The command path, the number of positional arguments so far, the first of them ("-" for
# none: an empty element would vanish from the list) and the global flags to forward, one
# per line; cached for the current line since every condition asks for it.
function __carrental_walk
    set -l line (commandline -pc)
    if test "$line" = "$__carrental_walk_line"
        printf '%s\\n' $__carrental_walk_state
        return
    end
    set -l tokens (commandline -opc)
    set -l cmd_path carrental
    set -l nargs 0
    set -l arg0 -
    set -l fwd
    set -l pending
    for w in $tokens[2..-1]
        if test -n "$pending"
            contains -- $pending --profile --base-url; and set -a fwd $pending $w
            set pending
            continue
        end
        switch $w
            case '--profile=*' '--base-url=*' --sandbox
                set -a fwd $w
            case '-*=*'
            case '-*'
                contains -- $w (__carrental_value_flags $cmd_path); and set pending $w
            case '*'
                if test $nargs -eq 0; and contains -- $w (__carrental_subcommands $cmd_path)
                    set cmd_path "$cmd_path $w"
                else
                    test $nargs -eq 0; and set arg0 $w
                    set nargs (math $nargs + 1)
                end
        end
    end
    set -g __carrental_walk_line $line
    set -g __carrental_walk_state $cmd_path $nargs $arg0 $fwd
    printf '%s\\n' $__carrental_walk_state
end

function __carrental_at --argument-names path
    set -l state (__carrental_walk)
    test "$state[1]" = "$path"
end

function __carrental_arg --argument-names path index
    set -l state (__carrental_walk)
    test "$state[1]" = "$path"; and test "$state[2]" = "$index"
end

# Asks the CLI itself (never prompts, gives up fast, prints nothing on failure); its
# \`value<TAB>description\` lines are what fish expects from a completion.
function __carrental_dynamic --argument-names kind
    set -l state (__carrental_walk)
    set -l cmd (commandline -opc)[1]
    set -l arg0
    test "$state[3]" != -; and set arg0 $state[3]
    command $cmd __complete $kind --no-input $state[4..-1] $arg0 2>/dev/null
end

complete -c carrental -f
${lines.join('\n')}
`;
}
