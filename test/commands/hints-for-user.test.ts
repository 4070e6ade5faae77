// Issue 36: what we tell a sandbox user to run next names `--sandbox` (and a profile user
// `--profile <name>`), so a hint copied as printed reaches the same API; a user of a real
// API gets the commands as they are. First every hint the CLI can word (each error code of
// the catalog on each operation, each status, each transport failure, each journaled
// write), both ways; then real commands on the embedded sandbox and on a served one.
import { describe, expect, it } from 'vitest';
import { forUserError, hintFor } from '../../src/cmdkit/hints.js';
import { CliError, type TransportFailure } from '../../src/errors.js';
import { OPERATIONS } from '../../src/api/operations.js';
import { ERROR_CATALOG } from '../../src/sandbox/errors.js';
import { forUser, userPrefix } from '../../src/render/for-user.js';
import { runCommand } from '../helpers/cli.js';
import { sandboxPerTest, TestSandbox } from '../helpers/sandbox-admin.js';
import type { TestHome } from '../helpers/cli.js';

/** Every backticked `carrental …` in a text, as written. */
const commandsIn = (text: string) => [...text.matchAll(/`(carrental\b[^`]*)`/g)].map((m) => m[1]);
/** Commands that take no --sandbox or --profile: the sandbox's own, help, completion. */
const unspelt = (command: string) => /^carrental (?:sandbox|help|completion)\b/.test(command);

const TRANSPORT: TransportFailure[] = [
  { kind: 'no_key' },
  { kind: 'key_over_http' },
  { kind: 'timeout' },
  { kind: 'unreachable' },
  { kind: 'proxy', setting: 'HTTPS_PROXY' },
  { kind: 'tls', reason: 'untrusted' },
  { kind: 'tls', reason: 'wrong_host' },
  { kind: 'redirect', why: 'too_many', location: 'https://x/v1', origin: 'https://x' },
  { kind: 'redirect', why: 'other_origin', location: 'https://y/v1', origin: 'https://x', baseUrlToConfigure: 'https://y/v1' },
  { kind: 'too_large', capBytes: 1 },
  { kind: 'malformed', why: 'schema' },
];

/** Every error the hints module words, as the CLI meets it. */
function everyError(): CliError[] {
  const errors: CliError[] = [];
  const statuses = Object.entries(ERROR_CATALOG).map(([code, e]) => [code, e.status] as [string | undefined, number]);
  statuses.push([undefined, 401], [undefined, 404], [undefined, 405], [undefined, 429], [undefined, 503]);
  for (const [code, status] of statuses) {
    for (const op of OPERATIONS) {
      for (const typed of [false, true]) {
        errors.push(new CliError('api', 'x', { api: { status, error_code: code, description: 'see https://app.example/settings', request: { operation: op.id, typed } } as never }));
      }
    }
  }
  for (const transport of TRANSPORT) errors.push(new CliError('unavailable', 'x', { transport }));
  errors.push(new CliError('unavailable', 'x', { journalKey: 'k'.repeat(32) }));
  return errors;
}

describe('every hint, both ways', () => {
  const errors = everyError();
  const hinted = errors.filter((e) => hintFor(e) !== undefined);

  it('walks a real set of hints that name commands', () => {
    expect(hinted.length).toBeGreaterThan(100);
    expect(hinted.filter((e) => commandsIn(hintFor(e)!).length > 0).length).toBeGreaterThan(40);
  });

  it('on the sandbox, every command a hint names carries --sandbox', () => {
    for (const err of hinted) {
      for (const command of commandsIn(hintFor(forUserError(err, 'carrental --sandbox'))!)) {
        if (!unspelt(command)) expect(command, hintFor(err)).toMatch(/^carrental --sandbox\b/);
      }
    }
  });

  it('on a profile, every command carries --profile; on the default one, the hint is as worded', () => {
    for (const err of hinted) {
      const spelt = hintFor(forUserError(err, 'carrental --profile ci'))!;
      for (const command of commandsIn(spelt)) if (!unspelt(command)) expect(command).toMatch(/^carrental (?:--profile ci|--sandbox)\b/);
      expect(forUser(hintFor(err)!, 'carrental')).toBe(hintFor(err));
    }
  });

  it('the prefix is the user’s: --sandbox, --profile, both, or none', () => {
    expect(userPrefix({ sandbox: true, profile: 'default' })).toBe('carrental --sandbox');
    expect(userPrefix({ sandbox: false, profile: 'ci' })).toBe('carrental --profile ci');
    expect(userPrefix({ sandbox: true, profile: 'ci' })).toBe('carrental --sandbox --profile ci');
    expect(userPrefix({ sandbox: false, profile: 'default' })).toBe('carrental');
    expect(forUser('try `carrental --sandbox cars`, `carrental sandbox serve` or `carrental trips`', 'carrental --sandbox')).toBe(
      'try `carrental --sandbox cars`, `carrental sandbox serve` or `carrental --sandbox trips`',
    );
  });
});

let sb: TestSandbox;
let home: TestHome;
sandboxPerTest(
  (s) => (sb = s),
  (h) => (home = h),
);

const day = (ahead: number) => `${new Date(Date.now() + ahead * 86_400_000).toISOString().slice(0, 10)}T10:00`;
const FROM = day(40);
const TO = day(43);
const U = '0b0e3f7e-4c1a-4d2b-9a55-2f1f6c1d9e10';

/** A journey that meets the usual hints and notes: a booked car quoted again, unknown ids, a cancel twice. */
async function journey(where: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const run = (...args: string[]) => runCommand([...where, ...args], { env });
  const cars = await run('cars', '--city', 'la', '--from', FROM, '--to', TO, '--json', 'car_alias,is_available', '--limit', '50');
  const alias = (JSON.parse(cars.stdout) as { cars: Array<{ car_alias: string; is_available: boolean }> }).cars.find((c) => c.is_available)!.car_alias;
  const said: string[] = [];
  const made = await run('reserve', alias, '--from', FROM, '--to', TO, '-y');
  expect(made.code, made.stderr).toBe(0);
  const uuid = made.stdout.trim();
  said.push(made.stderr);
  for (const args of [
    ['quote', alias, '--from', FROM, '--to', TO],
    ['reserve', alias, '--from', FROM, '--to', TO, '-y', '--new'],
    ['car', 'no-such-car'],
    ['trips', U],
    ['invoice', U],
    ['pay-link', uuid],
    ['status'],
    ['cancel', uuid, '-y'],
    ['cancel', uuid, '-y'],
    ['quote', 'no-such-car', '--from', FROM, '--to', TO],
  ]) {
    const r = await run(...args);
    said.push(r.stderr, r.stdout);
  }
  return said.join('\n');
}

describe('real commands', () => {
  it('on the embedded sandbox (--sandbox), every command named in a hint, note or caveat has --sandbox', async () => {
    const text = await journey(['--sandbox'], home.env({ NO_COLOR: '1' }));
    const named = commandsIn(text).filter((c) => !unspelt(c));
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((c) => !c.startsWith('carrental --sandbox'))).toEqual([]);
  }, 60_000);

  it('on a served API (--base-url), none has --sandbox', async () => {
    const text = await journey(['--base-url', sb.baseUrl], home.env({ NO_COLOR: '1', CARRENTAL_API_KEY: sb.keys.booking_write }));
    const named = commandsIn(text).filter((c) => !unspelt(c));
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((c) => c.includes('--sandbox'))).toEqual([]);
  }, 60_000);
});

describe("the sandbox's own pages", () => {
  it('name commands with --sandbox (the done page after a payment, the key settings)', async () => {
    const { readFileSync } = await import('node:fs');
    for (const page of ['core.ts', 'settings.ts']) {
      const text = readFileSync(new URL(`../../src/sandbox/pages/${page}`, import.meta.url), 'utf8');
      const named = [...text.matchAll(/<code>(carrental [^<]*)<\/code>/g)].map((m) => m[1]);
      expect(named.length, page).toBeGreaterThan(0);
      for (const command of named) expect(command).toMatch(/^carrental --sandbox /);
    }
  });
});
