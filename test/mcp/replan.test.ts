// Never twice across an agent's re-plans (issue 34), through the MCP reserve tool on the one
// rule of src/booking: an identical request within the replay window answers the booking
// already made (replayed, its uuid, its status read now) whatever confirmation it carries;
// book_another: true books a second one and needs its own confirmation.
import { describe, expect } from 'vitest';
import { FROM, SANDBOX_NOW, TO, admin, faults, requests, reservations, test } from '../booking/sandbox.js';
import { errorOf, serve, structured, type Session } from './in-process.js';

const trip = (alias: string, extra: Record<string, unknown> = {}) => ({ car_alias: alias, date_checkin: FROM, date_checkout: TO, ...extra });
const quoted = async (s: Session, alias: string) => structured(await s.call('quote', trip(alias))).confirmation as string;
/** Both front ends on the sandbox's clock: one journal, one replay window. */
const onClock = { now: () => SANDBOX_NOW };

describe('an agent that re-plans books once', () => {
  test('host timeout: the booking is made while the host gave up; a new quote and reserve answer that booking', async ({ sb, home, alias }) => {
    const s = await serve(sb, home, onClock);
    try {
      // the first reserve is slow: the host stops waiting, the server books anyway
      await faults(sb, { kind: 'latency', operation: 'createReservation', ms: 300, times: 1 });
      const first = await s.client.callTool({ name: 'reserve', arguments: trip(alias, { confirmation: await quoted(s, alias) }) }, undefined, { timeout: 50 }).catch((e: Error) => e);
      expect(first).toBeInstanceOf(Error);
      await new Promise((r) => setTimeout(r, 600));
      const made = await reservations(sb, alias);
      expect(made).toHaveLength(1);

      const again = await s.call('reserve', trip(alias, { confirmation: await quoted(s, alias) }));
      expect(again.isError, JSON.stringify(again.content)).toBeFalsy();
      expect(structured(again)).toMatchObject({ reservation_uuid: made[0].uuid, replayed: true, status: 'new' });
      expect(structured(again).note).toMatch(/^An identical reserve already made this booking: this is that booking, not a new one; book_another: true books a second one/);
      // a replay needs no confirmation at all: it writes nothing
      expect(structured(await s.call('reserve', trip(alias)))).toMatchObject({ reservation_uuid: made[0].uuid, replayed: true });
      expect(await reservations(sb, alias)).toHaveLength(1);
    } finally {
      await s.stop();
    }
  });

  test('the status a replay reports is read now: a booking cancelled since is said so, and nothing is booked', async ({ sb, home, alias }) => {
    const s = await serve(sb, home, onClock);
    try {
      const uuid = structured(await s.call('reserve', trip(alias, { confirmation: await quoted(s, alias) }))).reservation_uuid;
      await admin(sb, 'DELETE', '/requests');
      const c = structured(await s.call('get_trip', { reservation_uuid: uuid })).cancel_confirmation;
      await s.call('cancel_reservation', { reservation_uuid: uuid, confirmation: c });
      const r = await s.call('reserve', trip(alias, { confirmation: await quoted(s, alias) }));
      expect(r.isError).toBe(true);
      expect(errorOf(r)).toMatchObject({ kind: 'conflict', reservation_uuid: uuid, status: 'cancelled' });
      expect(errorOf(r).next_step).toMatch(/book_another: true$/);
      expect(await requests(sb, 'createReservation')).toHaveLength(1);
    } finally {
      await s.stop();
    }
  });

  test('two server instances sharing one journal: the second answers the first one’s booking', async ({ sb, home, alias }) => {
    const a = await serve(sb, home, onClock);
    const b = await serve(sb, home, onClock);
    try {
      const first = structured(await a.call('reserve', trip(alias, { confirmation: await quoted(a, alias) })));
      const second = await b.call('reserve', trip(alias, { confirmation: await quoted(b, alias) }));
      expect(structured(second)).toMatchObject({ reservation_uuid: first.reservation_uuid, replayed: true, status: 'new' });
      expect(await reservations(sb, alias)).toHaveLength(1);
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  test('after a restart: the new server answers the booking the old one made', async ({ sb, home, alias }) => {
    const before = await serve(sb, home, onClock);
    const first = structured(await before.call('reserve', trip(alias, { confirmation: await quoted(before, alias) })));
    await before.stop();
    const after = await serve(sb, home, onClock);
    try {
      const again = await after.call('reserve', trip(alias, { confirmation: await quoted(after, alias) }));
      expect(structured(again)).toMatchObject({ reservation_uuid: first.reservation_uuid, replayed: true, status: 'new' });
      expect(await reservations(sb, alias)).toHaveLength(1);
    } finally {
      await after.stop();
    }
  });

  test('book_another: true books a second identical one, with its own confirmation, never with the one already spent', async ({ sb, home, alias }) => {
    const s = await serve(sb, home, onClock);
    try {
      const spent = await quoted(s, alias);
      const first = structured(await s.call('reserve', trip(alias, { confirmation: spent })));
      const reused = await s.call('reserve', trip(alias, { confirmation: spent, book_another: true }));
      expect(reused.isError).toBe(true);
      expect(errorOf(reused).message).toBe('this confirmation already booked the identical reservation: nothing was booked');
      const none = await s.call('reserve', trip(alias, { book_another: true }));
      expect(errorOf(none).message).toBe('reserve needs a confirmation: nothing was booked');
      expect(await reservations(sb, alias)).toHaveLength(1);

      const second = await s.call('reserve', trip(alias, { confirmation: await quoted(s, alias), book_another: true }));
      expect(second.isError, JSON.stringify(second.content)).toBeFalsy();
      expect(structured(second)).toMatchObject({ replayed: false, status: 'new', confirmed_by: 'confirmation' });
      expect(structured(second).reservation_uuid).not.toBe(first.reservation_uuid);
      expect(await reservations(sb, alias)).toHaveLength(2);
    } finally {
      await s.stop();
    }
  });

  test('book_another with a host that can ask: the customer is asked, and the question says a reservation already exists', async ({ sb, home, alias }) => {
    const forms: string[] = [];
    const s = await serve(sb, home, {
      ...onClock,
      elicit: (p) => {
        forms.push(p.message);
        return { action: 'accept', content: { reserve: true } };
      },
    });
    try {
      const first = structured(await s.call('reserve', trip(alias)));
      expect(forms).toHaveLength(1);
      const replay = structured(await s.call('reserve', trip(alias)));
      expect(replay).toMatchObject({ reservation_uuid: first.reservation_uuid, replayed: true });
      expect(forms).toHaveLength(1);
      const second = structured(await s.call('reserve', trip(alias, { book_another: true })));
      expect(forms).toHaveLength(2);
      expect(forms[1]).toMatch(new RegExp(`^Reserve a second identical reservation for .* Reservation ${first.reservation_uuid} already holds this car for these dates\\.`));
      expect(second).toMatchObject({ replayed: false, confirmed_by: 'elicitation' });
      expect(await reservations(sb, alias)).toHaveLength(2);
    } finally {
      await s.stop();
    }
  });
});
