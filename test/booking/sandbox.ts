// Booking tests against the real sandbox, in-process: their fixtures (`test`), the sandbox's
// admin API (faults, counters, the customer's payment) and dates valid for its rules.
import { test as base } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { runCommand, TestHome, type RunOpts, type RunResult } from '../helpers/cli.js';

/** The sandbox clock in these tests: trips below are 11+ days ahead, inside opening hours. */
export const SANDBOX_NOW = new Date('2026-11-20T18:00:00Z');
export const FROM = '2026-12-01T10:00';
export const TO = '2026-12-04T10:00';

export async function admin<T = unknown>(sb: RunningSandbox, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${sb.adminUrl}${path}`, {
    method,
    // the admin endpoints refuse a state change without it (docs/sandbox.md)
    headers: body === undefined && method === 'GET' ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

export interface LoggedRequest {
  operation: string | null;
  status: number | null;
  idempotency_key: string | null;
  replayed: boolean;
  path: string;
}

export const faults = (sb: RunningSandbox, ...specs: unknown[]) => admin(sb, 'POST', '/faults', specs);
export const requests = async (sb: RunningSandbox, operation?: string) =>
  (await admin<{ requests: LoggedRequest[] }>(sb, 'GET', '/requests')).requests.filter((r) => !operation || r.operation === operation);

/**
 * The demo customer's (dana's) reservations of this car for FROM..TO (or other dates; the
 * fixtures give her others), optionally of one status.
 */
export async function reservations(sb: RunningSandbox, alias: string, status?: string, dates = { from: FROM, to: TO }) {
  const res = await admin<{ reservations: Array<{ uuid: string; status: string; car_alias: string; date_checkin: string; date_checkout: string }> }>(
    sb,
    'GET',
    `/reservations?customer=dana${status ? `&status=${status}` : ''}`,
  );
  return res.reservations.filter((r) => r.car_alias === alias && r.date_checkin === dates.from && r.date_checkout === dates.to);
}

/** Free cars in LA for FROM..TO (or other dates), cheapest first, from the catalog itself. */
export async function freeCars(sb: RunningSandbox, count: number, dates = { from: FROM, to: TO }): Promise<string[]> {
  const url = `${sb.baseUrl}/cars?city=la&date_from=${dates.from}&date_to=${dates.to}&limit=50&order_by=price_asc`;
  const body = (await (await fetch(url)).json()) as { data: { cars: Array<{ car_alias: string; is_available: boolean }> } };
  return body.data.cars.filter((c) => c.is_available).slice(0, count).map((c) => c.car_alias);
}

export async function resetSandbox(sb: RunningSandbox): Promise<void> {
  await admin(sb, 'POST', '/reset');
  await admin(sb, 'DELETE', '/faults');
  await admin(sb, 'DELETE', '/requests');
}

/**
 * A command against the file's sandbox, in the test's home, with the booking customer's key
 * (opts.env adds to it); its sleeps return at once unless opts.sleep says otherwise.
 */
export type BookingCli = (args: string[], opts?: RunOpts) => Promise<RunResult>;

const noWait = async () => {};

/**
 * The fixtures of these tests: one sandbox per file (on SANDBOX_NOW); before every test it
 * is reset and a fresh temporary home made (removed after the test); `alias`, a car free for
 * FROM..TO (the request log emptied after finding it); `cli`, a command against all that, on
 * the sandbox's clock. A
 * file with other needs extends or overrides one (`test.override('cli', ...)`).
 */
export const test = base
  .extend('sb', { scope: 'file' }, async ({}, { onCleanup }) => {
    const sb = await startSandbox({ now: () => SANDBOX_NOW, quiet: true });
    onCleanup(() => sb.close());
    return sb;
  })
  .extend('home', { auto: true }, async ({ sb }, { onCleanup }) => {
    await resetSandbox(sb);
    const home = new TestHome();
    onCleanup(() => home.cleanup());
    return home;
  })
  .extend('alias', async ({ sb, home: _ }) => {
    const [alias] = await freeCars(sb, 1);
    await admin(sb, 'DELETE', '/requests');
    return alias;
  })
  .extend('cli', async ({ sb, home }): Promise<BookingCli> => {
    // the CLI's clock is the sandbox's: FROM stays ahead whatever day the suite runs
    return (args, opts = {}) => runCommand(['--base-url', sb.baseUrl, ...args], { sleep: noWait, now: () => SANDBOX_NOW, ...opts, env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write, ...opts.env }) });
  });
