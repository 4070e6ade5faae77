// Issue 36, one wording for one thing: after `cancel`, the outcome says what was owed for rent
// and whether it still is (and any cancellation fee), what was held for the deposit and what
// happens to it, and what was paid and what happens to it; read next to the "$250 due" that
// `trips` showed before, nothing in it contradicts those amounts. In a pipe each line is a
// label and one plain value.
import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { FakeOut, runCommand, type TestHome } from '../helpers/cli.js';
import { Output } from '../../src/render/output.js';
import { renderCancellationMoney } from '../../src/render/cancellation.js';
import { SANDBOX_NOW, sandboxPerTest, TestSandbox } from '../helpers/sandbox-admin.js';

let sb: TestSandbox;
let home: TestHome;
sandboxPerTest(
  (s) => (sb = s),
  (h) => (home = h),
);
// days from the sandbox's fixed clock: a late cancellation is one within 48 hours of its check-in
const day = (ahead: number) => `${new Date(SANDBOX_NOW.getTime() + ahead * 86_400_000).toISOString().slice(0, 10)}T10:00`;
const cli = (args: string[], tty = false) => runCommand(['--base-url', sb.baseUrl, ...args], { env: home.env({ NO_COLOR: '1', CARRENTAL_API_KEY: sb.keys.booking_write }), tty });

/** A new unpaid reservation from `ahead` days on, for three days; its uuid. */
async function reserve(ahead: number): Promise<string> {
  const [from, to] = [day(ahead), day(ahead + 3)];
  const cars = await cli(['cars', '--city', 'la', '--from', from, '--to', to, '--json', 'car_alias,is_available', '--limit', '50']);
  const alias = (JSON.parse(cars.stdout) as { cars: Array<{ car_alias: string; is_available: boolean }> }).cars.find((c) => c.is_available)!.car_alias;
  const r = await cli(['reserve', alias, '--from', from, '--to', to, '-y', '--json', 'uuid']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { uuid: string }).uuid;
}

async function pay(uuid: string, type: 'rent' | 'deposit'): Promise<void> {
  await sb.admin('POST', '/pay', { reservation_uuid: uuid, payment_type: type });
}

/** The outcome as a terminal shows it, stdout and stderr, on one line. */
async function cancelOnTerminal(uuid: string): Promise<string> {
  const r = await cli(['cancel', uuid, '-y'], true);
  expect(r.code, r.stderr).toBe(0);
  return (r.stdout + r.stderr).replace(/\s+/g, ' ');
}

const money = (text: string, label: string) => text.match(new RegExp(`${label}\\s+(\\$[\\d,]+\\.\\d\\d)`))?.[1];

