// `--help` without commander. Help is what people type most after --version, and loading
// and compiling commander costs more than the ~30% of a bare `node -e 0` that start-up may
// add. This lays out the help of a command from the command tree (commands.ts) exactly as
// commander's Help does with carrental's settings (global options shown, commands in tree
// order, text wrapped to the terminal or to 80 columns); test/unit/help-text.test.ts
// compares the two for every command at many widths, so a commander upgrade that changes
// its layout fails there. Anything that is not a plain help request goes to commander.
import { COMMANDS, type ArgSpec, type CommandSpec, type OptionSpec } from '../cmdkit/command-specs.js';
import { GLOBAL_OPTIONS, HELP_FLAGS, VERSION_FLAGS } from '../cmdkit/global-options.js';
import { HELP_TOPICS } from '../cmdkit/help-topics.js';

export const PROGRAM_DESCRIPTION = 'Command-line client for the car-rental customer and agent API';

/**
 * The last lines of `carrental --help`, for an AI agent reading it (shown to everyone: the
 * help path detects nothing, and an agent no variable reveals needs it most).
 */
export const AGENT_NOTE =
  'For AI agents and scripts: --json (or --json fields, --jq) prints machine-readable\n' +
  'output, --no-input never waits for a prompt, and `carrental mcp` serves the same\n' +
  'operations as MCP tools.\n';

const EXIT_CODES = 'Exit codes: 0 ok, 1 API error, 2 usage, 3 auth, 4 not found, 5 conflict, 6 unavailable (safe to rerun), 7 output failed after a booking, 130 interrupted.';

/**
 * The text after the program's help, for a terminal `width` wide: the prose folded to it
 * (below 80 columns the agent note too); the examples are commands, kept whole to be copied.
 */
export function rootHelpAfter(width: number): string {
  const note = width >= 80 ? AGENT_NOTE : `${boxWrap(AGENT_NOTE.trimEnd().replace(/\n/g, ' '), width)}\n`;
  return `\nExamples:\n  $ carrental --sandbox cars --city la\n  $ carrental cars --city miami --from "tomorrow 10:00" --days 3 --jq '.cars[].car_alias'\n  $ carrental auth login\n\n${boxWrap(EXIT_CODES, width)}\n\nHelp topics (carrental help <topic>):\n${topicList(width)}\n${note}`;
}

function topicList(helpWidth: number): string {
  const width = Math.max(...HELP_TOPICS.map((t) => t.name.length));
  return HELP_TOPICS.map((t) => `${formatItem({ term: t.name, description: t.summary }, width, helpWidth)}\n`).join('');
}

/** The text commander adds after a command's help: its examples. */
export const examplesText = (spec: CommandSpec) => (spec.examples?.length ? `\nExamples:\n${spec.examples.map((e) => `  $ ${e}`).join('\n')}\n` : '');

const HELP_WORDS = new Set(['--help', '-h']);

/**
 * The command path a plain help request names: `--help`, `cars --help`, `auth login -h`,
 * `help`, `help quote`. Undefined for anything else (other flags, an unknown or hidden
 * command, an alias), which commander then handles.
 */
export function helpRequest(argv: readonly string[]): CommandSpec[] | undefined {
  let names: readonly string[];
  if (argv.length >= 1 && HELP_WORDS.has(argv[argv.length - 1])) names = argv.slice(0, -1);
  else if (argv[0] === 'help') names = argv.slice(1);
  else return undefined;
  const path: CommandSpec[] = [];
  let specs: CommandSpec[] = COMMANDS;
  for (const name of names) {
    const spec = specs.find((s) => s.name === name && !s.hidden);
    if (!spec) return undefined;
    path.push(spec);
    specs = spec.subcommands ?? [];
  }
  return path;
}

interface Item {
  term: string;
  description: string;
}

const MIN_WIDTH_TO_WRAP = 40;

/** commander's Help.boxWrap */
function boxWrap(text: string, width: number): string {
  if (width < MIN_WIDTH_TO_WRAP) return text;
  const out: string[] = [];
  for (const line of text.split(/\r\n|\n/)) {
    const chunks = line.match(/[\s]*[^\s]+/g);
    if (chunks === null) {
      out.push('');
      continue;
    }
    let sum = [chunks.shift()!];
    let sumWidth = sum[0].length;
    for (const chunk of chunks) {
      if (sumWidth + chunk.length <= width) {
        sum.push(chunk);
        sumWidth += chunk.length;
        continue;
      }
      out.push(sum.join(''));
      const next = chunk.trimStart();
      sum = [next];
      sumWidth = next.length;
    }
    out.push(sum.join(''));
  }
  return out.join('\n');
}

