// `--dry-run` on every write, in-process against a loopback sandbox whose request log proves
// what was (and was not) sent: the request as the client would build it, the key masked,
// the journal's decision (new, resume with the pending key, replay with age and result),
// nothing sent, nothing written, exit 0; and what fails before sending fails the same way.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCreateRequest } from '../../src/booking/create-request.js';
import { COLLECTIONS } from '../../src/sandbox/state.js';
import { openStore } from '../../src/sandbox/store.js';
import { credentialFingerprint, Journal } from '../../src/store/journal.js';
import { runCommand, TestHome } from '../helpers/cli.js';
import { SANDBOX_NOW, sandboxPerTest, TestSandbox } from '../helpers/sandbox-admin.js';

let sb: TestSandbox;
let home: TestHome;
sandboxPerTest((s) => (sb = s), (h) => (home = h));

const ALIAS = 'toyota-camry-1001';
const DATES = ['--from', '2026-12-01T10:00', '--to', '2026-12-04T10:00'];
const WRITES = ['createReservation', 'cancelReservation', 'paymentLink', 'extensionLink', 'cardAddLink'];

const cli = (args: string[], key: string | null = sb.keys.booking_write) =>
  runCommand(['--base-url', sb.baseUrl, ...args], { env: home.env(key === null ? {} : { CARRENTAL_API_KEY: key }), now: () => SANDBOX_NOW, sleep: async () => {} });
const journalPath = () => join(home.dir, 'state', 'journal.json');
const sent = async () => (await sb.requests()).map((r) => r.operation);
/** What a write would change: reservations, invoices, refunds, handoffs, idempotency records. */
const stats = async () => {
  const { reservations, invoices, refunds, agent_flows, idempotency_records } = await sb.admin('GET', '/stats');
  return { reservations, invoices, refunds, agent_flows, idempotency_records };
};

interface DryJson {
  dry_run: true;
  command: string;
  request: { method: string; url: string; headers: Record<string, string>; body?: unknown };
  journal: { decision: string; key: string | null; age?: string; result?: string | null } | null;
  notes: string[];
  extension_price?: unknown;
}

