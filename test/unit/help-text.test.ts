// `--help` is answered without commander (src/cli/help-text.ts), so it must print what
// commander prints: compared here for the program and every command, at widths from a
// narrow terminal to a wide one, and for a pipe (80 columns).
import { describe, expect, it } from 'vitest';
import { COMMANDS, type CommandSpec } from '../../src/cmdkit/command-specs.js';
import type { IO } from '../../src/session/context.js';
import { helpRequest, renderHelp } from '../../src/cli/help-text.js';
import { buildProgram } from '../../src/cli/program.js';
import { FakeOut, runCommand } from '../helpers/cli.js';

function paths(specs: CommandSpec[], parent: CommandSpec[] = []): CommandSpec[][] {
  return specs.filter((s) => !s.hidden).flatMap((s) => [[...parent, s], ...paths(s.subcommands ?? [], [...parent, s])]);
}

/** What commander prints for `<path> --help` on a terminal `columns` wide. */
async function commanderHelp(path: CommandSpec[], columns: number): Promise<string> {
  const out = new FakeOut(true);
  out.columns = columns;
  const io = { stdin: process.stdin, stdout: out, stderr: out } as unknown as IO;
  const { program } = buildProgram(io, async () => 0);
  await program.parseAsync([...path.map((s) => s.name), '--help'], { from: 'user' }).catch((err: { code?: string }) => {
    if (err.code !== 'commander.helpDisplayed' && err.code !== 'commander.help') throw err;
  });
  return out.text();
}

const WIDTHS = [30, 40, 50, 64, 80, 100, 132, 200];

describe('help without commander', () => {
  it.each([[[] as CommandSpec[]], ...paths(COMMANDS).map((p) => [p])].map(([p]) => [['carrental', ...p.map((s) => s.name)].join(' '), p] as const))(
    '%s --help is what commander prints, at every width',
    async (_name, path) => {
      for (const width of WIDTHS) expect(renderHelp(path, width), `${width} columns`).toBe(await commanderHelp(path, width));
    },
  );

  it('at 60 and 74 columns no line is wider than the terminal but a command example: a description goes under its term', () => {
    for (const path of [[] as CommandSpec[], ...paths(COMMANDS)]) {
      for (const width of [60, 74]) {
        const text = renderHelp(path, width);
        const wide = text.split('\n').filter((l) => l.length > width && !l.startsWith('  $ '));
        expect(wide, `${['carrental', ...path.map((s) => s.name)].join(' ')} at ${width}`).toEqual([]);
      }
    }
    expect(renderHelp([], 60)).toMatch(/^ {2}--profile <name>\n {6}configuration profile/m);
    // wide enough for commander's own layout: unchanged
    expect(renderHelp([], 100)).toMatch(/^ {2}--profile <name> +configuration profile/m);
  });

  it('answers plain help requests only; anything else goes to commander', () => {
    const names = (argv: string[]) => helpRequest(argv)?.map((s) => s.name);
    expect(names(['--help'])).toEqual([]);
    expect(names(['-h'])).toEqual([]);
    expect(names(['help'])).toEqual([]);
    expect(names(['cars', '--help'])).toEqual(['cars']);
    expect(names(['help', 'quote'])).toEqual(['quote']);
    expect(names(['auth', 'login', '-h'])).toEqual(['auth', 'login']);
    expect(names(['help', 'auth', 'login'])).toEqual(['auth', 'login']);
    for (const argv of [[], ['cars'], ['--json', '--help'], ['carz', '--help'], ['help', 'carz'], ['__complete', '--help'], ['cars', '--city', 'la', '--help']]) {
      expect(helpRequest(argv), argv.join(' ')).toBeUndefined();
    }
  });

  it('through the CLI: the same text on stdout, exit 0', async () => {
    const viaShortcut = await runCommand(['help', 'reserve']);
    expect(viaShortcut.code).toBe(0);
    expect(viaShortcut.stderr).toBe('');
    const reserve = paths(COMMANDS).find((p) => p.length === 1 && p[0].name === 'reserve')!;
    // runCommand's stdout is not a terminal: 80 columns, as in a pipe
    expect(viaShortcut.stdout).toBe(renderHelp(reserve, 80));
    // a help request commander handles (a global flag before it) prints the same
    expect((await runCommand(['--json', 'reserve', '--help'])).stdout).toBe(viaShortcut.stdout);
  });
});
