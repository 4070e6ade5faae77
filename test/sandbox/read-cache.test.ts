// A car's detail and a customer's profile are served from a cache of their JSON per
// committed state, caller and sandbox-clock minute (handlers.ts, keptAnswer). What must never
// be served stale: a read after a write of this process, after the sandbox clock moved, and
// after a write by another store on the same file.
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { FIXED_NOW, type Harness, availableCar, reserve, startHarness, tempDir, tripBody } from './harness.js';

const FROM = '2026-04-14T10:00';
const TO = '2026-04-17T10:00';
let h: Harness;
let tmp: ReturnType<typeof tempDir>;
let statePath: string;

beforeEach(async () => {
  tmp = tempDir();
  statePath = join(tmp.dir, 'state.db');
  h = await startHarness({ statePath });
});
afterEach(async () => {
  await h.close();
  tmp.cleanup();
});

const detail = async (alias: string) => (await h.call('GET', `/cars/${alias}`)).json.data;

it('shows a booking another store on the same file committed', async () => {
  const car = await availableCar(h, FROM, TO);
  const uuid = await reserve(h, h.sb.keys.booking_write, tripBody(car.car_alias, FROM, TO));
  expect((await detail(car.car_alias)).blocked_ranges).not.toContainEqual({ from: FROM, to: TO, kind: 'booked' });
  const other = await startSandbox({ statePath, now: () => FIXED_NOW, quiet: true });
  try {
    const paid = await fetch(`${other.adminUrl}/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ reservation_uuid: uuid, payment_type: 'rent' }) });
    expect(paid.status).toBe(200);
  } finally {
    await other.close();
  }
  expect((await detail(car.car_alias)).blocked_ranges).toContainEqual({ from: FROM, to: TO, kind: 'booked' });
});

it('shows what the sandbox clock changed', async () => {
  const car = await availableCar(h, FROM, TO);
  const uuid = await reserve(h, h.sb.keys.booking_write, tripBody(car.car_alias, FROM, TO));
  expect((await h.admin('POST', '/pay', { reservation_uuid: uuid, payment_type: 'rent' })).status).toBe(200);
  expect((await detail(car.car_alias)).blocked_ranges).toContainEqual({ from: FROM, to: TO, kind: 'booked' });
  // past the trip's end its block is history: not a block any more
  expect((await h.admin('POST', '/clock', { now: '2026-05-01T12:00:00Z' })).status).toBe(200);
  expect((await detail(car.car_alias)).blocked_ranges).not.toContainEqual({ from: FROM, to: TO, kind: 'booked' });
});

const profile = async (key: string) => (await h.call('GET', '/my/profile', { key })).json.data;

it("shows a profile's card removed by another store on the same file, and each caller its own profile", async () => {
  const dana = h.sb.keys.booking_write;
  const omar = h.sb.keys.other_customer;
  expect((await profile(dana)).payment_methods).toHaveLength(1);
  expect((await profile(omar)).first_name).toBe('Omar');
  const other = await startSandbox({ statePath, now: () => FIXED_NOW, quiet: true });
  try {
    const removed = await fetch(`${other.adminUrl}/cards`, { method: 'DELETE', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ customer: 'dana' }) });
    expect(removed.status).toBe(200);
  } finally {
    await other.close();
  }
  expect((await profile(dana)).payment_methods).toEqual([]);
  expect((await profile(dana)).first_name).toBe('Dana');
});

it('shows a licence expired once the sandbox clock passed its date', async () => {
  const omar = h.sb.keys.other_customer;
  expect((await profile(omar)).is_approved_to_drive).toBe(true);
  expect((await h.admin('POST', '/clock', { advance_seconds: 30 * 86_400 })).status).toBe(200);
  expect((await profile(omar)).is_approved_to_drive).toBe(false);
});
