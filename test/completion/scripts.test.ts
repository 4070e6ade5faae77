// The completion scripts: `carrental completion <shell>` prints them, completions/ holds the
// same text (shipped in the package), and they are generated from the command tree, so
// every visible command, flag and enum value is in every script and nothing hidden is.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BODY_TYPES, CITIES, MILEAGE_TYPES, ORDER_BY, PAYMENT_TYPES, PROTECTION_PLANS } from '../../src/api/enums.js';
import { OPERATIONS } from '../../src/api/operations.js';
import { COMMANDS, type CommandSpec } from '../../src/cmdkit/command-specs.js';
import { GLOBAL_OPTIONS } from '../../src/cmdkit/global-options.js';
import { runCommand } from '../helpers/cli.js';

const FILES = { bash: 'completions/carrental.bash', zsh: 'completions/_carrental', fish: 'completions/carrental.fish' } as const;
const SHELLS = Object.keys(FILES) as Array<keyof typeof FILES>;

function walk(specs: CommandSpec[]): CommandSpec[] {
  return specs.flatMap((s) => [s, ...walk(s.subcommands ?? [])]);
}

const longFlags = (flags: string) => flags.split(/[ ,]+/).filter((p) => p.startsWith('--'));

describe.each(SHELLS)('completion %s', (shell) => {
  it('prints exactly the checked-in file (run `npm run completions` after changing the command tree)', async () => {
    const r = await runCommand(['completion', shell]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(readFileSync(FILES[shell], 'utf8'));
  });

  it('is valid syntax for the shell', () => {
    const check: Record<typeof shell, [string, string[]]> = {
      bash: ['bash', ['-n', FILES.bash]],
      zsh: ['zsh', ['-n', FILES.zsh]],
      fish: ['fish', ['--no-execute', FILES.fish]],
    };
    const [cmd, args] = check[shell];
    expect(() => execFileSync(cmd, args, { stdio: 'pipe' })).not.toThrow();
  });

  it('covers every visible command, flag and enum value, and nothing hidden', async () => {
    const script = (await runCommand(['completion', shell])).stdout;
    const all = walk(COMMANDS);
    for (const spec of all.filter((s) => !s.hidden)) expect(script).toContain(spec.name);
    for (const opt of [...GLOBAL_OPTIONS, ...all.filter((s) => !s.hidden).flatMap((s) => s.options ?? [])]) {
      for (const flag of longFlags(opt.flags)) {
        if (opt.hidden) expect(script).not.toMatch(new RegExp(`${flag}\\b|-l ${flag.slice(2)}\\b`));
        else expect(script).toMatch(new RegExp(`${flag}\\b|-l ${flag.slice(2)}\\b`));
      }
    }
    for (const value of [...CITIES, ...BODY_TYPES, ...ORDER_BY, ...PROTECTION_PLANS, ...MILEAGE_TYPES, ...PAYMENT_TYPES, 'bash', 'zsh', 'fish']) {
      expect(script).toContain(value);
    }
    for (const kind of ['cars', 'reservations', 'cancellable', 'payable', 'invoices', 'extras', 'profiles']) expect(script).toContain(`__carrental_dynamic ${kind}`);
    // doctor --require completes from the operation ids, written into the script
    for (const op of OPERATIONS) expect(script).toContain(op.id);
    expect(script).toContain('__complete');
    // the hidden command is called by the script, never offered as a candidate
    expect(script).not.toMatch(/'__complete'|\b__complete:|-a __complete/);
  });
});

it('an unknown shell is a usage error', async () => {
  const r = await runCommand(['completion', 'powershell']);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toContain('unknown shell "powershell" (supported: bash, zsh, fish)');
});
