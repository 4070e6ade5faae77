// The start-up shortcut in buildProgram: only the command the arguments name is built in
// full, the others are outlines. Help, the command list and suggestions must not change.
import { describe, expect, it } from 'vitest';
import { COMMANDS, type CommandSpec } from '../../src/cli/commands.js';
import type { IO } from '../../src/cli/context.js';
import { commandNamed } from '../../src/cli/argv.js';
import { buildProgram } from '../../src/cli/program.js';
import { FakeOut } from '../helpers/cli.js';

describe('commandNamed', () => {
  it.each([
    [['cars', '--city', 'la'], 'cars'],
    [['--profile', 'ci', '--timeout', '5', 'quote', 'x'], 'quote'],
    [['--profile=ci', '--json', '-y', 'auth', 'login'], 'auth'],
    [['--base-url', 'cars', 'car', 'x'], 'car'],
    [['help', 'trips'], 'trips'],
    [['help'], 'help'],
    [['--help'], undefined],
    [[], undefined],
    [['--', 'cars'], 'cars'],
  ])('%j -> %s', (argv, name) => {
    expect(commandNamed(argv)).toBe(name);
  });
});

function helpOf(path: string[], partial: boolean): string {
  const out = new FakeOut(false);
  const io = { stdin: process.stdin, stdout: out, stderr: out } as IO;
  const argv = [...path, '--help'];
  const { program } = buildProgram(io, async () => 0, partial ? argv : undefined);
  let cmd = program;
  for (const name of path) cmd = cmd.commands.find((c) => c.name() === name)!;
  return cmd.helpInformation();
}

function paths(specs: CommandSpec[], parent: string[] = []): string[][] {
  return specs.flatMap((s) => [[...parent, s.name], ...paths(s.subcommands ?? [], [...parent, s.name])]);
}

describe('an outlined tree', () => {
  it('gives the same root help as the full tree', () => {
    expect(helpOf([], true)).toBe(helpOf([], false));
  });

  it.each(paths(COMMANDS).map((p) => [p.join(' '), p] as const))('gives the same help for %s', (_name, path) => {
    expect(helpOf(path, true)).toBe(helpOf(path, false));
  });

  it('builds only the named command in full', () => {
    const out = new FakeOut(false);
    const { program } = buildProgram({ stdin: process.stdin, stdout: out, stderr: out } as IO, async () => 0, ['cars', '--json']);
    const cars = program.commands.find((c) => c.name() === 'cars')!;
    const quote = program.commands.find((c) => c.name() === 'quote')!;
    expect(cars.options.length).toBe(COMMANDS.find((c) => c.name === 'cars')!.options!.length);
    expect(quote.options.length).toBe(1);
  });
});
