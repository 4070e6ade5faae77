// Issue 36, one wording for one thing: an error does not repeat its title; quote and
// reserve title the same quote alike and say "a quote holds nothing" one way; a pipe gets a
// plain value in every column of `status`; a cancellation's deposit line cannot be read as
// contradicting the "$250 due" that `trips` showed before it.
import { describe, expect, it } from 'vitest';
import { CliError, formatErrorLine } from '../../src/errors.js';
import { ERROR_CATALOG } from '../../src/sandbox/errors.js';
import { renderCancellationMoney } from '../../src/render/cancellation.js';
import { Output } from '../../src/render/output.js';
import { FakeOut, runCommand, type TestHome } from '../helpers/cli.js';
import { sandboxPerTest, TestSandbox } from '../helpers/sandbox-admin.js';
import { PassThrough } from 'node:stream';

let sb: TestSandbox;
let home: TestHome;
sandboxPerTest(
  (s) => (sb = s),
  (h) => (home = h),
);
const day = (ahead: number) => `${new Date(Date.now() + ahead * 86_400_000).toISOString().slice(0, 10)}T10:00`;
const FROM = day(60);
const TO = day(63);
const cli = (args: string[], tty = false) => runCommand(['--base-url', sb.baseUrl, ...args], { env: home.env({ NO_COLOR: '1', CARRENTAL_API_KEY: sb.keys.booking_write }), tty });

async function freeCar(): Promise<string> {
  const r = await cli(['cars', '--city', 'la', '--from', FROM, '--to', TO, '--json', 'car_alias,is_available', '--limit', '50']);
  return (JSON.parse(r.stdout) as { cars: Array<{ car_alias: string; is_available: boolean }> }).cars.find((c) => c.is_available)!.car_alias;
}

describe('an error says its title once', () => {
  it('a description that only rewords the title is left out', () => {
    const err = new CliError('conflict', 'Car not available for these dates', { api: { status: 409, error_code: 'car_not_available', description: 'The car is not available for these dates' } as never });
    expect(formatErrorLine(err)).toBe('error: Car not available for these dates (car_not_available)');
  });

  it('every title of the catalog, described by itself with a "the … is", is said once', () => {
    for (const [code, { status, error }] of Object.entries(ERROR_CATALOG)) {
      const reworded = `The ${error.charAt(0).toLowerCase()}${error.slice(1)}.`;
      const line = formatErrorLine(new CliError('api', error, { api: { status, error_code: code, description: reworded } as never }));
      expect(line, code).toBe(`error: ${error} (${code})`);
    }
  });

  it('a description that says more is still shown', () => {
    const err = new CliError('not_found', 'Car not found', { api: { status: 404, error_code: 'car_not_found', description: 'No car with alias x' } as never });
    expect(formatErrorLine(err)).toBe('error: Car not found: No car with alias x (car_not_found)');
  });
});

describe('quote and reserve say the same of a quote', () => {
  it('the same title and the same caveat', async () => {
    const alias = await freeCar();
    const quoted = await cli(['quote', alias, '--from', FROM, '--to', TO], true);
    const reserved = await cli(['reserve', alias, '--from', FROM, '--to', TO, '-y'], true);
    expect(reserved.code, reserved.stderr).toBe(0);
    const title = (text: string) => text.split('\n').find((l) => l.startsWith('Quote for'));
    expect(title(quoted.stdout)).toMatch(new RegExp(`^Quote for .+ \\(${alias}\\)$`));
    expect(title(reserved.stderr)).toBe(title(quoted.stdout));
    const caveat = (text: string) => text.split('\n').find((l) => /quote holds|reserves nothing|holds neither/.test(l));
    expect(caveat(quoted.stderr)).toBeDefined();
    expect(caveat(reserved.stderr)).toBe(caveat(quoted.stderr));
  });
});

describe('a pipe gets plain values', () => {
  it('status: the amount in a column of its own, a plain number; no $ in the words', async () => {
    await sb.admin('POST', '/reset');
    const r = await cli(['status']);
    const lines = r.stdout.replace(/\n$/, '').split('\n').map((l) => l.split('\t'));
    expect(lines.length).toBeGreaterThan(0);
    for (const f of lines) {
      expect(f).toHaveLength(6);
      expect(f[3], f.join(' | ')).not.toMatch(/\$|\d+\.\d\d/);
      expect(f[4]).toMatch(/^(?:-?\d+\.\d{2})?$/);
    }
    expect(lines.some((f) => f[3] === 'to pay' && /^\d+\.\d{2}$/.test(f[4]))).toBe(true);
  });
});

describe('a cancellation, read after the amounts shown before', () => {
  it('a deposit that was due and never held: nothing released, and no longer owed', () => {
    const stdout = new FakeOut(true);
    const stderr = new FakeOut(true);
    const stdin = new PassThrough() as never;
    const out = new Output({ io: { stdin, stdout, stderr }, globals: { json: false, color: false, wide: false, accessible: false } });
    const deposit = { id: '9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d', created_at: '2027-02-20T09:30', currency: 'USD', type: 'DEPOSIT', amount: 25000, billing_status: 'CANCELLED', line_items: [] };
    const trip = { uuid: '00000000-0000-4000-8000-000000000000', financial_summary: { currency: 'USD', trip_total_cents: 0, deposit_cents: 25000 }, invoices: [deposit] };
    renderCancellationMoney(out, trip as never, { status: 'cancelled', hold_release: { status: 'not_required' }, refund_review: { status: 'not_required' }, refunds: [] });
    const text = (stdout.text() + stderr.text()).replace(/\s+/g, ' ');
    expect(text).toMatch(/deposit \$250\.00, never held on the card: nothing to release, and no longer owed/);
    expect(text).not.toMatch(/not_required/);
  });
});
