// Starts a sandbox on loopback with a fixed clock and makes real HTTP calls to it.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test as base } from 'vitest';
import { ApiErrorBody, TripsList } from '../../src/api/schemas.js';
import { type RunningSandbox, type SandboxOptions, sandboxExtraCredentials, startSandbox } from '../../src/sandbox/index.js';

/** 11:00 in Los Angeles (PDT), 14:00 in Miami (EDT); the anchor day is 2026-03-10. */
export const FIXED_NOW = new Date('2026-03-10T18:00:00Z');

export interface CallOptions {
  /** A key or token sent as `Authorization: Bearer ...`. */
  key?: string;
  headers?: Record<string, string>;
  /** Serialised as JSON unless a string. */
  body?: unknown;
  idempotencyKey?: string;
}

export interface CallResult<T = any> {
  status: number;
  headers: Headers;
  text: string;
  json: T;
}

export interface Harness {
  sb: RunningSandbox;
  extra: ReturnType<typeof sandboxExtraCredentials>;
  call<T = any>(method: string, path: string, opts?: CallOptions): Promise<CallResult<T>>;
  admin<T = any>(method: string, path: string, body?: unknown): Promise<CallResult<T>>;
  close(): Promise<void>;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export async function startHarness(opts: SandboxOptions = {}): Promise<Harness> {
  const sb = await startSandbox({ now: () => FIXED_NOW, quiet: true, ...opts });
  const request = async (url: string, method: string, opts: CallOptions = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
    if (opts.idempotencyKey) headers['Idempotency-Key'] = opts.idempotencyKey;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(url, { method, headers, body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: parse(text) as any };
  };
  return {
    sb,
    extra: sandboxExtraCredentials(1),
    call: (method, path, opts) => request(sb.baseUrl + path, method, opts),
    admin: (method, path, body) => request(sb.adminUrl + path, method, { body, headers: method === 'GET' ? {} : { 'Content-Type': 'application/json' } }),
    close: () => sb.close(),
  };
}

/** Asserts a spec-shaped error: status, code, the four fields, and the request id header. */
export function expectError(res: CallResult, status: number, code: string): void {
  expect({ status: res.status, code: res.json?.error_code, body: res.text }).toMatchObject({ status, code });
  const body = ApiErrorBody.parse(res.json);
  expect(typeof body.error).toBe('string');
  expect(body.error.length).toBeGreaterThan(0);
  expect(typeof body.description).toBe('string');
  expect(body.request_id).toMatch(/^req_[0-9a-f]{24}$/);
  expect(res.headers.get('x-request-id')).toBe(body.request_id);
}

export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'carrental-sandbox-test-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A fresh idempotency key, as the spec asks: a UUID v4 per new command. */
export const newKey = () => randomUUID();

/** A car available for the dates in the city (first by car id), from the API itself. */
export async function availableCar(h: Harness, from: string, to: string, city = 'la', skip = 0): Promise<any> {
  const res = await h.call('GET', `/cars?city=${city}&limit=200&date_from=${from}&date_to=${to}`);
  const cars = res.json.data.cars.filter((c: any) => c.is_available);
  if (cars.length <= skip) throw new Error('no available car');
  return cars[skip];
}

export function tripBody(alias: string, from: string, to: string, extra: Record<string, unknown> = {}) {
  return {
    car_alias: alias,
    date_checkin: from,
    date_checkout: to,
    options: { protection_plan: 'minimum', mileage_type: 'limited', delivery_type: 'pickup' },
    ...extra,
  };
}

/**
 * A car free for the dates and a function that sends its create with the given
 * Idempotency-Key (as the booking_write key): for tests that watch one create on the wire.
 */
export async function createOfFreeCar(sb: RunningSandbox, from: string, to: string): Promise<(idempotencyKey: string) => Promise<Response>> {
  const list = (await fetch(`${sb.baseUrl}/cars?limit=200&date_from=${from}&date_to=${to}`).then((r) => r.json())) as any;
  const alias = list.data.cars.find((c: any) => c.is_available).car_alias;
  return (idempotencyKey) =>
    fetch(`${sb.baseUrl}/my/reservation`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${sb.keys.booking_write}`, 'Idempotency-Key': idempotencyKey, 'Content-Type': 'application/json' },
      body: JSON.stringify(tripBody(alias, from, to)),
    });
}

/** Creates a reservation for the key and returns its uuid. */
export async function reserve(h: Harness, key: string, body: unknown): Promise<string> {
  const res = await h.call('POST', '/my/reservation', { key, body, idempotencyKey: newKey() });
  if (res.status !== 200) throw new Error(`reserve failed: ${res.status} ${res.text}`);
  return res.json.data;
}

/**
 * The fixtures of the HTTP-level tests that book: a harness of their own per test (a sandbox
 * that lets a customer hold 100 reservations, closed after the test), and `key`, the booking
 * customer's key.
 */
export const test = base
  .extend('h', async ({}, { onCleanup }) => {
    const h = await startHarness({ config: { maxActiveReservations: 100 } });
    onCleanup(() => h.close());
    return h;
  })
  .extend('key', async ({ h }) => h.sb.keys.booking_write);

/** The demo customer's (dana's) fixture trips by state: one unpaid, one paid, one cancelled, one complete. */
export async function danaTrips(h: Harness, key: string) {
  const trips = TripsList.parse((await h.call('GET', '/my/trips', { key })).json.data);
  return {
    unpaid: trips.active.find((t) => t.balance_cents! > 0)!,
    paid: trips.active.find((t) => t.balance_cents === 0)!,
    cancelled: trips.history.find((t) => t.status === 'cancelled')!,
    complete: trips.history.find((t) => t.status === 'complete')!,
  };
}
