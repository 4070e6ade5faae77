// `doctor --contract`, in-process: against the sandbox (no violations, nothing created),
// and through a loopback proxy that breaks one rule of the spec at a time (a required field
// dropped, dollars as decimals, a UTC date where the spec says car-local, a 429 without
// Retry-After, ...), each reported with its operation, rule, spec words, path and what was
// seen; JUnit XML that parses; --write that reserves and cancels, leaving nothing active.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/contract/check.js';
import { RULES, type RuleId } from '../../src/contract/rules.js';
import type { OpReport } from '../../src/contract/run.js';
import { Journal } from '../../src/store/journal.js';
import { runCommand, TestHome } from '../helpers/cli.js';
import { ContractBreaker, editJson, type Break } from '../helpers/contract-breaker.js';
import { sandboxPerTest, TestSandbox } from '../helpers/sandbox-admin.js';

let sb: TestSandbox;
let home: TestHome;
let breaker: ContractBreaker;
let sleeps: number[] = [];
sandboxPerTest((s) => (sb = s), (h) => (home = h));
beforeAll(async () => {
  breaker = await ContractBreaker.start(sb.baseUrl);
});
afterAll(() => breaker.close());
afterEach(() => {
  breaker.clear();
  sleeps = [];
});

interface Report {
  ok: boolean;
  exit_code: number;
  violations: number;
  findings: Finding[];
  operations: OpReport[];
  problems: string[];
}

