// Uuid arguments take a unique prefix, resolved against the customer's own reservations
// (or the invoices of them): against the real sandbox for each command that takes one, and
// against a scripted server for what the sandbox's random uuids cannot arrange (ambiguity).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseUuidRef } from '../../src/input/uuid-ref.js';
import { CliError } from '../../src/errors.js';
import { runCommand, TestHome, type RunOpts } from '../helpers/cli.js';
import { rawGet } from '../helpers/raw-api.js';
import { TestSandbox } from '../helpers/sandbox-admin.js';
import { StubServer } from '../helpers/stub-server.js';

let sb: TestSandbox;
let home: TestHome;

const raw = (path: string, key = sb.keys.booking_write) => rawGet(sb.baseUrl, path, key);
const run = (argv: string[], opts: RunOpts & { key?: string } = {}) =>
  runCommand(['--base-url', sb.baseUrl, ...argv], { sleep: async () => {}, ...opts, env: home.env({ CARRENTAL_API_KEY: opts.key ?? sb.keys.booking_write, ...opts.env }) });

let active: Array<{ uuid: string; status: string }> = [];
let all: string[] = [];
/** The shortest prefix (at least 8 characters) of `uuid` that no other of `others` shares. */
const uniquePrefix = (uuid: string, others: string[]) => {
  for (let n = 8; ; n++) if (!others.some((o) => o !== uuid && o.startsWith(uuid.slice(0, n)))) return uuid.slice(0, n);
};
const operations = async () => (await sb.requests()).map((r) => r.operation);

beforeAll(async () => {
  sb = await TestSandbox.start();
  const list = (await raw('/my/trips')).body.data;
  active = list.active;
  all = [...list.active, ...list.history].map((t: { uuid: string }) => t.uuid);
});
afterAll(() => sb.close());
beforeEach(async () => {
  home = new TestHome();
  await sb.reset();
});
afterEach(() => home.cleanup());

describe('parseUuidRef', () => {
  const usage = (value: string | undefined) => {
    try {
      parseUuidRef(value, 'the reservation uuid');
    } catch (err) {
      return err instanceof CliError ? `${err.kind}: ${err.message}` : String(err);
    }
    return 'accepted';
  };
  it('takes a whole uuid (lowercased) and a hex prefix of 4 to 35 characters', () => {
    expect(parseUuidRef('2CE09BB7-0123-4567-89AB-0123456789AB', 'x')).toEqual({ text: '2ce09bb7-0123-4567-89ab-0123456789ab', whole: true, what: 'x' });
    expect(parseUuidRef('2ce0', 'x')).toEqual({ text: '2ce0', whole: false, what: 'x' });
    expect(parseUuidRef('2ce09bb7-01', 'x').whole).toBe(false);
  });
  it('refuses what cannot be a uuid or a prefix of one, as a usage error', () => {
    expect(usage(undefined)).toBe('usage: the reservation uuid is required');
    expect(usage('2ce')).toMatch(/^usage: the reservation uuid must be a UUID or a unique prefix of one \(at least 4 characters\)/);
    expect(usage('not-a-uuid')).toMatch(/^usage: /);
    expect(usage('2ce09bb7…')).toMatch(/^usage: /);
  });
});

