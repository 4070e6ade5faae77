// Help is generated from the command tree: every command, subcommand included, must carry a
// description and an example, mistyped commands get a suggestion, and `carrental` alone is
// a short overview rather than a wall of options.
import { describe, expect, it } from 'vitest';
import { COMMANDS, type CommandSpec } from '../../src/cmdkit/command-specs.js';
import { runCommand } from '../helpers/cli.js';

function walk(specs: CommandSpec[], parent: string[] = []): Array<{ path: string[]; spec: CommandSpec }> {
  return specs.flatMap((spec) => [{ path: [...parent, spec.name], spec }, ...walk(spec.subcommands ?? [], [...parent, spec.name])]);
}

const all = walk(COMMANDS);

describe('every command has help with a description and an example', () => {
  it('walks the whole tree', () => {
    // a guard that the walk itself sees subcommands: auth login, config set, sandbox serve...
    expect(all.map((c) => c.path.join(' '))).toEqual(expect.arrayContaining(['cars', 'auth login', 'config set', 'pending clear', 'sandbox serve', 'completion']));
  });

  it.each(all.map((c) => [c.path.join(' '), c] as const))('%s --help', async (_name, { path, spec }) => {
    expect(spec.description.trim().length).toBeGreaterThan(5);
    expect(spec.examples?.length ?? 0).toBeGreaterThan(0);
    const r = await runCommand([...path, '--help']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(`Usage: carrental ${path.join(' ')}`);
    // commander wraps long descriptions to the terminal width
    expect(r.stdout.replace(/\s+/g, ' ')).toContain(spec.description);
    expect(r.stdout).toMatch(/\nExamples:\n {2}\$ carrental /);
    for (const example of spec.examples ?? []) {
      expect(example).toMatch(/(^|\s)carrental /);
      expect(r.stdout).toContain(`  $ ${example}`);
    }
  });

  it('`carrental help <command>` shows the same help', async () => {
    const viaFlag = await runCommand(['cars', '--help']);
    const viaCommand = await runCommand(['help', 'cars']);
    expect(viaCommand.code).toBe(0);
    expect(viaCommand.stdout).toBe(viaFlag.stdout);
  });

  it('the top-level help lists every visible command and hides the completion plumbing', async () => {
    const r = await runCommand(['--help']);
    expect(r.code).toBe(0);
    for (const spec of COMMANDS.filter((s) => !s.hidden)) expect(r.stdout).toMatch(new RegExp(`\\n  ${spec.name}\\b`));
    expect(r.stdout).not.toContain('__complete');
    expect(r.stdout).toContain('Exit codes:');
  });
});

describe('unknown commands', () => {
  it('suggests the nearest command', async () => {
    const r = await runCommand(['carz', '--city', 'la']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("error: unknown command 'carz'");
    expect(r.stderr).toMatch(/\(Did you mean (one of )?[a-z, -]*\bcars\b/);
  });

  it('suggests the nearest subcommand', async () => {
    const r = await runCommand(['auth', 'logn']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'logn'");
    expect(r.stderr).toContain('(Did you mean login?)');
  });

  it('never suggests the hidden completion command', async () => {
    const r = await runCommand(['__complet']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command '__complet'");
    expect(r.stderr).not.toContain('__complete');
  });

  it('an unknown option is a usage error too, before or after the command', async () => {
    for (const argv of [['cars', '--colour'], ['--colour', 'cars'], ['--colour']]) {
      const r = await runCommand(argv);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain("unknown option '--colour'");
    }
  });
});

describe('carrental with no command', () => {
  it('prints a short overview on stdout', async () => {
    const r = await runCommand([]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(20);
    expect(r.stdout).toContain('carrental --sandbox cars');
    expect(r.stdout).toContain('carrental --help');
    // an overview, not the full reference
    expect(r.stdout).not.toContain('Global Options:');
  });

  it('with only global flags, still the overview', async () => {
    const r = await runCommand(['--no-color']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('carrental --sandbox cars');
  });
});
