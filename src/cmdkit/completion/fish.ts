// The fish completion script, emitted from the completion model (model.ts).
import { type Flag, fq, HEADER, type Model, names, type Values } from './model.js';

export function fish(model: Model): string {
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
  const subcommandCases = model.branches.map((n) => `        case ${fq(n.path)}\n            printf '%s\\n' ${n.subcommands.map((s) => fq(s.name)).join(' ')}`);
  const globalValued = model.globalValueFlags.flatMap(names);
  const valueCases = model.nodes
    .filter((n) => n.valueFlags.length)
    .map((n) => `        case ${fq(n.path)}\n            printf '%s\\n' ${n.valueFlags.flatMap(names).join(' ')}`);

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