/** commander's Help.formatItem, but stacked (stackedItem) where commander would not wrap */
function formatItem(item: Item, termWidth: number, helpWidth: number): string {
  if (!item.description) return `  ${item.term}`;
  const stacked = stackedItem(item.term, termWidth, item.description, helpWidth);
  if (stacked !== undefined) return stacked;
  const remaining = helpWidth - termWidth - 4;
  const description =
    remaining < MIN_WIDTH_TO_WRAP || /\n[^\S\r\n]/.test(item.description)
      ? item.description
      : boxWrap(item.description, remaining).replace(/\n/g, `\n${' '.repeat(termWidth + 2)}`);
  return `  ${item.term.padEnd(termWidth)}  ${description.replace(/\n/g, '\n  ')}`;
}

const STACK_INDENT = 6;

/**
 * An option or command whose description would get fewer than 40 columns beside the terms
 * (a terminal under ~75 columns: commander then stops wrapping, and every line wraps in the
 * middle of a word): the term on its line, the description folded below it, indented.
 * Undefined when the description fits beside the terms, or is laid out by hand. program.ts
 * gives commander the same layout.
 */
export function stackedItem(term: string, termWidth: number, description: string, helpWidth: number): string | undefined {
  if (helpWidth - termWidth - 4 >= MIN_WIDTH_TO_WRAP || /\n[^\S\r\n]/.test(description)) return undefined;
  // narrower still (under 46 columns), commander's unwrapped layout, as it was
  if (helpWidth - STACK_INDENT < MIN_WIDTH_TO_WRAP) return undefined;
  const pad = ' '.repeat(STACK_INDENT);
  return `  ${term}\n${pad}${boxWrap(description, helpWidth - STACK_INDENT).replace(/\n/g, `\n${pad}`)}`;
}

const argName = (arg: ArgSpec) => arg.syntax.replace(/^[<[]|[>\]]$/g, '');

function optionItem(opt: Pick<OptionSpec, 'flags' | 'description' | 'choices'>): Item {
  const choices = opt.choices ? ` (choices: ${opt.choices.map((c) => JSON.stringify(c)).join(', ')})` : '';
  return { term: opt.flags, description: `${opt.description}${choices}` };
}

/** A command's line in its parent's list: `cars [options]`, `car <alias>`, `help [command]`. */
function commandItem(spec: CommandSpec): Item {
  const alias = spec.aliases?.[0] ? `|${spec.aliases[0]}` : '';
  const args = (spec.args ?? []).map((a) => a.syntax).join(' ');
  return { term: `${spec.name}${alias}${spec.options?.length ? ' [options]' : ''}${args ? ` ${args}` : ''}`, description: spec.description };
}

const HELP_COMMAND: Item = { term: 'help [command]', description: 'display help for command' };

/** The help of the command at `path` (empty: the program), as commander prints it. */
export function renderHelp(path: readonly CommandSpec[], helpWidth: number): string {
  const spec = path[path.length - 1];
  const names = ['carrental', ...path.map((s) => s.name)];
  const subcommands = (spec ? (spec.subcommands ?? []) : COMMANDS).filter((s) => !s.hidden);
  const args = spec?.args ?? [];

  const usage = ['[options]', ...(subcommands.length ? ['[command]'] : []), ...args.map((a) => a.syntax)].join(' ');
  const argumentItems: Item[] = args.some((a) => a.description) ? args.map((a) => ({ term: argName(a), description: a.description })) : [];
  const own = spec ? (spec.options ?? []) : [VERSION_FLAGS, ...GLOBAL_OPTIONS];
  const optionItems = [...own.filter((o) => !('hidden' in o && o.hidden)).map(optionItem), optionItem(HELP_FLAGS)];
  // every ancestor's options; only the program has any
  const globalItems = spec ? [VERSION_FLAGS, ...GLOBAL_OPTIONS].filter((o) => !('hidden' in o && o.hidden)).map(optionItem) : [];
  // commander adds `help [command]` to a command with subcommands but no action of its own
  // (the program has an action, the overview, and its own `help` command in the tree)
  const commandItems = [...subcommands.map(commandItem), ...(subcommands.length && spec && !spec.module ? [HELP_COMMAND] : [])];

  const termWidth = Math.max(0, ...[...argumentItems, ...optionItems, ...globalItems, ...commandItems].map((i) => i.term.length));
  const section = (heading: string, items: Item[]) => (items.length ? [heading, ...items.map((i) => formatItem(i, termWidth, helpWidth)), ''] : []);
  const description = spec ? spec.description : PROGRAM_DESCRIPTION;
  const lines = [
    `Usage: ${names.join(' ')} ${usage}`,
    '',
    ...(description ? [boxWrap(description, helpWidth), ''] : []),
    ...section('Arguments:', argumentItems),
    ...section('Options:', optionItems),
    ...section('Global Options:', globalItems),
    ...section('Commands:', commandItems),
  ];
  // commander writes text added after the help with a newline of its own
  const after = spec ? examplesText(spec) : rootHelpAfter(helpWidth);
  return `${lines.join('\n')}${after ? `${after}\n` : ''}`;
}
