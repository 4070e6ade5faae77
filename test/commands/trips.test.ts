// `trips`, in-process against the sandbox: every payment status and cancellation outcome
// the fixtures hold, null totals, --json equal to the API payload, a 500 while a payment is
// in progress, and --watch driven by an injected sleep and the sandbox's pay helper.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CliError } from '../../src/errors.js';
import { runCommand, TestHome, type RunOpts } from '../helpers/cli.js';
import { rawGet } from '../helpers/raw-api.js';
import { TestSandbox } from '../helpers/sandbox-admin.js';

let sb: TestSandbox;
let home: TestHome;

interface RawTrip {
  uuid: string;
  status: string;
  car: { city: string; name: string; car_alias: string };
  financial_summary: { trip_total_cents: number | null; deposit_cents: number | null };
  payment_status: { type: string; amount?: number; invoice_id?: string; date?: string };
  cancellation_outcome: { status: string; hold_release?: { status: string }; refund_review?: { status: string }; refunds?: Array<{ id: string; status: string; amount_cents: number }> };
  invoices: Array<{ id: string; type: string; status: string; billing_status: string; amount: number }>;
}

const raw = (path: string, key = sb.keys.booking_write) => rawGet(sb.baseUrl, path, key);

const run = (argv: string[], opts: RunOpts & { key?: string } = {}) =>
  runCommand(['--base-url', sb.baseUrl, ...argv], {
    sleep: async () => {},
    ...opts,
    env: home.env({ CARRENTAL_API_KEY: opts.key ?? sb.keys.booking_write, ...opts.env }),
  });
/** `trips <uuid>` on a terminal, without colour: where the explanations are. */
const tty = (uuid: string) => run(['trips', uuid], { tty: true, env: { NO_COLOR: '1' } });

/** Dana's trips read through the API (reading a detail prepares a debt invoice: done once, up front). */
let trips: RawTrip[] = [];
const find = (what: string, pred: (t: RawTrip) => boolean) => {
  const t = trips.find(pred);
  if (!t) throw new Error(`the sandbox fixtures hold no trip that ${what}`);
  return t;
};

beforeAll(async () => {
  sb = await TestSandbox.start();
  const list = (await raw('/my/trips')).body.data;
  for (const t of [...list.active, ...list.history]) trips.push((await raw(`/my/reservation/${t.uuid}`)).body.data);
});
afterAll(() => sb.close());
beforeEach(async () => {
  home = new TestHome();
  await sb.reset();
});
afterEach(() => home.cleanup());

