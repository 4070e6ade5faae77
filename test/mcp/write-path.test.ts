// The failure paths of the MCP server's reserve and cancel_reservation, in-process (so that
// mutation testing sees them): a refusal leaves nothing pending and no resume step, an
// unexpected failure is a tool error logged with its stack, a failed read after a cancel
// still reports the cancellation, and the tools check their arguments before any request.
import { join } from 'node:path';
import { afterEach, describe, expect, vi } from 'vitest';
import { Api } from '../../src/api/endpoints.js';
import { JournaledWrite } from '../../src/booking/journaled-write.js';
import { CliError } from '../../src/errors.js';
import { TOOLS } from '../../src/mcp/tools.js';
import { Journal } from '../../src/store/journal.js';
import { FROM, TO, faults, freeCars, requests, test as bookingTest } from '../booking/sandbox.js';
import { errorOf, serve, structured, type Session } from './in-process.js';

afterEach(() => {
  vi.restoreAllMocks();
});

const test = bookingTest
  .extend('journal', async ({ home }) => () => new Journal({ path: join(home.dir, 'state', 'journal.json') }))
  .extend('tripArgs', async ({ alias }) => () => ({ car_alias: alias, date_checkin: FROM, date_checkout: TO }))
  /** The trip's arguments with the confirmation a quote through the session gave. */
  .extend('confirmed', async ({ tripArgs }) => async (s: Session) => ({ ...tripArgs(), confirmation: structured(await s.call('quote', tripArgs())).confirmation as string }));

describe('MCP write path: failures', () => {
  test('a definitive refusal is a tool error without a resume step, and leaves nothing pending', async ({ sb, home, journal, confirmed }) => {
    const s = await serve(sb, home);
    try {
      const args = await confirmed(s);
      vi.spyOn(Api.prototype, 'createReservation').mockRejectedValueOnce(
        new CliError('conflict', 'Too many active reservations', { api: { status: 409, error_code: 'active_reservation_exists' } }),
      );
      const r = await s.call('reserve', args);
      expect(r.isError).toBe(true);
      expect(errorOf(r)).toMatchObject({ error_code: 'active_reservation_exists', next_step: 'the customer already has the maximum number of active reservations: list_trips shows them' });
      expect(await journal().list()).toEqual([]);
    } finally {
      await s.stop();
    }
  });

  test('a cancel whose reservation cannot be read afterwards still reports the cancellation', async ({ sb, home, confirmed }) => {
    const s = await serve(sb, home);
    try {
      const uuid = structured(await s.call('reserve', await confirmed(s))).reservation_uuid as string;
      const confirmation = structured(await s.call('get_trip', { reservation_uuid: uuid })).cancel_confirmation;
      let reads = 0;
      const original = Api.prototype.reservation;
      vi.spyOn(Api.prototype, 'reservation').mockImplementation(function (this: Api, ...args: Parameters<Api['reservation']>) {
        if (++reads === 2) return Promise.reject(new CliError('unavailable', 'read failed'));
        return original.apply(this, args);
      });
      const c = await s.call('cancel_reservation', { reservation_uuid: uuid, confirmation });
      expect(c.isError, JSON.stringify(c.content)).toBeFalsy();
      expect(structured(c)).toMatchObject({ sent: true, status: 'unknown (could not be read: call get_trip)' });
    } finally {
      await s.stop();
    }
  });

  test("an unexpected failure (not a CliError) is a tool error, logged with its stack on the server's stderr", async ({ sb, home, confirmed }) => {
    const s = await serve(sb, home);
    let stderr = '';
    try {
      const args = await confirmed(s);
      vi.spyOn(JournaledWrite.prototype, 'run').mockRejectedValueOnce(new Error('boom'));
      const r = await s.call('reserve', args);
      expect(r.isError).toBe(true);
      expect((r.content[0] as { text: string }).text).toBe('error: unexpected failure: boom');
    } finally {
      stderr = await s.stop();
    }
    expect(stderr).toMatch(/carrental mcp: reserve failed unexpectedly: Error: boom\n\s+at /);
  });

  test('a failure before anything was sent is not told to resume with a key', async ({ sb, home, confirmed }) => {
    const s = await serve(sb, home);
    try {
      const args = await confirmed(s);
      vi.spyOn(Api.prototype, 'quote').mockRejectedValueOnce(new CliError('unavailable', 'quote unreachable'));
      const r = await s.call('reserve', args);
      expect(r.isError).toBe(true);
      expect(errorOf(r).message).toBe('quote unreachable');
      expect(String(errorOf(r).next_step ?? '')).not.toContain('idempotency key');
      expect(await requests(sb, 'createReservation')).toEqual([]);
    } finally {
      await s.stop();
    }
  });

  test('a read after the booking that fails says the status is unknown, never that it is new', async ({ sb, home, confirmed }) => {
    const s = await serve(sb, home);
    try {
      const args = await confirmed(s);
      await faults(sb, { kind: 'error', operation: 'getReservation', code: 'internal_error', times: 10 });
      const r = await s.call('reserve', args);
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      expect(structured(r)).toMatchObject({ status: 'unknown (could not be read: call get_trip)' });
      expect(structured(r).next_step).toMatch(/^call get_trip with /);
    } finally {
      await s.stop();
    }
  });

  test('a CliError is not logged as unexpected, and a usage error is not told to resume', async ({ sb, home, confirmed }) => {
    const s = await serve(sb, home);
    let stderr = '';
    try {
      const args = await confirmed(s);
      vi.spyOn(JournaledWrite.prototype, 'run').mockRejectedValueOnce(new CliError('usage', 'bad input'));
      const r = await s.call('reserve', args);
      expect(r.isError).toBe(true);
      expect(String(errorOf(r).next_step)).not.toContain('idempotency key');
    } finally {
      stderr = await s.stop();
    }
    expect(stderr).not.toContain('failed unexpectedly');
  });

  test('the tools check a uuid and the dates themselves too, naming the argument, before any request', async ({ tripArgs }) => {
    const reserve = TOOLS.find((t) => t.name === 'reserve')!;
    const cancel = TOOLS.find((t) => t.name === 'cancel_reservation')!;
    await expect(reserve.run({ ...tripArgs(), date_checkin: '2026-02-30T10:00', confirmation: 'x' } as never, {} as never)).rejects.toThrow(/date_checkin/);
    await expect(cancel.run({ reservation_uuid: 'not-a-uuid', confirmation: 'x' } as never, {} as never)).rejects.toThrow(/reservation_uuid/);
  });
});
