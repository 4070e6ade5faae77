// The customer is asked whenever the host can ask (issue 34): a token the agent passes does
// not stand in for the human's answer; a declined or dismissed question writes nothing; with
// the customer required and a host that cannot ask, nothing is written; a retry of a write
// already made asks nobody. One rule (src/mcp/consent.ts) for reserve and cancel_reservation.
import { afterEach, describe, expect, vi } from 'vitest';
import { TOOLS, type ToolDeps } from '../../src/mcp/tools.js';
import { FROM, TO, admin, requests, reservations, test } from '../booking/sandbox.js';
import { errorOf, serve, structured, type ServeOptions, type Session } from './in-process.js';

afterEach(() => {
  vi.restoreAllMocks();
});

type Form = { message: string; requestedSchema: any };

/** A host that declares elicitation and answers every form with `answer()`; the forms it saw. */
function askingHost(answer: () => 'yes' | 'no' | 'dismiss') {
  const forms: Form[] = [];
  const elicit: ServeOptions['elicit'] = (p) => {
    forms.push(p as Form);
    const a = answer();
    if (a === 'dismiss') return { action: 'cancel' };
    const field = Object.keys((p.requestedSchema as { properties: object }).properties)[0];
    return { action: 'accept', content: { [field]: a === 'yes' } };
  };
  return { forms, elicit };
}

/** Every call of the named tool runs with these deps changed (what server.ts would fill in). */
function withDeps(name: string, change: Partial<ToolDeps>): void {
  const tool = TOOLS.find((t) => t.name === name)!;
  const run = tool.run.bind(tool);
  vi.spyOn(tool, 'run').mockImplementation((args, deps) => run(args, { ...deps, ...change }));
}

const quote = async (s: Session, alias: string) => structured(await s.call('quote', { car_alias: alias, date_checkin: FROM, date_checkout: TO }));

describe('a host that can ask: the customer is asked, whatever token the agent passes', () => {
  test('reserve with the quote’s confirmation still asks; a no books nothing and says so; a yes books once', async ({ sb, home, alias }) => {
    let reply: 'yes' | 'no' = 'no';
    const host = askingHost(() => reply);
    const s = await serve(sb, home, { elicit: host.elicit });
    try {
      const q = await quote(s, alias);
      const args = { car_alias: alias, date_checkin: FROM, date_checkout: TO, confirmation: q.confirmation };
      const no = await s.call('reserve', args);
      expect(no.isError, JSON.stringify(no.content)).toBeFalsy();
      expect(structured(no)).toMatchObject({ sent: false, confirmed_by: 'elicitation', customer_answer: 'decline' });
      expect(structured(no).note).toBe('The customer declined the confirmation: nothing was booked.');
      expect(host.forms).toHaveLength(1);
      expect(await requests(sb, 'createReservation')).toEqual([]);

      reply = 'yes';
      const yes = await s.call('reserve', args);
      expect(structured(yes)).toMatchObject({ status: 'new', replayed: false, confirmed_by: 'elicitation' });
      expect(host.forms).toHaveLength(2);
      // the same call again (a host retry) replays that booking and asks nobody
      const again = await s.call('reserve', args);
      expect(structured(again)).toMatchObject({ reservation_uuid: structured(yes).reservation_uuid, replayed: true });
      expect(host.forms).toHaveLength(2);
      expect(await reservations(sb, alias)).toHaveLength(1);
    } finally {
      await s.stop();
    }
  });

  test('the form states the total and the deposit before the car’s name, on one line', async ({ sb, home, alias }) => {
    const host = askingHost(() => 'no');
    const s = await serve(sb, home, { elicit: host.elicit });
    try {
      const q = await quote(s, alias);
      await s.call('reserve', { car_alias: alias, date_checkin: FROM, date_checkout: TO });
      const name = structured(await s.call('get_car', { car_alias: alias })).name as string;
      const message = host.forms[0].message;
      const total = message.indexOf(`$${(q.final_total / 100).toFixed(2)}`);
      const deposit = message.indexOf(`$${(q.deposit_cents / 100).toFixed(2)} refundable deposit`);
      expect(total).toBeGreaterThan(-1);
      expect(deposit).toBeGreaterThan(total);
      expect(message.indexOf(`“${name}”`)).toBeGreaterThan(deposit);
      expect(message).toContain(`from ${FROM.replace('T', ' ')} to ${TO.replace('T', ' ')} America/Los_Angeles`);
      expect(message).not.toMatch(/\n/);
    } finally {
      await s.stop();
    }
  });

  test('cancel_reservation with get_trip’s cancel_confirmation still asks; dismissed, nothing is cancelled', async ({ sb, home, alias }) => {
    let reply: 'yes' | 'dismiss' = 'yes';
    const host = askingHost(() => reply);
    const s = await serve(sb, home, { elicit: host.elicit });
    try {
      const uuid = structured(await s.call('reserve', { car_alias: alias, date_checkin: FROM, date_checkout: TO })).reservation_uuid as string;
      const trip = structured(await s.call('get_trip', { reservation_uuid: uuid }));
      reply = 'dismiss';
      const r = await s.call('cancel_reservation', { reservation_uuid: uuid, confirmation: trip.cancel_confirmation });
      expect(structured(r)).toMatchObject({ sent: false, customer_answer: 'cancel' });
      expect(host.forms.at(-1)!.message).toMatch(
        new RegExp(`^Cancel a \\$[0-9.]+ trip with a \\$[0-9.]+ deposit: “.+”, from ${FROM.replace('T', ' ')} .* \\(reservation ${uuid}\\)\\? A cancellation fee may apply`),
      );
      expect((await requests(sb, 'cancelReservation')).filter((q) => q.path.includes(uuid))).toEqual([]);
      expect(structured(await s.call('get_trip', { reservation_uuid: uuid })).status).toBe('new');
      reply = 'yes';
      const yes = await s.call('cancel_reservation', { reservation_uuid: uuid, confirmation: trip.cancel_confirmation });
      expect(structured(yes)).toMatchObject({ status: 'cancelled', sent: true, confirmed_by: 'elicitation' });
    } finally {
      await s.stop();
    }
  });

  test('a forged token is refused before the customer is asked anything', async ({ sb, home, alias }) => {
    const host = askingHost(() => 'yes');
    const s = await serve(sb, home, { elicit: host.elicit });
    try {
      const r = await s.call('reserve', { car_alias: alias, date_checkin: FROM, date_checkout: TO, confirmation: 'x.y' });
      expect(r.isError).toBe(true);
      expect(errorOf(r).message).toBe('this confirmation is not one this server issued (or it was altered): nothing was sent');
      expect(host.forms).toEqual([]);
      expect(await requests(sb, 'createReservation')).toEqual([]);
    } finally {
      await s.stop();
    }
  });
});