describe('cancel says what was owed, held and paid, and what happens to each', () => {
  it('unpaid: the rent and the deposit that were due are no longer owed; nothing was held or paid', async () => {
    const uuid = await reserve(60);
    const text = await cancelOnTerminal(uuid);
    expect(text).toMatch(/rent owed \$[\d,]+\.\d\d, unpaid: no longer owed/);
    expect(text).toMatch(/cancellation fee none/);
    expect(text).toMatch(/deposit \$[\d,]+\.\d\d, never held on the card: nothing to release, and no longer owed/);
    expect(text).toMatch(/paid nothing was paid, so nothing is refunded/);
    // the API's one-word states are for pipes and --json, not read as a verdict on a terminal
    expect(text).not.toMatch(/not_required/);
  });

  it('rent paid: the paid rent is refunded, recorded and not yet confirmed, with the expected date', async () => {
    const uuid = await reserve(60);
    await pay(uuid, 'rent');
    const text = await cancelOnTerminal(uuid);
    expect(text).toMatch(/rent owed \$[\d,]+\.\d\d, paid/);
    const paid = money(text, 'paid');
    expect(paid).toBeDefined();
    expect(text).toMatch(new RegExp(`paid \\${paid}: \\${paid} is to be refunded \\(recorded, not confirmed\\), expected by \\d{4}-\\d{2}-\\d{2} America\\/Los_Angeles`));
    expect(text).toMatch(/deposit \$[\d,]+\.\d\d, never held on the card: nothing to release, and no longer owed/);
  });

  it('deposit held: the hold is released, not charged', async () => {
    const uuid = await reserve(60);
    await pay(uuid, 'rent');
    await pay(uuid, 'deposit');
    const text = await cancelOnTerminal(uuid);
    expect(text).toMatch(/deposit \$[\d,]+\.\d\d, held on the card: the hold is released, nothing is charged/);
  });

  it('a late cancellation, unpaid: the fee is owed and the rest of the rent is not', async () => {
    const uuid = await reserve(1);
    const text = await cancelOnTerminal(uuid);
    expect(text).toMatch(/cancellation fee \$[\d,]+\.\d\d, owed: to pay/);
    expect(text).toMatch(/rent owed \$[\d,]+\.\d\d, unpaid: no longer owed/);
  });

  it('a late cancellation of paid rent: the fee is kept from the rent and the rest refunded', async () => {
    const uuid = await reserve(1);
    await pay(uuid, 'rent');
    const text = await cancelOnTerminal(uuid);
    expect(text).toMatch(/cancellation fee \$[\d,]+\.\d\d, kept from the rent paid/);
    const paid = Number(money(text, 'paid')!.replace(/[$,]/g, ''));
    const fee = Number(money(text, 'cancellation fee')!.replace(/[$,]/g, ''));
    const refund = Number(text.match(/: \$([\d,]+\.\d\d) is to be refunded/)![1]!.replace(/,/g, ''));
    expect(refund).toBeCloseTo(paid - fee, 2);
  });

  it('in a pipe: a label and one plain value a line (a plain value: "$x", a plain number, a date, or one word)', async () => {
    const uuid = await reserve(60);
    await pay(uuid, 'rent');
    await pay(uuid, 'deposit');
    const r = await cli(['cancel', uuid, '-y']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.replace(/\n$/, '').split('\n').map((l) => l.split('\t'));
    for (const f of lines) {
      expect(f, f.join(' | ')).toHaveLength(2);
      expect(f[1], f.join(' | ')).toMatch(/^(?:-?\$?[\d,]*\.?\d+|\d{4}-\d{2}-\d{2}|[a-z_]+|[0-9a-f-]{36}|rfd_\w+|)$/);
    }
    const value = (label: string) => lines.find((f) => f[0] === label)?.[1];
    // in a pipe an amount is a plain number (see docs/scripting.md)
    expect(value('rent owed')).toMatch(/^\d+\.\d\d$/);
    expect(value('rent state')).toBe('paid');
    expect(value('deposit')).toMatch(/^\d+\.\d\d$/);
    expect(value('deposit hold')).toBe('released');
    expect(value('paid')).toBe(value('rent owed'));
    expect(value('refund due')).toBe(value('paid'));
    expect(value('refund state')).toBe('recorded_unconfirmed');
    expect(value('refund expected')).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});

describe('`trips <uuid>` of a cancelled trip words the outcome as `cancel` did', () => {
  it('the same section, the same sentences, and the refunds as records', async () => {
    const uuid = await reserve(60);
    await pay(uuid, 'rent');
    const cancelled = await cancelOnTerminal(uuid);
    const r = await cli(['trips', uuid], true);
    expect(r.code, r.stderr).toBe(0);
    const shown = r.stdout.replace(/\s+/g, ' ');
    // the money section, from its title to the next block ("reservation ..." after `cancel`)
    const section = (text: string) => /Cancelled: what was owed, held and paid.*?(?= reservation | note: | REFUND |$)/.exec(text)?.[0];
    expect(section(cancelled)).toMatch(/is to be refunded/);
    // the money section of `trips` is the one `cancel` printed, word for word
    expect(section(shown)).toBe(section(cancelled));
    expect(shown).not.toMatch(/deposit hold +not_required/);
    // each refund also as a record: its id, amount and state
    expect(shown).toMatch(/rfd_\w+ +\$[\d,]+\.\d\d +recorded, not confirmed/);
  });
});

describe('a reservation read without its invoices', () => {
  it('says the rent, the fee and the payments are not stated, never "none" or "nothing was paid"', () => {
    const stdout = new FakeOut(true);
    const stderr = new FakeOut(true);
    const out = new Output({ io: { stdin: new PassThrough() as never, stdout, stderr }, globals: { json: false, color: false, wide: false, accessible: false } });
    renderCancellationMoney(out, { uuid: '00000000-0000-4000-8000-000000000000' }, { status: 'cancelled', hold_release: { status: 'released' }, refunds: [] });
    const text = stdout.text().replace(/\s+/g, ' ');
    expect(text).toMatch(/rent owed not stated/);
    expect(text).toMatch(/cancellation fee not stated/);
    expect(text).toMatch(/paid not stated/);
    expect(text).not.toMatch(/nothing was paid|fee none/);
  });
});
