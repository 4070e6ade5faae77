// `invoices` and `invoice`, in-process against the sandbox.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCommand, TestHome, type RunOpts } from '../helpers/cli.js';
import { rawGet } from '../helpers/raw-api.js';
import { TestSandbox } from '../helpers/sandbox-admin.js';
import { StubServer } from '../helpers/stub-server.js';

let sb: TestSandbox;
let home: TestHome;

const raw = (path: string, key = sb.keys.booking_write) => rawGet(sb.baseUrl, path, key);

const run = (argv: string[], opts: RunOpts & { key?: string } = {}) =>
  runCommand(['--base-url', sb.baseUrl, ...argv], { ...opts, env: home.env({ CARRENTAL_API_KEY: opts.key ?? sb.keys.booking_write, ...opts.env }) });

let tripsWithInvoices: Array<{ uuid: string; invoices: any[] }> = [];
const invoiceWhere = (pred: (inv: any) => boolean) => {
  for (const t of tripsWithInvoices) for (const inv of t.invoices) if (pred(inv)) return { trip: t.uuid, inv };
  throw new Error('no such invoice in the sandbox fixtures');
};

beforeAll(async () => {
  sb = await TestSandbox.start();
  const list = (await raw('/my/trips')).body.data;
  for (const t of [...list.active, ...list.history]) tripsWithInvoices.push({ uuid: t.uuid, invoices: (await raw(`/my/reservation/${t.uuid}/invoices`)).body });
});
afterAll(() => sb.close());
beforeEach(async () => {
  home = new TestHome();
  await sb.reset();
});
afterEach(() => home.cleanup());

describe('invoices <reservation-uuid>', () => {
  it('lists every invoice with its type, billing status, signed amount, UTC time and line items', async () => {
    const { trip } = invoiceWhere((inv) => inv.type === 'REFUND');
    const invoices = tripsWithInvoices.find((t) => t.uuid === trip)!.invoices;
    const r = await run(['invoices', trip]);
    expect(r.code).toBe(0);
    // in a pipe, one invoice per line, nothing else
    const rows = r.stdout.trimEnd().split('\n');
    expect(rows).toHaveLength(invoices.length);
    for (const inv of invoices) {
      const sign = inv.amount < 0 ? '-' : '';
      expect(rows.find((l) => l.startsWith(inv.id))).toMatch(new RegExp(`^${inv.id}\\t${inv.type}\\t${inv.billing_status}\\t${sign}\\d+\\.\\d\\d\\t\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\t`));
    }
    const onTty = await run(['invoices', trip], { tty: true, env: { NO_COLOR: '1' } });
    expect(onTty.stdout).toContain('Line items');
    for (const inv of invoices) for (const item of inv.items) expect(onTty.stdout).toContain(item.description);
    expect(r.stderr).toContain('ledger');
  });

  it('--json prints the bare array exactly as the API sends it', async () => {
    const { trip } = invoiceWhere((inv) => inv.type === 'RENT');
    const r = await run(['invoices', trip, '--json']);
    expect(r.code).toBe(0);
    const printed = JSON.parse(r.stdout);
    expect(Array.isArray(printed)).toBe(true);
    expect(printed).toEqual((await raw(`/my/reservation/${trip}/invoices`)).body);
  });

  it('the HOLD is a billing status here (the legacy status only differs on the reservation detail)', async () => {
    const { trip } = invoiceWhere((inv) => inv.billing_status === 'HOLD');
    const r = await run(['invoices', trip]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('\tDEPOSIT\tHOLD\t');
    expect((await run(['invoices', trip], { tty: true, env: { NO_COLOR: '1' } })).stdout).toMatch(/HOLD \(card/);
    expect(r.stderr).toContain('a HOLD is an authorisation on the card, not a charge');
  });

  it("another customer's reservation is not found (exit 4)", async () => {
    const omars = (await raw('/my/trips', sb.keys.other_customer)).body.data.active[0].uuid;
    const r = await run(['invoices', omars]);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^error: /);
  });

  it('an empty list is valid (exit 0): said on stderr, nothing on stdout', async () => {
    // every sandbox trip has invoices, so a scripted server answers the empty array
    const stub = await StubServer.start(() => ({ json: [] }));
    try {
      const uuid = tripsWithInvoices[0].uuid;
      const r = await runCommand(['--base-url', stub.baseUrl, 'invoices', uuid], { env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write }) });
      expect(r).toMatchObject({ code: 0, stdout: '' });
      expect(r.stderr).toContain('no invoices for this reservation');
      expect(stub.requests.map((q) => `${q.method} ${q.path}`)).toEqual([`GET /my/reservation/${uuid}/invoices`]);
    } finally {
      await stub.close();
    }
  });
});

describe('invoice <invoice-uuid>', () => {
  it('prints one invoice with its line items', async () => {
    const { inv } = invoiceWhere((i) => i.type === 'REFUND');
    const r = await run(['invoice', inv.id]);
    expect(r.code).toBe(0);
    // in a pipe: label/value lines, one value each, then a record line per line item
    expect(r.stdout).toContain(`invoice\t${inv.id}\n`);
    expect(r.stdout).toContain('type\tREFUND\n');
    expect(r.stdout).toMatch(/^amount\t-\d+\.\d\d$/m);
    expect(r.stdout).toContain('currency\tUSD\n');
    expect(r.stdout).toMatch(/^created\t\d{4}-\d\d-\d\d \d\d:\d\d UTC$/m);
    for (const item of inv.items) expect(r.stdout).toContain(`item\t${inv.id}\t${item.description}\t`);
    expect(r.stdout).not.toMatch(/^#/m);
    const onTty = await run(['invoice', inv.id], { tty: true, env: { NO_COLOR: '1' } });
    expect(onTty.stdout).toContain(`Invoice ${inv.id}`);
    expect(onTty.stdout).toMatch(/^amount +-\$[\d,]+\.\d\d USD$/m);
  });

  it('explains a HOLD as an authorisation, not a charge', async () => {
    const { inv } = invoiceWhere((i) => i.billing_status === 'HOLD');
    const r = await run(['invoice', inv.id], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('HOLD (card authorisation, not a charge)');
  });

  it('--json prints the invoice exactly as the API sends it', async () => {
    const { inv } = invoiceWhere((i) => i.type === 'DEPOSIT');
    const r = await run(['invoice', inv.id, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual((await raw(`/my/billing/invoice/${inv.id}`)).body.data);
  });

  it("another customer's invoice is not found (exit 4)", async () => {
    const { inv } = invoiceWhere(() => true);
    const r = await run(['invoice', inv.id], { key: sb.keys.other_customer });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
  });

  it('refuses a malformed uuid before sending anything (exit 2)', async () => {
    const r = await run(['invoice', '12']);
    expect(r.code).toBe(2);
    expect(await sb.requests()).toEqual([]);
  });
});
