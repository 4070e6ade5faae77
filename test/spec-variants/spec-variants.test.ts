// Every command against a server that nobody tuned the client to: its answers are derived
// from the spec's tables (spec-tables.ts) in each shape a conforming server may send
// (spec-server.ts). Each command runs in a pipe, on a terminal and with --json. None may
// crash, exit 1, or print a placeholder such as "undefined" where a value is missing.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCommand, TestHome, type RunResult } from '../helpers/cli.js';
import { CAR_ALIAS, INVOICE_UUID, ODD_URI, RESERVATION_UUID, startSpecServer, VARIANTS } from './spec-server.js';

const R = RESERVATION_UUID;
const FROM = '2027-03-01T10:00';
const TO = '2027-03-04T10:00';
const KEY = 'svc_specvariants0000000000000000000000';

interface Case {
  argv: string[];
  /** The exit code a correct client gives (0 unless the command waits and times out). */
  code?: number;
  /** No --json form (the command prints no data of its own). */
  noJson?: boolean;
  /** Fed to stdin. */
  stdin?: string;
}

const COMMANDS: Case[] = [
  { argv: ['cars'] },
  { argv: ['cars', '--city', 'la', '--from', FROM, '--to', TO] },
  { argv: ['cars', '--all'] },
  { argv: ['car', CAR_ALIAS] },
  { argv: ['quote', CAR_ALIAS, '--from', FROM, '--to', TO] },
  { argv: ['quote', CAR_ALIAS, '--from', FROM, '--to', TO, '--anonymous', '--protection', 'standard', '--mileage', 'unlimited', '--extra', 'child_seat', '--promo', 'WELCOME', '--delivery-address', '1 Main St'] },
  { argv: ['profile'] },
  { argv: ['verification'] },
  { argv: ['cards'] },
  { argv: ['card-link'] },
  { argv: ['trips'] },
  { argv: ['trips', R] },
  // nothing changes on this server: the watch ends at its timeout (exit 6), never on a parse
  { argv: ['trips', R, '--watch', '--watch-timeout', '6'], code: 6 },
  { argv: ['invoices', R] },
  { argv: ['invoice', INVOICE_UUID] },
  { argv: ['pay-link', R] },
  { argv: ['pay-link', R, '--type', 'deposit', '--wait', '--wait-timeout', '6'], code: 6 },
  { argv: ['extend-link', R] },
  { argv: ['extend-link', R, '--to', '2027-03-08T10:00'] },
  { argv: ['reserve', CAR_ALIAS, '--from', FROM, '--to', TO, '--yes'] },
  { argv: ['cancel', R, '--yes'] },
  { argv: ['auth', 'status'] },
  { argv: ['auth', 'login', '--with-key'], stdin: KEY },
  { argv: ['doctor'] },
  { argv: ['api', 'GET', '/cars'] },
];

let spec: Awaited<ReturnType<typeof startSpecServer>>;
let home: TestHome;
beforeAll(async () => {
  spec = await startSpecServer();
});
afterAll(() => spec.close());
beforeEach(() => {
  home = new TestHome();
});
afterEach(() => home.cleanup());

const run = (argv: string[], tty: boolean, stdin?: string): Promise<RunResult> =>
  runCommand(['--base-url', spec.baseUrl, ...argv], {
    tty,
    stdin,
    // auth login stores the key it reads: the environment's would take precedence
    env: home.env(stdin === undefined ? { CARRENTAL_API_KEY: KEY } : {}),
    // the server's moment (its UTC stamps are 2027-02-20): FROM stays ahead whatever day the suite runs
    now: () => new Date('2027-02-20T09:30:00Z'),
    // waits and watches advance at once
    sleep: async () => {},
  });

function expectSound(res: RunResult, c: Case, mode: string) {
  const where = `${c.argv.join(' ')} (${mode})\n--- stdout\n${res.stdout}\n--- stderr\n${res.stderr}`;
  expect(res.code, where).toBe(c.code ?? 0);
  expect(res.stderr, where).not.toMatch(/unexpected response|malformed response|TypeError|is not a function|Cannot read/);
  // a missing value is shown as missing, never as a JavaScript placeholder
  expect(res.stdout + res.stderr, where).not.toMatch(/undefined|NaN|\[object Object\]|Invalid Date/);
}

describe.each(VARIANTS)('a spec-conforming server sending %s', (variant) => {
  beforeEach(() => spec.use(variant));

  it.each(COMMANDS.map((c) => [c.argv.join(' '), c] as const))('%s: works in a pipe, on a terminal and with --json', async (_name, c) => {
    expectSound(await run(c.argv, false, c.stdin), c, 'pipe');
    expectSound(await run(c.argv, true, c.stdin), c, 'terminal');
    if (!c.noJson && c.argv[0] !== 'api') {
      const res = await run(['--json', ...c.argv], false, c.stdin);
      expectSound(res, c, '--json');
      if (res.code === 0 && res.stdout.trim()) expect(() => JSON.parse(res.stdout), res.stdout).not.toThrow();
    }
  });
});

describe('what the spec types as a URI (RFC 3986)', () => {
  it('prints an action link that WHATWG URL parsing would refuse, unchanged', async () => {
    spec.use('required-only');
    const res = await run(['card-link'], false);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.split('\n')).toContain(ODD_URI);
  });
});