const doctor = async (args: string[], opts: { via?: 'sandbox' | 'breaker'; key?: string } = {}) => {
  const base = opts.via === 'sandbox' ? sb.baseUrl : breaker.baseUrl;
  const r = await runCommand(['--base-url', base, 'doctor', '--contract', ...args], {
    env: home.env({ CARRENTAL_API_KEY: opts.key ?? sb.keys.booking_write }),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  return r;
};
const json = async (args: string[] = [], opts: Parameters<typeof doctor>[1] = {}) => {
  const r = await doctor(['--json', ...args], opts);
  return { ...r, report: JSON.parse(r.stdout) as Report };
};
const stats = async () => {
  const { reservations, invoices, refunds, agent_flows, idempotency_records } = await sb.admin('GET', '/stats');
  return { reservations, invoices, refunds, agent_flows, idempotency_records };
};
const get = (path: RegExp): Break['match'] => (m, p) => m === 'GET' && path.test(p);

const READS = ['listCars', 'getCar', 'quote', 'getProfile', 'getVerification', 'listCards', 'listTrips', 'getReservation', 'listReservationInvoices', 'getInvoice', 'extensionPrice'];

describe('doctor --contract against the sandbox', () => {
  it('checks every read and reports no violation: exit 0, and it created, cancelled and linked nothing', async () => {
    const before = await stats();
    const { code, report, stderr } = await json([], { via: 'sandbox' });
    expect(code, stderr).toBe(0);
    expect(report).toMatchObject({ ok: true, exit_code: 0, violations: 0, findings: [], problems: [] });
    for (const id of READS) expect({ id, status: report.operations.find((o) => o.id === id)?.status }).toEqual({ id, status: 'checked' });
    for (const id of ['getReservation:404', 'listReservationInvoices:404', 'getInvoice:404']) expect(report.operations.find((o) => o.id === id)?.status).toBe('checked');
    expect(await stats()).toEqual(before);
    const writes = (await sb.requests()).filter((q) => ['createReservation', 'cancelReservation', 'paymentLink', 'extensionLink', 'cardAddLink'].includes(q.operation ?? ''));
    expect(writes).toEqual([]);
  });

  it('through the proxy with nothing broken: the same clean report (the double itself is faithful)', async () => {
    const { code, report } = await json();
    expect(code).toBe(0);
    expect(report.findings).toEqual([]);
  });

  it('without a key: the catalog is checked, the account skipped', async () => {
    const r = await runCommand(['--base-url', sb.baseUrl, 'doctor', '--contract', '--json'], { env: home.env() });
    const report = JSON.parse(r.stdout) as Report;
    expect(r.code).toBe(0);
    expect(report.operations.find((o) => o.id === 'listCars')?.status).toBe('checked');
    expect(report.operations.find((o) => o.id === 'getProfile')).toMatchObject({ status: 'skipped', detail: expect.stringContaining('no API key') });
  });
});

describe('doctor --contract against a server that breaks the contract, one rule at a time', () => {
  const cases: Array<{ name: string; brk: Break; expected: { operation: string; rule: RuleId; path: string | RegExp; saw: string | RegExp } }> = [
    {
      name: 'a required field dropped (car name)',
      brk: { match: get(/^\/cars\/[^/]+$/), rewrite: editJson((b) => delete b.data.name) },
      expected: { operation: 'getCar', rule: 'required', path: 'data.name', saw: 'missing' },
    },
    {
      name: 'dollars as decimals (quote final_total)',
      brk: {
        match: (m, p) => m === 'POST' && p === '/reservation/quote',
        rewrite: (res) => ({ ...res, text: res.text.replace(/"final_total":(\d+)/, (_m, n: string) => `"final_total":${(Number(n) / 100).toFixed(2)}`) }),
      },
      expected: { operation: 'quote', rule: 'integer-cents', path: 'data.final_total', saw: /^\d+\.\d\d$/ },
    },
    {
      name: 'a UTC date where the spec says car-local (a trip check-in)',
      brk: { match: get(/^\/my\/trips$/), rewrite: editJson((b) => (b.data.active[0].date_checkin = `${b.data.active[0].date_checkin}:00Z`)) },
      expected: { operation: 'listTrips', rule: 'car-local-date', path: 'data.active[0].date_checkin', saw: /T\d\d:\d\d:00Z"$/ },
    },
    {
      name: 'a 429 without Retry-After (profile)',
      brk: {
        match: get(/^\/my\/profile$/),
        answer: (n) => (n === 1 ? { status: 429, headers: { 'content-type': 'application/json' }, text: JSON.stringify({ error: 'Too many requests', error_code: 'rate_limited' }) } : undefined),
      },
      expected: { operation: 'getProfile', rule: 'retry-after', path: 'HTTP 429: header Retry-After', saw: 'missing' },
    },
    {
      name: 'the invoice list in an envelope instead of a bare array',
      brk: { match: get(/^\/my\/reservation\/[^/]+\/invoices$/), rewrite: (res) => (res.status === 200 ? { ...res, text: `{"data":${res.text}}` } : res) },
      expected: { operation: 'listReservationInvoices', rule: 'envelope', path: 'body', saw: /envelope/ },
    },
    {
      name: 'a value outside a closed set (invoice billing_status)',
      brk: { match: get(/^\/my\/billing\/invoice\/[^/]+$/), rewrite: (res) => (res.status === 200 ? editJson((b) => (b.data.billing_status = 'SETTLED'))(res) : res) },
      expected: { operation: 'getInvoice', rule: 'closed-set', path: 'data.billing_status', saw: '"SETTLED"' },
    },
    {
      name: 'a list that is not a list (cars): reported, and the check goes on without a car',
      brk: { match: get(/^\/cars$/), rewrite: editJson((b) => (b.data.cars = 'none')) },
      expected: { operation: 'listCars', rule: 'type', path: 'data.cars', saw: '"none"' },
    },
    {
      name: 'an unknown uuid answered 403 instead of 404',
      brk: { match: (m, p) => m === 'GET' && /^\/my\/billing\/invoice\//.test(p), rewrite: (res) => (res.status === 404 ? { ...res, status: 403, text: '{"error":"Forbidden"}' } : res) },
      expected: { operation: 'getInvoice:404', rule: 'not-found', saw: 'HTTP 403', path: /random uuid/ },
    },
  ];

  it.each(cases)('$name: exit 1, exactly that finding, in the spec’s words', async ({ brk, expected }) => {
    breaker.use(brk);
    const { code, report } = await json();
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    expect(report.findings).toHaveLength(1);
    const [f] = report.findings;
    expect(f).toMatchObject({ operation: expected.operation, rule: expected.rule, spec: RULES[expected.rule].spec });
    expect(f.path).toMatch(expected.path instanceof RegExp ? expected.path : new RegExp(`^${expected.path.replace(/[.[\]]/g, '\\$&')}$`));
    if (expected.saw instanceof RegExp) expect(f.saw).toMatch(expected.saw);
    else expect(f.saw).toBe(expected.saw);
  });

  it('a 429 without Retry-After is still waited out (2 s) and the profile then checked', async () => {
    breaker.use(cases[3].brk);
    const { report } = await json();
    expect(sleeps).toContain(2000);
    expect(report.operations.find((o) => o.id === 'getProfile')).toMatchObject({ status: 'checked', rules: expect.arrayContaining(['retry-after']) });
  });

  it('the four breaks of the issue at once: each reported; the words name the operation, the rule, the spec, the path and what was seen', async () => {
    breaker.use(...cases.slice(0, 4).map((c) => c.brk));
    const r = await doctor([]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/VIOLATED\s+getCar\s+GET \/cars\//);
    expect(r.stdout).toContain('getCar: required fields (required)');
    expect(r.stdout).toContain('  data.name: saw missing');
    expect(r.stdout).toContain(`  spec: "${RULES['integer-cents'].spec}"`);
    expect(r.stdout).toMatch(/ {2}data\.final_total: saw \d+\.\d\d/);
    expect(r.stdout).toContain('listTrips: car-local dates (car-local-date)');
    expect(r.stdout).toContain('getProfile: Retry-After on 429 and 503 (retry-after)');
    expect(r.stderr).toContain('4 violations');
  });

  it('--junit: well-formed XML, one test case per operation and rule, the violated ones failed, markup from the server escaped', async () => {
    breaker.use(...cases.slice(0, 4).map((c) => c.brk), {
      match: get(/^\/my\/billing\/invoice\/[^/]+$/),
      rewrite: (res) => (res.status === 200 ? editJson((b) => (b.data.billing_status = '</failure><x a="1">&\u0001')) (res) : res),
    });
    const file = join(home.dir, 'contract.xml');
    const r = await doctor(['--junit', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`JUnit XML written to ${file}`);
    const xml = readFileSync(file, 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml);
    const suite = doc.testsuites.testsuite;
    const cases_ = suite.testcase as Array<{ classname: string; name: string; failure?: { type: string; '#text': string } }>;
    expect(Number(suite.tests)).toBe(cases_.length);
    const failed = cases_.filter((c) => c.failure);
    expect(failed.map((c) => `${c.classname} ${c.failure!.type}`).sort()).toEqual(['getCar required', 'getInvoice closed-set', 'getProfile retry-after', 'listTrips car-local-date', 'quote integer-cents']);
    expect(Number(suite.failures)).toBe(5);
    expect(failed.find((c) => c.classname === 'getInvoice')!.failure!['#text']).toContain('data.billing_status: saw "</failure><x a=\\"1\\">&');
    // one case per operation and rule: listCars is held to six rules and passed them all
    expect(cases_.filter((c) => c.classname === 'listCars' && !c.failure)).toHaveLength(6);
  });
});

describe('doctor --contract --write', () => {
  it('reserves, reads back, gets a pay link and cancels, through the journal: no violation, nothing left active', async () => {
    const before = (await sb.admin('GET', '/stats')).reservations;
    const { code, report, stderr } = await json(['--write', '-y'], { via: 'sandbox' });
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('creates a real reservation');
    for (const id of ['createReservation', 'getReservation:after-create', 'paymentLink', 'cancelReservation', 'getReservation:after-cancel']) {
      expect({ id, status: report.operations.find((o) => o.id === id)?.status }).toEqual({ id, status: 'checked' });
    }
    const uuid = report.operations.find((o) => o.id === 'cancelReservation')!.request.split('/').pop()!;
    const trip = await runCommand(['--base-url', sb.baseUrl, 'trips', uuid, '--json'], { env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write }) });
    expect(JSON.parse(trip.stdout).status).toBe('cancelled');
    expect((await sb.admin('GET', '/stats')).reservations).toBe(before + 1);
    const entries = await new Journal({ path: join(home.dir, 'state', 'journal.json') }).list();
    expect(entries.map((e) => `${e.operation} ${e.state}`).sort()).toEqual(['cancelReservation done', 'createReservation done']);
  });

  it('a server that converts the reserved dates (same form, another clock): the read-back says so, and the reservation is still cancelled', async () => {
    breaker.use({
      match: get(/^\/my\/reservation\/[^/]+$/),
      rewrite: (res) => (res.status === 200 ? editJson((b) => (b.data.date_checkin = b.data.date_checkin.replace(/T10:00$/, 'T18:00')))(res) : res),
    });
    const { code, report } = await json(['--write', '-y']);
    expect(code).toBe(1);
    expect(report.findings).toContainEqual(expect.objectContaining({ operation: 'getReservation:after-create', rule: 'car-local-date', path: 'data.date_checkin', saw: expect.stringMatching(/T18:00" for the ".*T10:00" reserved$/) }));
    const uuid = report.operations.find((o) => o.id === 'cancelReservation')!.request.split('/').pop()!;
    const trip = await runCommand(['--base-url', sb.baseUrl, 'trips', uuid, '--json'], { env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write }) });
    expect(JSON.parse(trip.stdout).status).toBe('cancelled');
  });

  it('a run cut off before its cancel is finished by the next one: the same reservation, cancelled; one reservation made in all', async () => {
    const before = (await sb.admin('GET', '/stats')).reservations;
    breaker.use({
      match: (m) => m === 'DELETE',
      answer: () => ({ status: 503, headers: { 'content-type': 'application/json', 'retry-after': '1' }, text: '{"error":"Unavailable","error_code":"operation_outcome_unknown"}' }),
    });
    const cut = await doctor(['--write', '-y']);
    expect(cut.code).toBe(6);
    expect(cut.stderr).toContain('the outcome of this cancel is unknown');
    expect(cut.stderr).toMatch(/warning: write flow: reservation [0-9a-f-]{36} may still be active .*: run the same check again to finish it/);
    breaker.clear();
    const { code, report, stderr } = await json(['--write', '-y']);
    expect(code, stderr).toBe(0);
    const uuid = report.operations.find((o) => o.id === 'cancelReservation')!.request.split('/').pop()!;
    const trip = await runCommand(['--base-url', sb.baseUrl, 'trips', uuid, '--json'], { env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write }) });
    expect(JSON.parse(trip.stdout).status).toBe('cancelled');
    expect((await sb.admin('GET', '/stats')).reservations).toBe(before + 1);
    const entries = await new Journal({ path: join(home.dir, 'state', 'journal.json') }).list();
    expect(entries.filter((e) => e.state === 'pending')).toEqual([]);
  });

  it('a 503 without Retry-After on the create is reported, and the create, retried under its key, goes on', async () => {
    breaker.use({
      match: (m, p) => m === 'POST' && p === '/my/reservation',
      answer: (n) => (n === 1 ? { status: 503, headers: { 'content-type': 'application/json' }, text: '{"error":"Unavailable","error_code":"operation_outcome_unknown"}' } : undefined),
    });
    const { code, report } = await json(['--write', '-y']);
    expect(code).toBe(1);
    expect(report.findings).toEqual([expect.objectContaining({ operation: 'createReservation', rule: 'retry-after', saw: 'missing' })]);
    expect(report.operations.find((o) => o.id === 'createReservation')?.rules).toContain('retry-after');
    expect(report.operations.find((o) => o.id === 'cancelReservation')?.status).toBe('checked');
  });

  it('in a pipe without -y: a usage error before any request; a read_only key: refused with exit 3 and nothing created', async () => {
    const pipe = await doctor(['--write'], { via: 'sandbox' });
    expect(pipe.code).toBe(2);
    expect(await sb.requests()).toEqual([]);
    const before = await stats();
    const ro = await doctor(['--write', '-y'], { via: 'sandbox', key: sb.keys.read_only });
    expect(ro.code).toBe(3);
    expect(ro.stderr).toContain('api_key_write_upgrade_required');
    expect(await stats()).toMatchObject({ reservations: before.reservations });
  });

  it('--junit without --contract and --require with it are usage errors', async () => {
    const a = await runCommand(['--base-url', sb.baseUrl, 'doctor', '--junit', 'x.xml'], { env: home.env() });
    const b = await doctor(['--require', 'listTrips'], { via: 'sandbox' });
    expect([a.code, b.code]).toEqual([2, 2]);
  });
});
