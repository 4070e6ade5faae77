// `doctor`, in-process: against the sandbox (as deployed, with operations switched to 403
// api_key_operation_not_enabled, with broken answers), against a scripted phase-1-only
// deployment, and against nothing at all. It must never change the account.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/cli/main.js';
import type { DoctorReport } from '../../src/commands/doctor.js';
import { OPERATIONS } from '../../src/api/operations.js';
import { sandboxExtraCredentials } from '../../src/sandbox/index.js';
import { runCommand, TestHome } from '../helpers/cli.js';
import { sandboxPerTest, TestSandbox } from '../helpers/sandbox-admin.js';
import { StubServer, stubCar } from '../helpers/stub-server.js';

let sb: TestSandbox;
let home: TestHome;

const doctor = async (argv: string[] = [], opts: { key?: string | null; baseUrl?: string } = {}) => {
  const key = opts.key === undefined ? sb.keys.booking_write : opts.key;
  const r = await runCommand(['--base-url', opts.baseUrl ?? sb.baseUrl, 'doctor', '--json', ...argv], {
    env: home.env(key === null ? {} : { CARRENTAL_API_KEY: key }),
    sleep: async () => {},
  });
  return { ...r, report: JSON.parse(r.stdout) as DoctorReport };
};
const op = (report: DoctorReport, id: string) => report.operations.find((o) => o.id === id)!;
const check = (report: DoctorReport, name: string) => report.checks.find((c) => c.name === name)!;

sandboxPerTest((started) => (sb = started), (fresh) => (home = fresh));