describe('trips (list)', () => {
  it('in a pipe: one trip per line, its section a field, no heading lines, dates and zone in fields of their own', async () => {
    const api = (await raw('/my/trips')).body.data;
    const r = await run(['trips']);
    expect(r.code).toBe(0);
    const rows = r.stdout.trimEnd().split('\n').map((l) => l.split('\t'));
    expect(r.stdout).not.toMatch(/^#/m);
    // uuid, section, car alias, car, check-in, check-out, zone, days, status, trip total, deposit, balance
    for (const row of rows) expect(row).toHaveLength(12);
    expect(rows.map((row) => [row[0], row[1]])).toEqual([
      ...api.active.map((t: RawTrip) => [t.uuid, 'active']),
      ...api.history.map((t: RawTrip) => [t.uuid, 'history']),
    ]);
    const nullTotal = api.history.find((t: RawTrip) => t.financial_summary.trip_total_cents === null);
    const cells = rows.find((row) => row[0] === nullTotal.uuid)!;
    expect(cells[2]).toBe(nullTotal.car.car_alias);
    expect(cells[4]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d$/);
    expect(cells[5]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d$/);
    expect(cells[6]).toMatch(/^America\/(Los_Angeles|New_York)$/);
    // TRIP TOTAL is unknown, never $0.00 (the balance may well be $0.00)
    expect(cells[9]).toBe('unknown');
  });

  it('on a terminal: a table per section and zone, the zone in the heading, each uuid as its short prefix', async () => {
    const api = (await raw('/my/trips')).body.data;
    const r = await run(['trips'], { tty: true, env: { NO_COLOR: '1' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Active · times in America\/Los_Angeles$/m);
    expect(r.stdout).toMatch(/^History · times in America\/New_York$/m);
    for (const t of [...api.active, ...api.history]) expect(r.stdout).toMatch(new RegExp(`^${t.uuid.slice(0, 8)} `, 'm'));
    const wide = await run(['trips', '--wide'], { tty: true, env: { NO_COLOR: '1' } });
    for (const t of [...api.active, ...api.history]) expect(wide.stdout).toMatch(new RegExp(`^${t.uuid} `, 'm'));
    for (const line of r.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(120);
  });

  it('--json prints the payload exactly as the API sends it', async () => {
    const r = await run(['trips', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual((await raw('/my/trips')).body.data);
    expect(r.stderr).toBe('');
  });

  it('lists no trips for a customer who has none, with exit 0', async () => {
    const r = await run(['trips'], { key: sb.keys.no_card_payments, tty: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('no active trips');
    expect(r.stderr).toContain('no history trips');
    const piped = await run(['trips'], { key: sb.keys.no_card_payments });
    expect(piped.code).toBe(0);
    expect(piped.stdout).toBe('');
    expect(piped.stderr).toBe('no trips\n');
  });

  it('explains 403 api_key_operation_not_enabled with exit 3', async () => {
    await sb.fault({ kind: 'operation_not_enabled', operation: 'listTrips', times: 1 });
    const r = await run(['trips']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^error: .*\(api_key_operation_not_enabled, request req_/m);
    expect(r.stderr).toContain('hint: `carrental doctor` shows which operations this deployment opens to API keys');
    expect(r.stdout).toBe('');
  });
});

describe('trips <uuid> (detail)', () => {
  it('settled: nothing to pay; a HOLD shows with its legacy status', async () => {
    const t = find('is settled with a deposit hold', (x) => x.payment_status.type === 'settled' && x.invoices.some((i) => i.billing_status === 'HOLD'));
    const r = await tty(t.uuid);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^payment +settled: nothing to pay$/m);
    // the billing status is free text: on a terminal it may be cut to fit its column
    expect(r.stdout).toMatch(/HOLD \(card/);
    const wide = await run(['trips', t.uuid, '--wide'], { tty: true });
    expect(wide.stdout).toMatch(/legacy status/);
    expect(r.stderr).toContain('HOLD is an authorisation on the card, not a charge');
    // in a pipe, the bare values
    const piped = await run(['trips', t.uuid]);
    expect(piped.stdout).toContain('payment\tsettled\n');
    expect(piped.stdout).toMatch(/^invoice\t[0-9a-f-]+\tDEPOSIT\tHOLD\t/m);
  });

  it('a pipe: one key per field (the records aside), money as plain numbers for sort -n', async () => {
    const t = find('has money to pay', (x) => x.payment_status.type === 'to_pay');
    const r = await run(['trips', t.uuid]);
    expect(r.code).toBe(0);
    const records = new Set(['invoice', 'item', 'refund']);
    const keys = r.stdout.trimEnd().split('\n').map((l) => l.split('\t')[0]).filter((k) => !records.has(k));
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
    expect(keys).toContain('deposit status');
    // no field is a `$` amount (a server's description may say "$40.00 a day")
    expect(r.stdout).not.toMatch(/\t-?\$[\d,]+(\.\d\d)?(\t|$)/m);
    expect(r.stdout).toMatch(/^trip total\t\d+\.\d\d$/m);
  });

  it('to pay: the amount and the payable invoice, and the next step', async () => {
    const t = find('has money to pay', (x) => x.payment_status.type === 'to_pay');
    const r = await run(['trips', t.uuid]);
    expect(r.code).toBe(0);
    const dollars = (t.payment_status.amount! / 100).toFixed(2);
    expect(r.stdout).toContain(`payment\tto_pay\npayment amount\t${dollars}\npayable invoice\t${t.payment_status.invoice_id}\n`);
    expect(r.stdout).toContain(`invoice\t${t.payment_status.invoice_id}\tDEBT\t`);
    expect(r.stderr).toContain(`carrental pay-link ${t.uuid}`);
    expect((await tty(t.uuid)).stdout).toContain(`to pay: $${dollars} (payable invoice ${t.payment_status.invoice_id})`);
  });

  it('refund: the amount and the date with the car zone; a cancelled outcome with a pending review', async () => {
    const t = find('expects a refund', (x) => x.payment_status.type === 'refund');
    const r = await tty(t.uuid);
    expect(r.code).toBe(0);
    const zone = t.car.city === 'la' ? 'America/Los_Angeles' : 'America/New_York';
    expect(r.stdout).toContain(`refund: $${(t.payment_status.amount! / 100).toFixed(2)} expected by ${t.payment_status.date} ${zone}`);
    expect(r.stdout).toMatch(/^Cancelled: what was owed, held and paid, and what happens to each$/m);
    expect(r.stdout).toMatch(/^refund review +a refund review is open$/m);
    expect(r.stdout).toContain('recorded, not confirmed');
    expect(r.stderr).toContain('"cancelled" records the cancellation; money is returned only as the refunds above say');
    const piped = await run(['trips', t.uuid]);
    expect(piped.stdout).toContain(`payment\trefund\npayment amount\t${(t.payment_status.amount! / 100).toFixed(2)}\nrefund expected by\t${t.payment_status.date}\n`);
    expect(piped.stdout).toContain(`zone\t${zone}\n`);
    expect(piped.stdout).toContain(`deposit hold\t${t.cancellation_outcome.hold_release!.status}\n`);
    expect(piped.stdout).toContain('refund review\tpending\n');
    expect(piped.stdout).toMatch(new RegExp(`^refund\\t${t.cancellation_outcome.refunds![0].id}\\t\\d+\\.\\d\\d\\t`, 'm'));
    expect(piped.stdout).toContain('\trecorded_unconfirmed\t');
    // a refund is a negative ledger amount
    expect(piped.stdout).toMatch(/^invoice\t[^\t]+\tREFUND\t[^\t]+\t-\d+\.\d\d\t/m);
  });

  it('cancelled with the review closed and a confirmed refund', async () => {
    const t = find('has a closed refund review', (x) => x.cancellation_outcome.refund_review?.status === 'closed');
    const r = await run(['trips', t.uuid]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('refund review\tclosed\n');
    expect(r.stdout).toMatch(/^refund\t.*\tconfirmed\t\d{4}-\d\d-\d\d \d\d:\d\d UTC/m);
    expect((await tty(t.uuid)).stdout).toMatch(/^refund review +the refund review is closed$/m);
  });

  it('an unknown cancellation outcome, with a null trip total shown as unknown', async () => {
    const t = find('has an unknown outcome', (x) => x.cancellation_outcome.status === 'unknown');
    expect(t.financial_summary.trip_total_cents).toBeNull();
    const r = await tty(t.uuid);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^cancellation +unknown \(the records cannot establish/m);
    expect(r.stdout).toMatch(/^trip total +unknown \(/m);
    const piped = await run(['trips', t.uuid]);
    expect(piped.stdout).toContain('cancellation\tunknown\n');
    expect(piped.stdout).toContain('trip total\tunknown\n');
  });

  it('a trip that is not cancelled, with its invoices and line items', async () => {
    const t = find('is complete', (x) => x.status === 'complete' && x.financial_summary.trip_total_cents !== null);
    const r = await run(['trips', t.uuid]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('cancellation\tnot cancelled');
    expect(r.stdout).not.toMatch(/^#/m);
    for (const inv of t.invoices) expect(r.stdout).toContain(`invoice\t${inv.id}\t${inv.type}\t`);
    expect(r.stdout).toMatch(/^item\t[0-9a-f-]+\t[^\t]+\t-?\d+\.\d\d$/m);
    expect(r.stdout).toMatch(/^check-in\t\d{4}-\d\d-\d\d \d\d:\d\d$/m);
    expect(r.stdout).toMatch(/^zone\tAmerica\//m);
    // every line of the pipe form: a label and one value, or a record named by its first field
    for (const line of r.stdout.trimEnd().split('\n')) {
      const fields = line.split('\t');
      expect(fields.length === 2 || (fields[0] === 'invoice' && fields.length === 7) || (fields[0] === 'item' && fields.length === 4), line).toBe(true);
    }
  });

  it('is labelled, its tables borderless, on a terminal', async () => {
    const t = find('is complete', (x) => x.status === 'complete');
    const r = await run(['trips', t.uuid], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Financial summary');
    expect(r.stdout).toContain('BILLING STATUS');
    expect(r.stdout).toMatch(/^\u001b\[1mINVOICE\u001b\[22m +\u001b\[1mTYPE/m);
    expect(r.stdout).not.toMatch(/[│┌└]/);
  });

  it('--json prints the reservation exactly as the API sends it', async () => {
    for (const t of [find('to pay', (x) => x.payment_status.type === 'to_pay'), find('refund', (x) => x.payment_status.type === 'refund')]) {
      const r = await run(['trips', t.uuid, '--json']);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual((await raw(`/my/reservation/${t.uuid}`)).body.data);
    }
  });

  it("another customer's reservation is not found (exit 4)", async () => {
    const omars = (await raw('/my/trips', sb.keys.other_customer)).body.data.active[0].uuid;
    const r = await run(['trips', omars]);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/\(reservation_not_found, request req_/);
    expect(r.stdout).toBe('');
  });

  it('refuses a malformed uuid before sending anything (exit 2)', async () => {
    const r = await run(['trips', 'not-a-uuid']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('must be a UUID');
    expect(await sb.requests()).toEqual([]);
  });

  it('reads again after ≥ 3 s when a payment is in progress (HTTP 500)', async () => {
    const t = find('settled', (x) => x.payment_status.type === 'settled');
    await sb.fault({ kind: 'error', operation: 'getReservation', code: 'payment_in_progress', times: 2 });
    const sleeps: number[] = [];
    const r = await run(['trips', t.uuid], { sleep: async (ms) => void sleeps.push(ms) });
    expect(r.code).toBe(0);
    expect(sleeps).toHaveLength(2);
    for (const ms of sleeps) expect(ms).toBeGreaterThanOrEqual(3000);
    expect((await sb.requests()).filter((q) => q.operation === 'getReservation').map((q) => q.status)).toEqual([500, 500, 200]);
  });

  it('gives up on a payment in progress that does not end, with exit 6', async () => {
    const t = find('settled', (x) => x.payment_status.type === 'settled');
    await sb.fault({ kind: 'error', operation: 'getReservation', code: 'payment_in_progress' });
    const r = await run(['trips', t.uuid]);
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/^error: .*payment_in_progress/m);
    expect((await sb.requests()).filter((q) => q.operation === 'getReservation').length).toBe(5);
  });
});

describe('trips <uuid> --watch', () => {
  // each test starts from the seeded world, with the to-pay trip's debt invoice prepared
  beforeEach(async () => {
    await sb.admin('POST', '/reset');
    await raw(`/my/reservation/${find('has money to pay', (x) => x.payment_status.type === 'to_pay').uuid}`);
    await sb.clearRequests();
  });

  it('exits 0 when the payment status changes (paid through the sandbox), never polling faster than 5 s', async () => {
    const t = find('has money to pay', (x) => x.payment_status.type === 'to_pay');
    const sleeps: number[] = [];
    const sleep = async (ms: number) => {
      sleeps.push(ms);
      // the customer pays while the second interval runs
      if (sleeps.length === 2) await sb.admin('POST', '/pay', { reservation_uuid: t.uuid, payment_type: 'rent' });
    };
    const r = await run(['trips', t.uuid, '--watch'], { sleep });
    expect(r.code).toBe(0);
    expect(sleeps).toEqual([5000, 5000]);
    expect(r.stderr).toMatch(/changed: payment to pay: \$[\d,.]+ \(payable invoice [0-9a-f-]+\) → settled: nothing to pay/);
    // the first detail, then the new one
    expect(r.stdout.match(/^reservation\t/gm)).toHaveLength(2);
    expect(r.stdout.trimEnd().split('\n').filter((l) => l.startsWith('payment\t')).pop()).toBe('payment\tsettled');
    expect((await sb.requests()).filter((q) => q.operation === 'getReservation')).toHaveLength(3);
  });

  it('with --json prints only the changed reservation, as the API sends it', async () => {
    const t = find('has money to pay', (x) => x.payment_status.type === 'to_pay');
    const sleep = async () => void (await sb.admin('POST', '/pay', { reservation_uuid: t.uuid, payment_type: 'rent' }));
    const r = await run(['trips', t.uuid, '--watch', '--json', '--interval', '7'], { sleep });
    expect(r.code).toBe(0);
    const printed = JSON.parse(r.stdout);
    expect(printed.payment_status.type).toBe('settled');
    expect(printed).toEqual((await raw(`/my/reservation/${t.uuid}`)).body.data);
  });

  it('gives up after --watch-timeout with exit 6, without a read faster than the interval', async () => {
    const t = find('is new and settled', (x) => x.payment_status.type === 'settled' && x.status === 'new');
    const sleeps: number[] = [];
    const r = await run(['trips', t.uuid, '--watch', '--watch-timeout', '12'], { sleep: async (ms) => void sleeps.push(ms) });
    expect(r.code).toBe(6);
    expect(sleeps).toEqual([5000, 5000, 2000]);
    expect(r.stderr).toMatch(/error: no change in the status or payment status of .* after 12 s \(3 reads\)/);
    expect((await sb.requests()).filter((q) => q.operation === 'getReservation')).toHaveLength(3);
  });

  it('stops on Ctrl-C with exit 130', async () => {
    const t = find('is new and settled', (x) => x.payment_status.type === 'settled' && x.status === 'new');
    const sleep = async () => {
      throw new CliError('interrupted', 'interrupted');
    };
    const r = await run(['trips', t.uuid, '--watch'], { sleep });
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('interrupted');
  });

  it('stops on a real abort signal with exit 130', async () => {
    const t = find('is new and settled', (x) => x.payment_status.type === 'settled' && x.status === 'new');
    const controller = new AbortController();
    const pending = runCommand(['--base-url', sb.baseUrl, 'trips', t.uuid, '--watch'], {
      env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write }),
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 300);
    const r = await pending;
    expect(r.code).toBe(130);
  });

  it('a cancelled or complete reservation that is settled ends at once (exit 0), saying why, after one read', async () => {
    const done = trips.filter((x) => (x.status === 'cancelled' || x.status === 'complete') && x.payment_status.type === 'settled');
    expect(done.length).toBeGreaterThan(0);
    for (const t of done) {
      await sb.reset();
      const sleeps: number[] = [];
      const r = await run(['trips', t.uuid, '--watch'], { sleep: async (ms) => void sleeps.push(ms) });
      expect(r.code, r.stderr).toBe(0);
      expect(sleeps).toEqual([]);
      expect(r.stdout).toContain(`reservation\t${t.uuid}`);
      expect(r.stderr).toContain(`not watching: the reservation is ${t.status} and settled (nothing owed, no refund on its way): neither its status nor its payment status can change any more`);
      expect((await sb.requests()).filter((q) => q.operation === 'getReservation')).toHaveLength(1);
    }
    const json = await run(['trips', done[0].uuid, '--watch', '--json'], { sleep: async () => {} });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).uuid).toBe(done[0].uuid);
  });

  it('a cancelled reservation with a refund on its way is still watched: its payment status can change', async () => {
    const t = find('is cancelled with a refund pending', (x) => x.status === 'cancelled' && x.payment_status.type === 'refund');
    const sleeps: number[] = [];
    const r = await run(['trips', t.uuid, '--watch', '--watch-timeout', '5'], { sleep: async (ms) => void sleeps.push(ms) });
    expect(r.code).toBe(6);
    expect(sleeps).toEqual([5000]);
    expect(r.stderr).not.toContain('not watching');
  });

  it('checks its options before sending anything (exit 2)', async () => {
    const uuid = trips[0].uuid;
    for (const argv of [
      ['trips', uuid, '--watch', '--interval', '3'],
      ['trips', '--watch'],
      ['trips', uuid, '--interval', '10'],
      ['trips', uuid, '--watch', '--watch-timeout', '0'],
    ]) {
      const r = await run(argv);
      expect({ argv, code: r.code }).toEqual({ argv, code: 2 });
    }
    expect(await sb.requests()).toEqual([]);
  });
});