describe('the customer required, a host that cannot ask', () => {
  test('reserve and cancel_reservation are refused even with valid confirmations, and nothing is written', async ({ sb, home, alias }) => {
    const s = await serve(sb, home);
    try {
      const q = await quote(s, alias);
      const booked = structured(await s.call('reserve', { car_alias: alias, date_checkin: FROM, date_checkout: TO, confirmation: q.confirmation }));
      const cancelConfirmation = structured(await s.call('get_trip', { reservation_uuid: booked.reservation_uuid })).cancel_confirmation;
      withDeps('reserve', { requireCustomer: true });
      withDeps('cancel_reservation', { requireCustomer: true });
      const q2 = await quote(s, alias);
      await admin(sb, 'DELETE', '/requests');

      // a second identical booking: refused
      const r = await s.call('reserve', { car_alias: alias, date_checkin: FROM, date_checkout: TO, confirmation: q2.confirmation, book_another: true });
      expect(r.isError).toBe(true);
      expect(errorOf(r).message).toBe("this server writes only with the customer's own answer, and this host cannot ask the customer: nothing was booked");
      const c = await s.call('cancel_reservation', { reservation_uuid: booked.reservation_uuid, confirmation: cancelConfirmation });
      expect(c.isError).toBe(true);
      expect(errorOf(c).message).toBe("this server writes only with the customer's own answer, and this host cannot ask the customer: nothing was cancelled");
      expect(errorOf(c).next_step).toMatch(/host that can show them the server’s question/);
      expect(await requests(sb, 'createReservation')).toEqual([]);
      expect(await requests(sb, 'cancelReservation')).toEqual([]);

      // a retry of the booking already made writes nothing new: it still answers it
      const again = await s.call('reserve', { car_alias: alias, date_checkin: FROM, date_checkout: TO, confirmation: q.confirmation });
      expect(structured(again)).toMatchObject({ reservation_uuid: booked.reservation_uuid, replayed: true });
    } finally {
      await s.stop();
    }
  });
});