describe('doctor against the sandbox', () => {
  it('all deployed, a booking_write key: exit 0, one JSON object, whose key it is, and nothing changed', async () => {
    const before = await sb.admin('GET', '/stats');
    const { code, report, stdout } = await doctor();
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(report).toMatchObject({ ok: true, exit_code: 0, sandbox: false, capability: 'booking_write', customer: { first_name: 'Dana' }, problems: [] });
    expect(report.key).toEqual({ source: 'env', masked: `svc_…${sb.keys.booking_write.slice(-4)}` });
    expect(stdout).not.toContain(sb.keys.booking_write);
    expect(report.operations.map((o) => o.id)).toEqual(OPERATIONS.map((o) => o.id));
    for (const o of report.operations) expect({ id: o.id, status: o.status }).toEqual({ id: o.id, status: o.id === 'cardAddLink' ? 'skipped' : 'ok' });
    expect(check(report, 'credential').detail).toContain('belongs to Dana');
    // no reservation, invoice, refund or link was created, nothing was cancelled
    const after = await sb.admin('GET', '/stats');
    for (const k of ['reservations', 'invoices', 'refunds', 'agent_flows'] as const) expect({ k, n: after[k] }).toEqual({ k, n: before[k] });
    const cancels = (await sb.requests()).filter((q) => q.operation === 'cancelReservation' || q.operation === 'createReservation');
    expect(cancels.map((q) => q.status).sort()).toEqual([400, 404]);
    const trips = (await fetch(`${sb.baseUrl}/my/trips`, { headers: { authorization: `Bearer ${sb.keys.booking_write}` } }).then((r) => r.json())) as { data: { active: Array<{ status: string }> } };
    expect(trips.data.active.every((t: { status: string }) => t.status === 'new')).toBe(true);
  });

  it('never reads a real reservation (that would prepare a debt invoice)', async () => {
    await doctor();
    const reads = (await sb.requests()).filter((q) => q.operation === 'getReservation');
    expect(reads).toHaveLength(1);
    expect(reads[0].status).toBe(404);
  });

  it('a read_only key: create and cancel refused, capability read_only, exit 0; with --write exit 3', async () => {
    const plain = await doctor([], { key: sb.keys.read_only });
    expect(plain.code).toBe(0);
    expect(plain.report.capability).toBe('read_only');
    expect(op(plain.report, 'createReservation')).toMatchObject({ status: 'refused', error_code: 'api_key_write_upgrade_required' });
    expect(op(plain.report, 'cancelReservation')).toMatchObject({ status: 'refused', error_code: 'api_key_write_upgrade_required' });
    const write = await doctor(['--write'], { key: sb.keys.read_only });
    expect(write.code).toBe(3);
    expect(check(write.report, 'capability').status).toBe('fail');
    expect(write.stderr).toContain('doctor: 1 problem');
  });

  it('operations switched to 403 api_key_operation_not_enabled are "not deployed", not a crash', async () => {
    for (const operation of ['listTrips', 'getInvoice', 'cancelReservation', 'paymentLink']) await sb.fault({ kind: 'operation_not_enabled', operation });
    const { code, report } = await doctor();
    expect(code).toBe(0);
    for (const id of ['listTrips', 'getInvoice', 'cancelReservation', 'paymentLink']) {
      expect(op(report, id)).toMatchObject({ status: 'not_deployed', http_status: 403, error_code: 'api_key_operation_not_enabled' });
    }
    expect(op(report, 'getProfile').status).toBe('ok');
    // without a deployed cancel the capability cannot be learnt
    expect(report.capability).toBe('unknown');
    expect(check(report, 'capability').status).toBe('skip');
  });

  it('exit 1 when an operation the user requires is not deployed', async () => {
    await sb.fault({ kind: 'operation_not_enabled', operation: 'listTrips' });
    const { code, report, stderr } = await doctor(['--require', 'listTrips,getProfile']);
    expect(code).toBe(1);
    expect(op(report, 'listTrips').required).toBe(true);
    expect(report.problems).toEqual([expect.stringMatching(/^listTrips \(GET \/my\/trips\): not deployed/)]);
    expect(stderr).toContain('listTrips');
  });

  it('a deployed operation that fails is a problem even when not required (exit 1)', async () => {
    await sb.fault({ kind: 'error', operation: 'getVerification', code: 'internal_error' });
    await sb.fault({ kind: 'malformed', operation: 'listCards', body: 'schema' });
    const { code, report } = await doctor();
    expect(code).toBe(1);
    expect(op(report, 'getVerification')).toMatchObject({ status: 'failed', http_status: 500 });
    expect(op(report, 'listCards')).toMatchObject({ status: 'failed', http_status: 200 });
    expect(op(report, 'listCards').detail).toMatch(/^unexpected response: data/);
  });

  it('probes the card link only when asked; card payments not enabled is refused (exit 1)', async () => {
    const ok = await doctor(['--require', 'cardAddLink']);
    expect(ok.code).toBe(0);
    expect(op(ok.report, 'cardAddLink').status).toBe('ok');
    const flows = (await sb.admin<{ flows: Array<{ agent_client: string }> }>('GET', '/agent-flows')).flows;
    expect(flows.map((f) => f.agent_client)).toEqual([`carrental/${VERSION}`]);
    const sam = await doctor(['--require', 'cardAddLink'], { key: sb.keys.no_card_payments });
    expect(sam.code).toBe(1);
    expect(op(sam.report, 'cardAddLink')).toMatchObject({ status: 'refused', error_code: 'card_payments_not_enabled' });
  });

  it('a revoked key: the credential check fails (exit 3)', async () => {
    const { code, report } = await doctor([], { key: sandboxExtraCredentials(1).revoked });
    expect(code).toBe(3);
    expect(check(report, 'credential').status).toBe('fail');
    expect(op(report, 'getProfile')).toMatchObject({ status: 'failed', http_status: 401 });
  });

  it('no key: the catalog is checked, key operations are skipped (exit 0); requiring one fails (exit 3)', async () => {
    const none = await doctor([], { key: null });
    expect(none.code).toBe(0);
    expect(check(none.report, 'credential').status).toBe('skip');
    expect(op(none.report, 'listCars').status).toBe('ok');
    expect(op(none.report, 'listTrips')).toMatchObject({ status: 'skipped', detail: 'no API key' });
    const required = await doctor(['--require', 'listTrips'], { key: null });
    expect(required.code).toBe(3);
  });

  it('prints two tables and a summary for a human', async () => {
    const r = await runCommand(['--base-url', sb.baseUrl, 'doctor'], { env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write }), tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Checks');
    expect(r.stdout).toContain('Operations');
    expect(r.stdout).toMatch(/^cancelReservation +DELETE \/my\/reservation\/\{uuid\}/m);
    expect(r.stderr).toContain('doctor: everything required works');
  });

  it('colours each result on a terminal (ok green, a refusal or warning yellow), and not with --no-color', async () => {
    const env = home.env({ CARRENTAL_API_KEY: sb.keys.read_only });
    const r = await runCommand(['--base-url', sb.baseUrl, 'doctor'], { env, tty: true });
    // a read_only key: the reads are ok, the writes refused
    expect(r.stdout).toContain('\u001b[32mok\u001b[39m');
    expect(r.stdout).toContain('\u001b[33mrefused\u001b[39m');
    const plain = await runCommand(['--base-url', sb.baseUrl, '--no-color', 'doctor'], { env, tty: true });
    expect(plain.stdout).not.toMatch(/\u001b\[3\dm/);
    expect(plain.stdout).toMatch(/ ok\s/);
  });

  it('refuses an unknown --require before sending anything (exit 2)', async () => {
    const r = await runCommand(['--base-url', sb.baseUrl, 'doctor', '--require', 'listTrip'], { env: home.env() });
    expect(r.code).toBe(2);
    expect(await sb.requests()).toEqual([]);
  });
});

describe('doctor elsewhere', () => {
  it('works with --sandbox', async () => {
    const r = await runCommand(['--sandbox', 'doctor', '--json'], { env: home.env() });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as DoctorReport;
    expect(report).toMatchObject({ ok: true, sandbox: true, capability: 'booking_write', key: { source: 'sandbox-demo' } });
  });

  it('a phase-1-only deployment: every /my operation "not deployed" (unknown route), exit 0; --require all fails', async () => {
    const notFound = { status: 404, json: { error: 'Not Found' } };
    const stub = await StubServer.start((req) => {
      if (req.method === 'GET' && req.path === '/cars') return { json: { data: { cars: [stubCar('car-1')], total: 1, has_more: false } } };
      if (req.method === 'GET' && req.path === '/cars/car-1') return { json: { data: stubCar('car-1') } };
      if (req.method === 'POST' && req.path === '/reservation/quote') return { status: 409, json: { error: 'Car not available', error_code: 'car_not_available' } };
      return notFound;
    });
    try {
      const r = await doctor([], { baseUrl: stub.baseUrl });
      expect(r.code).toBe(0);
      for (const o of r.report.operations.filter((x) => x.path.startsWith('/my/') && x.id !== 'cardAddLink')) {
        expect({ id: o.id, status: o.status }).toEqual({ id: o.id, status: 'not_deployed' });
      }
      expect(op(r.report, 'quote')).toMatchObject({ status: 'ok', http_status: 409 });
      expect(check(r.report, 'credential').status).toBe('warn');
      // the cancel probe carries a fresh Idempotency-Key; the card link is not probed unless required
      expect(stub.requests.filter((q) => q.method === 'DELETE').map((q) => typeof q.headers['idempotency-key'])).toEqual(['string']);
      expect(stub.requests.some((q) => q.path === '/my/billing/cards/add-link')).toBe(false);
      const all = await doctor(['--require', 'all'], { baseUrl: stub.baseUrl });
      expect(all.code).toBe(1);
      expect(all.report.problems.length).toBeGreaterThan(10);
    } finally {
      await stub.close();
    }
  });

  it('an unreachable base URL: exit 6', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const r = await doctor([], { baseUrl: `http://127.0.0.1:${port}/v1` });
    expect(r.code).toBe(6);
    expect(check(r.report, 'reachable').status).toBe('fail');
    expect(r.report.operations.every((o) => o.status === 'skipped')).toBe(true);
  });

  it('no base URL: the report says so (exit 2)', async () => {
    const r = await runCommand(['doctor', '--json'], { env: home.env() });
    expect(r.code).toBe(2);
    const report = JSON.parse(r.stdout) as DoctorReport;
    expect(check(report, 'base URL')).toMatchObject({ status: 'fail' });
    expect(check(report, 'base URL').detail).toContain('no API base URL');
  });
});

describe('doctor and the config file', () => {
  it('an unreadable config file is reported, not a crash', async () => {
    const env = home.env();
    mkdirSync(env.CARRENTAL_CONFIG_DIR!, { recursive: true });
    writeFileSync(join(env.CARRENTAL_CONFIG_DIR!, 'config.json'), '{ not json', { mode: 0o600 });
    const r = await runCommand(['--base-url', sb.baseUrl, 'doctor', '--json'], { env });
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as DoctorReport;
    expect(check(report, 'config').status).toBe('fail');
    expect(report.operations).toEqual([]);
  });

  it('a profile from the config file is found and used', async () => {
    const env = home.env();
    const set = await runCommand(['--profile', 'ci', 'config', 'set', 'base_url', sb.baseUrl], { env });
    expect(set.code).toBe(0);
    const r = await runCommand(['--profile', 'ci', 'doctor', '--json'], { env: { ...env, CARRENTAL_API_KEY: sb.keys.read_only } });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as DoctorReport;
    expect(check(report, 'profile')).toMatchObject({ status: 'ok', detail: '"ci" found in the config file' });
    expect(report.base_url).toBe(sb.baseUrl);
    expect(report.capability).toBe('read_only');
  });
});
