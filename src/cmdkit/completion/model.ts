// The completion model: the command tree (COMMANDS and GLOBAL_OPTIONS) read once into nodes,
// flags and value sources, plus the quoting and header every emitter (bash.ts, zsh.ts,
// fish.ts) shares.
import { OPERATIONS } from '../../api/operations.js';
import { COMMANDS, type ArgSpec, type CommandSpec, type OptionSpec } from '../command-specs.js';
import { GLOBAL_OPTIONS, HELP_FLAGS, VERSION_FLAGS } from '../global-options.js';
import type { Shell } from '../completion-gen.js';

/** `carrental __complete <kind>` sources. */
export type DynamicKind = 'cars' | 'reservations' | 'cancellable' | 'payable' | 'invoices' | 'extras' | 'profiles';

export type Values = { kind: 'none' } | { kind: 'words'; words: readonly string[] } | { kind: 'dynamic'; source: DynamicKind } | { kind: 'file' };

export interface Flag {
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
  /** `flags`, plus --version at the root: what the shells offer after a `-`. */
  ownFlags: Flag[];
  /** The flags of `flags` that take the next word: the line walk skips that word. */
  valueFlags: Flag[];
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

/** Where a value comes from: a word list, `carrental __complete`, or the file system. */
export type Source = Exclude<Values, { kind: 'none' }>;

/** A flag's value source, and the node it belongs to (none: a global flag). */
export interface ValueSource {
  path?: string;
  flag: Flag;
  values: Source;
}

/** A positional argument's value source: the node's path and the argument's index. */
export interface ArgSlot {
  path: string;
  index: number;
  values: Source;
}

/**
 * The tree read once, and every table the emitters switch on derived here once, so each
 * emitter maps tables to its shell's syntax instead of walking the tree again.
 */
export interface Model {
  nodes: Node[];
  globals: Flag[];
  /** Flags of the root alone (--version). */
  rootOnly: Flag[];
  /** Nodes with subcommands. */
  branches: Node[];
  /** Global flags that take the next word. */
  globalValueFlags: Flag[];
  /** Every flag with a value to complete, globals first, then per node in tree order. */
  valueSources: ValueSource[];
  /** Every positional argument with a value to complete, per node in tree order. */
  argSlots: ArgSlot[];
}

const hasValues = (v: Values): v is Source => v.kind !== 'none';

export function buildModel(): Model {
  const help = parseFlag(HELP_FLAGS);
  const rootOnly = [parseFlag(VERSION_FLAGS)];
  const globals = GLOBAL_OPTIONS.map(parseFlag);
  const nodes: Node[] = [];
  const node = (path: string, subcommands: CommandSpec[], flags: Flag[], args: Values[], extra: Flag[] = []): Node => ({
    path,
    subcommands: subcommands.map((s) => ({ name: s.name, description: s.description })),
    flags,
    args,
    ownFlags: [...flags, ...extra],
    valueFlags: flags.filter((f) => f.takesValue),
  });
  const add = (path: string, spec: CommandSpec) => {
    const subs = visible(spec.subcommands);
    nodes.push(node(path, subs, [...(spec.options ?? []).filter((o) => !o.hidden).map(parseFlag), help], (spec.args ?? []).map((a) => valuesOf(a.complete))));
    for (const sub of subs) add(`${path} ${sub.name}`, sub);
  };
  // `help [command|topic]` is a command of the tree like any other
  const top = visible(COMMANDS);
  nodes.push(node('carrental', top, [help], [], rootOnly));
  for (const spec of top) add(`carrental ${spec.name}`, spec);

  const valueSources: ValueSource[] = [];
  const argSlots: ArgSlot[] = [];
  for (const flag of globals) if (flag.takesValue && hasValues(flag.values)) valueSources.push({ flag, values: flag.values });
  for (const n of nodes) {
    for (const flag of n.valueFlags) if (hasValues(flag.values)) valueSources.push({ path: n.path, flag, values: flag.values });
    n.args.forEach((values, index) => {
      if (hasValues(values)) argSlots.push({ path: n.path, index, values });
    });
  }
  return {
    nodes,
    globals,
    rootOnly,
    branches: nodes.filter((n) => n.subcommands.length),
    globalValueFlags: globals.filter((f) => f.takesValue),
    valueSources,
    argSlots,
  };
}

export const names = (f: Flag) => [f.long, f.short].filter((n): n is string => !!n);

/** POSIX single quotes (bash and zsh). */
export const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** fish single quotes: only \ and ' are special. */
export const fq = (s: string) => `'${s.replace(/[\\']/g, (c) => `\\${c}`)}'`;

export const HEADER = (shell: Shell, install: string[]) =>
  [
    `# ${shell} completion for carrental.`,
    `# Generated by \`carrental completion ${shell}\` from the command tree; do not edit (run \`npm run completions\`).`,
    ...install.map((l) => `# ${l}`),
    '',
  ].join('\n');

/** Flags that take a value, per node, for the shell's walk over the line (POSIX `case` arms). */
export function valueFlagCases(model: Model, indent: string): string {
  const lines = [`${indent}case "$2" in`];
  lines.push(`${indent}  ${model.globalValueFlags.flatMap(names).join('|')}) return 0 ;;`, `${indent}esac`, `${indent}case "$1" in`);
  for (const node of model.nodes) {
    if (node.valueFlags.length) lines.push(`${indent}  ${sq(node.path)}) case "$2" in ${node.valueFlags.flatMap(names).join('|')}) return 0 ;; esac ;;`);
  }
  lines.push(`${indent}esac`, `${indent}return 1`);
  return lines.join('\n');
}