describe('reserve --dry-run', () => {
  it('quotes (a read), prints the POST with the key masked and the decision new; sends no create, writes no journal; no -y needed in a pipe', async () => {
    const before = await stats();
    const r = await cli(['reserve', ALIAS, ...DATES, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`POST ${sb.baseUrl}/my/reservation\n`);
    expect(r.stdout).toContain(`authorization: Bearer svc_…${sb.keys.booking_write.slice(-4)}`);
    expect(r.stdout).toContain('idempotency-key: <a new UUID v4, made when sent>');
    expect(r.stdout).toContain('"date_checkin": "2026-12-01T10:00"');
    expect(r.stdout + r.stderr).not.toContain(sb.keys.booking_write);
    expect(r.stderr).toContain('TOTAL');
    expect(r.stderr).toContain('the quote above was read from the API');
    expect(r.stderr).toContain('journal: new: a new command');
    expect(r.stderr).toContain('dry run: nothing was sent and nothing was written');
    expect(await sent()).toEqual(['getCar', 'quote']);
    expect(existsSync(journalPath())).toBe(false);
    expect(await stats()).toEqual(before);
  });

  it('--json: one object; --no-quote asks for no quote and says so', async () => {
    const r = await cli(['reserve', ALIAS, ...DATES, '--dry-run', '--no-quote', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const dry = JSON.parse(r.stdout) as DryJson;
    expect(dry).toMatchObject({ dry_run: true, command: 'reserve', journal: { decision: 'new', key: null }, notes: ['no quote was asked (--no-quote)'] });
    expect(dry.request).toMatchObject({ method: 'POST', url: `${sb.baseUrl}/my/reservation`, body: { car_alias: ALIAS, options: { protection_plan: 'minimum' } } });
    expect(await sent()).toEqual(['getCar']);
  });

  it('--no-quote without --dry-run, bad dates, no key: the same failures as without --dry-run, before any write', async () => {
    const noQuote = await cli(['reserve', ALIAS, ...DATES, '--no-quote', '-y']);
    const badDates = await cli(['reserve', ALIAS, '--from', '2026-13-01T10:00', '--to', '2026-12-04T10:00', '--dry-run']);
    const noKey = await cli(['reserve', ALIAS, ...DATES, '--dry-run'], null);
    expect([noQuote.code, badDates.code, noKey.code]).toEqual([2, 2, 3]);
    expect(noKey.stderr).toContain('no API key');
    expect(await sent()).toEqual([]);
  });

  it('after a booking: replay, with the key, its age and the reservation; the journal file is byte for byte the same', async () => {
    const booked = await cli(['reserve', ALIAS, ...DATES, '-y', '--json']);
    expect(booked.code, booked.stderr).toBe(0);
    const uuid = (JSON.parse(booked.stdout) as { uuid: string }).uuid;
    const entry = (await new Journal({ path: journalPath() }).list())[0];
    const bytes = readFileSync(journalPath(), 'utf8');
    await sb.clearRequests();
    const r = await cli(['reserve', ALIAS, ...DATES, '--dry-run', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const dry = JSON.parse(r.stdout) as DryJson;
    expect(dry.journal).toMatchObject({ decision: 'replay', key: entry.key, result: uuid });
    expect(dry.journal!.age).toMatch(/^\d+ s$/);
    expect(dry.request.headers['idempotency-key']).toBe(entry.key);
    expect(readFileSync(journalPath(), 'utf8')).toBe(bytes);
    expect((await sent()).filter((op) => WRITES.includes(op!))).toEqual([]);

    // cancelled since: the real run would book nothing and exit 5; the dry run says so
    expect((await cli(['cancel', uuid, '-y'])).code).toBe(0);
    const after = await cli(['reserve', ALIAS, ...DATES, '--dry-run']);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr).toContain(`reservation ${uuid} has been cancelled since: the real run books nothing and exits 5`);
  });

  it('with a pending entry: resume with the pending key, and no quote (the earlier attempt may have booked the car)', async () => {
    const body = buildCreateRequest({ alias: ALIAS, from: '2026-12-01T10:00', to: '2026-12-04T10:00' });
    const journal = new Journal({ path: journalPath() });
    const { entry } = await journal.begin({ profile: 'default', baseUrl: sb.baseUrl, credential: credentialFingerprint(sb.keys.booking_write), operation: 'createReservation', target: ALIAS, request: body });
    const r = await cli(['reserve', ALIAS, ...DATES, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`idempotency-key: ${entry.key}`);
    expect(r.stderr).toContain(`journal: resume: a pending command from`);
    expect(r.stderr).toContain(`its key ${entry.key}`);
    expect(await sent()).toEqual(['getCar']);
    expect((await journal.list())[0]).toMatchObject(entry);
    // --new could book twice while it is pending: refused as without --dry-run
    const fresh = await cli(['reserve', ALIAS, ...DATES, '--dry-run', '--new']);
    expect(fresh.code).toBe(2);
    expect(fresh.stderr).toContain('--new could book twice');
  });
});

describe('cancel, the links and api under --dry-run', () => {
  const book = async () => {
    const booked = await cli(['reserve', ALIAS, ...DATES, '-y', '--json']);
    expect(booked.code, booked.stderr).toBe(0);
    await sb.clearRequests();
    return (JSON.parse(booked.stdout) as { uuid: string }).uuid;
  };

  it('cancel: the DELETE and decision new, from a prefix; reads the trips list, never the reservation (that would prepare a debt invoice)', async () => {
    const uuid = await book();
    const before = await stats();
    const r = await cli(['cancel', uuid.slice(0, 8), '--dry-run', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const dry = JSON.parse(r.stdout) as DryJson;
    expect(dry).toMatchObject({ command: 'cancel', request: { method: 'DELETE', url: `${sb.baseUrl}/my/reservation/${uuid}` }, journal: { decision: 'new', key: null } });
    expect(await sent()).toEqual(['listTrips', 'listTrips']);
    expect(await stats()).toEqual(before);
    const trips = await cli(['trips', uuid, '--json']);
    expect(JSON.parse(trips.stdout).status).toBe('new');
  });

  it('cancel of a uuid that is not yours: exit 4 as without --dry-run', async () => {
    const r = await cli(['cancel', '6f1c1d7e-1111-4222-8333-444455556666', '--dry-run']);
    expect(r.code).toBe(4);
  });

  it('pay-link, extend-link (with its price preview, a read) and card-link: the POST with X-Agent-Client, no link created', async () => {
    const uuid = await book();
    const before = await stats();
    const pay = await cli(['pay-link', uuid, '--type', 'deposit', '--dry-run', '--json']);
    const extend = await cli(['extend-link', uuid, '--to', '2026-12-06T10:00', '--dry-run', '--json']);
    const card = await cli(['card-link', '--dry-run']);
    for (const r of [pay, extend, card]) expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(pay.stdout)).toMatchObject({ request: { method: 'POST', url: `${sb.baseUrl}/my/reservation/${uuid}/payment-link`, body: { payment_type: 'deposit' }, headers: { 'x-agent-client': expect.stringMatching(/^carrental\//) } }, journal: null });
    const ext = JSON.parse(extend.stdout) as DryJson;
    expect(ext.request).toMatchObject({ url: `${sb.baseUrl}/my/reservation/${uuid}/extension-link`, body: { checkout: '2026-12-06T10:00' } });
    expect(ext.extension_price).toMatchObject({ additional_days: 2 });
    expect(card.stdout).toContain(`POST ${sb.baseUrl}/my/billing/cards/add-link`);
    expect((await sent()).filter((op) => WRITES.includes(op!))).toEqual([]);
    expect(await sb.requests().then((q) => q.filter((x) => x.operation === 'getReservation'))).toEqual([]);
    expect(await stats()).toEqual(before);
  });

  it('--dry-run with --open or --wait is a usage error before any request', async () => {
    const a = await cli(['pay-link', '6f1c1d7e-1111-4222-8333-444455556666', '--dry-run', '--open']);
    const b = await cli(['card-link', '--dry-run', '--open']);
    expect([a.code, b.code]).toEqual([2, 2]);
    expect(await sent()).toEqual([]);
  });

  it('api: a raw create goes through the journal decision; a plain POST is shown as given; a GET is a usage error', async () => {
    const body = JSON.stringify({ car_alias: ALIAS, date_checkin: '2026-12-01T10:00', date_checkout: '2026-12-04T10:00', options: { protection_plan: 'minimum', mileage_type: 'limited', delivery_type: 'pickup' } });
    const create = await cli(['api', 'POST', '/my/reservation', '--body', body, '--dry-run', '--json']);
    expect(create.code, create.stderr).toBe(0);
    expect(JSON.parse(create.stdout)).toMatchObject({ command: 'api', journal: { decision: 'new' }, request: { method: 'POST', body: { car_alias: ALIAS, extras: [] } } });
    const post = await cli(['api', 'POST', '/my/billing/cards/add-link', '--dry-run']);
    expect(post.code, post.stderr).toBe(0);
    expect(post.stdout).toContain(`POST ${sb.baseUrl}/my/billing/cards/add-link`);
    const get = await cli(['api', 'GET', '/my/profile', '--dry-run']);
    expect(get.code).toBe(2);
    expect(await sent()).toEqual([]);
    expect(existsSync(journalPath())).toBe(false);
  });
});

// The embedded sandbox runs on the real clock (the CLI's "now" under --sandbox): its dates are
// relative, so they stay ahead whatever day the suite runs.
const EMBEDDED_DATES = ['--from', '+5d', '--days', '3'];

describe('--dry-run against the embedded sandbox', () => {
  it('leaves the sandbox state file, the journal and the config byte for byte as they were', async () => {
    const run = (args: string[]) => runCommand(['--sandbox', ...args], { env: home.env(), sleep: async () => {} });
    const booked = await run(['reserve', ALIAS, ...EMBEDDED_DATES, '-y']);
    expect(booked.code, booked.stderr).toBe(0);
    const uuid = booked.stdout.trim();
    const statePath = join(home.dir, 'data', 'sandbox-state.json');
    // The state as the sandbox reads it: on Node 22 the file is an SQLite database, whose
    // bytes move when a later open checkpoints its WAL and which holds the shared rate
    // counts (a dry run's reads spend budget, as they would on the real API).
    const state = async () => {
      const store = await openStore({ statePath, now: () => new Date() });
      const s = store.read();
      const text = JSON.stringify([s.seed, s.fleetSize, s.anchor, s.clockOffsetMs, s.customers, ...COLLECTIONS.map((c) => Object.entries(s[c]).sort())]);
      await store.close();
      return text;
    };
    const files = async () => [await state(), readFileSync(journalPath(), 'utf8')];
    const before = await files();
    for (const args of [
      ['reserve', ALIAS, '--from', '+14d', '--days', '2', '--dry-run'],
      ['cancel', uuid, '--dry-run'],
      ['pay-link', uuid, '--dry-run'],
      ['extend-link', uuid, '--to', '+10d', '--dry-run'],
      ['card-link', '--dry-run'],
      ['api', 'POST', '/my/reservation', '--body', '{"car_alias":"x"}', '--dry-run'],
    ]) {
      const r = await run(args);
      expect({ args, code: r.code, stderr: r.code ? r.stderr : '' }).toEqual({ args, code: 0, stderr: '' });
    }
    expect(await files()).toEqual(before);
    expect(existsSync(join(home.dir, 'config'))).toBe(false);
  });
});

describe('--dry-run with a key known to be read_only (the embedded sandbox demo key)', () => {
  it('reserve, cancel and a raw create fail as the server would refuse them: exit 3, before any write', async () => {
    const run = (args: string[]) => runCommand(['--sandbox', ...args], { env: home.env({ CARRENTAL_API_KEY: sb.keys.read_only }), sleep: async () => {} });
    const reserve = await run(['reserve', ALIAS, ...EMBEDDED_DATES, '--dry-run']);
    const cancel = await run(['cancel', '6f1c1d7e-1111-4222-8333-444455556666', '--dry-run']);
    const api = await run(['api', 'DELETE', '/my/reservation/6f1c1d7e-1111-4222-8333-444455556666', '--dry-run']);
    expect([reserve.code, cancel.code, api.code]).toEqual([3, 3, 3]);
    expect(reserve.stderr).toContain('this API key is read_only');
    expect(reserve.stderr).toContain('hint: create a booking_write key');
    // a link needs no booking_write: its dry run goes on
    expect((await run(['card-link', '--dry-run'])).code).toBe(0);
  });
});

/** Every file and folder under `dir`: its path, kind, mtime and, for a file, its bytes' hash. */
function snapshot(dir: string): string[] {
  const lines: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) {
        lines.push(`${p} dir ${st.mtimeMs}`);
        walk(p);
      } else lines.push(`${p} file ${st.mtimeMs} ${createHash('sha256').update(readFileSync(p)).digest('hex')}`);
    }
  };
  lines.push(`${dir} dir ${statSync(dir).mtimeMs}`);
  walk(dir);
  return lines;
}

describe('--dry-run writes nothing at all (issue 35)', () => {
  it('with a damaged journal: it is not moved aside, no lock is taken, every file and folder of the home is as it was', async () => {
    mkdirSync(join(home.dir, 'state'), { recursive: true });
    writeFileSync(journalPath(), '{"version":2,"entries":[{"id":');
    const before = snapshot(home.dir);
    for (const args of [
      ['reserve', ALIAS, ...DATES, '--dry-run'],
      ['cancel', '7f3c2a8e-0000-4000-8000-000000000001', '--dry-run'],
      ['api', 'POST', '/my/reservation', '--body', '{"car_alias":"x"}', '--dry-run'],
    ]) {
      const r = await cli(args);
      if (args[0] !== 'cancel') expect(r.code, r.stderr).toBe(0);
      if (args[0] === 'reserve') expect(r.stderr).toContain('is corrupt (not valid JSON');
      if (args[0] === 'reserve') expect(r.stderr).toContain('this dry run left it as it is');
    }
    expect(snapshot(home.dir)).toEqual(before);
  });
});