describe('a prefix on the command line (sandbox)', () => {
  it('trips <prefix> shows the one reservation it names; the list is read once, then the reservation', async () => {
    const uuid = active[0].uuid;
    const r = await run(['trips', uniquePrefix(uuid, all)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`reservation\t${uuid}\n`);
    expect(await operations()).toEqual(['listTrips', 'getReservation']);
  });

  it('a whole uuid costs no extra request', async () => {
    const r = await run(['trips', active[0].uuid]);
    expect(r.code).toBe(0);
    expect(await operations()).toEqual(['getReservation']);
  });

  it('a prefix of no reservation of the customer is not found (exit 4), with a hint to list them', async () => {
    const prefix = ['0000', '1111', '2222', '3333', 'ffff', 'eeee'].find((p) => !all.some((u) => u.startsWith(p)))!;
    const r = await run(['trips', prefix]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`error: no reservation of yours starts with "${prefix}"`);
    expect(r.stderr).toContain('hint: `carrental trips` lists them');
    expect(await operations()).toEqual(['listTrips']);
  });

  it("another customer's reservation is not found by prefix either", async () => {
    const omars = (await raw('/my/trips', sb.keys.other_customer)).body.data.active[0].uuid as string;
    if (all.some((u) => u.startsWith(omars.slice(0, 12)))) throw new Error('fixture clash');
    const r = await run(['trips', omars.slice(0, 12)]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('no reservation of yours starts with');
  });

  it('invoices <prefix> and invoice <prefix> resolve the reservation and the invoice', async () => {
    const uuid = all.find(() => true)!;
    const invoices = (await raw(`/my/reservation/${uuid}/invoices`)).body as Array<{ id: string }>;
    const r = await run(['invoices', uniquePrefix(uuid, all)]);
    expect(r.code).toBe(0);
    for (const inv of invoices) expect(r.stdout).toContain(inv.id);

    const everyInvoice: string[] = [];
    for (const u of all) everyInvoice.push(...((await raw(`/my/reservation/${u}/invoices`)).body as Array<{ id: string }>).map((i) => i.id));
    await sb.clearRequests();
    const id = invoices[0].id;
    const one = await run(['invoice', uniquePrefix(id, everyInvoice)]);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain(`invoice\t${id}\n`);
    // the trips once, the invoice lists (never a reservation read, which prepares a debt invoice), then the invoice
    const ops = await operations();
    expect(ops[0]).toBe('listTrips');
    expect(ops.at(-1)).toBe('getInvoice');
    expect(ops).not.toContain('getReservation');
  });

  it('pay-link <prefix> makes the link for the whole uuid', async () => {
    const t = (await Promise.all(active.map(async (a) => (await raw(`/my/reservation/${a.uuid}`)).body.data))).find((x) => x.payment_status?.type === 'to_pay');
    if (!t) throw new Error('the fixtures hold no active trip with something to pay');
    await sb.clearRequests();
    const r = await run(['pay-link', uniquePrefix(t.uuid, all)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^https?:\/\//m);
    const reqs = await sb.requests();
    expect(reqs.map((q) => q.operation)).toEqual(['listTrips', 'paymentLink']);
    expect(reqs[1].path).toContain(t.uuid);
  });

  it('cancel <prefix> --yes cancels the one reservation it names', async () => {
    const t = active.find((a) => a.status !== 'cancelled')!;
    const r = await run(['cancel', uniquePrefix(t.uuid, all), '--yes']);
    expect(r.code).toBe(0);
    const after = (await raw(`/my/reservation/${t.uuid}`)).body.data;
    expect(after.status).toBe('cancelled');
    const reqs = await sb.requests();
    expect(reqs[0].operation).toBe('listTrips');
    expect(reqs.find((q) => q.operation === 'cancelReservation')!.path).toContain(t.uuid);
  });

  it('extend-link <prefix> reads the whole uuid', async () => {
    const t = active[0];
    const r = await run(['extend-link', uniquePrefix(t.uuid, all)]);
    const reqs = await sb.requests();
    expect(reqs[0].operation).toBe('listTrips');
    expect(reqs.slice(1).every((q) => q.path.includes(t.uuid))).toBe(true);
    expect(r.stderr).not.toContain('starts with');
  });
});

describe('an ambiguous prefix (scripted server)', () => {
  const A = '2ce09bb7-0123-4567-89ab-0123456789ab';
  const B = '2ce09bb7-9999-4567-89ab-0123456789ab';
  const C = '7d1f0000-0123-4567-89ab-0123456789ab';
  let stub: StubServer;
  beforeAll(async () => {
    stub = await StubServer.start((req) => {
      if (req.path.endsWith('/my/trips')) {
        return { json: { data: { active: [{ uuid: A, status: 'new', date_checkin: '2026-12-01T10:00' }], history: [{ uuid: B, status: 'cancelled' }, { uuid: C, status: 'complete' }] } } };
      }
      const m = req.path.match(/\/my\/reservation\/([0-9a-f-]+)$/);
      if (m) return { json: { data: { uuid: m[1], status: 'new' } } };
      return { status: 404, json: { error: 'not found', error_code: 'not_found' } };
    });
  });
  afterAll(() => stub.close());
  beforeEach(() => void stub.requests.splice(0));

  const runStub = (argv: string[]) => runCommand(['--base-url', stub.baseUrl, ...argv], { env: home.env({ CARRENTAL_API_KEY: 'svc_test_0123456789abcdef' }) });

  it('exits 2 listing every match, and reads nothing else', async () => {
    const r = await runStub(['trips', '2ce09bb7']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: "2ce09bb7" matches 2 reservations of yours:');
    expect(r.stderr).toContain(`${A} (2026-12-01 10:00 (car-local), new)`);
    expect(r.stderr).toContain(`${B} (cancelled)`);
    expect(r.stderr).toContain('hint: type more of the uuid');
    expect(r.stdout).toBe('');
    expect(stub.requests.map((q) => q.path.replace(/^.*\/my/, '/my'))).toEqual(['/my/trips']);
  });

  it('a longer prefix picks one', async () => {
    const r = await runStub(['trips', '2ce09bb7-9']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`reservation\t${B}\n`);
  });
});
